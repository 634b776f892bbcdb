"""Family ``tabular_models``: Keras models trained on tables (pandas frames, their columns, arrays made from them).

APIs: ``Model.fit``/``evaluate``/``predict`` given a ``pandas.DataFrame`` or ``Series``
(Keras converts them to arrays: every column must be numeric, a text column, which pandas
3 stores as ``str`` dtype, cannot become a tensor; a ``Series`` label becomes a
``(n, 1)`` column), ``tf.data.Dataset.from_tensor_slices`` on columns, the preprocessing
layers applied to columns (``StringLookup`` takes strings and ``IntegerLookup`` integers;
a lookup layer's output ids run over ``vocabulary_size()`` values, OOV index included, and
an ``Embedding`` after it needs ``input_dim`` of at least that size), multi-input models
fed a dict of columns (the dict keys must be the ``keras.Input`` names), frames encoded
separately for training and testing (``pd.get_dummies`` makes one column per category
*present in that frame*, so a test frame with fewer categories has fewer columns), and
labels taken from a column (a sparse loss takes integer class ids in ``[0, units)``; a
categorical loss takes one-hot rows of width ``units``; a regression target must have as
many columns as the output layer has units).

Evidence a diagnosis needs: the dtype of every column that reaches the model or a
preprocessing layer (and the column's name), the number of columns of the frame against
the input width the model was built for (and where the frame was made: ``get_dummies`` on
another frame), the dict keys against the model's input names, the label column's values
(their range against the output units, integer ids against a categorical loss) and its
width against the output, and for an ``Embedding`` the ids it actually receives (the
lookup layer's output, not the raw column).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Invalid dtype: str
    Case(
        name="f12_dataframe_with_text_city_column_passed_to_fit",
        family="tabular_models",
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [23, 35, 41, 52, 29, 60],
    "city": ["Oslo", "Rome", "Oslo", "Lima", "Rome", "Lima"],
    "income": [31.0, 48.0, 52.0, 61.0, 40.0, 70.0],
})
churned = np.array([0, 1, 1, 0, 1, 0])
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
        must_not=("float64",),
        fix="encode 'city' (one-hot / StringLookup) before fit",
    ),
    # UnimplementedError: Exception encountered when calling StringLookup.call().
    #   ... Cast int64 to string is not supported [Op:Cast]
    Case(
        name="f12_stringlookup_vocabulary_applied_to_integer_zip_codes",
        family="tabular_models",
        code="""
import pandas as pd
df = pd.DataFrame({"zip": [10115, 20095, 10115, 80331]})
lookup = keras.layers.StringLookup(vocabulary=["10115", "20095", "80331"])
zip_ids = lookup(df["zip"].to_numpy())
""",
        expect="S11",
        must=("stringlookup",),
        must_not=("float32",),
        fix="IntegerLookup for the int column (or df['zip'].astype(str))",
    ),
    # ValueError: Missing data for input "n_rooms". You passed a data dictionary with keys
    #   ['rooms', 'area']. Expected the following keys: ['area', 'n_rooms']
    Case(
        name="f12_dict_of_columns_keyed_rooms_for_input_named_n_rooms",
        family="tabular_models",
        code="""
