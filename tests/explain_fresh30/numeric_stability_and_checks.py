"""Numeric stability and checks: NaN/Inf made by user code, and the checks that catch them.

The family
----------
* Domains: ``tf.math.log(x)`` is ``-inf`` at 0 and NaN below; ``tf.sqrt(x)`` is NaN below 0
  and its gradient ``1 / (2 sqrt(x))`` is ``inf`` at 0 (a Euclidean distance of two equal
  vectors gives a NaN gradient through ``0 * inf``); ``tf.pow(x, 0.5)`` is NaN for x < 0;
  ``x / y`` is ``inf``/NaN where ``y == 0`` (a per-batch standard deviation of a constant
  feature); ``tf.exp`` overflows float32 above ~88.7 and float16 above ~11; float16
  holds at most 65504, so raw features such as salaries overflow when a
  ``mixed_float16`` layer casts them.  NumPy ``np.log(0)`` gives ``-inf`` with only a
  RuntimeWarning.
* A hand-written softmax (``exp(z) / sum(exp(z))``) overflows to ``inf / inf = NaN`` on
  large logits; a hand-written cross-entropy ``-sum(y * log(p))`` is NaN where ``p == 0``
  (``0 * -inf``).  ``tf.nn.softmax``, ``log_softmax``, ``softmax_cross_entropy_with_logits``
  and the Keras losses (which clip probabilities to ``[eps, 1 - eps]``) are the stable forms.
* NaN in the data (features or labels, e.g. missing values of a CSV) makes the loss NaN
  from the first batch whatever the learning rate; a too large learning rate makes a
  finite loss grow until it overflows (``inf``, then NaN) over a few steps.
* Checks: ``tf.debugging.check_numerics(t, message)`` and ``assert_all_finite`` raise
  ``InvalidArgumentError`` "<message> : Tensor had NaN values" (or "Inf and NaN");
  ``assert_non_negative``/``assert_less``/``assert_near`` raise on their conditions;
  ``tf.debugging.enable_check_numerics()`` raises at the first op that produces a
  non-finite value.  ``keras.callbacks.TerminateOnNaN`` stops ``fit`` at the first NaN/Inf
  batch loss ("Invalid loss, terminating training"); ``history.history["loss"]`` then ends
  with it, and a user's ``assert np.isfinite(...)`` fails.

Evidence a diagnosis needs
--------------------------
WHERE the first non-finite value appeared: in the inputs or labels (then the data is the
cause, not the optimizer), in a layer's output with finite inputs (name the layer and the
op: the division, the ``pow``, the float16 cast), in the loss on the first step (the loss
formula: log of 0, exp overflow), in the gradients while the loss was still finite (sqrt at
0), or in a loss that grew over steps (the learning rate).  The hint follows that place: clean
the data, add an epsilon / clip / use the stable op, keep the float16 inputs scaled, lower
the learning rate.
"""

from tests.explain_corpus import Case

FAMILY = "numeric_stability_and_checks"

CASES = [
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} cross-entropy loss : Tensor had NaN values [Op:CheckNumerics] name:
    Case(
        name="f30_handwritten_cross_entropy_log_of_zero_probability",
        family=FAMILY,
        code="""
x = np.random.rand(16, 4).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 16), 3)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="relu")])
def cross_entropy(y_true, y_prob):
    return -tf.reduce_mean(tf.reduce_sum(y_true * tf.math.log(y_prob), axis=-1))
with tf.GradientTape() as tape:
    out = model(x)
    probs = out / tf.reduce_sum(out, axis=-1, keepdims=True)
    loss = cross_entropy(y, probs)
tf.debugging.check_numerics(loss, "cross-entropy loss")
""",
        expect="G05",
        must=("log",),
        must_not=("learning rate", "nonfinite-input"),
        fix="softmax output and keras.losses.categorical_crossentropy (or clip before log)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} triplet loss : Tensor had NaN values [Op:CheckNumerics] name:
    Case(
        name="f30_triplet_sqrt_distance_nan_gradient_duplicate_anchor",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
encoder = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8)])
anchor = np.random.rand(16, 4).astype("float32")
positive = anchor + 0.05 * np.random.rand(16, 4).astype("float32")
positive[:4] = anchor[:4]
negative = np.random.rand(16, 4).astype("float32")
def distance(a, b):
    return tf.sqrt(tf.reduce_sum(tf.square(a - b), axis=1))
optimizer = keras.optimizers.SGD(0.01)
for step in range(3):
    with tf.GradientTape() as tape:
        ea, ep, en = encoder(anchor), encoder(positive), encoder(negative)
        loss = tf.reduce_mean(tf.maximum(distance(ea, ep) - distance(ea, en) + 5.0, 0.0))
    grads = tape.gradient(loss, encoder.trainable_variables)
    optimizer.apply_gradients(zip(grads, encoder.trainable_variables))
tf.debugging.check_numerics(loss, "triplet loss")
""",
        expect="G03",
        must=("sqrt",),
        must_not=("learning rate", "nonfinite-input"),
        fix="tf.sqrt(tf.maximum(sum_sq, 1e-12)) (or add an epsilon inside the sqrt)",
    ),
    # AssertionError: loss: [nan]
    Case(
        name="f30_log_of_zero_prices_feature_is_minus_inf",
        family=FAMILY,
        code="""
