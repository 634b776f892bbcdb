"""Family ``tabular_inputs``: pandas tables fed to Keras models.

APIs: ``fit``/``predict`` accept a ``pandas.DataFrame`` as x and convert it to one array
(``df.to_numpy()``): every column becomes one feature, in the frame's column order, so
the frame must hold exactly the model's feature columns (the target column removed) and
only numbers; a column of strings (``object`` dtype), a ``Categorical`` column, or a mix
of float and ``bool`` columns (what ``pd.get_dummies`` produces, whose ``.values`` is an
``object`` array) has no tensor dtype and must be encoded/cast first
(``astype("float32")``).  x and y must have the same number of rows (a ``dropna`` on the
features alone breaks that).  A model with several named ``keras.Input``s takes a dict
whose keys are the input names, exactly; a Sequential model has ONE input, so a dataset
built with ``from_tensor_slices((dict(df), y))`` (one tensor per column) must be
stacked into one feature tensor or fed to a model with one Input per column.  A
``pd.Series`` taken with ``df.iloc[i]`` is one row WITHOUT the batch axis
(``df.iloc[[i]]`` keeps it).  ``keras.layers.Normalization(axis=-1)`` (the default)
learns one mean/variance per column in ``adapt``; ``axis`` names the axis that is KEPT,
so ``axis=0`` learns one statistic per row of the adapted table and then only accepts
batches with that many rows; a Normalization adapted on one column (``input_shape=[1]``,
``axis=None``) belongs to a one-feature model.

Evidence a diagnosis needs: the DataFrame's columns and dtypes (which column is text,
categorical, bool or the target), the row counts of x and y and where they diverged, the
keys of a feature dict against the model's input names, the number of inputs the model
has against the structure of the data, the width the first layer expects against the
number of columns, and a Normalization layer's ``axis`` and adapted shape.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Invalid dtype: str
    Case(
        name="f9_dataframe_with_a_city_name_column_to_fit",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [25, 32, 47, 51, 38, 29],
    "city": ["Oslo", "Lima", "Oslo", "Pune", "Lima", "Pune"],
    "income": [31.0, 45.5, 52.1, 61.0, 40.2, 35.7],
})
churned = np.array([0, 1, 1, 1, 0, 0])
model = keras.Sequential([
    keras.Input((3,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(df, churned, epochs=1, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=("tf.cast",),
        fix="encode the city column (one-hot / StringLookup) before fit",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense_2' is incompatible with the layer: expected
    #   axis -1 of input shape to have value 3, but received input with shape (None, 4)
    Case(
        name="f9_price_target_left_among_the_feature_columns",
        family="tabular_inputs",
        code="""
