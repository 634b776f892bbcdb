"""Family: numeric checks, and numerically unstable code that a check makes raise.

API: ``tf.debugging.check_numerics`` / ``assert_all_finite`` on a loss, a layer's
tensor, a gradient or a prediction; ``tf.debugging.enable_check_numerics()`` (every
op's float output is checked, the error names the op: "Detected Infinity or NaN in
output 0 of graph op ..."); ``tf.debugging.assert_non_negative`` / ``assert_positive`` /
``assert_less`` / ``assert_near`` (the error is "assertion failed: [message]
[Condition x >= 0 did not hold element-wise:] ..." or "x and y not equal to
tolerance"); the ops that turn finite values into NaN/Inf: ``tf.math.log`` of 0,
``tf.sqrt`` of a negative, a division by a zero count, ``tf.exp`` past float16's
65504, a cast of large values to float16 under a ``mixed_float16`` policy,
``tf.linalg.cholesky`` of a singular matrix (on CPU it returns NaN instead of raising),
the gradient of ``tf.norm`` at a zero vector.  Contract: the check is only the
messenger; the cause lies upstream and is one of: the data already hold NaN (N05), a
layer produces the first non-finite value from finite inputs (N01), the loss becomes
non-finite (G05), a gradient is non-finite while the loss is finite (G03), or a value
check on labels / ids / reproducibility fails (P12, C01).  Evidence a diagnosis can
read: the check's message and which tensor it guards (a loss under ``compile_loss/``,
a layer under the model's name scope, a gradient, a prediction), the op named by
``enable_check_numerics``, the user's loss or layer source (``log``, ``sqrt``, ``/``,
``exp``, ``cholesky``, ``norm``), the dtype policy, and the data (NaN count, value
range against float16's maximum, label minimum).

Written from the TensorFlow/Keras documentation (``check_numerics``,
``enable_check_numerics``, the mixed precision guide, ``tf.linalg.cholesky``) and from
user reports (GitHub issues, Stack Overflow), before the rules for this family were
read.  Every case was run: the exception and the first line of its message are noted
above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "numeric_checks"

CASES = [
    # InvalidArgumentError: Graph execution error: ... Error in user-defined function
    # passed to ParallelMapDatasetV2 ... !!! Detected Infinity or NaN in output 0 of
    # graph op "GatherV2" (# of outputs: 1) !!!
    # (missing sensor values left as NaN in the array passed to fit)
    Case(
        "numeric_nan_sensor_rows_enable_check_numerics",
        FAMILY,
        """
readings = np.random.rand(64, 4).astype("float32")
readings[::7, 2] = np.nan  # humidity column, sensor offline on some days
target = np.random.rand(64, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile("adam", "mse")
tf.debugging.enable_check_numerics()
try:
    model.fit(readings, target, epochs=1, batch_size=16, verbose=0)
finally:
    tf.debugging.disable_check_numerics()
""",
        "N05",
        must=("readings", "nan"),
        must_not=("learning rate", "gradient"),
        fix="impute or drop the NaN rows before fit",
    ),
    # InvalidArgumentError: Graph execution error: poisson_nll : Tensor had Inf values
    # [[{{node compile_loss/poisson_nll/CheckNumerics}}]]
    # (hand-written Poisson loss takes log of a ReLU output that is exactly 0)
    Case(
        "numeric_poisson_loss_log_of_zero_relu_output",
        FAMILY,
        """
def poisson_nll(y_true, y_pred):
    loss = y_pred - y_true * tf.math.log(y_pred)
    return tf.debugging.check_numerics(tf.reduce_mean(loss), "poisson_nll")
x = np.random.rand(64, 8).astype("float32")
x[:8] = 0.0  # weeks the store was closed: every feature is zero
visits = np.random.poisson(3.0, (64, 1)).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="relu")])
model.compile("adam", poisson_nll)
model.fit(x, visits, epochs=1, batch_size=16, shuffle=False, verbose=0)
""",
        "G05",
        must=("poisson_nll", "log"),
        must_not=("learning rate",),
        fix="log(y_pred + eps), a softplus/exp output, or keras.losses.Poisson",
    ),
    # InvalidArgumentError: Graph execution error: rmse : Tensor had NaN values
    # [[{{node compile_loss/rmse/CheckNumerics}}]]
    # (RMSE written without the square: sqrt of a negative mean error)
    Case(
        "numeric_rmse_loss_sqrt_without_square",
        FAMILY,
        """
