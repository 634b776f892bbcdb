"""Family ``tabular_inputs``: pandas DataFrames and NumPy tables fed to Keras models and preprocessing layers.

APIs: ``Model.fit``/``predict`` on a ``pd.DataFrame`` or its ``.values`` (Keras converts
the table with ``np.asarray``: every column must be numeric, a text or ``object`` column,
or a table whose columns mix ``bool`` and numbers, becomes an ``object`` array that no
tensor can hold), ``pd.get_dummies`` (makes one column per category *seen in that frame*,
so a test frame that lacks a category has fewer columns than the model's ``Input``),
functional models with several named ``keras.Input``\\ s fed a dict of columns (the dict
keys must be the input names), and the preprocessing layers that work on columns:
``Normalization`` (numeric only; ``adapt`` learns mean/variance per feature),
``StringLookup`` (strings only; a missing value read by pandas is a float ``NaN``),
``IntegerLookup``, ``CategoryEncoding`` (ids must lie in ``[0, num_tokens)``),
``Discretization`` and ``Hashing``, and ``keras.utils.FeatureSpace`` (every feature named
in ``features`` must be a key of the dict elements it is adapted on).

Evidence a diagnosis needs: the columns and their dtypes (which column is ``object`` and
what it holds), the number of columns on each side (the model's ``Input`` against the
frame), the keys of a dict of columns against the model's input names, and the range of
the ids a layer receives against its ``num_tokens``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: could not convert string to float: 'Lyon'
    Case(
        name="f19_dataframe_with_a_text_city_column_passed_to_fit",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [34, 51, 27, 45, 38, 60],
    "income": [42.0, 88.5, 31.2, 67.0, 55.4, 92.1],
    "city": ["Lyon", "Paris", "Nice", "Lyon", "Paris", "Nice"],
})
y = np.array([0, 1, 0, 1, 0, 1])
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(df, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=("reshape", "float64"),
        fix="encode 'city' (StringLookup / get_dummies) or drop it",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense_2' is incompatible with the layer: expected axis -1 of input shape to have value 4, but received input with s
    Case(
        name="f19_get_dummies_test_frame_missing_a_category_column",
        family="tabular_inputs",
        code="""
import pandas as pd
train = pd.DataFrame({"size": [1.0, 2.5, 3.1, 0.7], "color": ["red", "green", "blue", "red"]})
test = pd.DataFrame({"size": [1.9, 2.2], "color": ["red", "green"]})
x_train = pd.get_dummies(train, columns=["color"]).astype("float32")
x_test = pd.get_dummies(test, columns=["color"]).astype("float32")
model = keras.Sequential([keras.Input(shape=(x_train.shape[1],)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(x_train, np.array([1.0, 2.0, 3.0, 0.5]), epochs=1, verbose=0)
preds = model.predict(x_test, verbose=0)
""",
        expect="S01",
        must=("columns",),
        must_not=("batch axis", "flatten"),
        fix="x_test.reindex(columns=x_train.columns, fill_value=0)",
    ),
    # ValueError: Invalid dtype: str
    Case(
        name="f19_yes_no_string_label_column_as_binary_target",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "tenure": [1.0, 24.0, 5.0, 60.0, 12.0, 36.0],
    "charges": [70.5, 20.1, 89.9, 25.0, 55.3, 30.0],
    "churn": ["yes", "no", "yes", "no", "yes", "no"],
})
x = df[["tenure", "charges"]].to_numpy("float32")
y = df["churn"]
model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("churn",),
        must_not=("from_logits", "sparse"),
        fix='y = (df["churn"] == "yes").astype("float32")',
    ),
    # ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type float).
    Case(
        name="f19_stringlookup_on_a_column_with_missing_values",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"breed": ["collie", "beagle", None, "pug", "beagle"],
                   "weight": [20.0, 11.0, 8.5, 7.0, 10.2]})
lookup = keras.layers.StringLookup()
lookup.adapt(df["breed"].to_numpy())
ids = lookup(df["breed"].to_numpy())
""",
        expect="S11",
        must=("breed",),
        must_not=("num_oov_indices", "reshape"),
        fix='df["breed"].fillna("unknown") before adapt',
    ),
    # ValueError: Missing data for input "area". You passed a data dictionary with keys ['rooms', 'area_m2']. Expected the following keys: ['area', 'rooms']
    Case(
        name="f19_dict_of_columns_keyed_differently_from_input_names",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"rooms": [3.0, 4.0, 2.0, 5.0], "area_m2": [70.0, 95.0, 48.0, 130.0],
                   "price": [210.0, 300.0, 150.0, 420.0]})
rooms = keras.Input(shape=(1,), name="rooms")
area = keras.Input(shape=(1,), name="area")
h = keras.layers.Concatenate()([rooms, area])
out = keras.layers.Dense(1)(h)
model = keras.Model({"rooms": rooms, "area": area}, out)
model.compile(optimizer="adam", loss="mse")
features = {name: df[name].to_numpy("float32")[:, None] for name in ["rooms", "area_m2"]}
model.fit(features, df["price"].to_numpy("float32"), epochs=1, verbose=0)
""",
        expect=None,
        must=("area_m2",),
        must_not=("reshape", "batch axis"),
        unexplained="Keras's message names the missing input 'area', the keys passed and the keys expected",
        fix='key the dict by the input names: {"rooms": ..., "area": ...}',
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... indices[2,0] = 4 is not in [0, 4)
    Case(
        name="f19_store_id_embedding_sized_by_the_number_of_stores",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"store_id": [1, 2, 3, 4, 2, 1], "sales": [5.0, 3.0, 8.0, 1.0, 2.0, 6.0]})
n_stores = df["store_id"].nunique()
store = keras.Input(shape=(1,), dtype="int32", name="store_id")
x = keras.layers.Embedding(input_dim=n_stores, output_dim=3)(store)
x = keras.layers.Flatten()(x)
model = keras.Model(store, keras.layers.Dense(1)(x))
model.compile(optimizer="adam", loss="mse")
model.fit(df[["store_id"]].to_numpy(), df["sales"].to_numpy("float32"), epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("num_oov_indices", "batch size"),
        fix="input_dim = df.store_id.max() + 1 (5), or re-index the ids from 0",
    ),
    # ValueError: Invalid dtype: object
    Case(
        name="f19_values_of_frame_mixing_bool_and_float_columns",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "visits": [3.0, 10.0, 1.0, 7.0],
    "spend": [12.5, 80.0, 3.2, 40.1],
    "is_member": [False, True, False, True],
})
x = df.values
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, np.array([0.1, 0.9, 0.0, 0.6]), epochs=1, verbose=0)
""",
        expect="S11",
        must=("object",),
        must_not=("reshape", "batch"),
        fix='df.astype("float32").values',
    ),
    # KeyError: 'occupation'
    Case(
        name="f19_featurespace_names_a_column_the_dataset_lacks",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"age": [22.0, 41.0, 35.0, 58.0], "job": ["nurse", "clerk", "nurse", "chef"],
                   "label": [0, 1, 0, 1]})
ds = tf.data.Dataset.from_tensor_slices((dict(df[["age", "job"]]), df["label"].values)).batch(2)
space = keras.utils.FeatureSpace(
    features={
        "age": keras.utils.FeatureSpace.float_normalized(),
        "occupation": keras.utils.FeatureSpace.string_categorical(),
    },
    output_mode="concat",
)
space.adapt(ds.map(lambda x, y: x))
""",
        expect="S12",
        must=("occupation",),
        must_not=("reshape", "float32"),
        fix='name the feature "job" (the column key) in FeatureSpace',
    ),
]
