"""Family: more debugging checks in notebooks, and the upstream mistake each one catches.

API: ``tf.ensure_shape(x, shape)`` (in a ``tf.data`` map it merges ``shape`` with the
static shape while tracing, at run time it raises ``InvalidArgumentError: Shape of
tensor ... is not compatible with expected shape ...``); ``tf.debugging.assert_rank``
(a static rank that differs raises ``ValueError`` at once, eagerly or while tracing);
``tf.debugging.assert_equal`` / ``assert_less`` (element-wise ``x == y`` / ``x < y``,
eagerly ``InvalidArgumentError: message ... Condition x == y did not hold ...`` with
the first offending values); ``tf.debugging.assert_type`` (``TypeError`` when the
tensor's dtype is not the one given); ``tf.debugging.check_numerics`` in a layer's
``call`` (``InvalidArgumentError: message : Tensor had -Inf values``, the node is under
the layer's name scope); ``np.testing.assert_allclose`` (``AssertionError: Not equal to
tolerance``, with the mismatching values); the user's plain ``assert`` on
``X.shape[0] == y.shape[0]``, ``not np.isnan(X).any()`` or ``ids.max() < n``.
Contract: the check is right and only reports the symptom; the cause is upstream and
is one of: an image resized to another size than the one the pipeline promises; a
dataset iterated without ``.batch()``, so each element lacks the batch axis; a
prediction column ``(n, 1)`` subtracted from targets ``(n,)`` (broadcast to ``(n, n)``);
a constant column standardized by its zero std (0 / 0 = NaN); ``log`` of count
features that hold 0; an output layer sized ``labels.max()`` instead of
``labels.max() + 1``; ``tf.strings.to_number`` left at its float32 default for ids;
rows dropped from the features but not from the targets; a ``-1`` "unlabeled" marker
turned into an all-zero ``tf.one_hot`` row; raw database ids used as Embedding rows.
Evidence a diagnosis could read at the failure: the check's message and the values it
compared (shapes, dtypes, ranges, the first offending values), the cell's lines that
made them (``tf.image.resize`` size, ``from_tensor_slices`` without ``batch``,
``model.predict``, ``df.std()``, ``tf.math.log``, ``labels.max()``, ``to_number``,
``dropna``, ``tf.one_hot``), the model's layers (units, names, ``Embedding.input_dim``)
and the data in the namespace (NaN per column, zero-std columns, label and id ranges,
row counts).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "asserts_more"

CASES = [
    # ValueError: Dimension 0 in both shapes must be equal, but are 224 and 128. Shapes
    # are [224,224,3] and [128,128,3]. for '{{node EnsureShape}} = EnsureShape[...]'
    # (the map resizes to a hard-coded 128 while the pipeline and model use IMG_SIZE=224)
    Case(
        "as2_resize_to_128_ensure_shape_224",
        FAMILY,
        """
IMG_SIZE = 224  # the classifier below was built for 224 x 224 inputs
rng = np.random.default_rng(10)
photos = rng.integers(0, 256, (24, 96, 96, 3)).astype("uint8")
kinds = rng.integers(0, 3, 24)

def preprocess(img, label):
    img = tf.image.resize(img, (128, 128)) / 255.0
    img = tf.ensure_shape(img, (IMG_SIZE, IMG_SIZE, 3))
    return img, label

ds = tf.data.Dataset.from_tensor_slices((photos, kinds)).map(preprocess).batch(8)
model = keras.Sequential([keras.Input((IMG_SIZE, IMG_SIZE, 3)),
                          keras.layers.Conv2D(8, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(3)])
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)
""",
        "S07",
        must=("128", "224"),
        must_not=("py_function", "output_signature"),
        fix="tf.image.resize(img, (IMG_SIZE, IMG_SIZE))",
    ),
    # ValueError: expected (batch, time, sensors).  Tensor  must have rank 3.  Received
    # rank 2, shape (24, 3)  (train_ds is shuffled but never batched: one window per step)
    Case(
        "as2_unbatched_train_ds_custom_loop_assert_rank",
        FAMILY,
        """
