"""Family: user-written loss functions and ``keras.losses.Loss`` / ``keras.metrics.Metric`` code.

The APIs and their documented contract:

- A loss function passed to ``compile(loss=fn)`` is called ``fn(y_true, y_pred)`` -- labels
  first, predictions second -- and returns a per-sample loss (shape ``(batch,)`` or one
  value per element) or a scalar; Keras applies ``sample_weight`` and the reduction
  (``"sum_over_batch_size"``) itself, so the function takes exactly those two arguments.
  Keras casts ``y_true`` to the loss dtype for losses; the function must be
  differentiable in ``y_pred`` (no ``argmax``/``round``/casts to int on the predictions,
  no NumPy) -- otherwise "No gradients provided for any variable".
- ``fit`` runs the loss and the metrics inside a ``tf.function``: ``y_true``/``y_pred`` are
  symbolic tensors, so NumPy functions, ``.numpy()`` and Python ``if``/``bool`` on tensor
  values fail (``Cannot convert a symbolic tf.Tensor to a numpy array``,
  ``OperatorNotAllowedInGraphError``); the element-wise forms are ``tf.where`` /
  ``keras.ops.where`` and the ``keras.ops`` / ``tf.math`` functions.
- ``keras.losses.Loss`` subclass: ``__init__(self, ..., name=None, reduction=
  "sum_over_batch_size", dtype=None)`` forwarded to ``super().__init__``; ``call(self,
  y_true, y_pred)``; ``get_config()`` returns ``{"name", "reduction"}`` plus what the
  subclass adds, and ``from_config`` calls ``cls(**config)``: a subclass whose
  ``__init__`` takes no ``**kwargs`` or whose ``get_config`` omits its own arguments
  cannot be reloaded by ``load_model``.
- ``keras.metrics.Metric`` subclass: state created once in ``__init__`` with
  ``self.add_weight(shape=(), initializer="zeros", name=...)`` (not ``tf.Variable`` in
  ``update_state``, not a Python number attribute); ``update_state(self, y_true, y_pred,
  sample_weight=None)`` (Keras passes ``sample_weight=`` as a keyword); ``result()``
  returns the value from the state; ``reset_state()`` (Keras 3 name).  A scalar state
  variable takes ``assign_add`` of a scalar: per-example values must be reduced
  (``tf.reduce_sum``) first.  Unlike losses, a ``Metric`` subclass receives ``y_true`` as
  it comes (integer labels stay integer): mixing it with float predictions needs
  ``tf.cast(y_true, y_pred.dtype)``.

The evidence a diagnosis needs: the user's function or class and the line that breaks the
contract (argument order, NumPy/Python on a tensor, a non-differentiable op, a variable
created per call, an unreduced value, a missing ``**kwargs``/config entry), the dtypes and
shapes that met, and the documented form that fits.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "custom_losses_and_metrics_code"

CASES = [
    # ValueError: No gradients provided for any variable.
    Case(
        name="f31_weighted_ce_arguments_swapped",
        family=FAMILY,
        code="""
def weighted_ce(y_pred, y_true):
    labels = tf.one_hot(tf.cast(tf.reshape(y_true, [-1]), tf.int32), depth=3)
    weights = tf.constant([1.0, 2.0, 5.0])
    return -tf.reduce_sum(weights * labels * tf.math.log(y_pred + 1e-7), axis=-1)

