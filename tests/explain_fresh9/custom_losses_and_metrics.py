"""Family ``custom_losses_and_metrics``: user-written losses and metrics and the loss given to ``compile``.

APIs: ``compile(loss=fn)`` calls ``fn(y_true, y_pred)`` with exactly those two
arguments, in that order (per-example weights go through ``fit(sample_weight=...)``, or
a closure/``Loss`` subclass that captures extra parameters); ``fit`` traces the loss into
a ``tf.function``, so ``y_true``/``y_pred`` are symbolic tensors: NumPy calls
(``np.mean``, ``np.sqrt``) cannot read them and Python ``if`` on a tensor is not allowed
(``tf.where``/``keras.ops.where`` select elementwise; ``tf.cond`` only takes a scalar
predicate).  ``y_true`` arrives as the labels were given (integer class ids of shape
``(batch,)`` or ``(batch, 1)`` stay ids), so a loss written for one-hot targets needs
one-hot labels.  The loss must be differentiable in ``y_pred``: ``argmax``, ``round`` or
casts to integers cut the gradient ("No gradients provided for any variable").  Built-in
losses check their contract: ``BinaryCrossentropy`` wants ``y_true`` of the output's
shape (one unit per binary label, a sigmoid output), ``CategoricalCrossentropy`` wants
one-hot ``y_true`` of the output's rank (integer ids belong to
``SparseCategoricalCrossentropy``), whatever ``from_logits`` says.  A ``keras.metrics.
Metric`` subclass creates its state in ``__init__`` with ``self.add_weight(name=...,
shape=..., initializer=...)`` (the default ``shape=()`` is a scalar); ``update_state``
accumulates into that state with ``assign_add`` of a value of the SAME shape, and has the
signature ``update_state(y_true, y_pred, sample_weight=None)``.

Evidence a diagnosis needs: the user's loss or metric function and the line of it that
failed (its parameters against ``(y_true, y_pred)``, the NumPy call or Python ``if`` on a
symbolic tensor, the non-differentiable op), the shapes and dtypes of ``y_true`` and
``y_pred`` that reached it and where the labels came from (integer ids vs one-hot), the
output layer's units and activation against the built-in loss, and a metric variable's
shape against the value assigned to it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: weighted_mse() missing 1 required positional argument: 'weight'
    Case(
        name="f9_loss_function_with_a_third_weight_parameter",
        family="custom_losses_and_metrics",
        code="""
def weighted_mse(y_true, y_pred, weight):
    return tf.reduce_mean(weight * tf.square(y_true - y_pred))
x = np.random.rand(8, 3).astype("float32")
y = np.random.rand(8, 1).astype("float32")
w = np.linspace(0.5, 2.0, 8).astype("float32")
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", loss=weighted_mse)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("run_eagerly",),
        fix="def weighted_mse(y_true, y_pred) and fit(x, y, sample_weight=w)",
    ),
    # NotImplementedError: Cannot convert a symbolic tf.Tensor (compile_loss/rmse/sub:0) to a
    #   numpy array. This error may indicate that you're trying to pass a Tensor to a NumPy call, which is not supported.
    Case(
        name="f9_numpy_rmse_loss_on_symbolic_tensors",
        family="custom_losses_and_metrics",
        code="""
def rmse(y_true, y_pred):
    return np.sqrt(np.mean(np.square(y_true - y_pred)))
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", loss=rmse)
model.fit(np.random.rand(8, 3).astype("float32"), np.random.rand(8, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="T02",
        must=("rmse",),
        must_not=("run_eagerly",),
        fix="tf.sqrt(tf.reduce_mean(tf.square(y_true - y_pred))) (or keras.ops)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Incompatible shapes: [8] vs. [8,3]
    Case(
        name="f9_handwritten_crossentropy_fed_integer_class_ids",
        family="custom_losses_and_metrics",
        code="""
def my_cce(y_true, y_pred):
    return -tf.reduce_sum(y_true * tf.math.log(y_pred + 1e-7), axis=-1)
x = np.random.rand(8, 4).astype("float32")
y = np.random.randint(0, 3, 8).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", loss=my_cce)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("my_cce",),
        must_not=("from_logits", "reshape"),
        fix="keras.utils.to_categorical(y, 3) (or tf.one_hot in the loss)",
    ),
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. ...
    Case(
        name="f9_python_if_on_the_error_inside_a_huber_loss",
        family="custom_losses_and_metrics",
        code="""
def huberish(y_true, y_pred):
    err = y_true - y_pred
    if tf.abs(err) < 1.0:
        return 0.5 * err ** 2
    return tf.abs(err) - 0.5
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
model.compile("adam", loss=huberish)
model.fit(np.random.rand(8, 3).astype("float32"), np.random.rand(8, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="T02",
        must=("tf.where",),
        must_not=("tf.cond", "run_eagerly"),
        fix="tf.where(tf.abs(err) < 1.0, 0.5 * err ** 2, tf.abs(err) - 0.5)",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f9_ordinal_loss_built_on_argmax",
        family="custom_losses_and_metrics",
        code="""
def ordinal_loss(y_true, y_pred):
    pred_class = tf.cast(tf.argmax(y_pred, axis=-1), tf.float32)
    return tf.reduce_mean(tf.abs(pred_class - tf.cast(tf.squeeze(y_true, -1), tf.float32)))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(5, activation="softmax")])
