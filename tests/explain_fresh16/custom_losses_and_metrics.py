"""Family ``custom_losses_and_metrics``: hand-written losses and metrics against the contract Keras calls them with.

APIs: a loss given to ``compile(loss=fn)`` is called as ``fn(y_true, y_pred)`` with exactly
those two tensors (extra arguments go in a closure or ``functools.partial``), inside the
traced train function, so its tensors are symbolic (no ``.numpy()``, no NumPy calls);
it must return one loss per sample (or a scalar) that Keras reduces with ``reduction``
and weights with ``sample_weight`` (one weight per sample, the same length as ``x`` and
``y``; per-class weights go in ``class_weight``).  Keras' own functions
(``keras.losses.categorical_crossentropy`` and friends) keep their contracts when called
inside a custom loss: categorical wants one-hot ``y_true`` of the same shape as
``y_pred``, sparse wants integer ids.  ``keras.losses.Loss`` subclasses implement
``call(y_true, y_pred)``; their constructor arguments must come back from
``get_config`` for ``load_model`` to rebuild them.  ``keras.metrics.Metric`` subclasses
create their state in ``__init__``/``build`` with ``add_weight`` (once; never in
``update_state``), update it in ``update_state`` with values of the weight's own dtype
(``assign_add`` does not cast), and return it from ``result``; metric functions receive
``y_true`` as the labels' dtype, so comparing them with ``argmax`` ids needs a cast.

Evidence a diagnosis needs: the user's loss or metric and the line in it that failed,
the shapes and dtypes of ``y_true``/``y_pred`` (and of ``sample_weight``) that reached
it, the dtype of a metric's weight against the value assigned to it, whether the
failing code ran in graph mode, and for a failed load the class and the constructor
argument its ``get_config`` leaves out.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: No gradients provided for any variable.
    Case(
        name="f16_zero_one_loss_from_argmax_has_no_gradient",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(16, 5).astype("float32")
y = np.random.randint(0, 3, size=(16,))
def misclassification_rate(y_true, y_pred):
    predicted = tf.argmax(y_pred, axis=-1)
    wrong = tf.not_equal(predicted, tf.cast(tf.reshape(y_true, [-1]), tf.int64))
    return tf.cast(wrong, tf.float32)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss=misclassification_rate)
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        expect="G04",
        must=("argmax",),
        must_not=("learning rate", "trainable=true"),
        fix='a differentiable loss ("sparse_categorical_crossentropy"); keep the 0/1 rate as a metric',
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(4,), output.shape=(4, ...
    Case(
        name="f16_keras_categorical_crossentropy_in_custom_loss_with_int_labels",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(12, 6).astype("float32")
y = np.random.randint(0, 4, size=(12,))
def smoothed_ce(y_true, y_pred):
    ce = keras.losses.categorical_crossentropy(y_true, y_pred)
    return ce + 0.01 * tf.reduce_sum(tf.square(y_pred), axis=-1)
inputs = keras.Input((6,))
outputs = keras.layers.Dense(4, activation="softmax", name="species")(keras.layers.Dense(8, activation="relu")(inputs))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss=smoothed_ce)
model.fit(x, y, epochs=1, batch_size=4, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("expand_dims", "reshape"),
        fix="keras.losses.sparse_categorical_crossentropy, or one-hot the labels",
    ),
    # TypeError: Input 'y' of 'Mul' Op has type float32 that does not match type int64 of argument 'x'.
    Case(
        name="f16_precision_metric_multiplies_int_labels_by_float_mask",
        family="custom_losses_and_metrics",
        code="""