keras.utils.set_random_seed(0)
x = np.random.rand(12, 4).astype("float32")
y = np.random.randint(0, 3, (12, 1))
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss=weighted_ce)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="G04",
        must=("y_true, y_pred",),
        must_not=("argmax", "tape"),
        fix="def weighted_ce(y_true, y_pred):",
    ),
    # NotImplementedError: Cannot convert a symbolic tf.Tensor (sequential_1/dense_1/Relu:0) to a numpy array. This error may indicate that you're trying to pass a Tensor to a NumPy call, which is not supported.
    Case(
        name="f31_rmsle_loss_written_with_numpy",
        family=FAMILY,
        code="""
def rmsle(y_true, y_pred):
    return np.sqrt(np.mean(np.square(np.log1p(y_pred) - np.log1p(y_true))))

x = np.random.rand(16, 3).astype("float32")
y = np.random.rand(16, 1).astype("float32")
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, activation="relu")])
model.compile(optimizer="adam", loss=rmsle)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T02",
        must=("rmsle",),
        must_not=("run_eagerly",),
        fix="keras.ops.sqrt(keras.ops.mean(keras.ops.square(keras.ops.log1p(y_pred) - keras.ops.log1p(y_true))))",
    ),
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following resolutions to the problem: ...
    Case(
        name="f31_asymmetric_loss_python_if_on_tensor",
        family=FAMILY,
        code="""
def asymmetric_mse(y_true, y_pred):
    err = y_true - y_pred
    if err > 0:
        return 2.0 * tf.square(err)
    return tf.square(err)

x = np.random.rand(16, 3).astype("float32")
y = np.random.rand(16, 1).astype("float32")
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=asymmetric_mse)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T02",
        must=("where",),
        must_not=("run_eagerly",),
        fix="tf.where(err > 0, 2.0 * tf.square(err), tf.square(err))",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f31_error_rate_loss_through_argmax",
        family=FAMILY,
        code="""
def error_rate_loss(y_true, y_pred):
    predicted = tf.cast(tf.argmax(y_pred, axis=-1), tf.float32)
    wrong = tf.not_equal(tf.squeeze(y_true, -1), predicted)
    return tf.reduce_mean(tf.cast(wrong, tf.float32))

x = np.random.rand(16, 4).astype("float32")
y = np.random.randint(0, 3, (16, 1)).astype("float32")
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss=error_rate_loss)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="G04",
        must=("argmax",),
        must_not=("tape",),
        fix="train on sparse_categorical_crossentropy; keep the error rate as a metric",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function. See https://www.tensorflow.org/guide/function#creating_tfvariables for more information.
    Case(
        name="f31_metric_tf_variable_created_in_update_state",
        family=FAMILY,
        code="""
class Hits(keras.metrics.Metric):
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.hits = tf.Variable(0.0)
        matches = tf.equal(y_true, tf.round(y_pred))
        self.hits.assign_add(tf.reduce_sum(tf.cast(matches, tf.float32)))

    def result(self):
        return self.hits

x = np.random.rand(16, 3).astype("float32")
y = np.random.randint(0, 2, (16, 1)).astype("float32")
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=[Hits(name="hits")])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T03",
        must=("add_weight",),
        must_not=("run_eagerly",),
        fix="self.hits = self.add_weight(name='hits', initializer='zeros') in __init__",
    ),
    # TypeError: Input 'y' of 'Sub' Op has type float32 that does not match type int64 of argument 'x'.
    Case(
        name="f31_brier_metric_int_labels_minus_float_probs",
        family=FAMILY,
        code="""
class Brier(keras.metrics.Metric):
    def __init__(self, name="brier", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_weight(name="total", initializer="zeros")
        self.count = self.add_weight(name="count", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total.assign_add(tf.reduce_sum(tf.square(y_true - y_pred)))
        self.count.assign_add(tf.cast(tf.shape(y_true)[0], tf.float32))

    def result(self):
        return self.total / self.count

x = np.random.rand(16, 3).astype("float32")
y = np.random.randint(0, 2, (16, 1))
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=[Brier()])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("cast",),
        must_not=("sparse",),
        fix="y_true = tf.cast(y_true, y_pred.dtype) at the top of update_state",
    ),
    # TypeError: <class 'FocalLoss'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f31_focal_loss_config_lacks_gamma",
        family=FAMILY,
        code="""
import os, tempfile

class FocalLoss(keras.losses.Loss):
    def __init__(self, gamma, alpha=0.25):
        super().__init__(name="focal_loss")
        self.gamma = gamma
        self.alpha = alpha

    def call(self, y_true, y_pred):
        p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
        return -self.alpha * (1 - p_t) ** self.gamma * tf.math.log(p_t + 1e-7)

model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss=FocalLoss(gamma=2.0))
path = os.path.join(tempfile.mkdtemp(), "focal.keras")
model.save(path)
restored = keras.models.load_model(path, custom_objects={"FocalLoss": FocalLoss})
""",
        expect="C05",
        must=("gamma",),
        must_not=("safe_mode",),
        fix="__init__(self, gamma=2.0, alpha=0.25, **kwargs) and get_config returning gamma and alpha",
    ),
    # ValueError: The shape of the target variable and the shape of the target value in `variable.assign(value)` must match. variable.shape=(), Received: value.shape=(None, 1). Target variable: <Variable path=sum_abs_error/total, shape=(), dtype=float32>
    Case(
        name="f31_metric_assign_add_per_example_errors",
        family=FAMILY,
        code="""
class SumAbsError(keras.metrics.Metric):
    def __init__(self, name="sum_abs_error", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_weight(name="total", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total.assign_add(tf.abs(y_true - y_pred))

    def result(self):
        return self.total

x = np.random.rand(16, 3).astype("float32")
y = np.random.rand(16, 1).astype("float32")
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[SumAbsError()])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("reduce",),
        must_not=("reshape",),
        fix="self.total.assign_add(tf.reduce_sum(tf.abs(y_true - y_pred)))",
    ),
]
