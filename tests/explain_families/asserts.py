"""Family: debugging asserts on shapes, ranks, types and values, and the upstream mistake they catch.

API: ``tf.debugging.assert_less`` / ``assert_non_negative`` (element-wise ``x < y`` /
``x >= 0``; eagerly ``InvalidArgumentError: message ... Condition x < y did not hold
...`` with the first offending values), ``assert_near`` (``|x - y| <= atol + rtol * |y|``,
"x and y not equal to tolerance"), ``assert_equal`` (on two tensors or on ``tf.shape(...)``
entries), ``assert_rank`` (with a static rank it raises ``ValueError`` at trace time,
including inside a ``tf.function``, a ``tf.data`` map or a layer's ``call`` while a
Functional model is built), ``assert_shapes`` (symbolic dimension names such as ``"B"``
checked across tensors; a rank or size that does not fit raises ``ValueError``),
``assert_type`` (``TypeError`` when the tensor's dtype is not the one given), and the
user's own ``assert`` on ``model.output_shape``, ``x.max()`` or ``np.allclose(...)``.
Contract: an assert only reports that a tensor is not what the next step needs; the cause
lies upstream: ids from a ``StringLookup`` are shifted by its OOV index, so the largest id
is ``len(vocabulary)``; class labels taken as they come from a source (1-based stars);
labels one-hot encoded (``to_categorical``) for a sparse loss; an output activation that
does not fit the loss (sigmoid over several exclusive classes, a linear output fed to a
probability loss); NumPy's default float64 surviving a standardization; an LSTM without
``return_sequences=True`` feeding a layer that needs the time axis; windows and targets
cut with different offsets; an activation applied twice by an export wrapper; labels of
shape ``(B,)`` broadcast against predictions of shape ``(B, 1)``.  Evidence a diagnosis
can read at the failure: the assert's message and the tensors it names (their shapes,
dtypes, the offending values), the user's code on the failing line and above it (how the
checked values were made: ``StringLookup``, ``to_categorical``, ``np.random.rand``,
slicing offsets, the wrapper model), the model's layers (activations, units, the loss),
and the data in the namespace (label range, id range, dtypes, sample counts).

Written from the Keras/TensorFlow documentation and user reports, before the rules for this
family were read. Every case was run: the exception and the first line of its message are
noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "asserts"

CASES = [
    # InvalidArgumentError: city id outside the embedding table
    # Condition x < y did not hold. First 3 elements of x: [5 4 3] ... y: [5]
    # (StringLookup puts OOV at index 0, so 'nantes' is id 5 = vocab_size = input_dim)
    Case(
        "as_stringlookup_oov_shift_assert_less_vocab_size",
        FAMILY,
        """
cities = ["paris", "lyon", "nice", "lille", "nantes"]
vocab_size = len(cities)
lookup = keras.layers.StringLookup(vocabulary=cities)
rng = np.random.default_rng(0)
visits = rng.choice(cities, (32, 6))  # last six cities each customer visited
ids = lookup(visits)
model = keras.Sequential([keras.Input((6,), dtype="int64"),
                          keras.layers.Embedding(vocab_size, 8, name="city_embedding"),
                          keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(1)])
tf.debugging.assert_less(ids, tf.constant(vocab_size, ids.dtype),
                         message="city id outside the embedding table")
model.predict(ids, verbose=0)
""",
        "S09",
        must=("oov",),
        must_not=("nan", "negative"),
        fix="Embedding(lookup.vocabulary_size(), ...): index 0 is the OOV id",
    ),
    # AssertionError: label 5 has no output unit
    # (1-based star ratings against 5 softmax units: ids must be 0..4)
    Case(
        "as_one_based_star_labels_assert_output_shape",
        FAMILY,
        """
