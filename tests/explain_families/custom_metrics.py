"""Family: custom losses and metrics given to ``compile``, and saving a model that uses them.

API: a loss function ``fn(y_true, y_pred)`` passed to ``compile(loss=...)`` (directly,
through a closure or ``functools.partial`` when it has extra arguments); a
``keras.losses.Loss`` subclass (``__init__(..., reduction=..., name=...)``, ``call``,
``get_config``); a metric function in ``compile(metrics=[fn])`` (wrapped in a
``MeanMetricWrapper``); a ``keras.metrics.Metric`` subclass (state created once in
``__init__`` with ``add_weight``/``add_variable``, ``update_state(y_true, y_pred,
sample_weight=None)`` that only ``assign``/``assign_add``s, ``result``, ``reset_state``);
``model.save`` / ``keras.models.load_model(path, custom_objects=...)`` with
``@keras.saving.register_keras_serializable``.  Contract (Keras 3 documentation): the
loss and metric code runs inside the traced ``train_function`` (a ``tf.function``), so
it must use tensor ops (``tf.*``/``keras.ops``), not NumPy, ``.numpy()`` or Python
``if`` on tensors; a loss returns one value per sample (reduced over the last axis,
never over the batch axis ``0``), which Keras then weights by ``sample_weight`` and
averages; it must be differentiable (no ``argmax``/``round``/casts to int on the path to
the loss); ``Loss.__call__`` casts ``y_true`` and ``y_pred`` to the loss dtype (float32)
before ``call``, while a ``Metric``'s ``update_state`` and a metric function get the
labels as they are (int64 from NumPy); ``reduction`` is one of ``"sum"``,
``"sum_over_batch_size"``, ``"mean"``, ``"mean_with_sample_weight"``, ``"none"``/``None``
(Keras 2's ``"auto"`` is gone); ``get_config`` returns every constructor argument, and
the saved name of a function (its ``__name__``, the inner function of a closure) is the
key ``load_model`` looks up in ``custom_objects``.  Evidence a diagnosis can read at the
failure: the exception and the user's frame in the traceback (the loss or metric
function/class and its source line), the name scope of the failing op
(``compile_loss/<loss name>/...``), the shapes and dtypes of ``y_true``/``y_pred`` and
of the data passed to ``fit`` (labels' dtype, ``sample_weight``, batch size), the model's
output layer (units, activation), the compiled loss and metrics (objects, names,
``reduction``), the metric's ``add_weight`` calls and where they are made, and, for a
load, the saved config (``class_name``, ``config``) against the ``custom_objects`` given,
the registered names, and the constructor's signature against ``get_config``.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "custom_metrics"

CASES = [
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is
    # not allowed. You can attempt the following resolutions to the problem: If you are
    # running in Graph mode, use Eager execution mode or decorate this function with
    # @tf.function. ...
    # (Python `if` on the element-wise error of a hand-written Huber loss, whose extra
    # argument `delta` is bound with functools.partial; eagerly it fails too, since `err`
    # holds 32 values: "The truth value of an array with more than one element is
    # ambiguous")
    Case(
        "cm_huber_python_if_on_error_tensor",
        FAMILY,
        """
import functools
def huber(y_true, y_pred, delta):
    err = y_true - y_pred
    if tf.abs(err) <= delta:
        return 0.5 * tf.square(err)
    return delta * (tf.abs(err) - 0.5 * delta)
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", loss=functools.partial(huber, delta=0.5))
model.fit(x, y, epochs=1, verbose=0)
""",
        "T02",
        must=("huber",),
        must_not=("run_eagerly", "@tf.function"),
        fix="tf.where(tf.abs(err) <= delta, ...)",
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    # (Metric subclass computes its count with NumPy inside update_state)
    Case(
        "cm_metric_update_state_calls_numpy",
        FAMILY,
        """