model.compile("adam", loss=ordinal_loss)
model.fit(np.random.rand(8, 4).astype("float32"), np.random.randint(0, 5, (8, 1)), epochs=1, verbose=0)
""",
        expect="G04",
        must=("argmax",),
        must_not=("learning_rate", "persistent"),
        fix="a differentiable loss on y_pred (e.g. expected class = sum(p * k))",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape.
    #   Received: target.shape=(None, 1), output.shape=(None, 2)
    Case(
        name="f9_binary_crossentropy_on_a_two_unit_softmax",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(8, 4).astype("float32")
is_spam = np.random.randint(0, 2, (8, 1))
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="softmax")])
model.compile("adam", loss=keras.losses.BinaryCrossentropy())
model.fit(x, is_spam, epochs=1, verbose=0)
""",
        expect="M03",
        must=("softmax",),
        must_not=("from_logits",),
        fix='Dense(1, activation="sigmoid"), or SparseCategoricalCrossentropy',
    ),
    # ValueError: Arguments `target` and `output` must have the same rank (ndim).
    #   Received: target.shape=(None,), output.shape=(None, 3)
    Case(
        name="f9_categorical_crossentropy_from_logits_with_integer_ids",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(8, 4).astype("float32")
y = np.random.randint(0, 3, 8)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
model.compile("adam", loss=keras.losses.CategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("sparse",),
        must_not=("from_logits=false", "add a softmax"),
        fix="keras.losses.SparseCategoricalCrossentropy(from_logits=True)",
    ),
    # ValueError: The shape of the target variable and the shape of the target value in
    #   `variable.assign(value)` must match. variable.shape=(), Received: value.shape=(3,). ...
    Case(
        name="f9_metric_scalar_weight_accumulates_a_per_class_sum",
        family="custom_losses_and_metrics",
        code="""
class ClassHits(keras.metrics.Metric):
    def __init__(self, name="class_hits", **kwargs):
        super().__init__(name=name, **kwargs)
        self.true_pos = self.add_weight(name="true_pos", initializer="zeros")
    def update_state(self, y_true, y_pred, sample_weight=None):
        self.true_pos.assign_add(tf.reduce_sum(tf.cast(y_true, tf.float32) * y_pred, axis=0))
    def result(self):
        return self.true_pos
x = np.random.rand(8, 4).astype("float32")
y = np.eye(3)[np.random.randint(0, 3, 8)]
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy", metrics=[ClassHits()])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("true_pos",),
        must_not=("sparse", "from_logits"),
        fix="add_weight(name='true_pos', shape=(3,), ...), or reduce_sum over all axes",
    ),
]
