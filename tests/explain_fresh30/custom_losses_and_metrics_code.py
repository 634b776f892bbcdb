"""Custom losses and metrics code: user functions and ``Loss``/``Metric`` subclasses.

The family
----------
* A loss given to ``compile(loss=fn)`` is called as ``fn(y_true, y_pred)``: labels first,
  predictions second, whatever the parameter names say.  It returns one value per sample
  (shape ``(batch,)`` or ``(batch, ...)``); Keras applies ``sample_weight`` and the
  reduction (``"sum_over_batch_size"`` by default).  ``keras.losses.Loss`` subclasses
  implement ``call(self, y_true, y_pred)``; ``Loss.__call__(y_true, y_pred,
  sample_weight=None)`` converts, weights and reduces.  ``Loss.get_config()`` returns
  ``{"name", "reduction"}``: a subclass with constructor arguments must accept
  ``**kwargs`` (they include ``reduction``) and add its own arguments to ``get_config``, or
  ``load_model`` cannot rebuild it (``cls(**config)``).
* Inside ``fit`` the loss and metrics run in a ``tf.function`` graph: ``y_true``/``y_pred``
  are symbolic tensors.  Python ``if tensor:``, ``float(tensor)``, ``tensor.numpy()`` and
  NumPy functions (``np.mean``, ``np.log1p``) on them raise
  (``OperatorNotAllowedInGraphError``, "Cannot convert a symbolic tf.Tensor to a numpy
  array"); element-wise choices use ``tf.where``/``keras.ops.where``, math uses
  ``keras.ops``/``tf.math`` (NumPy is not differentiable even when run eagerly).
* Called directly (custom loops), a loss gets the dtypes it is given: integer labels from
  NumPy (``int64``) meet ``float32`` predictions and TensorFlow does not cast
  (``y_true - y_pred`` raises); cast ``y_true`` to ``y_pred.dtype`` first.
* ``keras.metrics.Metric`` subclasses: state created in ``__init__`` with
  ``self.add_weight(name=..., shape=(), initializer="zeros")`` (keyword ``name``); Python
  attributes holding tensors do not survive across the graph functions of ``fit``
  (``InaccessibleTensorError``).  ``update_state(self, y_true, y_pred, sample_weight=None)``
  — ``compile`` always passes ``sample_weight=`` — must reduce per-sample values to the
  state's shape before ``assign_add`` (a scalar state cannot take a ``(batch, 1)`` value).
  ``result()`` returns a tensor computed from the state; ``reset_state()`` zeroes it.

Evidence a diagnosis needs
--------------------------
The user function or class and the line in it (its signature against the call Keras makes,
the tensor op or NumPy/Python call that met a symbolic tensor, the state variable's shape
against the value assigned, the dtypes of ``y_true`` and ``y_pred``, the ``get_config``
keys against the constructor's parameters), then the fix in that code: swap the
parameters, ``tf.where``, ``keras.ops``, ``tf.cast``, ``tf.reduce_sum`` before
``assign_add``, ``add_weight`` state, ``sample_weight=None``, a complete ``get_config``.
"""

from tests.explain_corpus import Case

FAMILY = "custom_losses_and_metrics_code"

CASES = [
    # InvalidArgumentError: cannot compute Sub as input #1(zero-based) was expected to be a int64 tensor but is a float tensor [Op:Sub] name:
    Case(
        name="f30_custom_huber_int_labels_in_training_loop",
        family=FAMILY,
        code="""
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 5, size=(32, 1))
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
def huber(y_true, y_pred, delta=1.0):
    err = y_true - y_pred
    small = tf.abs(err) <= delta
    return tf.reduce_mean(tf.where(small, 0.5 * tf.square(err), delta * (tf.abs(err) - 0.5 * delta)))
for xb, yb in ds:
    with tf.GradientTape() as tape:
        loss = huber(yb, model(xb, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="S11",
        must=("int64",),
        must_not=("reshape", "sparse"),
        fix="y_true = tf.cast(y_true, y_pred.dtype) in the loss (or y.astype('float32'))",
    ),
    # ValueError: The shape of the target variable and the shape of the target value in `variable.assign(value)` must match. variable.shape=(), Received: value.shape=(None, 1). Target variable: <Variable path=mean_abs_err/total, shape=(), dtype=float32>
    Case(
        name="f30_metric_assign_add_per_sample_errors",
        family=FAMILY,
        code="""
class MeanAbsErr(keras.metrics.Metric):
    def __init__(self, name="mean_abs_err", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_weight(name="total", initializer="zeros")
        self.count = self.add_weight(name="count", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total.assign_add(tf.abs(y_true - y_pred))
        self.count.assign_add(tf.cast(tf.shape(y_true)[0], tf.float32))
    def result(self):
        return self.total / self.count
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[MeanAbsErr()])
model.fit(np.random.rand(16, 3), np.random.rand(16, 1), epochs=1, verbose=0)
""",
        expect="S07",
        must=("reduce_sum",),
        must_not=("squeeze", "batch size"),
        fix="self.total.assign_add(tf.reduce_sum(tf.abs(y_true - y_pred)))",
    ),
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. You can attempt the following resolutions to the problem: If you are running in Graph mode, use Eager execution mode or decorate this function with @tf.function. ...
    Case(
        name="f30_asymmetric_loss_python_if_on_error_tensor",
        family=FAMILY,
        code="""
def asymmetric_loss(y_true, y_pred):
    err = y_true - y_pred
    if err > 0:
        return tf.reduce_mean(2.0 * tf.square(err))
    return tf.reduce_mean(tf.square(err))
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=asymmetric_loss)
model.fit(np.random.rand(16, 3), np.random.rand(16, 1), epochs=1, verbose=0)
""",
        expect="T02",
        must=("tf.where",),
        must_not=("run_eagerly",),
        fix="tf.reduce_mean(tf.where(err > 0, 2.0, 1.0) * tf.square(err))",
    ),
    # NotImplementedError: Cannot convert a symbolic tf.Tensor (sequential_1/dense_1/Relu:0) to a numpy array. This error may indicate that you're trying to pass a Tensor to a NumPy call, which is not supported.
    Case(
        name="f30_rmsle_loss_written_with_numpy",
        family=FAMILY,
        code="""
def rmsle(y_true, y_pred):
    return np.sqrt(np.mean(np.square(np.log1p(y_pred) - np.log1p(y_true))))
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, activation="relu")])
model.compile(optimizer="adam", loss=rmsle)
model.fit(np.random.rand(16, 3), np.random.rand(16, 1), epochs=1, verbose=0)
""",
        expect="T02",
        must=("numpy",),
        must_not=("run_eagerly",),
        fix="write the loss with keras.ops / tf.math (ops.sqrt, ops.mean, ops.log1p)",
    ),
    # TypeError: <class 'WeightedBCE'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f30_registered_loss_subclass_without_get_config",
        family=FAMILY,
        code="""
