"""Family ``tabular_inputs``: pandas DataFrames and Keras preprocessing layers on table columns.

APIs: ``fit``/``predict`` take a DataFrame as one float array (``df.to_numpy()``): every
column must be numeric, so a text, ``category`` or nullable ``Int64`` column (pandas' NA)
must be encoded or filled and cast first, and the number and order of the columns must be
those the model was built for (the label column dropped from *every* split, test included).
A multi-input functional model takes a dict keyed by its ``Input`` names (``dict(df)``
passes every column, with its own spelling).  ``tf.data.Dataset.from_tensor_slices(dict(df))``
gives elements that are dicts of scalars, the label column among them, unless it is popped
and passed as ``(dict(df), labels)``.  ``keras.utils.FeatureSpace.adapt`` takes a dataset of
feature dicts only (``ds.map(lambda x, y: x)``).  ``StringLookup`` indexes strings and
``IntegerLookup`` integers (a zip code stored as an int needs ``IntegerLookup``, or a cast to
str).  sklearn's ``train_test_split(X, y)`` returns ``X_train, X_test, y_train, y_test`` in
that order.

Evidence a diagnosis needs: the DataFrame's columns and dtypes (which column is text,
category, nullable), the columns the model was fitted on against those passed now (the
label column left in), the keys of a dict against the model's ``Input`` names, the element
structure of a dataset made from ``dict(df)``, the dtype a lookup layer expects against the
column's dtype, and which arrays came from which output of a split (sizes 40 vs 10).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Invalid dtype: category
    Case(
        name="f17_dataframe_with_category_city_column_into_fit",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [23, 35, 41, 52, 29, 33],
    "city": ["Oslo", "Rome", "Oslo", "Lima", "Rome", "Lima"],
    "income": [31.0, 48.5, 52.0, 61.2, 40.0, 45.5],
})
df["city"] = df["city"].astype("category")
y = np.array([0, 1, 1, 0, 1, 0])
model = keras.Sequential([
    keras.Input((3,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(df, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=("float64",),
        fix="encode city (cat.codes, one-hot or StringLookup) before fit",
    ),
    # ValueError: Invalid dtype: Int64
    Case(
        name="f17_nullable_int64_age_column_with_missing_value",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": pd.array([23, None, 41, 52], dtype="Int64"),
    "score": [0.2, 0.5, 0.1, 0.9],
})
y = np.array([0, 1, 1, 0])
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(df, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("age",),
        must_not=("stringlookup", "encode the text"),
        fix="df['age'].fillna(df['age'].median()).astype('float32')",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # The structure of `inputs` doesn't match the expected structure. Expected: keras_tensor_36 Received: inputs={'x1': ..., 'x2': ..., 'target': ...}
    Case(
        name="f17_dataset_from_dict_df_keeps_target_column_in_features",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "x1": np.random.rand(10),
    "x2": np.random.rand(10),
    "target": np.random.randint(0, 2, 10),
})
ds = tf.data.Dataset.from_tensor_slices(dict(df)).batch(4)
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("target",),
        must_not=("reshape", "padded_batch"),
        fix="labels = df.pop('target'); from_tensor_slices((df.values, labels))",
    ),
    # ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type int).
    Case(
        name="f17_stringlookup_adapted_on_integer_zip_codes",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"zip": [1010, 2020, 3030, 1010, 2020], "rent": [900, 1200, 800, 950, 1100]})
zip_lookup = keras.layers.StringLookup(output_mode="one_hot")
zip_lookup.adapt(df["zip"].values)
""",
        expect="S11",
        must=("integerlookup",),
        must_not=("float32",),
        fix="keras.layers.IntegerLookup, or df['zip'].astype(str)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'dense_4' is incompatible with the layer: expected axis -1 of input shape to have value 4, but received input with shape (6, 5)
    Case(
        name="f17_predict_on_test_frame_that_still_has_price_column",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame(np.random.rand(30, 5), columns=["a", "b", "c", "d", "price"])
train, test = df.iloc[:24], df.iloc[24:]
model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(train.drop(columns=["price"]), train["price"], epochs=1, verbose=0)
preds = model.predict(test, verbose=0)
""",
        expect="S12",
        must=("price",),
        must_not=("keras.input((5", "input_shape=(5"),
        fix="model.predict(test.drop(columns=['price']))",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same number of samples.'x' sizes: 40
    Case(
        name="f17_train_test_split_outputs_unpacked_in_wrong_order",
        family="tabular_inputs",
        code="""
import pandas as pd
from sklearn.model_selection import train_test_split
df = pd.DataFrame(np.random.rand(50, 4).astype("float32"), columns=["f1", "f2", "f3", "f4"])
df["label"] = np.random.randint(0, 2, 50)
X = df.drop(columns=["label"]).values
y = df["label"].values
X_train, y_train, X_test, y_test = train_test_split(X, y, test_size=0.2)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(X_train, y_train, epochs=1, verbose=0)
""",
        expect="S12",
        must=("train_test_split",),
        must_not=("reshape", "batch_size"),
        fix="X_train, X_test, y_train, y_test = train_test_split(...)",
    ),
    # TypeError: FeatureSpace.adapt.<locals>.<lambda>() takes 1 positional argument but 2 were given
    Case(
        name="f17_featurespace_adapt_on_dataset_with_labels",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": np.random.rand(12).astype("float32"),
    "color": np.array(["red", "green", "blue"] * 4),
})
y = np.random.randint(0, 2, 12)
feature_space = keras.utils.FeatureSpace(
    features={"age": "float_normalized", "color": "string_categorical"},
    output_mode="concat",
)
ds = tf.data.Dataset.from_tensor_slices((dict(df), y)).batch(4)
feature_space.adapt(ds)
""",
        expect="S12",
        must=("label",),
        must_not=("unbatch", "padded_batch"),
        fix="feature_space.adapt(ds.map(lambda x, y: x))",
    ),
    # ValueError: Missing data for input "age". You passed a data dictionary with keys ['Age', 'Income']. Expected the following keys: ['age', 'income']
    Case(
        name="f17_dict_of_capitalized_columns_for_lowercase_inputs",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "Age": np.random.rand(8).astype("float32"),
    "Income": np.random.rand(8).astype("float32"),
})
y = np.random.randint(0, 2, 8)
age = keras.Input((1,), name="age")
income = keras.Input((1,), name="income")
merged = keras.layers.Concatenate()([age, income])
out = keras.layers.Dense(1, activation="sigmoid")(merged)
model = keras.Model({"age": age, "income": income}, out)
model.compile("adam", "binary_crossentropy")
model.fit(dict(df), y, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message names the missing input and lists the keys passed and the keys expected",
        fix="df.columns = df.columns.str.lower()",
    ),
]