class PrecisionAtHalf(keras.metrics.Metric):
    def __init__(self, name="precision_at_half", **kwargs):
        super().__init__(name=name, **kwargs)
        self.tp = self.add_weight(name="tp", initializer="zeros")
        self.predicted = self.add_weight(name="predicted", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        flagged = tf.cast(y_pred > 0.5, tf.float32)
        self.tp.assign_add(tf.reduce_sum(y_true * flagged))
        self.predicted.assign_add(tf.reduce_sum(flagged))
    def result(self):
        return self.tp / (self.predicted + 1e-7)
x = np.random.rand(16, 4).astype("float32")
y = np.random.randint(0, 2, size=(16, 1))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=[PrecisionAtHalf()])
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        expect="S11",
        must=("int64",),
        must_not=("reshape", "from_logits"),
        fix="tf.cast(y_true, tf.float32) at the top of update_state",
    ),
    # TypeError: <class 'BinaryFocal'> could not be deserialized properly. Please ensure that components that are ...
    #   Exception encountered: BinaryFocal.__init__() missing 1 required positional argument: 'gamma'
    Case(
        name="f16_focal_loss_subclass_get_config_drops_gamma",
        family="custom_losses_and_metrics",
        code="""
import os, tempfile
@keras.saving.register_keras_serializable(package="f16")
class BinaryFocal(keras.losses.Loss):
    def __init__(self, gamma, **kwargs):
        super().__init__(**kwargs)
        self.gamma = gamma
    def call(self, y_true, y_pred):
        p = tf.clip_by_value(y_pred, 1e-6, 1 - 1e-6)
        pt = tf.where(y_true > 0.5, p, 1 - p)
        return -tf.reduce_mean((1 - pt) ** self.gamma * tf.math.log(pt), axis=-1)
x = np.random.rand(8, 3).astype("float32")
y = np.random.randint(0, 2, size=(8, 1)).astype("float32")
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss=BinaryFocal(gamma=2.0))
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "focal.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("gamma", "get_config"),
        must_not=("register_keras_serializable",),
        fix='get_config returning {**super().get_config(), "gamma": self.gamma}',
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same number of samples.'x' sizes: 30
    Case(
        name="f16_per_class_weights_passed_as_sample_weight",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(30, 4).astype("float32")
y = np.random.randint(0, 3, size=(30,))
weights_per_class = np.array([1.0, 4.0, 2.0])
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(), metrics=["accuracy"])
model.fit(x, y, sample_weight=weights_per_class, epochs=1, batch_size=10, verbose=0)
""",
        expect="S12",
        must=("class_weight",),
        must_not=("reshape", "expand_dims"),
        fix="class_weight={0: 1.0, 1: 4.0, 2: 2.0} (or sample_weight=weights_per_class[y])",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only ...
    Case(
        name="f16_metric_creates_its_weight_in_update_state",
        family="custom_losses_and_metrics",
        code="""
class MeanAbsResidual(keras.metrics.Metric):
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.total = self.add_weight(name="total", initializer="zeros")
        self.count = self.add_weight(name="count", initializer="zeros")
        self.total.assign_add(tf.reduce_sum(tf.abs(y_true - y_pred)))
        self.count.assign_add(tf.cast(tf.size(y_true), "float32"))
    def result(self):
        return self.total / self.count
x = np.random.rand(12, 2).astype("float32")
y = np.random.rand(12, 1).astype("float32")
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[MeanAbsResidual(name="mar")])
model.fit(x, y, epochs=1, batch_size=4, verbose=0)
""",
        expect="T03",
        must=("__init__",),
        must_not=("run_eagerly",),
        fix="create total/count with add_weight in __init__, only assign_add in update_state",
    ),
    # ValueError: Dimensions must be equal, but are 2 and 6 for '{{node compile_loss/per_output_mse/mul}} = Mul[T=DT_FLOAT](comp ...
    Case(
        name="f16_loss_reduced_over_batch_axis_with_sample_weight",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(12, 3).astype("float32")
y = np.random.rand(12, 2).astype("float32")
w = np.linspace(0.5, 2.0, 12).astype("float32")
def per_output_mse(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=0)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
model.compile(optimizer="adam", loss=per_output_mse)
model.fit(x, y, sample_weight=w, epochs=1, batch_size=6, verbose=0)
""",
        expect="S07",
        must=("axis",),
        must_not=("reshape the labels", "expand_dims"),
        fix="reduce over the last axis (axis=-1): one loss per sample",
    ),
    # ValueError: Invalid value for argument `reduction`. Expected one of {...}. Received: reduction=auto
    Case(
        name="f16_loss_reduction_string_from_old_tf_keras",
        family="custom_losses_and_metrics",
        code="""
loss_fn = keras.losses.BinaryCrossentropy(from_logits=True, reduction="auto")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=loss_fn)
""",
        expect=None,
        unexplained="the message lists the allowed values of `reduction` and the one received",
        fix='reduction="sum_over_batch_size" (the default)',
    ),
]