@keras.saving.register_keras_serializable()
class WeightedBCE(keras.losses.Loss):
    def __init__(self, pos_weight, name="weighted_bce"):
        super().__init__(name=name)
        self.pos_weight = pos_weight
    def call(self, y_true, y_pred):
        y_pred = tf.clip_by_value(y_pred, 1e-7, 1 - 1e-7)
        return -tf.reduce_mean(self.pos_weight * y_true * tf.math.log(y_pred) + (1 - y_true) * tf.math.log(1 - y_pred), axis=-1)
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss=WeightedBCE(pos_weight=3.0))
model.fit(np.random.rand(16, 3), np.random.randint(0, 2, (16, 1)), epochs=1, verbose=0)
model.save("/tmp/f30_weighted_bce.keras")
restored = keras.models.load_model("/tmp/f30_weighted_bce.keras")
""",
        expect="C05",
        must=("pos_weight",),
        must_not=("custom_objects",),
        fix="accept **kwargs in __init__ and return pos_weight from get_config",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(32, 4), output.shape=(32,)
    Case(
        name="f30_focal_loss_parameters_in_wrong_order",
        family=FAMILY,
        code="""
def focal_sparse(y_pred, y_true):
    ce = keras.losses.sparse_categorical_crossentropy(y_true, y_pred)
    p = tf.exp(-ce)
    return (1 - p) ** 2 * ce
x = np.random.rand(32, 6).astype("float32")
y = np.random.randint(0, 4, size=(32,))
model = keras.Sequential([keras.Input(shape=(6,)), keras.layers.Dense(4, activation="softmax")])
model.compile(optimizer="adam", loss=focal_sparse)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("order",),
        must_not=("one-hot", "to_categorical"),
        fix="def focal_sparse(y_true, y_pred): Keras passes the labels first",
    ),
    # InaccessibleTensorError: <tf.Tensor 'add_3:0' shape=() dtype=float32> is out of scope and cannot be used here. Use return values, explicit Python locals or TensorFlow collections to access it.
    Case(
        name="f30_metric_state_kept_in_python_attributes",
        family=FAMILY,
        code="""
class RunningMAE(keras.metrics.Metric):
    def __init__(self, name="running_mae", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = 0.0
        self.count = 0
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total += tf.reduce_sum(tf.abs(y_true - y_pred))
        self.count += tf.shape(y_true)[0]
    def result(self):
        return self.total / tf.cast(self.count, tf.float32)
    def reset_state(self):
        self.total = 0.0
        self.count = 0
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[RunningMAE()])
model.fit(np.random.rand(16, 3), np.random.rand(16, 1), epochs=1, verbose=0)
""",
        expect="T03",
        must=("add_weight",),
        must_not=("tf.cond", "tf.where"),
        fix="create total/count with self.add_weight and update them with assign_add",
    ),
    # TypeError: MeanAbsoluteErrorPct.update_state() got an unexpected keyword argument 'sample_weight'
    Case(
        name="f30_metric_update_state_without_sample_weight_param",
        family=FAMILY,
        code="""
class MeanAbsoluteErrorPct(keras.metrics.Metric):
    def __init__(self, name="mape_custom", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_weight(name="total", initializer="zeros")
        self.count = self.add_weight(name="count", initializer="zeros")
    def update_state(self, y_true, y_pred):
        err = tf.abs((y_true - y_pred) / y_true) * 100.0
        self.total.assign_add(tf.reduce_sum(err))
        self.count.assign_add(tf.cast(tf.size(err), tf.float32))
    def result(self):
        return self.total / self.count
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[MeanAbsoluteErrorPct()])
model.fit(np.random.rand(16, 3), np.random.rand(16, 1) + 1.0, epochs=1, verbose=0)
""",
        expect=None,
        must_not=("run_eagerly", "add_weight"),
        unexplained="Python's message names the method and the keyword it lacks "
        "(update_state ... 'sample_weight'): add the parameter.",
        fix="def update_state(self, y_true, y_pred, sample_weight=None)",
    ),
]