class Hits(keras.metrics.Metric):
    def __init__(self, name="hits", **kwargs):
        super().__init__(name=name, **kwargs)
        self.hits = self.add_weight(name="hits", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        pred = y_pred.numpy().argmax(axis=-1)
        self.hits.assign_add(float((pred == y_true.numpy().ravel()).sum()))
    def result(self):
        return self.hits
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 3, 32)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=[Hits()])
model.fit(x, y, epochs=1, verbose=0)
""",
        "T02",
        must=("hits", "numpy"),
        must_not=("tf.cond",),
        fix="tf.argmax / tf.equal instead of .numpy()",
    ),
    # TypeError: Input 'y' of 'Mul' Op has type float32 that does not match type int64 of
    # argument 'x'.
    # (metric function given to compile(metrics=...) multiplies the raw int64 labels by
    # the float32 predictions; metric functions get y_true uncast)
    Case(
        "cm_metric_fn_int_labels_times_float_preds",
        FAMILY,
        """
def tp_rate(y_true, y_pred):
    return tf.reduce_sum(y_true * tf.round(y_pred)) / tf.reduce_sum(y_true)
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 2, (32, 1))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=[tp_rate])
model.fit(x, y, epochs=1, verbose=0)
""",
        "S11",
        must=("tp_rate", "int64"),
        must_not=("float64",),
        fix="y_true = tf.cast(y_true, y_pred.dtype)",
    ),
    # TypeError: Value passed to parameter 'indices' has DataType float32 not in list of
    # allowed values: uint8, int8, int32, int64
    # (the labels are int32, but the Loss wrapper casts y_true to float32 before the
    # user's dice loss one-hot encodes it)
    Case(
        "cm_dice_loss_one_hot_of_cast_labels",
        FAMILY,
        """
def dice_loss(y_true, y_pred):
    y_true = tf.one_hot(y_true[:, 0], depth=3)
    inter = tf.reduce_sum(y_true * y_pred, axis=0)
    union = tf.reduce_sum(y_true + y_pred, axis=0)
    return 1.0 - tf.reduce_mean((2.0 * inter + 1.0) / (union + 1.0))
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 3, (32, 1)).astype("int32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", dice_loss)
model.fit(x, y, epochs=1, verbose=0)
""",
        "S11",
        must=("dice_loss", "one_hot"),
        must_not=("astype",),
        fix="tf.one_hot(tf.cast(y_true[:, 0], tf.int32), 3)",
    ),
    # ValueError: No gradients provided for any variable.
    # (accuracy used directly as the loss: argmax/equal/cast cut the gradient)
    Case(
        "cm_accuracy_as_loss_not_differentiable",
        FAMILY,
        """
def accuracy_loss(y_true, y_pred):
    pred = tf.argmax(y_pred, axis=-1)
    correct = tf.cast(tf.equal(pred, tf.cast(y_true[:, 0], tf.int64)), tf.float32)
    return 1.0 - tf.reduce_mean(correct)
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 3, (32, 1))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", accuracy_loss)
model.fit(x, y, epochs=1, verbose=0)
""",
        "G04",
        must=("accuracy_loss", "argmax"),
        must_not=("tape", "learning rate"),
        fix="train on cross-entropy; keep accuracy as a metric",
    ),
    # ValueError: Dimensions must be equal, but are 3 and 8 for
    # '{{node compile_loss/per_output_mse/mul}} = Mul[T=DT_FLOAT](compile_loss/per_output_mse/Mean,
    # data_2)' with input shapes: [3], [8].
    # (the loss averages over axis=0, the batch, so it returns 3 values, one per output,
    # instead of 8 per-sample values for sample_weight to weigh)
    Case(
        "cm_loss_reduces_batch_axis_with_sample_weight",
        FAMILY,
        """
def per_output_mse(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=0)
x = np.random.rand(40, 4).astype("float32")
y = np.random.rand(40, 3).astype("float32")
w = np.where(np.arange(40) < 20, 1.0, 2.0).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
model.compile("adam", per_output_mse)
model.fit(x, y, sample_weight=w, batch_size=8, epochs=1, verbose=0)
""",
        "S07",
        must=("per_output_mse",),
        must_not=("drop_remainder",),
        fix="reduce over axis=-1 (per sample)",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first
    # call. Make sure the tf.Variable is only created once or created outside tf.function.
    # (the metric creates its state lazily with add_weight inside update_state, to get the
    # number of outputs from y_pred)
    Case(
        "cm_metric_add_weight_in_update_state",
        FAMILY,
        """
