"""Family: errors raised by numeric checks and debugging asserts.

The APIs and their documented contract:

* ``tf.debugging.check_numerics(tensor, message)`` returns ``tensor`` unchanged when every
  value is finite and raises ``InvalidArgumentError("<message> : Tensor had NaN values")``
  (or ``Inf``) otherwise; ``tf.debugging.assert_all_finite(t, msg)`` is the same check.
  Inside ``fit``/``predict`` (a ``tf.function``) the error's first line is "Graph execution
  error:" and the node name (``sequential/log_scale/CheckNumerics``,
  ``compile_loss/xent/CheckNumerics``) tells the layer or loss it sits in; in a ``map`` of
  a ``tf.data`` pipeline it surfaces at ``IteratorGetNext``.  The check only reports where
  the first non-finite value was SEEN: the cause is upstream (``tf.math.log`` of values <= 0,
  ``tf.sqrt`` of negatives, ``0/0`` from a constant column's zero std, NaN already in the
  input data, or weights that diverged because the step size is too large).
* ``tf.debugging.assert_equal``/``assert_less``/``assert_non_negative``/``assert_rank``/
  ``assert_shapes``: raise ``InvalidArgumentError`` (a data-dependent condition, message
  "Condition x == y did not hold" plus the first elements) or ``ValueError`` (a condition
  decidable from static shapes, e.g. "must have rank 3. Received rank 2") with the user's
  ``message`` first.  In graph mode they run through automatic control dependencies.
  Comparisons need equal dtypes.
* ``tf.ensure_shape(x, shape)`` returns ``x`` with its static shape set, and raises
  ``InvalidArgumentError("Shape of tensor ... [20] is not compatible with expected shape
  [32]")`` at run time when the real shape differs: it asserts, it does not pad or reshape.
* ``keras.callbacks.TerminateOnNaN()`` stops ``fit`` at the first batch whose loss is NaN
  or Inf (printing "Batch N: Invalid loss, terminating training"); ``fit`` returns normally
  with a shortened ``history.history["loss"]`` (the last entry NaN), so a user's assert on
  the history is what raises.
* Keras' own losses squeeze or expand ``y_true`` to the rank of ``y_pred``; a user's loss in
  a custom loop does not, so ``y`` of shape ``(B,)`` against ``y_pred`` of ``(B, 1)``
  broadcasts to ``(B, B)`` unless an assert stops it.

Evidence a diagnosis needs: which tensor held the first NaN/Inf (input data, a layer's
output with finite inputs, the loss, the weights after some steps) and the operation that
made it (``log`` of a linear Dense output, division by a zero std); whether the data itself
is finite; the loss history (the step it went NaN/Inf, growing by orders of magnitude); the
two shapes or dtypes an assert compared and where each came from (an LSTM without
``return_sequences``, a ``py_function`` that pads to another length, labels of ``(B,)``).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "numeric_checks_and_debugging_asserts"

CASES = [
    # AssertionError: training stopped after 1 epoch(s)
    Case(
        name="f26_terminate_on_nan_missing_sensor_values",
        family=FAMILY,
        code="""
rng = np.random.default_rng(0)
x = rng.random((64, 5)).astype("float32")
x[rng.integers(0, 64, 3), 2] = np.nan  # a few readings were missing in the CSV
y = rng.random((64, 1)).astype("float32")
model = keras.Sequential([
    keras.Input((5,)),
    keras.layers.Dense(8, activation="tanh"),
    keras.layers.Dense(1),
])
model.compile(optimizer="adam", loss="mse")
history = model.fit(x, y, epochs=5, batch_size=16, verbose=0,
                    callbacks=[keras.callbacks.TerminateOnNaN()])
n = len(history.history["loss"])
assert n == 5, f"training stopped after {n} epoch(s)"
""",
        expect="N05",
        must=("nan",),
        must_not=("learning rate",),
        fix="fill or drop the NaN rows of x (np.nan_to_num / imputation) before fit",
    ),
    # InvalidArgumentError: Graph execution error:  (... log_scale/CheckNumerics ... log_scale output : Tensor had NaN values)
    Case(
        name="f26_check_numerics_log_of_dense_output",
        family=FAMILY,
        code="""
class LogScale(keras.layers.Layer):
    def call(self, x):
        return tf.debugging.check_numerics(tf.math.log(x), "log_scale output")