def rmse(y_true, y_pred):
    return tf.debugging.check_numerics(tf.sqrt(tf.reduce_mean(y_pred - y_true)), "rmse")
x = np.random.rand(64, 5).astype("float32")
price = (np.random.rand(64, 1) * 10 + 5).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile("adam", rmse)
model.fit(x, price, epochs=1, batch_size=16, verbose=0)
""",
        "G05",
        must=("rmse", "sqrt"),
        must_not=("learning rate",),
        fix="square the error before the mean: sqrt(mean(square(...)))",
    ),
    # InvalidArgumentError: Graph execution error: masked_mae : Tensor had NaN values
    # [[{{node compile_loss/masked_mae/CheckNumerics}}]]
    # (a batch with no valid target: 0 / 0 in the masked mean)
    Case(
        "numeric_masked_mean_loss_zero_valid_count",
        FAMILY,
        """
def masked_mae(y_true, y_pred):
    mask = tf.cast(y_true >= 0.0, "float32")  # -1 marks a missing target
    n_valid = tf.reduce_sum(mask)
    loss = tf.reduce_sum(tf.abs(y_true - y_pred) * mask) / n_valid
    return tf.debugging.check_numerics(loss, "masked_mae")
x = np.random.rand(64, 6).astype("float32")
y = np.random.rand(64, 1).astype("float32")
y[:16] = -1.0  # the first 16 rows have no measurement
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1)])
model.compile("adam", masked_mae)
model.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
""",
        "G05",
        must=("masked_mae", "n_valid"),
        must_not=("learning rate",),
        fix="tf.math.divide_no_nan or divide by tf.maximum(n_valid, 1)",
    ),
    # InvalidArgumentError: Graph execution error: attention weights : Tensor had NaN
    # values [[{{node functional_1/soft_attention_pool_1/CheckNumerics}}]]
    # (naive softmax: exp of scores up to ~16 overflows float16 -> inf / inf)
    Case(
        "numeric_float16_naive_softmax_exp_overflow",
        FAMILY,
        """
class SoftAttentionPool(keras.layers.Layer):
    def call(self, x):
        scores = tf.reduce_sum(x, axis=-1)
        e = tf.exp(scores)
        weights = e / tf.reduce_sum(e, axis=-1, keepdims=True)
        weights = tf.debugging.check_numerics(weights, "attention weights")
        return tf.reduce_sum(x * weights[..., None], axis=1)
