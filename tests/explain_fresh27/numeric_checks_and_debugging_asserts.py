"""Family: errors raised by numeric checks and debugging asserts (``tf.debugging``).

The APIs and their documented contract:

- ``tf.debugging.check_numerics(tensor, message)`` returns ``tensor`` unchanged when every
  value is finite and raises ``InvalidArgumentError`` ("<message> : Tensor had NaN values" /
  "Inf values") otherwise; ``tf.debugging.assert_all_finite(t, msg)`` is the same check.
  Inside ``fit``, a ``tf.data`` ``map`` or any ``tf.function`` the error surfaces as
  "Graph execution error" with the node that failed (``compile_loss/<fn>/CheckNumerics``,
  ``<model>/<layer>/VerifyFinite/CheckNumerics``, ``IteratorGetNext`` for the pipeline).
  The check says WHERE the first non-finite value was seen, not why: the cause is upstream
  (NaN already in the data, ``log(0)``, ``sqrt`` of a negative, ``0/0`` from a division by a
  zero standard deviation, an overflowing ``exp``).
- ``tf.math.log(x)`` is ``-inf`` at 0 and NaN below; ``0 * -inf`` is NaN; ``tf.sqrt`` of a
  negative is NaN; NumPy's ``(x - mean) / std`` gives NaN for a constant column (std 0).
  Keras' own cross-entropies clip probabilities to ``[eps, 1 - eps]``; a hand-written one
  does not, and a saturated sigmoid returns exactly 0.0 or 1.0 in float32.
- ``keras.callbacks.TerminateOnNaN()`` stops ``fit`` at the first batch whose loss is NaN
  or Inf; ``fit`` returns normally, so the ``History`` ends with a NaN loss and a user
  ``assert np.isfinite(history.history["loss"][-1])`` is what raises.  A single NaN feature
  value makes the loss of its batch NaN at the first step whatever the learning rate.
- ``tf.debugging.assert_shapes([(t, ("N",)), ...])`` checks ranks and named dimensions (a
  ``(N,)`` label against a ``(N, 1)`` ``Dense(1)`` output fails, which is exactly the
  ``(B,)`` vs ``(B, 1)`` broadcast a loss would otherwise silently make ``(B, B)``);
  ``assert_rank(t, r)`` checks the rank (statically when known: ``ValueError``);
  ``assert_non_negative``, ``assert_less``, ``assert_equal`` check values (``InvalidArgumentError``
  "assertion failed: [...] [Condition x >= 0 did not hold element-wise:] [x ...] [-1]").
- ``tf.ensure_shape(t, shape)`` asserts (and sets) the static shape; when the shape is
  known and differs it fails at trace time ("Dimension 0 in both shapes must be equal, but
  are 32 and 28"), e.g. after ``tf.image.resize`` to another size.

The evidence a diagnosis needs to name the cause: which check fired and on which tensor
(loss, a layer's output, a dataset element, labels); whether the inputs of that place were
still finite (data vs an operation inside the model or loss); the operation that made the
first non-finite value (``log``, ``sqrt``, a division, with the value that broke it: a
probability of 0/1, a negative sum, a zero ``std``); for shape and value asserts the shapes
or values compared (``(8, 1)`` vs ``(8,)``, ``[28, 28, 3]`` vs ``[32, 32, 3]``, a label of
``-1``), and the missing batch axis of a single example.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "numeric_checks_and_debugging_asserts"

CASES = [
    # InvalidArgumentError: Graph execution error:  (... bce loss : Tensor had Inf values (NaN on some initializations), node compile_loss/binary_ce/CheckNumerics)
    Case(
        name="f27_check_numerics_handwritten_bce_log_of_zero",
        family=FAMILY,
        code="""
def binary_ce(y_true, y_pred):
    per_example = -(y_true * tf.math.log(y_pred) + (1.0 - y_true) * tf.math.log(1.0 - y_pred))
    return tf.debugging.check_numerics(tf.reduce_mean(per_example), "bce loss")

rng = np.random.RandomState(0)
x = (rng.normal(size=(32, 4)) * 100).astype("float32")
y = (x[:, :1] > 0).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.SGD(0.1), loss=binary_ce)
model.fit(x, y, epochs=3, verbose=0)
""",
        expect="G05",
        must=("log",),
        must_not=("learning rate",),
        fix="clip y_pred to [eps, 1-eps] or use keras.losses.BinaryCrossentropy",
    ),
    # AssertionError: training diverged
    Case(
        name="f27_terminate_on_nan_history_assert_missing_reading",
        family=FAMILY,
        code="""
