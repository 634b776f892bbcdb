"""Family: numeric stability and checks (NaN/Inf made by user code, and the checks that catch it).

The APIs and their documented contract:

- Math ops and their domains: ``tf.math.log(x)`` is ``-inf`` at 0 and ``NaN`` below;
  ``tf.sqrt(x)`` is ``NaN`` below 0 and its gradient ``0.5 / sqrt(x)`` is ``inf`` at 0 (so
  ``sqrt`` of a loss that reaches 0, or ``tf.norm`` of a zero vector, gives ``NaN``
  gradients); ``tf.pow(x, 0.5)`` is ``NaN`` for negative ``x``; ``tf.exp(x)`` overflows to
  ``inf`` above ~88.7 in float32 and above ~11.1 in float16 (largest float16: 65504);
  ``a / b`` is ``inf``/``NaN`` where ``b`` is 0 (a batch standard deviation of a single
  example, a constant column).  ``inf / inf``, ``inf - inf`` and ``0 * inf`` are ``NaN``.
- Hand-written softmax / cross-entropy: ``exp(z) / sum(exp(z))`` overflows for large
  logits (subtract ``max(z)`` first, or ``tf.nn.softmax``); ``log(sigmoid(z))`` is
  ``-inf`` once the sigmoid saturates to exactly 0 or 1 in float32 (use
  ``keras.losses.BinaryCrossentropy(from_logits=True)`` /
  ``tf.nn.sigmoid_cross_entropy_with_logits``, or clip with an epsilon).
- Checks: ``tf.debugging.check_numerics(t, message)`` raises ``InvalidArgumentError``
  ("<message> : Tensor had NaN values" / "Inf values"); ``assert_all_finite`` likewise;
  ``assert_non_negative``, ``assert_less``, ``assert_near`` raise ``InvalidArgumentError``
  with the condition that failed; ``tf.debugging.enable_check_numerics()`` makes every op
  check its outputs and raise at the FIRST op that produced ``inf``/``NaN`` (naming the op,
  e.g. ``"Log"``, and showing its input), until ``disable_check_numerics()``.
- ``keras.callbacks.TerminateOnNaN()`` stops ``fit`` at the first batch whose loss is
  ``NaN`` or ``inf`` ("Invalid loss, terminating training"); ``history.history["loss"]``
  then holds ``nan``.
- Mixed precision: under ``keras.mixed_precision.set_global_policy("mixed_float16")``
  layers compute in float16; the documented advice is to keep the model's output layer
  (and any ``exp``/softmax at the end) in float32 (``dtype="float32"``).
- Input data: ``NaN``/``inf`` already in ``x`` (``np.log`` of a zero count, a ``map`` that
  takes ``sqrt``/``pow`` of negative values) make the first layer's output and the loss
  non-finite; a lower learning rate or gradient clipping does not help.

The evidence a diagnosis needs: where the first non-finite value appears (the input data,
a layer's output -- which layer, and whether its inputs were finite --, the loss, a
gradient), the op that produced it and the values it got (zeros into ``log``, negatives
into ``sqrt``/``pow``, large logits into ``exp``, a float16 overflow, a zero divisor), and
that the learning rate had no part in it (the failure is on the first step).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "numeric_stability_and_checks"

CASES = [
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} softmax output : Tensor had NaN values [Op:CheckNumerics] name:
    Case(
        name="f31_handwritten_softmax_layer_exp_overflow",
        family=FAMILY,
        code="""
class MySoftmax(keras.layers.Layer):
    def call(self, z):
        e = tf.exp(z)
        return e / tf.reduce_sum(e, axis=-1, keepdims=True)

keras.utils.set_random_seed(0)
pixels = np.random.randint(0, 256, size=(8, 16)).astype("float32")
inputs = keras.Input(shape=(16,))
logits = keras.layers.Dense(3)(inputs)
model = keras.Model(inputs, MySoftmax()(logits))
probs = model(pixels)
tf.debugging.assert_all_finite(probs, "softmax output")
""",
        expect="N01",
        must=("my_softmax",),
        must_not=("learning rate", "nonfinite-input"),
        fix="subtract the max logit before exp (or tf.nn.softmax), and scale the pixels",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} bce loss : Tensor had NaN values [Op:CheckNumerics] name:
    Case(
        name="f31_manual_bce_log_of_saturated_sigmoid",
        family=FAMILY,
        code="""
rng = np.random.default_rng(0)
x = (rng.standard_normal((16, 4)) * 20).astype("float32")
y = (x[:, :1] > 0).astype("float32")
w = tf.Variable(tf.ones((4, 1)))
with tf.GradientTape() as tape:
    p = tf.sigmoid(x @ w)
    loss = -tf.reduce_mean(y * tf.math.log(p) + (1 - y) * tf.math.log(1 - p))