import pandas as pd
df = pd.DataFrame({"rooms": [3.0, 4.0, 2.0, 5.0], "area": [70.0, 95.0, 48.0, 130.0]})
price = np.array([300.0, 410.0, 190.0, 620.0])
rooms = keras.Input((1,), name="n_rooms")
area = keras.Input((1,), name="area")
x = keras.layers.Concatenate()([rooms, area])
model = keras.Model({"n_rooms": rooms, "area": area}, keras.layers.Dense(1)(x))
model.compile("adam", "mse")
model.fit({col: df[col].to_numpy() for col in df.columns}, price, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="Keras's message names the input with no data ('n_rooms'), the keys passed and the keys expected",
        fix="name the Input 'rooms' (or rename the column)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense_...' is incompatible with the layer: expected
    #   axis -1 of input shape to have value 4, but received input with shape (2, 3)
    Case(
        name="f12_get_dummies_on_test_frame_missing_a_color_category",
        family="tabular_models",
        code="""
import pandas as pd
train = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                      "color": ["red", "blue", "green", "red", "blue", "green"]})
test = pd.DataFrame({"size": [2.5, 3.5], "color": ["red", "blue"]})
X_train = pd.get_dummies(train, dtype="float32")
X_test = pd.get_dummies(test, dtype="float32")
model = keras.Sequential([
    keras.Input((X_train.shape[1],)),
    keras.layers.Dense(4, activation="relu"),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(X_train, np.arange(6, dtype="float32"), epochs=1, verbose=0)
model.predict(X_test, verbose=0)
""",
        expect="S12",
        must=("get_dummies",),
        must_not=("expand_dims",),
        fix="X_test = X_test.reindex(columns=X_train.columns, fill_value=0)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    #   target.shape=(None, 1), output.shape=(None, 3)
    Case(
        name="f12_grade_column_of_class_ids_with_categorical_crossentropy",
        family="tabular_models",
        code="""
import pandas as pd
df = pd.DataFrame({"f1": np.random.rand(6), "f2": np.random.rand(6), "grade": [0, 2, 1, 1, 0, 2]})
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy", metrics=["accuracy"])
model.fit(df[["f1", "f2"]], df["grade"], epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("binary_crossentropy",),
        fix='loss="sparse_categorical_crossentropy" (or one-hot the grade column)',
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Received a label value of 3 which is outside the valid range of [0, 3).
    Case(
        name="f12_star_ratings_one_to_three_as_sparse_labels",
        family="tabular_models",
        code="""
import pandas as pd
df = pd.DataFrame({"x1": np.random.rand(6), "x2": np.random.rand(6), "stars": [1, 3, 2, 3, 1, 2]})
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(df[["x1", "x2"]].to_numpy("float32"), df["stars"].to_numpy(), epochs=1, verbose=0)
""",
        expect="P12",
        must=("3",),
        must_not=("from_logits",),
        fix="df['stars'] - 1 (labels 0..2)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... indices[...] = 4 is not in [0, 4)  (node .../embedding_.../GatherV2)
    Case(
        name="f12_embedding_sized_to_store_count_after_integerlookup_oov",
        family="tabular_models",
        code="""
import pandas as pd
df = pd.DataFrame({"store": [101, 205, 101, 333, 412, 205]})
lookup = keras.layers.IntegerLookup()
lookup.adapt(df["store"].to_numpy())
model = keras.Sequential([
    keras.Input((1,), dtype="int64"),
    lookup,
    keras.layers.Embedding(input_dim=df["store"].nunique(), output_dim=2),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
model.predict(df[["store"]].to_numpy(), verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("413",),
        fix="Embedding(input_dim=lookup.vocabulary_size(), ...)",
    ),
    # ValueError: Dimensions must be equal, but are 3 and 2 for '{{node compile_loss/mse/sub}} = Sub[T=DT_FLOAT](...)'
    #   with input shapes: [?,3], [?,2].
    Case(
        name="f12_two_unit_regression_fit_on_frame_minus_two_columns",
        family="tabular_models",
        code="""
import pandas as pd
df = pd.DataFrame(np.random.rand(8, 5), columns=["sqft", "rooms", "age", "price", "rent"]).astype("float32")
model = keras.Sequential([
    keras.Input((3,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(2),
])
model.compile("adam", "mse")
model.fit(df[["sqft", "rooms", "age"]], df.drop(columns=["sqft", "rooms"]), epochs=1, verbose=0)
""",
        expect="S07",
        must=("mse",),
        must_not=("dense(3",),
        fix='y = df[["price", "rent"]]',
    ),
]