rng = np.random.RandomState(0)
x = rng.normal(size=(64, 3)).astype("float32")
x[5, 1] = np.nan
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential(
    [keras.Input((3,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
)
model.compile(optimizer="adam", loss="mse")
history = model.fit(
    x, y, epochs=3, batch_size=16, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()]
)
assert np.isfinite(history.history["loss"][-1]), "training diverged"
""",
        expect="N05",
        must=("nan",),
        must_not=("learning rate",),
        fix="drop or impute the NaN rows before fit",
    ),
    # InvalidArgumentError: Graph execution error:  (... features : Tensor had NaN values, node CheckNumerics in the dataset)
    Case(
        name="f27_zero_std_column_scaled_check_numerics_in_map",
        family=FAMILY,
        code="""
rng = np.random.RandomState(0)
x = rng.normal(size=(32, 3)).astype("float32")
x[:, 2] = 1.0
x_scaled = (x - x.mean(axis=0)) / x.std(axis=0)
targets = rng.normal(size=(32, 1)).astype("float32")
ds = (
    tf.data.Dataset.from_tensor_slices((x_scaled, targets))
    .map(lambda f, t: (tf.debugging.check_numerics(f, "features"), t))
    .batch(8)
)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="N05",
        must=("std",),
        must_not=("learning rate",),
        fix="guard the division: std where std > 0 else 1 (or drop the constant column)",
    ),
    # InvalidArgumentError: Graph execution error:  (... distance is not finite : Tensor had NaN values, node .../euclid_norm_1/VerifyFinite/CheckNumerics)
    Case(
        name="f27_assert_all_finite_sqrt_of_negative_sum_in_layer",
        family=FAMILY,
        code="""
class EuclidNorm(keras.layers.Layer):
    def call(self, x):
        d = tf.sqrt(tf.reduce_sum(x, axis=-1, keepdims=True))
        tf.debugging.assert_all_finite(d, "distance is not finite")
        return d

model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8), EuclidNorm(), keras.layers.Dense(1)]
)
x = np.random.RandomState(0).normal(size=(16, 4)).astype("float32")
model.predict(x, verbose=0)
""",
        expect="N01",
        must=("euclid_norm",),
        must_not=("n05",),
        fix="square before summing: tf.sqrt(tf.reduce_sum(tf.square(x), -1))",
    ),
    # ValueError: in user code:  (... ValueError: Dimension 0 in both shapes must be equal, but are 32 and 28. Shapes are [32,32,3] and [28,28,3]. for '{{node EnsureShape}} = EnsureShape[T=DT_FLOAT, shape=[32,32,3]](truediv)' with input shapes: [28,28,3].)
    Case(
        name="f27_ensure_shape_after_resize_to_other_size",
        family=FAMILY,
        code="""
IMG = 32
images = np.random.RandomState(0).randint(0, 255, size=(8, 40, 40, 3)).astype("uint8")

def preprocess(img):
    img = tf.image.resize(img, (28, 28)) / 255.0
    return tf.ensure_shape(img, (IMG, IMG, 3))

ds = tf.data.Dataset.from_tensor_slices(images).map(preprocess).batch(4)
model = keras.Sequential([
    keras.Input((IMG, IMG, 3)),
    keras.layers.Conv2D(4, 3),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(1),
])
model.predict(ds, verbose=0)
""",
        expect="S07",
        must=("28",),
        must_not=("set_shape",),
        fix="resize to (IMG, IMG)",
    ),
    # InvalidArgumentError: Graph execution error:  (... assertion failed: [labels must be class ids.  ] [Condition x >= 0 did not hold element-wise:] [x (args_1:0) = ] [-1])
    Case(
        name="f27_assert_non_negative_unlabeled_marker_minus_one",
        family=FAMILY,
        code="""
x = np.random.RandomState(0).normal(size=(8, 4)).astype("float32")
y = np.array([0, 2, 1, -1, 2, 0, 1, -1], dtype="int32")

def check_labels(features, label):
    tf.debugging.assert_non_negative(label, message="labels must be class ids")
    return features, label

ds = tf.data.Dataset.from_tensor_slices((x, y)).map(check_labels).batch(4)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="P12",
        must=("-1",),
        must_not=("to_categorical",),
        fix="drop the unlabeled (-1) examples before training",
    ),
    # ValueError: Exception encountered when calling MeanOverTime.call().  (... expected (batch, time, features).  Tensor  must have rank 3.  Received rank 2, shape (10, 6))
    Case(
        name="f27_assert_rank_one_sequence_without_batch_axis",
        family=FAMILY,
        code="""
class MeanOverTime(keras.layers.Layer):
    def call(self, x):
        tf.debugging.assert_rank(x, 3, message="expected (batch, time, features)")
        return tf.reduce_mean(x, axis=1)

class Forecaster(keras.Model):
    def __init__(self):
        super().__init__()
        self.pool = MeanOverTime()
        self.head = keras.layers.Dense(1)

    def call(self, x):
        return self.head(self.pool(x))

model = Forecaster()
one_sequence = np.random.RandomState(0).normal(size=(10, 6)).astype("float32")
forecast = model(one_sequence)
""",
        expect="S12",
        must=("batch",),
        must_not=("return_sequences",),
        fix="model(one_sequence[None]) (add the batch axis)",
    ),
    # ValueError: Tensor  must have rank in (0, 1).  Received rank 2, shape (8, 1)  (from tf.debugging.assert_shapes)
    Case(
        name="f27_assert_shapes_catches_column_prediction_in_loop",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
x = np.random.RandomState(0).normal(size=(8, 3)).astype("float32")
y = x.sum(axis=1)
with tf.GradientTape() as tape:
    pred = model(x)
    tf.debugging.assert_shapes([(pred, ("N",)), (y, ("N",))])
    loss = tf.reduce_mean(tf.square(y - pred))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="S08",
        must=(", 1)",),
        must_not=("units",),
        fix="pred = tf.squeeze(pred, -1) (or y[:, None])",
    ),
]