inp = keras.Input((10, 32))
out = keras.layers.Dense(1, dtype="float32")(SoftAttentionPool(dtype="mixed_float16")(inp))
model = keras.Model(inp, out)
model.predict(np.random.rand(4, 10, 32).astype("float32"), verbose=0)
""",
        "N01",
        must=("exp", "float16"),
        must_not=("learning rate", "gradient"),
        fix="tf.nn.softmax (subtracts the max) or compute the scores in float32",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_...}}
    # credit score predictions : Tensor had NaN values [Op:CheckNumerics]
    # (raw dollar amounts above 65504 become inf when the first Dense casts to float16)
    Case(
        "numeric_mixed_float16_raw_dollar_inputs_overflow",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_float16")
try:
    # annual income and loan amount in dollars, age in years
    income = (np.random.rand(64, 3) * [90000.0, 250000.0, 60.0]).astype("float32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(1, dtype="float32")])
    preds = model.predict(income, verbose=0)
    tf.debugging.check_numerics(tf.constant(preds), "credit score predictions")
finally:
    keras.mixed_precision.set_global_policy("float32")
""",
        "N01",
        must=("float16", "income"),
        must_not=("learning rate", "gradient"),
        fix="scale the inputs (Normalization) so they stay far below 65504",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_...}}
    # gradient of sequential/dense/kernel : Tensor had NaN values [Op:CheckNumerics]
    # (tf.norm of a zero difference: loss 0, gradient x / ||x|| = 0 / 0)
    Case(
        "numeric_norm_of_identical_pairs_nan_gradient",
        FAMILY,
        """
encoder = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4)])
opt = keras.optimizers.SGD(0.01)
anchor = np.random.rand(16, 8).astype("float32")
positive = anchor.copy()  # augmentation not applied yet
with tf.GradientTape() as tape:
    dist = tf.norm(encoder(anchor) - encoder(positive), axis=1)
    loss = tf.reduce_mean(dist)
grads = tape.gradient(loss, encoder.trainable_variables)
for g, v in zip(grads, encoder.trainable_variables):
    tf.debugging.check_numerics(g, f"gradient of {v.path}")
opt.apply_gradients(zip(grads, encoder.trainable_variables))
""",
        "G03",
        must=("norm",),
        must_not=("learning rate", "exploding"),
        fix="squared distance, or sqrt(sum(square(d)) + eps)",
    ),
    # InvalidArgumentError: Graph execution error: cholesky of the batch covariance :
    # Tensor had NaN values [[{{node sequential_1/batch_whitening_1/CheckNumerics}}]]
    # (covariance of 16 samples in 32 dimensions is singular; CPU Cholesky returns NaN)
    Case(
        "numeric_cholesky_singular_batch_covariance",
        FAMILY,
        """
class BatchWhitening(keras.layers.Layer):
    def call(self, x):
        xc = x - tf.reduce_mean(x, axis=0, keepdims=True)
        cov = tf.matmul(xc, xc, transpose_a=True) / tf.cast(tf.shape(x)[0] - 1, x.dtype)
        chol = tf.linalg.cholesky(cov)
        chol = tf.debugging.check_numerics(chol, "cholesky of the batch covariance")
        return tf.transpose(tf.linalg.triangular_solve(chol, tf.transpose(xc)))
x = np.random.rand(128, 32).astype("float32")
y = np.random.rand(128, 1).astype("float32")
model = keras.Sequential([keras.Input((32,)), BatchWhitening(), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, batch_size=16, verbose=0)
""",
        "N01",
        must=("cholesky",),
        must_not=("learning rate", "gradient"),
        fix="add jitter (cov + eps * I) or a batch larger than the feature count",
    ),
    # InvalidArgumentError: Graph execution error: assertion failed: [class ids must be
    # >= 0.  ] [Condition x >= 0 did not hold element-wise:] [x (yb:0) = ] [-1 1 1...]
    # (-1 "not annotated" sentinel left among the class ids)
    Case(
        "numeric_assert_non_negative_unlabeled_sentinel",
        FAMILY,
        """
x = np.random.rand(100, 6).astype("float32")
labels = np.random.randint(0, 4, 100)
labels[::9] = -1  # -1 = "not annotated"
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4)])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = keras.optimizers.Adam()

@tf.function
def train_step(xb, yb):
    tf.debugging.assert_non_negative(yb, message="class ids must be >= 0")
    with tf.GradientTape() as tape:
        loss = loss_fn(yb, model(xb, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss

for xb, yb in tf.data.Dataset.from_tensor_slices((x, labels)).batch(20):
    train_step(xb, yb)
""",
        "P12",
        must=("-1",),
        must_not=("learning rate", "nan"),
        fix="drop the -1 rows (or mask them out of the loss)",
    ),
    # InvalidArgumentError: Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be
    # true. Summarized data: b'predict is not reproducible.  ' b'x and y not equal to
    # tolerance rtol = ...'
    # (custom noise layer ignores `training`, so it also perturbs predict)
    Case(
        "numeric_assert_near_noise_layer_active_in_predict",
        FAMILY,
        """
class Jitter(keras.layers.Layer):
    # noise augmentation for the sensor inputs
    def call(self, x):
        return x + tf.random.normal(tf.shape(x), stddev=0.05)
inp = keras.Input((10,))
h = Jitter()(inp)
h = keras.layers.Dense(32, activation="relu")(h)
h = keras.layers.Dropout(0.3)(h)
out = keras.layers.Dense(1)(h)
model = keras.Model(inp, out)
x = np.random.rand(8, 10).astype("float32")
first = model.predict(x, verbose=0)
second = model.predict(x, verbose=0)
tf.debugging.assert_near(first, second, message="predict is not reproducible")
""",
        "C01",
        must=("jitter",),
        must_not=("set_seed", "learning rate"),
        fix="call(self, x, training=None) and add the noise only when training",
    ),
]
