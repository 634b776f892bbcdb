"""Family ``losses_metrics_in_compile``: the ``loss`` and ``metrics`` given to ``Model.compile``.

APIs: ``compile(loss=..., metrics=...)`` takes names Keras 3 knows (``"mse"``,
``"sparse_categorical_crossentropy"``, ``"accuracy"``, ...; names from other libraries or
from Keras 2 add-ons such as ``"f1"`` are not identifiers: the class is
``keras.metrics.F1Score``), ``keras.losses.Loss`` subclasses and metric instances, and any
function ``fn(y_true, y_pred)`` returning a per-sample (or scalar) loss.  ``fit`` runs the
loss inside a compiled graph, so the function receives symbolic tensors: NumPy calls and
Python ``if`` on tensors fail there (``keras.ops``/``tf.where`` work), and a loss built
from non-differentiable ops (``argmax``, casts) gives no gradient.  Keras casts ``y_true``
to ``y_pred``'s dtype before calling a loss, so integer class ids arrive as float32.  A
custom loss must handle the label encoding it gets (integer ids of shape ``(B,)`` are not
one-hot rows of shape ``(B, C)``); for several outputs, the loss list (or dict) and the
targets follow the order (or names) of the model's outputs; ``sample_weight`` is one
weight per sample (shape ``(B,)``), multiplied with the per-sample loss.

Evidence a diagnosis needs: the loss or metric at fault (its name, from the error's name
scope ``compile_loss/<name>/...``), the user's line in a custom loss, the shapes and dtypes
of ``y_true``, ``y_pred`` and ``sample_weight`` as they reach it, the output each target
was paired with, and which op in the loss has no gradient or no graph form.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Could not interpret metric identifier: f1
    Case(
        name="f12_metric_name_f1_string_in_compile",
        family="losses_metrics_in_compile",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy", "f1"])
model.fit(np.random.rand(8, 4), np.random.randint(0, 2, (8, 1)), epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message names the identifier Keras cannot interpret ('f1')",
        fix="metrics=[keras.metrics.F1Score(threshold=0.5)]",
    ),
    # NotImplementedError: Cannot convert a symbolic tf.Tensor (compile_loss/rmse/sub:0) to a numpy
    #   array. This error may indicate that you're trying to pass a Tensor to a NumPy call, ...
    Case(
        name="f12_rmse_loss_written_with_numpy_mean_and_sqrt",
        family="losses_metrics_in_compile",
        code="""
def rmse(y_true, y_pred):
    return np.sqrt(np.mean(np.square(y_true - y_pred)))
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", loss=rmse)
model.fit(np.random.rand(8, 3), np.random.rand(8, 1), epochs=1, verbose=0)
""",
        expect="T02",
        must=("numpy",),
        must_not=("run_eagerly",),
        fix="keras.ops.sqrt(keras.ops.mean(keras.ops.square(y_true - y_pred)))",
    ),
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.
    Case(
        name="f12_asymmetric_loss_with_python_if_on_error_tensor",
        family="losses_metrics_in_compile",
        code="""
def asymmetric(y_true, y_pred):
    err = y_true - y_pred
    if err > 0:
        return 2.0 * tf.square(err)
    return tf.square(err)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", loss=asymmetric)
model.fit(np.random.rand(8, 3), np.random.rand(8, 1), epochs=1, verbose=0)
""",
        expect="T02",
        must=("tf.where",),
        must_not=("run_eagerly", "tf.cond"),
        fix="tf.where(err > 0, 2.0 * tf.square(err), tf.square(err))",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Incompatible shapes: [8] vs. [8,3]  [[{{node compile_loss/my_cce/mul}}]]
    #   (from run to run the node is the forward mul or its gradient_tape/.../BroadcastGradientArgs)
    Case(
        name="f12_handwritten_crossentropy_given_integer_class_ids",
        family="losses_metrics_in_compile",
        code="""
def my_cce(y_true, y_pred):
    return -tf.reduce_sum(y_true * tf.math.log(y_pred + 1e-7), axis=-1)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", loss=my_cce)
x = np.random.rand(8, 4).astype("float32")
y = np.random.randint(0, 3, (8,)).astype("float32")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("my_cce",),
        must_not=("reshape",),
        fix="one-hot the labels (keras.utils.to_categorical(y, 3)) or use the sparse loss",
    ),
    # TypeError: Value passed to parameter 'indices' has DataType float32 not in list of
    #   allowed values: uint8, int8, int32, int64
    Case(
        name="f12_label_smoothing_loss_class_one_hots_cast_labels",
        family="losses_metrics_in_compile",
        code="""
class SmoothedCE(keras.losses.Loss):
    def __init__(self, num_classes, smoothing=0.1):
        super().__init__()
        self.num_classes = num_classes
        self.smoothing = smoothing

    def call(self, y_true, y_pred):
        y = tf.one_hot(y_true, self.num_classes)
        y = y * (1 - self.smoothing) + self.smoothing / self.num_classes
        return keras.losses.categorical_crossentropy(y, y_pred)

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", loss=SmoothedCE(3))
model.fit(np.random.rand(8, 4), np.random.randint(0, 3, (8,)), epochs=1, verbose=0)
""",
        expect="S11",
        must=("one_hot",),
        must_not=("astype",),
        fix="tf.one_hot(tf.cast(y_true, 'int32'), ...) inside call",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f12_error_rate_loss_built_on_argmax",
        family="losses_metrics_in_compile",
        code="""
def error_rate(y_true, y_pred):
    predicted = tf.argmax(y_pred, axis=-1)
    wrong = tf.not_equal(predicted, tf.cast(y_true[:, 0], tf.int64))
    return tf.reduce_mean(tf.cast(wrong, tf.float32))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", loss=error_rate)
model.fit(np.random.rand(8, 4), np.random.randint(0, 3, (8, 1)), epochs=1, verbose=0)
""",
        expect="G04",
        must=("argmax",),
        must_not=("with block", "learning rate"),
        fix="train with sparse_categorical_crossentropy; keep the error rate as a metric",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Received a label value of <N> which is outside the valid range of [0, 4). ... (N: a price, up to 99)
    Case(
        name="f12_two_output_targets_listed_in_swapped_order",
        family="losses_metrics_in_compile",
        code="""
listing = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(listing)
price = keras.layers.Dense(1, name="price")(h)
kind = keras.layers.Dense(4, activation="softmax", name="kind")(h)
model = keras.Model(listing, [price, kind])
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy"])
kind_ids = np.random.randint(0, 4, (8,))
prices = np.random.rand(8, 1) * 100
model.fit(np.random.rand(8, 6), [kind_ids, prices], epochs=1, verbose=0)
""",
        expect="S12",
        must=("price",),
        must_not=("from_logits",),
        fix="y=[prices, kind_ids] (the order of the outputs)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Incompatible shapes: [8,3] vs. [8]  [[{{node compile_loss/categorical_crossentropy/mul}}]]
    #   (from run to run the forward mul or its gradient_tape/.../BroadcastGradientArgs, shapes [8] vs. [8,3])
    Case(
        name="f12_class_weights_times_onehot_matrix_as_sample_weight",
        family="losses_metrics_in_compile",
        code="""
x = np.random.rand(8, 4).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 8), 3)
class_w = np.array([1.0, 4.0, 2.0])
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", loss="categorical_crossentropy")
model.fit(x, y, sample_weight=y * class_w, epochs=1, verbose=0)
""",
        expect="S07",
        must=("sample_weight",),
        must_not=("sparse",),
        fix="sample_weight=(y * class_w).sum(axis=1) (one weight per sample)",
    ),
]