rng = np.random.default_rng(11)
windows = rng.random((64, 24, 3)).astype("float32")  # 24 hours of 3 sensors
next_load = rng.random((64, 1)).astype("float32")
train_ds = tf.data.Dataset.from_tensor_slices((windows, next_load)).shuffle(64)
model = keras.Sequential([keras.Input((24, 3)), keras.layers.LSTM(16), keras.layers.Dense(1)])
opt = keras.optimizers.Adam(1e-3)
for xb, yb in train_ds:
    tf.debugging.assert_rank(xb, 3, message="expected (batch, time, sensors)")
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        "S12",
        must=("train_ds", "batch"),
        must_not=("return_sequences", "conv1d"),
        fix="train_ds = ....shuffle(64).batch(16)",
    ),
    # AssertionError: Not equal to tolerance rtol=1e-07, atol=0.0001 / hand-computed MAE
    # disagrees with Keras ... Max absolute difference among violations: 0.81264114
    # (y_val (40,) minus pred (40, 1) broadcasts to (40, 40): every pair is compared)
    Case(
        "as2_manual_mae_column_predictions_assert_allclose",
        FAMILY,
        """
rng = np.random.default_rng(12)
x_val = rng.random((40, 4)).astype("float32")
w_true = np.array([1.0, 2.0, -1.0, 0.5], dtype="float32")
y_val = x_val @ w_true  # shape (40,)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, name="price")])
model.compile("adam", "mse", metrics=["mae"])
# sanity check of the evaluation code: give the model the exact solution first
model.get_layer("price").set_weights([w_true[:, None], np.zeros(1, "float32")])
pred = model.predict(x_val, verbose=0)
mae_manual = np.abs(y_val - pred).mean()
_, mae_keras = model.evaluate(x_val, y_val, verbose=0)
np.testing.assert_allclose(mae_manual, mae_keras, atol=1e-4,
                           err_msg="hand-computed MAE disagrees with Keras")
""",
        "S08",
        must=("y_val", "pred"),
        must_not=("dropout", "set_seed"),
        fix="pred[:, 0] (or y_val[:, None]) before subtracting",
    ),
    # AssertionError: NaN in the standardized features
    # (after keeping plant 3 only, plant_id is constant: std 0, so (x - mean) / std = 0/0)
    Case(
        "as2_constant_plant_id_column_std_isnan_assert",
        FAMILY,
        """
import pandas as pd
rng = np.random.default_rng(13)
all_plants = pd.DataFrame({"temp": rng.normal(20, 5, 120), "pressure": rng.normal(1013, 8, 120),
                           "plant_id": rng.integers(1, 5, 120), "load": rng.random(120)})
df = all_plants[all_plants["plant_id"] == 3]  # model for plant 3 only
features = df[["temp", "pressure", "plant_id"]]
X = ((features - features.mean()) / features.std()).to_numpy("float32")
assert not np.isnan(X).any(), "NaN in the standardized features"
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, df["load"].to_numpy("float32"), epochs=1, verbose=0)
""",
        "N05",
        must=("plant_id", "std"),
        must_not=("fillna", "dropna"),
        fix="drop the constant plant_id column (or divide by std + eps)",
    ),
    # InvalidArgumentError: Graph execution error: ... log of the click counts : Tensor had
    # Inf values [[{{node functional_N/log_counts_1/CheckNumerics}}]]
    # (tf.math.log of click counts that are 0 on some days gives -inf)
    Case(
        "as2_log_of_zero_counts_layer_check_numerics",
        FAMILY,
        """
class LogCounts(keras.layers.Layer):
    def call(self, x):
        return tf.debugging.check_numerics(tf.math.log(x), "log of the click counts")

rng = np.random.default_rng(14)
clicks = rng.poisson(2.0, (48, 5)).astype("float32")  # clicks on each of the last 5 days
clicks[0, 0] = 0.0
bought = rng.integers(0, 2, (48, 1)).astype("float32")
inp = keras.Input((5,))
h = LogCounts(name="log_counts")(inp)
out = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model(inp, out)
model.compile("adam", "binary_crossentropy")
model.fit(clicks, bought, epochs=1, batch_size=16, verbose=0)
""",
        "N01",
        must=("log_counts", "log"),
        must_not=("learning rate", "gradient"),
        fix="tf.math.log1p(x) (log of 1 + count)",
    ),
    # InvalidArgumentError: every label needs an output unit
    # Condition x < y did not hold. First 3 elements of x: [0 9 4] ... y: [9]
    # (num_classes = labels.max() is 9 for the ten digits 0..9: the 'digit' head is one short)
    Case(
        "as2_num_classes_from_max_label_assert_less",
        FAMILY,
        """
rng = np.random.default_rng(15)
x = rng.random((60, 16)).astype("float32")  # 4x4 digit thumbnails, flattened
labels = rng.integers(0, 10, 60, dtype="int32")
labels[:2] = [0, 9]
num_classes = int(labels.max())
model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(num_classes, activation="softmax", name="digit")])
model.compile("adam", "sparse_categorical_crossentropy")
tf.debugging.assert_less(labels, model.output_shape[-1],
                         message="every label needs an output unit")
model.fit(x, labels, epochs=1, verbose=0)
""",
        "M04",
        must=("digit",),
        must_not=("subtract", "1-based"),
        fix="num_classes = labels.max() + 1",
    ),
    # TypeError: user ids must be integers.  StringToNumber:0 must be of type tf.int64;
    # got tf.float32  (tf.strings.to_number returns float32 unless out_type is given)
    Case(
        "as2_to_number_default_float_ids_assert_type",
        FAMILY,
        """
rng = np.random.default_rng(16)
# lines of the exported CSV: user_id,minutes_watched
lines = tf.constant([f"{u},{m:.1f}" for u, m in zip(rng.integers(0, 50, 40), rng.random(40) * 90)])

def parse(line):
    fields = tf.strings.split(line, ",")
    user_id = tf.strings.to_number(fields[0])
    tf.debugging.assert_type(user_id, tf.int64, message="user ids must be integers")
    minutes = tf.strings.to_number(fields[1])
    return user_id, minutes

ds = tf.data.Dataset.from_tensor_slices(lines).map(parse).batch(8)
model = keras.Sequential([keras.Input((), dtype="int64"), keras.layers.Embedding(50, 4),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S11",
        must=("to_number", "user_id"),
        must_not=("float64", "astype"),
        fix="tf.strings.to_number(fields[0], out_type=tf.int64)",
    ),
    # AssertionError: 35 feature rows but 40 prices
    # (dropna() on the feature columns only: the 5 rows without year_built stay in y)
    Case(
        "as2_dropna_on_features_only_shape_assert",
        FAMILY,
        """
import pandas as pd
rng = np.random.default_rng(17)
houses = pd.DataFrame({"sqft": rng.normal(1500, 300, 40), "rooms": rng.integers(1, 6, 40),
                       "year_built": rng.integers(1950, 2020, 40).astype("float64"),
                       "price": rng.normal(300, 50, 40)})
houses.loc[::8, "year_built"] = np.nan  # unknown for some listings
X = houses[["sqft", "rooms", "year_built"]].dropna().to_numpy("float32")
y = houses["price"].to_numpy("float32")
assert X.shape[0] == y.shape[0], f"{X.shape[0]} feature rows but {y.shape[0]} prices"
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(X, y, epochs=1, verbose=0)
""",
        "S12",
        must=("dropna",),
        must_not=("batch_size", "drop_remainder"),
        fix="houses = houses.dropna() before splitting X and y",
    ),
    # InvalidArgumentError: each example needs exactly one class
    # Condition x == y did not hold. Indices of first 3 different values: [[4] [17] [31]]
    # (tf.one_hot maps the -1 "skipped" marker to an all-zero row)
    Case(
        "as2_minus_one_unlabeled_one_hot_assert_equal",
        FAMILY,
        """
rng = np.random.default_rng(18)
x = rng.random((50, 8)).astype("float32")
labels = rng.integers(0, 3, 50)
labels[[4, 17, 31]] = -1  # -1: the annotator skipped the item
y = tf.one_hot(labels, 3)
tf.debugging.assert_equal(tf.reduce_sum(y, axis=-1), tf.ones(len(labels)),
                          message="each example needs exactly one class")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        "P12",
        must=("-1", "labels"),
        must_not=("sparse_categorical", "from_logits"),
        fix="drop (or mask) the rows whose label is -1",
    ),
    # AssertionError: movie id 4993 outside the table of 16
    # (raw MovieLens-style ids 1..4993 used as rows of an Embedding with 16 rows)
    Case(
        "as2_raw_movie_ids_as_embedding_rows_assert",
        FAMILY,
        """
rng = np.random.default_rng(19)
catalog = np.array([1, 2, 3, 6, 10, 32, 47, 50, 110, 296, 318, 356, 480, 593, 2571, 4993])
n_movies = len(catalog)
movie_id = rng.choice(catalog, 64)
movie_id[0] = 4993
rating = rng.integers(1, 6, 64).astype("float32")
model = keras.Sequential([keras.Input((1,), dtype="int32"),
                          keras.layers.Embedding(n_movies, 8, name="movie_embedding"),
                          keras.layers.Flatten(), keras.layers.Dense(1)])
assert movie_id.max() < n_movies, f"movie id {movie_id.max()} outside the table of {n_movies}"
model.compile("adam", "mse")
model.fit(movie_id[:, None], rating, epochs=1, verbose=0)
""",
        "S09",
        must=("movie_id", "4993"),
        must_not=("oov", "padding"),
        fix="re-index: np.searchsorted(catalog, movie_id) or IntegerLookup",
    ),
]
