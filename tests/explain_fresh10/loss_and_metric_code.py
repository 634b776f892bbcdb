"""Family ``loss_and_metric_code``: losses and metrics the user writes or configures for ``compile``.

APIs: a loss given to ``compile`` is called as ``loss(y_true, y_pred)`` (labels first,
exactly two arguments; extra settings go in a closure or a ``Loss`` subclass's
constructor) inside the traced train step, so its body runs on symbolic tensors: NumPy
calls, ``float()`` and Python ``if`` on a tensor fail there, and must be written with
``keras.ops``/``tf`` ops and ``tf.where``.  A ``keras.metrics.Metric`` subclass creates its
state with ``add_weight`` in ``__init__`` (or ``build``), never in ``update_state``, which
Keras calls as ``update_state(y_true, y_pred, sample_weight=None)`` inside a
``tf.function``; its body receives the labels in their own dtype (integer labels stay
integer, unlike the built-in losses, which cast them), so comparing them with float
predictions needs a cast.  Built-in metrics have a label contract of their own:
``F1Score``/``FBetaScore`` take 2-D one-hot (or multi-label) targets of the output's width.

Evidence a diagnosis needs: the user's loss or metric function (its parameter list and
names, the line that failed, the NumPy or Python operation there), what Keras passed it
(the two tensors, their shapes and dtypes, the ``sample_weight`` keyword), and the
contract of the built-in metric or loss class that was given the data (its expected
label shape, rank or encoding).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received:
    #   target.shape=(None, 3), output.shape=(None,)
    Case(
        name="f10_custom_loss_declares_prediction_before_label",
        family="loss_and_metric_code",
        code="""
def smoothed_sparse_ce(y_pred, y_true):
    return keras.losses.sparse_categorical_crossentropy(y_true, y_pred)

x = np.random.rand(8, 4).astype("float32")
y = np.arange(8) % 3
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", smoothed_sparse_ce)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("y_true",),
        must_not=("one-hot", "to_categorical"),
        fix="def smoothed_sparse_ce(y_true, y_pred): Keras passes the labels first",
    ),
    # NotImplementedError: Cannot convert a symbolic tf.Tensor (compile_loss/rmse/sub:0) to a
    #   numpy array. This error may indicate that you're trying to pass a Tensor to a NumPy call, ...
    Case(
        name="f10_rmse_loss_written_with_numpy_calls",
        family="loss_and_metric_code",
        code="""
def rmse(y_true, y_pred):
    return np.sqrt(np.mean(np.square(y_true - y_pred)))

x = np.random.rand(8, 4).astype("float32")
y = np.random.rand(8, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", loss=rmse)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T02",
        must=("rmse",),
        must_not=("tf.cond",),
        fix="keras.ops.sqrt(keras.ops.mean(keras.ops.square(y_true - y_pred)))",
    ),
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not
    #   allowed. You can attempt the following resolutions to the problem: ...
    Case(
        name="f10_asymmetric_loss_branches_on_the_error_with_python_if",
        family="loss_and_metric_code",
        code="""
def asymmetric(y_true, y_pred):
    err = y_true - y_pred
    if err > 0:
        return tf.reduce_mean(2.0 * err)
    return tf.reduce_mean(-err)

x = np.random.rand(8, 4).astype("float32")
y = np.random.rand(8, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", asymmetric)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T02",
        must=("tf.where",),
        must_not=("run_eagerly",),
        fix="tf.reduce_mean(tf.where(err > 0, 2.0 * err, -err))",
    ),
    # TypeError: MeanErr.update_state() got an unexpected keyword argument 'sample_weight'
    Case(
        name="f10_metric_update_state_without_sample_weight_parameter",
        family="loss_and_metric_code",
        code="""
class MeanErr(keras.metrics.Metric):
    def __init__(self, name="mean_err", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_weight(name="total", initializer="zeros")
        self.count = self.add_weight(name="count", initializer="zeros")

    def update_state(self, y_true, y_pred):
        self.total.assign_add(tf.reduce_sum(tf.abs(y_true - y_pred)))
        self.count.assign_add(tf.cast(tf.size(y_true), "float32"))

    def result(self):
        return self.total / self.count

x = np.random.rand(8, 4).astype("float32")
y = np.random.rand(8, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", "mse", metrics=[MeanErr()])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message names update_state and the sample_weight keyword it does not accept",
        fix="def update_state(self, y_true, y_pred, sample_weight=None)",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first call.
    #   Make sure the tf.Variable is only created once or created outside tf.function. ...
    Case(
        name="f10_metric_creates_its_counter_inside_update_state",
        family="loss_and_metric_code",
        code="""
class HitRate(keras.metrics.Metric):
    def __init__(self, name="hit_rate", **kwargs):
        super().__init__(name=name, **kwargs)

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.hits = self.add_weight(name="hits", initializer="zeros")
        close = tf.cast(tf.abs(y_true - y_pred) < 0.1, "float32")
        self.hits.assign_add(tf.reduce_sum(close))

    def result(self):
        return self.hits

x = np.random.rand(8, 4).astype("float32")
y = np.random.rand(8, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", "mse", metrics=[HitRate()])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T03",
        must=("add_weight",),
        must_not=("persistent",),
        fix="create self.hits = self.add_weight(...) in __init__",
    ),
    # TypeError: weighted_mse() missing 1 required positional argument: 'weight'
    Case(
        name="f10_loss_function_with_a_third_weight_parameter",
        family="loss_and_metric_code",
        code="""
def weighted_mse(y_true, y_pred, weight):
    return tf.reduce_mean(weight * tf.square(y_true - y_pred))

x = np.random.rand(8, 4).astype("float32")
y = np.random.rand(8, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", loss=weighted_mse)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("weight",),
        must_not=("from_tensor_slices",),
        fix="close over the weight: loss=lambda t, p: weighted_mse(t, p, 2.0) (or a Loss subclass)",
    ),
    # TypeError: Input 'y' of 'Equal' Op has type float32 that does not match type int64 of argument 'x'.
    Case(
        name="f10_exact_match_metric_compares_int_labels_with_float_predictions",
        family="loss_and_metric_code",
        code="""
def exact_match(y_true, y_pred):
    return tf.reduce_mean(tf.cast(tf.equal(y_true, tf.round(y_pred)), "float32"))

x = np.random.rand(8, 4).astype("float32")
y = np.array([[0], [1]] * 4)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=[exact_match])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("int64",),
        must_not=("float64",),
        fix="tf.cast(y_true, y_pred.dtype) in the metric (or y.astype('float32'))",
    ),
    # ValueError: FBetaScore expects 2D inputs with shape (batch_size, output_dim). Received
    #   input shapes: y_pred.shape=(None, 3) and y_true.shape=(None,).
    Case(
        name="f10_f1_score_metric_given_sparse_class_ids",
        family="loss_and_metric_code",
        code="""
x = np.random.rand(9, 4).astype("float32")
y = np.array([0, 1, 2] * 3)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(
    "adam",
    "sparse_categorical_crossentropy",
    metrics=[keras.metrics.F1Score(average="macro")],
)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("f1score",),
        must_not=("expand_dims",),
        fix="one-hot labels (keras.utils.to_categorical) with categorical_crossentropy, or drop F1Score",
    ),
]
