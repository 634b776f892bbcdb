"""Family ``custom_losses_and_metrics``: hand-written losses and metrics, against what ``compile``/``fit`` call them with.

APIs: a loss given to ``compile(loss=...)`` as a plain function is called as
``fn(y_true, y_pred)`` (two positional arguments and no more: extra parameters need a
closure or ``functools.partial`` with keywords) inside the traced train function, so the
tensors it gets are symbolic (no ``.numpy()``, no Python ``if`` on their values, no NumPy
calls), and it must stay differentiable (``argmax``, ``round`` and casts to int cut the
gradient: "No gradients provided for any variable").  Keras' own loss functions keep their
label contract inside a wrapper: ``categorical_crossentropy`` wants one-hot labels of the
output's shape, ``sparse_categorical_crossentropy`` integer ids one rank lower, and
``binary_crossentropy`` labels of the output's shape (one sigmoid unit per binary target).
``keras.losses.Loss`` subclasses implement ``call`` and pass ``reduction`` (Keras 3:
``"sum_over_batch_size"``, ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``, ``"none"``
or ``None``; the Keras 2 value ``"auto"`` is gone) to ``super().__init__``.
``keras.metrics.Metric`` subclasses create their state once with ``self.add_weight`` in
``__init__`` (a ``tf.Variable`` made in ``update_state`` is made on every trace, which a
``tf.function`` refuses), keep the shape they declared (``assign_add`` of a per-class vector
into a scalar weight fails), and are called as ``update_state(y_true, y_pred,
sample_weight=None)``.  Constants mixed into a loss must have the loss's dtype (float32),
not NumPy's default float64.

Evidence a diagnosis needs: the user's loss or metric (its name, its line), what it received
(the shapes and dtypes of ``y_true`` and ``y_pred``, the label encoding against the output
layer's units and activation), which of its operations failed (the op and its name scope,
the weight and its declared shape, the constant and its dtype, the non-differentiable op on
the path to the loss), and where the loss or metric was created (``__init__`` against
``update_state``, the ``reduction`` passed to ``Loss``).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function. ...
    Case(
        name="f17_metric_creates_its_counter_variable_in_update_state",
        family="custom_losses_and_metrics",
        code="""
class CountPositives(keras.metrics.Metric):
    def __init__(self, name="count_pos", **kwargs):
        super().__init__(name=name, **kwargs)

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.count = tf.Variable(0.0)
        self.count.assign_add(tf.reduce_sum(tf.cast(y_pred > 0.5, "float32")))

    def result(self):
        return self.count

