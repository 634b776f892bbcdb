"""Family: tabular inputs and feature preprocessing (pandas / NumPy tables given to Keras).

The APIs and their documented contract:

- ``model.fit(x, y)`` / ``predict`` / ``evaluate`` take NumPy arrays, tensors, dicts or
  lists of them, or a ``tf.data.Dataset``.  Keras 3 converts NumPy arrays by their dtype:
  only numeric (float, int, bool) arrays are accepted; an ``object`` array (what
  ``df.values`` / ``df.to_numpy()`` returns as soon as the frame mixes a string, ``str``,
  ``category``, ``datetime64`` or ``bool`` column with float columns) fails with
  ``ValueError: Invalid dtype: object`` before any layer runs.  ``pd.get_dummies`` returns
  ``bool`` indicator columns (pandas >= 2) unless ``dtype=float`` is given, so
  ``get_dummies(...)`` next to float columns makes the whole table ``object``.
- ``keras.Input(shape=(n,))``: the model takes rows of exactly ``n`` features; a table with
  another number of columns fails at the first layer ("expected axis -1 of input shape to
  have value n, but received input with shape (None, m)").  The target column must be
  dropped from the features (``df.drop(columns=target)``); a table with one more column
  than ``n`` most often still holds the target.
- ``keras.layers.Normalization(axis=-1)``: ``adapt(data)`` learns one mean and variance per
  feature of ``data`` (its last axis); the layer then only takes inputs with that many
  features.  ``adapt`` must see the same columns the model gets (not the target, not an
  id column); ``adapt`` on a DataFrame with a string column fails.
- ``keras.layers.StringLookup`` / ``IntegerLookup`` map strings / integers to indices
  (``output_mode="int"`` / ``"one_hot"`` / ``"multi_hot"``), ``CategoryEncoding(num_tokens)``
  one-hot encodes ids in ``[0, num_tokens)``.  The lookup layers need the column's own
  type (strings for ``StringLookup``) and no missing values (``None``/``NaN`` in a string
  column is a float among strings).
- Several named inputs: ``keras.Input(shape=(1,), name="age")`` etc.; ``fit`` then takes a
  dict keyed by those input names (``dict(df)``, ``{name: df[name]}``), matched by exact
  name (case-sensitive); a missing key fails with "Missing data for input".
  ``tf.data.Dataset.from_tensor_slices((dict(df), y))`` yields one row per element (each
  feature a scalar ``()``): the dataset must be batched (``.batch(n)``) before ``fit``,
  otherwise each input gets shape ``()`` where the model expects ``(None, 1)``.
- Missing values: ``NaN``/``None`` in a numeric column become ``NaN`` in the float array;
  a ``NaN`` input makes the outputs and the loss ``NaN`` (``TerminateOnNaN`` stops the
  run).  Fix with ``fillna``/imputation or dropping the rows, before ``fit``.
- Labels: the loss casts ``y`` to float; string labels (``"yes"``/``"no"``) fail with
  "Cast string to float is not supported" in the loss; they must be encoded as 0/1
  (or class ids) first.

The evidence a diagnosis needs: the dtype of each column (which column is ``object``,
``str``, ``bool``, ``datetime``), the number of columns against ``Input(shape=(n,))`` and
the name of the extra column, the features ``adapt`` saw, the keys of a dict input against
the names of the model's inputs, whether a dataset is batched, where a ``NaN`` sits in the
data, and whether it is the features or the labels that have the wrong dtype.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "tabular_inputs_and_feature_preprocessing"

CASES = [
    # ValueError: Invalid dtype: object
    Case(
        name="f31_df_values_with_city_string_column",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "age": [23.0, 35.0, 41.0, 52.0, 29.0, 60.0],
    "city": ["Oslo", "Lima", "Oslo", "Kyiv", "Lima", "Kyiv"],
    "income": [3.1, 4.2, 5.0, 2.2, 3.8, 4.9],
})
y = np.array([0, 1, 1, 0, 1, 0])
X = df.values
model = keras.Sequential([
    keras.Input(shape=(3,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(X, y, epochs=2, verbose=0)
""",
        expect="S11",
        must=("city",),
        must_not=("reshape", "input_shape"),
        fix="encode the 'city' column (StringLookup / one-hot) and pass float32 features",
    ),
    # ValueError: Invalid dtype: object
    Case(
        name="f31_get_dummies_bool_columns_make_object_table",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "sqft": [50.0, 80.0, 120.0, 65.0, 95.0, 70.0],
    "color": ["red", "blue", "red", "green", "blue", "green"],
    "price": [1.0, 2.1, 3.2, 1.4, 2.6, 1.7],
})
features = pd.get_dummies(df.drop(columns="price"), columns=["color"])
X = features.to_numpy()
model = keras.Sequential([keras.Input(shape=(X.shape[1],)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(X, df["price"].to_numpy(), epochs=2, verbose=0)
""",
        expect="S11",
        must=("bool",),
        must_not=("stringlookup",),
        fix="pd.get_dummies(..., dtype='float32') or features.astype('float32')",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    Case(
        name="f31_price_target_left_in_feature_matrix",
        family=FAMILY,
        code="""
import pandas as pd
rng = np.random.default_rng(0)
df = pd.DataFrame(rng.random((16, 5)).astype("float32"),
                  columns=["rooms", "area", "age", "distance", "price"])
X = df.to_numpy()
y = df["price"].to_numpy()
model = keras.Sequential([
    keras.Input(shape=(4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
model.fit(X, y, epochs=2, verbose=0)
""",
        expect="S01",
        must=("price",),
        must_not=("shape=(5",),
        fix="X = df.drop(columns='price').to_numpy()",
    ),
    # ValueError: Exception encountered when calling Normalization.call().
    Case(
        name="f31_normalization_adapted_on_frame_with_target",
        family=FAMILY,
        code="""
import pandas as pd
rng = np.random.default_rng(1)
df = pd.DataFrame(rng.random((16, 4)).astype("float32"), columns=["a", "b", "c", "target"])
norm = keras.layers.Normalization()
norm.adapt(df.to_numpy())
features = df.drop(columns="target").to_numpy()
inputs = keras.Input(shape=(3,))
outputs = keras.layers.Dense(1)(norm(inputs))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="mse")
model.fit(features, df["target"].to_numpy(), epochs=2, verbose=0)
""",
        expect="S01",
        must=("adapt",),
        must_not=("shape=(4",),
        fix="norm.adapt(features) on the three feature columns only",
    ),
    # AssertionError: training diverged
    Case(
        name="f31_missing_rooms_value_nan_loss",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "rooms": [2, 3, None, 4, 3, 2, 5, 3],
    "area": [40.0, 65.0, 80.0, 95.0, 70.0, 45.0, 120.0, 60.0],
    "price": [1.2, 1.9, 2.4, 2.8, 2.0, 1.3, 3.5, 1.8],
})
X = df[["rooms", "area"]].to_numpy("float32")
y = df["price"].to_numpy("float32")
model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
history = model.fit(X, y, epochs=2, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
assert not np.isnan(history.history["loss"][-1]), "training diverged"
""",
        expect="N05",
        must=("nan",),
        must_not=("learning rate", "clipnorm"),
        fix="fill or drop the missing 'rooms' value (df.fillna / dropna) before fit",
    ),
    # ValueError: Exception encountered when calling Functional.call().
    Case(
        name="f31_from_tensor_slices_dict_frame_not_batched",
        family=FAMILY,
        code="""
import pandas as pd
rng = np.random.default_rng(2)
df = pd.DataFrame({"age": rng.random(8).astype("float32"), "fare": rng.random(8).astype("float32")})
y = rng.integers(0, 2, 8)
ds = tf.data.Dataset.from_tensor_slices((dict(df), y))
age = keras.Input(shape=(1,), name="age")
fare = keras.Input(shape=(1,), name="fare")
x = keras.layers.Concatenate()([age, fare])
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model({"age": age, "fare": fare}, out)
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S01",
        must=("batch",),
        must_not=("expand_dims",),
        fix="ds = ds.batch(4) before fit",
    ),
    # ValueError: Missing data for input "age". You passed a data dictionary with keys ['Age', 'fare']. Expected the following keys: ['age', 'fare']
    Case(
        name="f31_dict_frame_column_case_differs_from_input_name",
        family=FAMILY,
        code="""
import pandas as pd
rng = np.random.default_rng(3)
df = pd.DataFrame({
    "Age": rng.random(8).astype("float32"),
    "fare": rng.random(8).astype("float32"),
    "survived": rng.integers(0, 2, 8),
})
age = keras.Input(shape=(1,), name="age")
fare = keras.Input(shape=(1,), name="fare")
x = keras.layers.Concatenate()([age, fare])
model = keras.Model([age, fare], keras.layers.Dense(1, activation="sigmoid")(x))
model.compile(optimizer="adam", loss="binary_crossentropy")
y = df.pop("survived")
model.fit(dict(df), y, epochs=1, verbose=0)
""",
        expect=None,
        unexplained=(
            "Keras names the missing input 'age', the keys that came (['Age', 'fare']) and "
            "the keys it expects: the fix (rename the column or the Input) is in the message."
        ),
        fix="rename the column to 'age' (or the Input to 'Age')",
    ),
    # UnimplementedError: Graph execution error:
    Case(
        name="f31_yes_no_string_labels_in_loss",
        family=FAMILY,
        code="""
import pandas as pd
rng = np.random.default_rng(4)
df = pd.DataFrame({
    "x1": rng.random(6),
    "x2": rng.random(6),
    "label": ["yes", "no", "yes", "no", "no", "yes"],
})
model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(df[["x1", "x2"]].to_numpy("float32"), df["label"].to_numpy(), epochs=1, verbose=0)
""",
        expect="S11",
        must=("label", "string"),
        must_not=("x1",),
        fix="encode the labels: (df['label'] == 'yes').astype('float32')",
    ),
]