import pandas as pd
houses = pd.DataFrame({
    "rooms": [3, 2, 4, 5, 3, 2],
    "area": [70.0, 55.0, 98.0, 120.0, 80.0, 50.0],
    "age": [10, 30, 5, 2, 20, 40],
    "price": [210.0, 150.0, 320.0, 400.0, 240.0, 130.0],
})
model = keras.Sequential([
    keras.Input((3,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(houses, houses["price"], epochs=1, verbose=0)
""",
        expect="S01",
        must=("price",),
        must_not=("shape=(4,)",),
        fix='model.fit(houses.drop(columns="price"), houses["price"])',
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    #   number of samples.'x' sizes: 4
    #   'y' sizes: 6
    Case(
        name="f9_dropna_on_the_features_but_not_on_the_target",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({
    "x1": [1.0, 2.0, np.nan, 4.0, 5.0, 6.0],
    "x2": [0.5, 0.1, 0.3, np.nan, 0.9, 0.4],
    "y": [0, 1, 0, 1, 1, 0],
})
X = df.dropna().drop(columns="y")
y = df["y"]
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(X, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("dropna",),
        must_not=("batch_size",),
        fix='clean = df.dropna(); X, y = clean.drop(columns="y"), clean["y"]',
    ),
    # ValueError: Missing data for input "age". You passed a data dictionary with keys
    #   ['Age', 'BMI', 'smoker']. Expected the following keys: ['age', 'bmi', 'smoker']
    Case(
        name="f9_feature_dict_keys_capitalised_unlike_input_names",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"age": [25.0, 32.0, 47.0, 51.0], "bmi": [22.1, 27.5, 30.2, 24.8], "smoker": [0.0, 1.0, 1.0, 0.0]})
y = np.array([0, 1, 1, 0])
inputs = {name: keras.Input(shape=(1,), name=name) for name in ["age", "bmi", "smoker"]}
x = keras.layers.Concatenate()(list(inputs.values()))
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, out)
model.compile("adam", "binary_crossentropy")
model.fit({"Age": df["age"], "BMI": df["bmi"], "smoker": df["smoker"]}, y, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message lists the keys passed and the input names expected",
        fix='use the input names as keys: {"age": ..., "bmi": ..., "smoker": ...}',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense_6' is incompatible with the layer: expected
    #   axis -1 of input shape to have value 1, but received input with shape (None, 3)
    Case(
        name="f9_horsepower_normalizer_model_fit_on_the_whole_table",
        family="tabular_inputs",
        code="""
import pandas as pd
cars = pd.DataFrame({
    "horsepower": [130.0, 165.0, 150.0, 95.0, 88.0],
    "weight": [3504.0, 3693.0, 3436.0, 2372.0, 2130.0],
    "cylinders": [8.0, 8.0, 8.0, 4.0, 4.0],
})
mpg = np.array([18.0, 15.0, 16.0, 24.0, 27.0])
hp_norm = keras.layers.Normalization(input_shape=[1], axis=None)
hp_norm.adapt(np.array(cars["horsepower"]))
model = keras.Sequential([hp_norm, keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(cars, mpg, epochs=1, verbose=0)
""",
        expect="S01",
        must=("horsepower",),
        must_not=("reshape",),
        fix='model.fit(cars["horsepower"], mpg), or adapt a Normalization on all 3 columns',
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Layer "dense_7" expects 1 input(s), but it received 3 input tensors. Inputs received: [...]
    Case(
        name="f9_dict_of_columns_dataset_into_a_sequential_model",
        family="tabular_inputs",
        code="""
import pandas as pd
df = pd.DataFrame({"age": [25.0, 32.0, 47.0, 51.0], "bmi": [22.1, 27.5, 30.2, 24.8], "smoker": [0.0, 1.0, 1.0, 0.0]})
y = np.array([0, 1, 1, 0])
ds = tf.data.Dataset.from_tensor_slices((dict(df), y)).batch(2)
model = keras.Sequential([
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S12",
        must=("dict",),
        must_not=("reshape",),
        fix="from_tensor_slices((df.to_numpy('float32'), y)), or one keras.Input per column",
    ),
    # ValueError: Invalid dtype: object
    Case(
        name="f9_get_dummies_bool_columns_make_an_object_array",
        family="tabular_inputs",
        code="""
import pandas as pd
flats = pd.DataFrame({"size": [50.0, 80.0, 65.0, 120.0], "city": ["Rome", "Oslo", "Rome", "Kyiv"]})
X = pd.get_dummies(flats, columns=["city"])
rent = np.array([100.0, 180.0, 140.0, 260.0])
model = keras.Sequential([keras.Input((X.shape[1],)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X.values, rent, epochs=1, verbose=0)
""",
        expect="S11",
        must=("bool",),
        must_not=("stringlookup", "encode the"),
        fix='X.astype("float32") (or get_dummies(..., dtype="float32"))',
    ),
    # ValueError: Exception encountered when calling Normalization.call().
    #   Dimensions must be equal, but are 3 and 4 for '{{node sequential_8_1/normalization_2_1/Sub}} = ...'
    #   with input shapes: [3,2], [4,1].
    Case(
        name="f9_normalization_axis_zero_learns_per_row_statistics",
        family="tabular_inputs",
        code="""
import pandas as pd
table = pd.DataFrame({"temp": [21.0, 25.0, 19.0, 30.0], "humidity": [40.0, 55.0, 70.0, 35.0]})
norm = keras.layers.Normalization(axis=0)
norm.adapt(table.to_numpy())
model = keras.Sequential([keras.Input((2,)), norm, keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(table.to_numpy()[:3], np.array([1.0, 2.0, 3.0]), batch_size=3, epochs=1, verbose=0)
""",
        expect="S01",
        must=("axis=",),
        must_not=("drop_remainder",),
        fix="keras.layers.Normalization(axis=-1) (one mean/variance per column)",
    ),
]
