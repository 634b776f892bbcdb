"""Tabular inputs and feature preprocessing: pandas / NumPy tables given to Keras.

The family
----------
Structured data reaches a Keras model as a pandas ``DataFrame`` or a NumPy table, or as
a dict of columns for a model with several named ``keras.Input`` s.

* ``Model.fit``/``predict`` (Keras 3) accept NumPy arrays, pandas ``DataFrame``/``Series``,
  dicts or lists of them, and ``tf.data.Dataset``.  A table becomes one array per input;
  every feature must be numeric (float/int/bool).  A ``DataFrame`` with an ``object``/
  string column cannot be converted ("could not convert string to float"), and
  ``df.values`` / ``to_numpy()`` on columns of different kinds (``bool`` dummies next to
  floats, datetimes, strings) gives an ``object`` array that Keras rejects ("Invalid dtype:
  object").  ``pd.get_dummies`` returns ``bool`` columns unless ``dtype=`` is given.
* Missing values: pandas stores them as ``NaN`` (``None`` in a string column becomes a
  float ``NaN``).  A numeric ``NaN`` is accepted and propagates: through
  ``Normalization.adapt`` (mean/variance become NaN) into every output and the loss.  A
  ``NaN`` among strings makes the column an array of mixed object types that no lookup
  layer can convert.
* ``keras.layers.Normalization(axis=-1)``: ``adapt(data)`` computes one mean and variance
  per feature of the adapted data; calling the layer on inputs with a different number of
  features fails on the subtraction of the adapted mean (shapes ``(B, n)`` against
  ``(1, m)``).  Adapt it on exactly the columns the layer will see.
* ``StringLookup`` takes strings, ``IntegerLookup`` integers; ``CategoryEncoding(num_tokens)``
  and ``Embedding(input_dim)`` take integer ids in ``[0, num_tokens)`` / ``[0, input_dim)``;
  ids that start at 1 (or ``input_dim = nunique()``) put the largest id out of range
  (``indices[..] = N is not in [0, N)`` on CPU).
* Several named inputs: ``keras.Input(shape=(1,), name="age")``; the data is a dict whose
  keys are exactly the input names (``dict(df)``, ``{name: df[name]}``); a dict with other
  keys fails with "Missing data for input".  Keys are case sensitive.
* ``tf.data.Dataset.from_tensor_slices((dict(df), y))`` yields ONE row per element (each
  feature a scalar); ``fit`` needs batches, so ``.batch(n)`` must follow, otherwise a model
  input of shape ``(None, 1)`` receives shape ``()``.
* ``keras.Input(shape=(n,))`` fixes the number of feature columns: the target column left
  in the features (``df.to_numpy()`` before dropping it) or a column lost to a separate
  ``get_dummies`` gives ``n + 1`` / ``n - 1`` columns and the first ``Dense`` rejects them.

Evidence a diagnosis needs
--------------------------
The table that was passed (column names, dtypes, which column is object/string/bool/NaN),
the model's inputs (names, shapes) and the preprocessing layers' adapted state (the shape
of ``Normalization.mean``, ``input_dim``/``num_tokens`` against the largest id); then the
fix at the right place: cast or encode the column, ``fillna``, adapt on the right columns,
drop the target, batch the dataset, match the input names, ``input_dim = max id + 1``.
"""

from tests.explain_corpus import Case

FAMILY = "tabular_inputs_and_feature_preprocessing"