class PerClassMAE(keras.metrics.Metric):
    def __init__(self, name="per_class_mae", **kwargs):
        super().__init__(name=name, **kwargs)
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total = self.add_weight(name="total", shape=y_pred.shape[-1:], initializer="zeros")
        self.count = self.add_weight(name="count", initializer="zeros")
        self.total.assign_add(tf.reduce_sum(tf.abs(y_true - y_pred), axis=0))
        self.count.assign_add(tf.cast(tf.shape(y_true)[0], tf.float32))
    def result(self):
        return tf.reduce_mean(self.total / self.count)
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 3).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
model.compile("adam", "mse", metrics=[PerClassMAE()])
model.fit(x, y, epochs=1, verbose=0)
""",
        "T03",
        must=("perclassmae", "add_weight"),
        must_not=("persistent",),
        fix="add_weight in __init__ with num_outputs",
    ),
    # TypeError: Could not locate function 'weighted_mse'. Make sure custom classes and
    # functions are decorated with `@keras.saving.register_keras_serializable()`. ...
    # (the loss is a closure; the saved name is the inner function's, but custom_objects
    # is keyed by the factory's name)
    Case(
        "cm_closure_loss_custom_objects_wrong_key",
        FAMILY,
        """
import os
import tempfile
def make_weighted_mse(weights):
    def weighted_mse(y_true, y_pred):
        return tf.reduce_mean(weights * tf.square(y_true - y_pred), axis=-1)
    return weighted_mse
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 2).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
model.compile("adam", make_weighted_mse(tf.constant([1.0, 5.0])))
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "model.keras")
model.save(path)
restored = keras.models.load_model(path, custom_objects={"make_weighted_mse": make_weighted_mse})
""",
        "C05",
        must=("weighted_mse", "custom_objects"),
        must_not=(),
        fix='custom_objects={"weighted_mse": ...}',
    ),
    # TypeError: <class 'FocalLoss'> could not be deserialized properly. Please ensure that
    # components that are Python object instances (layers, models, etc.) returned by
    # `get_config()` are explicitly deserialized in the model's `from_config()` method.
    # (the class is registered, but get_config leaves out the required `gamma`)
    Case(
        "cm_focal_loss_get_config_missing_gamma",
        FAMILY,
        """
import os
import tempfile
@keras.saving.register_keras_serializable()
class FocalLoss(keras.losses.Loss):
    def __init__(self, gamma, alpha=0.25, name="focal_loss", **kwargs):
        super().__init__(name=name, **kwargs)
        self.gamma = gamma
        self.alpha = alpha
    def call(self, y_true, y_pred):
        y_pred = tf.clip_by_value(y_pred, 1e-7, 1 - 1e-7)
        p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
        return -tf.reduce_mean(self.alpha * (1 - p_t) ** self.gamma * tf.math.log(p_t), axis=-1)
    def get_config(self):
        config = super().get_config()
        config.update({"alpha": self.alpha})
        return config
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 2, (32, 1)).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", FocalLoss(gamma=2.0))
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "model.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        "C05",
        must=("focalloss", "gamma"),
        must_not=("custom_objects",),
        fix='add "gamma" to get_config',
    ),
    # ValueError: Invalid value for argument `reduction`. Expected one of {'sum',
    # 'sum_over_batch_size', 'mean', 'mean_with_sample_weight', 'none', None} (set order
    # varies). Received: reduction=auto
    # (Keras 2's reduction "auto" in a Loss subclass)
    Case(
        "cm_loss_subclass_keras2_reduction_auto",
        FAMILY,
        """
class WeightedBCE(keras.losses.Loss):
    def __init__(self, pos_weight=3.0, name="weighted_bce"):
        super().__init__(name=name, reduction="auto")
        self.pos_weight = pos_weight
    def call(self, y_true, y_pred):
        y_pred = tf.clip_by_value(y_pred, 1e-7, 1 - 1e-7)
        loss = -(self.pos_weight * y_true * tf.math.log(y_pred) + (1 - y_true) * tf.math.log(1 - y_pred))
        return tf.reduce_mean(loss, axis=-1)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", WeightedBCE(pos_weight=3.0))
""",
        None,
        unexplained="Keras's ValueError names the argument, the value 'auto' and the valid choices",
        fix='reduction="sum_over_batch_size"',
    ),
]