rng = np.random.default_rng(1)
reviews = rng.random((60, 12)).astype("float32")  # review embeddings
stars = rng.integers(1, 6, 60)  # 1..5 stars, as the review site stores them
stars[0] = 5
model = keras.Sequential([keras.Input((12,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(5, activation="softmax", name="rating")])
model.compile("adam", "sparse_categorical_crossentropy")
assert stars.max() < model.output_shape[-1], f"label {stars.max()} has no output unit"
model.fit(reviews, stars, epochs=1, verbose=0)
""",
        "P12",
        must=("stars",),
        must_not=("nan", "sentinel"),
        fix="stars - 1 (class ids 0..4)",
    ),
    # ValueError: labels: one class id per example.  Tensor yb:0 must have rank 1.
    # Received rank 2, shape (16, 4)  (to_categorical labels for a sparse loss)
    Case(
        "as_to_categorical_labels_sparse_loss_assert_rank",
        FAMILY,
        """
rng = np.random.default_rng(2)
x = rng.random((48, 10)).astype("float32")
labels = rng.integers(0, 4, 48)
y_train = keras.utils.to_categorical(labels, 4)
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(4)])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = keras.optimizers.Adam()

@tf.function
def train_step(xb, yb):
    tf.debugging.assert_rank(yb, 1, message="labels: one class id per example")
    with tf.GradientTape() as tape:
        loss = loss_fn(yb, model(xb, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss

for xb, yb in tf.data.Dataset.from_tensor_slices((x, y_train)).batch(16):
    train_step(xb, yb)
""",
        "M05",
        must=("sparse",),
        must_not=("flatten", "expand_dims"),
        fix="pass the integer labels, or CategoricalCrossentropy",
    ),
    # InvalidArgumentError: Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be
    # true. Summarized data: b'genre probabilities do not sum to 1.  '
    # (sigmoid over 4 exclusive genres with categorical cross-entropy)
    Case(
        "as_sigmoid_exclusive_classes_assert_near_sum",
        FAMILY,
        """
rng = np.random.default_rng(3)
x = rng.random((40, 20)).astype("float32")
genre_ids = rng.integers(0, 4, 40)  # exactly one genre per film
y = keras.utils.to_categorical(genre_ids, 4)
model = keras.Sequential([keras.Input((20,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(4, activation="sigmoid", name="genre")])
model.compile("adam", "categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
probs = model.predict(x, verbose=0)
tf.debugging.assert_near(tf.reduce_sum(probs, axis=-1), tf.ones(len(probs)), atol=1e-3,
                         message="genre probabilities do not sum to 1")
""",
        "M03",
        must=("genre", "sigmoid"),
        must_not=("from_logits=true", "nan"),
        fix="activation='softmax' on the 'genre' layer",
    ),
    # TypeError: features must be float32.  args_0:0 must be of type tf.float32; got
    # tf.float64  (np.random + standardization keeps NumPy's float64)
    Case(
        "as_float64_standardized_features_assert_type_in_map",
        FAMILY,
        """
rng = np.random.default_rng(4)
raw = rng.random((50, 6)) * 100  # sensor readings
features = (raw - raw.mean(axis=0)) / raw.std(axis=0)
target = rng.random(50).astype("float32")

def check(x, y):
    tf.debugging.assert_type(x, tf.float32, message="features must be float32")
    return x, y

ds = tf.data.Dataset.from_tensor_slices((features, target)).map(check).batch(10)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S11",
        must=("features", "float64"),
        must_not=("string", "uint8"),
        fix="features.astype('float32')",
    ),
    # ValueError: Exception encountered when calling TimeAttention.call().
    # ... TimeAttention needs (batch, time, features).  Tensor Placeholder:0 must have
    # rank 3.  Received rank 2, shape (None, 16)  (LSTM returns only its last state)
    Case(
        "as_lstm_last_state_into_time_attention_assert_rank",
        FAMILY,
        """
class TimeAttention(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 1))
    def call(self, h):
        tf.debugging.assert_rank(h, 3, message="TimeAttention needs (batch, time, features)")
        scores = tf.nn.softmax(tf.matmul(h, self.w), axis=1)
        return tf.reduce_sum(h * scores, axis=1)
inp = keras.Input((30, 4))
h = keras.layers.LSTM(16, name="encoder_lstm")(inp)
pooled = TimeAttention(name="time_attention")(h)
model = keras.Model(inp, keras.layers.Dense(1)(pooled))
""",
        "S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape"),
        fix="LSTM(16, return_sequences=True)",
    ),
    # InvalidArgumentError: one target per window
    # Condition x == y did not hold. x: [96] y: [90]  (windows and targets cut with
    # different offsets: the horizon is left out of the window count)
    Case(
        "as_window_target_offsets_assert_equal_shape",
        FAMILY,
        """
series = np.sin(np.arange(120) / 5).astype("float32")  # hourly load
window, horizon = 24, 6
x_windows = np.stack([series[i:i + window] for i in range(len(series) - window)])
y_next = series[window + horizon:]  # the value 6 hours after each window
tf.debugging.assert_equal(tf.shape(x_windows)[0], tf.shape(y_next)[0],
                          message="one target per window")
model = keras.Sequential([keras.Input((window,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x_windows, y_next, epochs=1, verbose=0)
""",
        "S12",
        must=("96", "90"),
        must_not=("batch_size", "drop_remainder"),
        fix="range(len(series) - window - horizon + 1) and matching target offset",
    ),
    # AssertionError: serving model disagrees with the trained model
    # (the export wrapper applies a second sigmoid: outputs squeezed into [0.5, 0.73])
    Case(
        "as_export_wrapper_second_sigmoid_allclose",
        FAMILY,
        """
rng = np.random.default_rng(7)
x = rng.random((40, 8)).astype("float32")
clicked = rng.integers(0, 2, (40, 1)).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid", name="click_prob")])
model.compile("adam", "binary_crossentropy")
model.fit(x, clicked, epochs=1, verbose=0)
# serving model for the ranking service: it must return probabilities
serving = keras.Sequential([model, keras.layers.Activation("sigmoid", name="to_probability")])
assert np.allclose(serving.predict(x, verbose=0), model.predict(x, verbose=0), atol=1e-4), \\
    "serving model disagrees with the trained model"
""",
        "M08",
        must=("to_probability", "click_prob"),
        must_not=("dropout", "set_seed"),
        fix="drop the extra Activation('sigmoid') from the wrapper",
    ),
    # ValueError: one error per example.  Tensor  must have rank in (0, 1).  Received
    # rank 2, shape (8, 8)  (labels (8,) minus predictions (8, 1) broadcast to (8, 8))
    Case(
        "as_flat_targets_minus_column_predictions_assert_shapes",
        FAMILY,
        """
rng = np.random.default_rng(8)
x = rng.random((32, 5)).astype("float32")
price = rng.random(32).astype("float32")  # shape (32,)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
opt = keras.optimizers.SGD(0.01)
for xb, yb in tf.data.Dataset.from_tensor_slices((x, price)).batch(8):
    with tf.GradientTape() as tape:
        pred = model(xb, training=True)
        err = yb - pred
        tf.debugging.assert_shapes([(err, ("B",))], message="one error per example")
        loss = tf.reduce_mean(tf.square(err))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        "S08",
        must=("yb",),
        must_not=("batch_size", "drop_remainder"),
        fix="price[:, None] (or squeeze pred) so both are (B, 1)",
    ),
    # InvalidArgumentError: churn probabilities must be >= 0.
    # Condition x >= 0 did not hold element-wise: x (shape=(8, 1) dtype=float32) =
    # ['-0.89932597', ...]  (linear 'churn' output fed to BinaryCrossentropy)
    Case(
        "as_linear_output_into_bce_assert_non_negative",
        FAMILY,
        """
keras.utils.set_random_seed(9)
rng = np.random.default_rng(9)
x = rng.normal(size=(32, 6)).astype("float32")  # standardized usage features
churned = rng.integers(0, 2, (32, 1)).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, name="churn")])
bce = keras.losses.BinaryCrossentropy()
opt = keras.optimizers.Adam()
for xb, yb in tf.data.Dataset.from_tensor_slices((x, churned)).batch(8):
    with tf.GradientTape() as tape:
        probs = model(xb, training=True)
        tf.debugging.assert_non_negative(probs, message="churn probabilities must be >= 0")
        tf.debugging.assert_less_equal(probs, 1.0, message="churn probabilities must be <= 1")
        loss = bce(yb, probs)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        "M02",
        must=("churn",),
        must_not=("nan", "clip"),
        fix="activation='sigmoid' on 'churn', or BinaryCrossentropy(from_logits=True)",
    ),
]