model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(4),
    LogScale(name="log_scale"),
    keras.layers.Dense(1),
])
model.predict(np.random.randn(8, 4).astype("float32"), verbose=0)
""",
        expect="N01",
        must=("log_scale",),
        must_not=("learning rate",),
        fix="make the log's input positive (softplus/relu+eps on the Dense, or log1p of abs)",
    ),
    # InvalidArgumentError: Graph execution error:  (... compile_loss/xent/CheckNumerics ... log(y_pred) : Tensor had NaN values)
    Case(
        name="f26_handwritten_crossentropy_on_linear_output",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])

def xent(y_true, y_pred):
    log_p = tf.debugging.check_numerics(tf.math.log(y_pred), "log(y_pred)")
    return -tf.reduce_sum(y_true * log_p, axis=-1)

model.compile(optimizer="adam", loss=xent)
y = keras.utils.to_categorical(np.random.randint(0, 3, 16), 3)
model.fit(np.random.randn(16, 4).astype("float32"), y, epochs=1, verbose=0)
""",
        expect="M02",
        must=("softmax",),
        must_not=("learning rate",),
        fix='Dense(3, activation="softmax"), or CategoricalCrossentropy(from_logits=True)',
    ),
    # InvalidArgumentError: Graph execution error:  (... assert_non_negative ... class ids must be >= 0 ...)
    Case(
        name="f26_assert_non_negative_on_missing_label_marker",
        family=FAMILY,
        code="""
labels = np.array([0, 2, 1, -1, 2, 0, -1, 1], "int32")  # -1 = "not annotated"
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])

def checked_loss(y_true, y_pred):
    tf.debugging.assert_non_negative(y_true, message="class ids must be >= 0")
    return keras.losses.sparse_categorical_crossentropy(y_true, y_pred, from_logits=True)

model.compile(optimizer="adam", loss=checked_loss)
model.fit(np.random.rand(8, 4).astype("float32"), labels, epochs=1, verbose=0)
""",
        expect="P12",
        must=("-1",),
        must_not=("learning rate",),
        fix="drop (or mask) the examples labelled -1 before fit",
    ),
    # ValueError: Exception encountered when calling TimeAttentionPool.call().  (... must have rank 3.  Received rank 2, shape (None, 16))
    Case(
        name="f26_assert_rank_pooling_after_last_step_lstm",
        family=FAMILY,
        code="""
class TimeAttentionPool(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 1))
    def call(self, x):
        tf.debugging.assert_rank(x, 3, message="TimeAttentionPool expects (batch, time, features)")
        a = tf.nn.softmax(tf.matmul(x, self.w), axis=1)
        return tf.reduce_sum(a * x, axis=1)

inputs = keras.Input((12, 6))
h = keras.layers.LSTM(16)(inputs)
outputs = keras.layers.Dense(1)(TimeAttentionPool()(h))
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims",),
        fix="keras.layers.LSTM(16, return_sequences=True)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__IteratorGetNext_...}} Shape of tensor EagerPyFunc [20] is not compatible with expected shape [32].
    Case(
        name="f26_ensure_shape_disagrees_with_py_function_padding",
        family=FAMILY,
        code="""
MAXLEN = 32

def tokenize(text):
    ids = [ord(c) % 50 for c in text.numpy().decode()][:20]
    return np.array(ids + [0] * (20 - len(ids)), "int32")

texts = tf.data.Dataset.from_tensor_slices(["hello world", "tf data", "keras"])
ds = texts.map(lambda t: tf.ensure_shape(tf.py_function(tokenize, [t], tf.int32), [MAXLEN]))
for batch in ds.batch(2):
    pass
""",
        expect="S10",
        must=("20",),
        must_not=("padded_batch",),
        fix="ensure_shape(..., [20]) or pad to MAXLEN inside tokenize",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_...}} weight sequential/dense/kernel is not finite : Tensor had NaN values [Op:CheckNumerics] name:
    Case(
        name="f26_assert_all_finite_weights_after_sgd_blowup",
        family=FAMILY,
        code="""
rng = np.random.default_rng(1)
x = rng.random((32, 3)).astype("float32")
y = (x @ np.array([[3.0], [-2.0], [5.0]]) + 1.0).astype("float32")
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=20.0), loss="mse")
history = model.fit(x, y, epochs=10, batch_size=8, verbose=0)
for w in model.weights:
    tf.debugging.assert_all_finite(w, f"weight {w.path} is not finite")
""",
        expect="G05",
        must=("learning",),
        must_not=("normaliz",),
        fix="a much smaller learning_rate (e.g. 0.01)",
    ),
    # InvalidArgumentError: y_true and y_pred shapes differ
    Case(
        name="f26_assert_equal_shapes_in_custom_loop_loss",
        family=FAMILY,
        code="""
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam()

def mse_loss(y_true, y_pred):
    tf.debugging.assert_equal(tf.shape(y_true), tf.shape(y_pred),
                              message="y_true and y_pred shapes differ")
    return tf.reduce_mean(tf.square(y_true - y_pred))

with tf.GradientTape() as tape:
    loss = mse_loss(y, model(x))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="S08",
        must=("mse_loss",),
        must_not=("sparse",),
        fix="y.reshape(-1, 1) (or squeeze the prediction) before the loss",
    ),
]