tf.debugging.check_numerics(loss, "bce loss")
grads = tape.gradient(loss, [w])
""",
        expect="G05",
        must=("log",),
        must_not=("learning rate",),
        fix="tf.nn.sigmoid_cross_entropy_with_logits on x @ w (or clip p with an epsilon)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} gradient : Tensor had NaN values [Op:CheckNumerics] name:
    Case(
        name="f31_rmse_loss_sqrt_at_zero_nan_gradient",
        family=FAMILY,
        code="""
x = np.random.rand(8, 3).astype("float32")
y = np.zeros((8, 1), "float32")
dense = keras.layers.Dense(1, kernel_initializer="zeros")
with tf.GradientTape() as tape:
    pred = dense(x)
    rmse = tf.sqrt(tf.reduce_mean(tf.square(y - pred)))
grads = tape.gradient(rmse, dense.trainable_variables)
for g in grads:
    tf.debugging.check_numerics(g, "gradient")
""",
        expect="G03",
        must=("sqrt",),
        must_not=("learning rate", "clipnorm"),
        fix="add an epsilon inside the sqrt (tf.sqrt(mse + 1e-8)) or train on the MSE",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} predicted counts : Tensor had Inf values [Op:CheckNumerics] name:
    Case(
        name="f31_float16_exponential_output_overflow",
        family=FAMILY,
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
try:
    keras.utils.set_random_seed(0)
    x = np.random.uniform(0, 50, size=(16, 8)).astype("float32")
    model = keras.Sequential([
        keras.Input(shape=(8,)),
        keras.layers.Dense(1, activation="exponential"),
    ])
    counts = model(x)
    tf.debugging.assert_all_finite(tf.cast(counts, tf.float32), "predicted counts")
finally:
    keras.mixed_precision.set_global_policy("float32")
""",
        expect="N01",
        must=("float16",),
        must_not=("nonfinite-input",),
        fix="keep the output layer in float32 (dtype='float32') and scale the inputs",
    ),
    # AssertionError: loss became [nan]
    Case(
        name="f31_log_of_zero_counts_inf_features",
        family=FAMILY,
        code="""
rng = np.random.default_rng(0)
counts = rng.poisson(2.0, size=(32, 3)).astype("float32")
counts[0, 0] = 0
x = np.log(counts)
y = rng.random((32, 1)).astype("float32")
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
history = model.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
assert np.all(np.isfinite(history.history["loss"])), f"loss became {history.history['loss']}"
""",
        expect="N05",
        must=("inf",),
        must_not=("learning rate",),
        fix="np.log1p(counts) (or log(counts + eps))",
    ),
    # InvalidArgumentError: Exception encountered when calling Lambda.call().
    Case(
        name="f31_check_numerics_log_of_relu_zeros",
        family=FAMILY,
        code="""
tf.debugging.enable_check_numerics()
try:
    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape=(4,))
    h = keras.layers.Dense(4, activation="relu")(inputs)
    log_h = keras.layers.Lambda(lambda t: tf.math.log(t))(h)
    model = keras.Model(inputs, keras.layers.Dense(1)(log_h))
    model(np.random.randn(8, 4).astype("float32"))
finally:
    tf.debugging.disable_check_numerics()
""",
        expect="N01",
        must=("lambda",),
        must_not=("learning rate", "nonfinite-input"),
        fix="tf.math.log(t + eps) or log1p / softplus instead of ReLU before the log",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_/job:localhost/replica:0/task:0/device:CPU:0}} prediction for one example : Tensor had NaN values [Op:CheckNumerics] name:
    Case(
        name="f31_batch_std_standardize_single_example",
        family=FAMILY,
        code="""
class Standardize(keras.layers.Layer):
    def call(self, x):
        mean = tf.reduce_mean(x, axis=0)
        std = tf.math.reduce_std(x, axis=0)
        return (x - mean) / std

model = keras.Sequential([keras.Input(shape=(3,)), Standardize(), keras.layers.Dense(1)])
x = np.random.rand(10, 3).astype("float32")
pred = model.predict(x[:1], verbose=0)
tf.debugging.assert_all_finite(pred, "prediction for one example")
""",
        expect="N01",
        must=("standardize",),
        must_not=("nonfinite-input", "learning rate"),
        fix="a Normalization layer adapted on the training data (or std + epsilon)",
    ),
    # AssertionError: training stopped on NaN
    Case(
        name="f31_dataset_map_pow_half_of_negative_features",
        family=FAMILY,
        code="""
rng = np.random.default_rng(0)
x = rng.standard_normal((32, 3)).astype("float32")
y = rng.random((32, 1)).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((x, y))
ds = ds.map(lambda a, b: (tf.pow(a, 0.5), b)).batch(8)
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
history = model.fit(ds, epochs=2, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
assert len(history.history["loss"]) == 2, "training stopped on NaN"
""",
        expect="N05",
        must=("nan",),
        must_not=("learning rate", "clipnorm"),
        fix="no square root of standardized (negative) features: drop the pow or apply it to non-negative values",
    ),
]
