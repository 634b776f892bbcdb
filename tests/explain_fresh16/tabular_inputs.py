"""Family ``tabular_inputs``: pandas DataFrames and table columns fed to Keras models and preprocessing layers.

APIs: ``model.fit``/``predict`` accept a DataFrame as ``x`` by converting it to one NumPy
array (``df.to_numpy()``): every column must be numeric, and one ``object``, ``category``,
nullable ``Int64``/``boolean`` or string column turns the whole array into ``object``
dtype, which cannot become a tensor; the number of columns must equal the model's input
width, so the label column has to be dropped from the features; ``predict`` wants a batch
(``df.iloc[[i]]``), a single row (``df.iloc[i]``, a Series) has no batch axis.  A model with
several named ``keras.Input``s takes a dict whose keys are the inputs' names (``dict(df)``
or ``{name: df[name]}``), each value of shape ``(n,)`` or ``(n, 1)`` to match its ``Input``.
``tf.data.Dataset.from_tensor_slices(dict(df))`` converts each column to a tensor (string
columns must hold only strings, no ``None``/``NaN``).  Preprocessing layers have typed
contracts: ``StringLookup`` takes strings, ``IntegerLookup`` integers, ``CategoryEncoding``
ids in ``[0, num_tokens)``, ``Normalization`` numbers; ``keras.utils.FeatureSpace`` is
configured with the dataset's column names.

Evidence a diagnosis needs: the DataFrame's columns with their dtypes (which column is
not numeric, which holds missing values), the number of columns against the model's
input width and which column is extra (the label), the keys of a dict of columns against
the names of the model's ``Input``s, the preprocessing layer with its expected dtype or
range against the column that reached it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: could not convert string to float: 'Lyon'
    Case(
        name="f16_dataframe_with_a_text_city_column_into_fit",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "rooms": [3, 2, 4, 5, 3, 2],
    "area": [72.0, 51.5, 98.0, 120.0, 80.5, 45.0],
    "city": ["Lyon", "Paris", "Lyon", "Nice", "Paris", "Nice"],
})
price = np.array([210.0, 340.0, 260.0, 410.0, 300.0, 190.0], dtype="float32")
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(df, price, epochs=1, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=('astype("float32")',),
        fix="encode city (one-hot / StringLookup) or drop it before fit",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected axis -1 of input shape to have value 4, but received input with sha ...
    Case(
        name="f16_label_column_left_in_the_feature_frame",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame(np.random.rand(20, 5).astype("float32"), columns=["f1", "f2", "f3", "f4", "churned"])
df["churned"] = (df["churned"] > 0.5).astype("float32")
train = df.iloc[:16]
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(train, train["churned"], epochs=1, verbose=0)
""",
        expect="S12",
        must=("churned",),
        must_not=("reshape", "flatten"),
        fix='x = train.drop(columns=["churned"])',
    ),
    # ValueError: Missing data for input "age". You passed a data dictionary with keys ['Age', 'Income']. Expected the following ...
    Case(
        name="f16_dict_of_columns_keys_differ_from_input_names",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "Age": np.array([34, 51, 27, 45, 38, 60], dtype="float32"),
    "Income": np.array([42.0, 88.5, 31.0, 67.0, 55.0, 91.0], dtype="float32"),
})
y = np.array([0, 1, 0, 1, 0, 1], dtype="float32")
age = keras.Input(shape=(1,), name="age")
income = keras.Input(shape=(1,), name="income")
merged = keras.layers.Concatenate()([age, income])
out = keras.layers.Dense(1, activation="sigmoid")(merged)
model = keras.Model({"age": age, "income": income}, out)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(dict(df), y, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message names the missing input and lists the keys passed ('Age', 'Income') and expected ('age', 'income')",
        fix="rename the columns to the Input names (df.columns = df.columns.str.lower())",
    ),
    # TypeError: FeatureSpace.adapt.<locals>.<lambda>() takes 1 positional argument but 2 were given
    Case(
        name="f16_feature_space_adapted_on_features_and_labels",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": np.array([25, 40, 33, 58, 47, 29], dtype="float32"),
    "job": ["nurse", "clerk", "nurse", "chef", "clerk", "chef"],
    "defaulted": [0, 1, 0, 1, 1, 0],
})
labels = df.pop("defaulted")
train_ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(2)
feature_space = keras.utils.FeatureSpace(
    features={"age": "float_normalized", "job": "string_categorical"},
    output_mode="concat",
)
feature_space.adapt(train_ds)
""",
        expect="S12",
        must=("adapt",),
        must_not=("reshape", "padded_batch"),
        fix="feature_space.adapt(train_ds.map(lambda x, y: x)) (features only)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   indices[...] = 6 is not in [0, 6)
    Case(
        name="f16_store_id_embedding_sized_by_count_of_one_based_ids",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "store_id": [1, 2, 3, 4, 5, 6, 2, 6],
    "promo": np.array([0, 1, 1, 0, 0, 1, 0, 1], dtype="float32"),
})
units = np.array([12, 30, 25, 9, 14, 40, 11, 38], dtype="float32")
n_stores = df["store_id"].nunique()
store = keras.Input(shape=(1,), name="store_id", dtype="int32")
promo = keras.Input(shape=(1,), name="promo")
emb = keras.layers.Flatten()(keras.layers.Embedding(input_dim=n_stores, output_dim=3, name="store_embedding")(store))
out = keras.layers.Dense(1)(keras.layers.Concatenate()([emb, promo]))
model = keras.Model({"store_id": store, "promo": promo}, out)
model.compile(optimizer="adam", loss="mse")
model.fit({"store_id": df["store_id"].to_numpy(), "promo": df["promo"].to_numpy()}, units, epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("batch size", "reshape"),
        fix="input_dim = df.store_id.max() + 1 (ids start at 1), or re-index the ids from 0",
    ),
    # ValueError: Exception encountered when calling Functional.call().
    #   Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected axis -1 of input shape to have value 3, but received input with sha ...
    Case(
        name="f16_predict_on_one_dataframe_row_without_batch_axis",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame(np.random.rand(10, 3).astype("float32"), columns=["temp", "humidity", "wind"])
inputs = keras.Input((3,))
x = keras.layers.Dense(4, activation="relu")(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(x))
model.predict(df.iloc[0], verbose=0)
""",
        expect="S12",
        must=("series",),
        must_not=("expand_dims(x, -1)", "flatten"),
        fix="model.predict(df.iloc[[0]]) (a one-row frame)",
    ),
    # ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type float).
    Case(
        name="f16_from_tensor_slices_dict_with_missing_strings",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "plan": ["basic", "pro", None, "basic", "team"],
    "seats": np.array([1, 5, 2, 1, 12], dtype="int64"),
})
labels = np.array([0, 1, 0, 0, 1])
ds = tf.data.Dataset.from_tensor_slices((dict(df), labels)).batch(2)
""",
        expect="S11",
        must=("plan",),
        must_not=('astype("float32")',),
        fix='df["plan"].fillna("unknown") before from_tensor_slices',
    ),
    # ValueError: Invalid dtype: boolean
    Case(
        name="f16_nullable_boolean_column_makes_object_features",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": np.array([25, 40, 33, 58, 47, 29], dtype="float32"),
    "smoker": pd.array([True, False, None, True, False, False], dtype="boolean"),
    "bmi": np.array([22.1, 27.5, 24.0, 31.2, 26.3, 23.8], dtype="float32"),
})
cost = np.array([1.2, 2.3, 1.8, 4.0, 2.9, 1.5], dtype="float32")
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(df, cost, epochs=1, verbose=0)
""",
        expect="S11",
        must=("smoker",),
        must_not=("reshape",),
        fix='df["smoker"].fillna(False).astype("float32")',
    ),
]