x = np.random.rand(16, 4).astype("float32")
y = np.random.randint(0, 2, size=(16, 1)).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", loss="binary_crossentropy", metrics=[CountPositives()])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T03",
        must=("add_weight",),
        must_not=("run_eagerly",),
        fix="self.count = self.add_weight(...) in __init__",
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    Case(
        name="f17_relative_error_loss_calls_numpy_on_y_true",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")

def relative_error(y_true, y_pred):
    scale = y_true.numpy().max()
    return tf.reduce_mean(tf.abs(y_true - y_pred)) / scale

inputs = keras.Input((4,))
hidden = keras.layers.Dense(8, activation="relu")(inputs)
outputs = keras.layers.Dense(1)(hidden)
model = keras.Model(inputs, outputs)
model.compile("adam", loss=relative_error)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="T02",
        must=("numpy",),
        must_not=("py_function",),
        fix="tf.reduce_max(y_true) instead of y_true.numpy().max()",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 4), output.shape=(None, 4)
    Case(
        name="f17_partial_focal_loss_sparse_inside_gets_one_hot_labels",
        family="custom_losses_and_metrics",
        code="""
import functools

def focal_sparse(y_true, y_pred, gamma=2.0):
    ce = keras.losses.sparse_categorical_crossentropy(y_true, y_pred)
    p = tf.exp(-ce)
    return (1 - p) ** gamma * ce

x = np.random.rand(20, 6).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 4, 20), 4)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, activation="softmax")])
model.compile("adam", loss=functools.partial(focal_sparse, gamma=1.5))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("expand_dims", "gamma"),
        fix="integer labels (np.argmax(y, -1)) or categorical_crossentropy inside the loss",
    ),
    # ValueError: The shape of the target variable and the shape of the target value in `variable.assign(value)` must match. variable.shape=(), Received: value.shape=(3,). ...
    Case(
        name="f17_per_class_hits_metric_adds_vector_to_scalar_weight",
        family="custom_losses_and_metrics",
        code="""
class PerClassHits(keras.metrics.Metric):
    def __init__(self, name="hits", **kwargs):
        super().__init__(name=name, **kwargs)
        self.hits = self.add_weight(name="hits", shape=(), initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        correct = tf.cast(tf.equal(tf.argmax(y_pred, -1), tf.argmax(y_true, -1)), "float32")
        per_class = tf.cast(y_true, "float32") * correct[:, None]
        self.hits.assign_add(tf.reduce_sum(per_class, axis=0))

    def result(self):
        return self.hits

x = np.random.rand(12, 5).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 12), 3)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", loss="categorical_crossentropy", metrics=[PerClassHits()])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("hits",),
        must_not=("reshape the labels", "sparse"),
        fix="add_weight(shape=(3,)) or reduce_sum over all axes",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received: target.shape=(None, 1), output.shape=(None, 2)
    Case(
        name="f17_binary_crossentropy_object_on_two_unit_softmax",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(16, 8).astype("float32")
y = np.random.randint(0, 2, size=(16, 1)).astype("float32")
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(2, activation="softmax"),
])
model.compile("adam", loss=keras.losses.BinaryCrossentropy(), metrics=["accuracy"])
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M03",
        must=("sigmoid",),
        must_not=("expand_dims", "from_logits=true"),
        fix="Dense(1, activation='sigmoid'), or sparse_categorical_crossentropy for the 2-unit softmax",
    ),
    # ValueError: Invalid value for argument `reduction`. Expected one of {'mean', 'none', 'sum_over_batch_size', 'sum', None, 'mean_with_sample_weight'}. Received: reduction=auto
    Case(
        name="f17_focal_loss_subclass_passes_keras2_reduction_auto",
        family="custom_losses_and_metrics",
        code="""
class FocalLoss(keras.losses.Loss):
    def __init__(self, gamma=2.0, reduction="auto", name="focal"):
        super().__init__(reduction=reduction, name=name)
        self.gamma = gamma

    def call(self, y_true, y_pred):
        y_pred = tf.clip_by_value(y_pred, 1e-7, 1 - 1e-7)
        p_t = y_true * y_pred + (1 - y_true) * (1 - y_pred)
        return -tf.reduce_mean((1 - p_t) ** self.gamma * tf.math.log(p_t), axis=-1)

x = np.random.rand(16, 4).astype("float32")
y = np.random.randint(0, 2, (16, 1)).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", loss=FocalLoss(gamma=2.0))
model.fit(x, y, epochs=1, verbose=0)
""",
        expect=None,
        unexplained="the message lists the valid values of `reduction` and the one received ('auto')",
        fix="reduction='sum_over_batch_size'",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="f17_error_rate_loss_built_from_argmax",
        family="custom_losses_and_metrics",
        code="""
x = np.random.rand(16, 8).astype("float32")
y = np.random.randint(0, 3, size=(16,))

def error_rate(y_true, y_pred):
    pred = tf.argmax(y_pred, axis=-1)
    y_ids = tf.cast(tf.reshape(y_true, [-1]), pred.dtype)
    return tf.reduce_mean(tf.cast(tf.not_equal(pred, y_ids), "float32"))

model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile("adam", loss=error_rate)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="G04",
        must=("argmax",),
        must_not=("trainable=true", "learning rate"),
        fix="train on sparse_categorical_crossentropy; keep the error rate as a metric",
    ),
    # TypeError: Input 'y' of 'Mul' Op has type float64 that does not match type float32 of argument 'x'.
    Case(
        name="f17_weighted_ce_loss_multiplies_by_float64_class_weights",
        family="custom_losses_and_metrics",
        code="""
class_weights = tf.constant(np.array([1.0, 5.0, 0.5]))

def weighted_ce(y_true, y_pred):
    ce = -y_true * tf.math.log(y_pred + 1e-7)
    return tf.reduce_sum(ce * class_weights, axis=-1)

x = np.random.rand(12, 5).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 12), 3)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", loss=weighted_ce)
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("float64",),
        must_not=("cast the labels", "mixed_float16"),
        fix="tf.constant([...], dtype=tf.float32) for class_weights",
    ),
]
