"""Family ``pandas_and_tables``: pandas DataFrames and Series given to Keras and ``tf.data``.

APIs: ``Model.fit``/``evaluate``/``predict`` and ``tf.data.Dataset.from_tensor_slices``
accept a DataFrame or Series and convert it with ``np.asarray``: every column must then
be numeric (a ``str``, ``category``, ``datetime64`` or mixed-type column gives an
``object``/``str``/``datetime`` array that no tensor dtype holds), the frame's columns
become the feature axis in the frame's own order (so a label column left in, or dummy
columns that differ between train and test, change the feature count the first layer was
built for), and ``dict(df)`` maps column names to arrays, which a functional model matches
against its ``Input`` names and a single-input model cannot take at all.  ``df.values`` of
columns of different dtypes (bool next to float) is an ``object`` array.  A missing value
turns an integer column into float with ``NaN``, which an ``Embedding`` casts to a huge
negative id.  The preprocessing layers' ``adapt`` takes an array, a tensor or a dataset:
iterating a DataFrame yields its column *names*, not rows.  ``categorical_crossentropy``
takes one-hot labels of the output's width; a one-column frame of class ids needs
``sparse_categorical_crossentropy``.

Evidence a diagnosis needs: the frame (or array) that reached Keras, the dtype of each
column and which column holds strings, dates, categories or NaN, the column names against
the model's ``Input`` names and the first layer's expected width, and where the array came
from (``df.values``, ``pd.get_dummies`` on the test frame, ``dict(df)``, the whole frame
given to ``adapt``).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Invalid dtype: str
    Case(
        name="f10_string_city_column_in_feature_frame_given_to_fit",
        family="pandas_and_tables",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [23, 35, 41, 52],
    "city": ["Oslo", "Rome", "Oslo", "Lima"],
    "income": [3.1, 4.5, 5.2, 6.0],
})
y = np.array([0, 1, 1, 0])
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(df, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=("batch axis", "reshape"),
        fix="encode the city column (StringLookup or pd.get_dummies) before fit",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 ... of layer 'dense' is incompatible with the layer: expected axis -1 of input
    #   shape to have value 3, but received input with shape (None, 4)
    Case(
        name="f10_churn_target_column_left_in_the_feature_frame",
        family="pandas_and_tables",
        code="""
import pandas as pd
df = pd.DataFrame({
    "tenure": np.random.rand(8),
    "charges": np.random.rand(8),
    "calls": np.random.rand(8),
    "churn": [0, 1] * 4,
})
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(df, df["churn"], epochs=1, verbose=0)
""",
        expect="S01",
        must=("churn",),
        must_not=("input(shape=(4", "input((4"),
        fix='model.fit(df.drop(columns="churn"), df["churn"])',
    ),
    # ValueError: Missing data for input "age_in". You passed a data dictionary with keys
    #   ['age', 'income']. Expected the following keys: ['age_in', 'income_in']
    Case(
        name="f10_dict_of_frame_keys_differ_from_functional_input_names",
        family="pandas_and_tables",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": np.random.rand(8).astype("float32"),
    "income": np.random.rand(8).astype("float32"),
})
y = np.array([0, 1] * 4)
age = keras.Input((1,), name="age_in")
income = keras.Input((1,), name="income_in")
merged = keras.layers.Concatenate()([age, income])
model = keras.Model([age, income], keras.layers.Dense(1, activation="sigmoid")(merged))
model.compile("adam", "binary_crossentropy")
model.fit(dict(df), y, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message names the missing input key and lists the keys passed and the keys expected",
        fix='name the Inputs "age" and "income" (or rename the columns)',
    ),
    # ValueError: Arguments `target` and `output` must have the same shape.
    #   Received: target.shape=(None, 1), output.shape=(None, 3)
    Case(
        name="f10_one_column_species_frame_as_labels_for_categorical_softmax",
        family="pandas_and_tables",
        code="""
import pandas as pd
df = pd.DataFrame({
    "petal_len": np.random.rand(9),
    "petal_wid": np.random.rand(9),
    "species": [0, 1, 2] * 3,
})
X = df[["petal_len", "petal_wid"]]
y = df[["species"]]
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(X, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse_categorical_crossentropy",),
        must_not=("dense(1", "sigmoid"),
        fix='loss="sparse_categorical_crossentropy" (or one-hot the species column)',
    ),
    # ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type float).
    Case(
        name="f10_values_of_frame_with_bool_column_is_object_array",
        family="pandas_and_tables",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [23.0, 35.0, 41.0, 52.0],
    "member": [True, False, True, True],
    "visits": [3, 5, 1, 7],
})
spend = np.array([1.0, 2.0, 3.0, 4.0], dtype="float32")
ds = tf.data.Dataset.from_tensor_slices((df.values, spend)).batch(2)
""",
        expect="S11",
        must=("object",),
        must_not=("stringlookup", "text column"),
        fix='df.to_numpy(dtype="float32") (or df.astype("float32").values)',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 ... of layer 'dense' is incompatible with the layer: expected axis -1 of input
    #   shape to have value 4, but received input with shape (2, 3)
    Case(
        name="f10_get_dummies_on_test_frame_lacks_the_blue_column",
        family="pandas_and_tables",
        code="""
import pandas as pd
train = pd.DataFrame({"color": ["red", "green", "blue", "red"], "size": [1.0, 2.0, 3.0, 4.0]})
test = pd.DataFrame({"color": ["red", "green"], "size": [2.0, 3.0]})
X_train = pd.get_dummies(train, dtype="float32")
X_test = pd.get_dummies(test, dtype="float32")
model = keras.Sequential([keras.Input((X_train.shape[1],)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X_train, np.array([1.0, 2.0, 3.0, 4.0]), epochs=1, verbose=0)
model.predict(X_test, verbose=0)
""",
        expect="S01",
        must=("get_dummies",),
        must_not=("input(shape=(3", "input((3"),
        fix="X_test = X_test.reindex(columns=X_train.columns, fill_value=0)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... indices[..,0] = -2147483643 is not in [0, 5) [[{{node sequential_1/embedding_1/GatherV2}}]]
    Case(
        name="f10_missing_user_id_becomes_nan_before_embedding",
        family="pandas_and_tables",
        code="""
import pandas as pd
ratings = pd.DataFrame({
    "user_id": [3, 1, None, 2, 4, 0],
    "rating": [4.0, 3.5, 5.0, 2.0, 1.0, 3.0],
})
model = keras.Sequential([
    keras.Input((1,)),
    keras.layers.Embedding(5, 4),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(ratings[["user_id"]], ratings["rating"], epochs=1, verbose=0)
""",
        expect="N05",
        must=("nan",),
        must_not=("max id + 1",),
        fix="drop or fill the missing user_id (dropna / fillna with a reserved id)",
    ),
    # TypeError: adapt() expects an iterable that yields arrays or tensors with a `.shape`
    #   attribute (e.g. numpy arrays or backend tensors). Got an element of type str. ...
    Case(
        name="f10_normalization_adapt_iterates_dataframe_column_names",
        family="pandas_and_tables",
        code="""
import pandas as pd
df = pd.DataFrame({"age": [23.0, 35.0, 41.0, 52.0], "income": [31.0, 48.0, 52.0, 61.0]})
norm = keras.layers.Normalization()
norm.adapt(df)
""",
        expect="S12",
        must=("dataframe",),
        must_not=("stringlookup", "encode"),
        fix="norm.adapt(df.to_numpy())",
    ),
]