prices = np.array([120.0, 0.0, 95.0, 310.0, 0.0, 150.0, 87.0, 240.0], dtype="float32")
sqm = np.array([50.0, 30.0, 42.0, 110.0, 25.0, 60.0, 40.0, 90.0], dtype="float32")
x = np.stack([np.log(prices), sqm / 100.0], axis=1)
y = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0], dtype="float32")
model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
history = model.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
assert np.isfinite(history.history["loss"][-1]), f"loss: {history.history['loss']}"
""",
        expect="N05",
        must=("inf",),
        must_not=("learning rate", "clipnorm"),
        fix="np.log1p(prices) (or drop/replace the zero prices)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} salary model output : Tensor had Inf and NaN values [Op:CheckNumerics] name:
    Case(
        name="f30_mixed_float16_raw_salaries_overflow",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
keras.mixed_precision.set_global_policy("mixed_float16")
salaries = np.random.uniform(30000, 120000, size=(16, 3)).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(3,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, dtype="float32"),
])
pred = model(salaries)
tf.debugging.assert_all_finite(pred, "salary model output")
""",
        expect="N01",
        must=("float16",),
        must_not=("nonfinite-input", "learning rate"),
        fix="scale the salaries (Normalization / divide by 1e5) before the float16 layers",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} model output : Tensor had NaN values [Op:CheckNumerics] name:
    Case(
        name="f30_batch_standardize_layer_divides_by_zero_std",
        family=FAMILY,
        code="""
class BatchStandardize(keras.layers.Layer):
    def call(self, x):
        mean = tf.reduce_mean(x, axis=0, keepdims=True)
        std = tf.math.reduce_std(x, axis=0, keepdims=True)
        return (x - mean) / std

x = np.random.rand(16, 3).astype("float32")
x[:, 2] = 1.0
inputs = keras.Input(shape=(3,))
h = BatchStandardize(name="batch_standardize")(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(h))
out = model(x)
tf.debugging.check_numerics(out, "model output")
""",
        expect="N01",
        must=("batch_standardize",),
        must_not=("nonfinite-input", "learning rate"),
        fix="divide by (std + 1e-6), or use a Normalization layer",
    ),
    # AssertionError: loss: [nan, nan]
    Case(
        name="f30_handwritten_softmax_exp_overflow_in_loss",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(1)
x = np.random.rand(32, 4).astype("float32") * 100
y = keras.utils.to_categorical(np.random.randint(0, 3, 32), 3)
def softmax_cross_entropy(y_true, logits):
    exp = tf.exp(logits)
    probs = exp / tf.reduce_sum(exp, axis=-1, keepdims=True)
    return -tf.reduce_sum(y_true * tf.math.log(probs), axis=-1)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3)])
model.compile(optimizer="sgd", loss=softmax_cross_entropy)
history = model.fit(x, y, epochs=2, verbose=0)
assert np.isfinite(history.history["loss"][-1]), f"loss: {history.history['loss']}"
""",
        expect="G05",
        must=("exp",),
        must_not=("learning rate", "nonfinite-input"),
        fix="keras.losses.CategoricalCrossentropy(from_logits=True) (or subtract the max logit)",
    ),
    # AssertionError: loss: [nan]
    Case(
        name="f30_missing_prices_in_regression_labels",
        family=FAMILY,
        code="""
import pandas as pd
df = pd.DataFrame({
    "area": [55.0, 72.5, 98.0, 80.2, 120.0, 48.0, 66.0, 90.0],
    "rooms": [2.0, 3.0, 4.0, 3.0, 5.0, 2.0, 3.0, 4.0],
    "price": [2.1, 2.6, np.nan, 3.0, 4.2, 1.9, np.nan, 3.3],
})
x = df[["area", "rooms"]].to_numpy(dtype="float32") / 100.0
y = df["price"].to_numpy(dtype="float32")
model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
history = model.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
assert np.isfinite(history.history["loss"][-1]), f"loss: {history.history['loss']}"
""",
        expect="N05",
        must=("label",),
        must_not=("learning rate", "clipnorm"),
        fix="drop the rows with a missing price (df.dropna(subset=['price']))",
    ),
    # AssertionError: loss: [3972351632867328.0, 7.89691389417915e+26, inf]
    Case(
        name="f30_sgd_learning_rate_too_high_loss_overflows",
        family=FAMILY,
        code="""
keras.utils.set_random_seed(0)
x = np.random.rand(64, 5).astype("float32") * 10
y = x @ np.arange(1, 6, dtype="float32") * 100
model = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
history = model.fit(x, y, epochs=5, batch_size=16, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
assert np.isfinite(history.history["loss"][-1]), f"loss: {history.history['loss']}"
""",
        expect="G05",
        must=("learning",),
        must_not=("nonfinite-input", "dropna"),
        fix="lower the learning rate (and scale x and y)",
    ),
]