CASES = [
    # ValueError: could not convert string to float: 'paris'
    Case(
        name="f30_string_city_column_in_fit_dataframe",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [25, 32, 47, 51, 38, 29],
    "income": [40.0, 52.5, 80.1, 61.0, 58.3, 45.2],
    "city": ["paris", "lyon", "paris", "nice", "lyon", "nice"],
    "bought": [0, 1, 1, 0, 1, 0],
})
features = df.drop(columns=["bought"])
model = keras.Sequential([
    keras.Input(shape=(3,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(features, df["bought"], epochs=1, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=("reshape", "batch size"),
        fix="encode the text column 'city' (StringLookup / one-hot) before fit",
    ),
    # ValueError: Invalid dtype: object
    Case(
        name="f30_get_dummies_bool_columns_make_object_values",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "rooms": [2, 3, 4, 3, 5, 2],
    "area": [55.0, 72.5, 98.0, 80.2, 120.0, 48.0],
    "district": ["north", "south", "east", "north", "east", "south"],
    "price": [210.0, 260.0, 340.0, 300.0, 420.0, 190.0],
})
X = pd.get_dummies(df.drop(columns=["price"]), columns=["district"])
X = X.values
y = df["price"].values
model = keras.Sequential([keras.Input(shape=(X.shape[1],)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(X, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("object",),
        must_not=("stringlookup", "encode the text"),
        fix="get_dummies(..., dtype='float32') or X.astype('float32')",
    ),
    # AssertionError: loss is nan
    Case(
        name="f30_nan_income_through_normalization_adapt",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "area": [55.0, 72.5, 98.0, 80.2, 120.0, 48.0, 66.0, 90.0],
    "income": [40.0, np.nan, 80.1, 61.0, 75.0, 45.2, np.nan, 52.0],
    "rooms": [2.0, 3.0, 4.0, 3.0, 5.0, 2.0, 3.0, 4.0],
})
price = np.array([210.0, 260.0, 340.0, 300.0, 420.0, 190.0, 240.0, 330.0], dtype="float32")
norm = keras.layers.Normalization()
norm.adapt(df.to_numpy(dtype="float32"))
model = keras.Sequential([keras.Input(shape=(3,)), norm, keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
history = model.fit(df, price, epochs=3, verbose=0)
assert np.isfinite(history.history["loss"][-1]), f"loss is {history.history['loss'][-1]}"
""",
        expect="N05",
        must=("income",),
        must_not=("learning rate", "clipnorm"),
        fix="fill or drop the missing 'income' values before adapt and fit",
    ),
    # InvalidArgumentError: Graph execution error:  (indices[0,0] = 5 is not in [0, 5))
    Case(
        name="f30_store_id_embedding_sized_by_nunique",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({"store_id": [1, 2, 3, 4, 5, 3, 2, 5], "visits": [10.0, 3.0, 7.0, 1.0, 9.0, 4.0, 2.0, 8.0]})
sales = np.array([5.0, 2.0, 4.0, 1.0, 6.0, 3.0, 1.5, 5.5], dtype="float32")
n_stores = df["store_id"].nunique()
store_in = keras.Input(shape=(1,), name="store_id", dtype="int32")
visits_in = keras.Input(shape=(1,), name="visits")
emb = keras.layers.Flatten()(keras.layers.Embedding(input_dim=n_stores, output_dim=4)(store_in))
x = keras.layers.Concatenate()([emb, visits_in])
model = keras.Model([store_in, visits_in], keras.layers.Dense(1)(x))
model.compile(optimizer="adam", loss="mse")
model.fit({"store_id": df["store_id"].values, "visits": df["visits"].values}, sales, epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("labels",),
        fix="input_dim = max store_id + 1 (ids start at 1), or re-index the ids",
    ),
    # ValueError: Missing data for input "age". You passed a data dictionary with keys ['Age', 'Income']. Expected the following keys: ['age', 'income']
    Case(
        name="f30_dict_of_dataframe_capitalized_keys",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({"Age": [25.0, 32.0, 47.0, 51.0], "Income": [40.0, 52.5, 80.1, 61.0]})
y = np.array([0, 1, 1, 0])
age = keras.Input(shape=(1,), name="age")
income = keras.Input(shape=(1,), name="income")
x = keras.layers.Concatenate()([age, income])
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs=[age, income], outputs=out)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(dict(df), y, epochs=1, verbose=0)
""",
        expect=None,
        must_not=("reshape", "batch"),
        unexplained="Keras' message lists the keys passed (['Age', 'Income']) and the input names "
        "it expects (['age', 'income']): the fix (rename the columns or the inputs) is in it.",
        fix="rename the columns (or the Input names) so the keys match",
    ),
    # ValueError: Exception encountered when calling Functional.call().  (Expected shape (None, 1), but input has incompatible shape ())
    Case(
        name="f30_from_tensor_slices_dict_df_not_batched",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({"age": [25.0, 32.0, 47.0, 51.0, 38.0, 29.0], "income": [40.0, 52.5, 80.1, 61.0, 58.3, 45.2]})
target = np.array([0, 1, 1, 0, 1, 0])
ds = tf.data.Dataset.from_tensor_slices((dict(df), target))
inputs = {name: keras.Input(shape=(1,), name=name) for name in df.columns}
x = keras.layers.Concatenate()(list(inputs.values()))
x = keras.layers.Dense(8, activation="relu")(x)
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, out)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("batch",),
        must_not=("expand_dims", "input(shape=()"),
        fix="ds = ds.batch(32) before fit",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (expected axis -1 of input shape to have value 4, but received input with shape (None, 5))
    Case(
        name="f30_species_target_left_in_feature_matrix",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "sepal_len": [5.1, 4.9, 6.2, 5.9, 6.7, 5.0],
    "sepal_wid": [3.5, 3.0, 2.9, 3.0, 3.1, 3.4],
    "petal_len": [1.4, 1.4, 4.3, 5.1, 5.6, 1.5],
    "petal_wid": [0.2, 0.2, 1.3, 1.8, 2.4, 0.2],
    "species": [0, 0, 1, 2, 2, 0],
})
X = df.to_numpy(dtype="float32")
y = df["species"].to_numpy()
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(X, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("species",),
        must_not=("shape=(5", "flatten"),
        fix="drop the target column: X = df.drop(columns=['species'])",
    ),
    # ValueError: Exception encountered when calling Normalization.call().  (Dimensions must be equal, but are 4 and 3 ... Sub)
    Case(
        name="f30_normalization_adapted_on_three_of_four_columns",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [25.0, 32.0, 47.0, 51.0, 38.0, 29.0],
    "income": [40.0, 52.5, 80.1, 61.0, 58.3, 45.2],
    "tenure": [1.0, 3.0, 10.0, 12.0, 5.0, 2.0],
    "has_card": [1.0, 0.0, 1.0, 1.0, 0.0, 1.0],
})
y = np.array([0, 1, 1, 1, 0, 0])
numeric = ["age", "income", "tenure"]
norm = keras.layers.Normalization()
norm.adapt(df[numeric].to_numpy())
inputs = keras.Input(shape=(4,))
x = norm(inputs)
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, out)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(df.to_numpy(), y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("adapt",),
        must_not=("batch size", "flatten"),
        fix="adapt on the same 4 columns, or normalize only the 3 numeric inputs",
    ),
]
