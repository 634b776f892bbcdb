"""Family ``custom_loops``: ``tf.GradientTape`` training loops and custom ``train_step`` methods.

APIs: ``tf.GradientTape`` (records only the operations run inside its ``with`` block;
``tape.gradient(target, sources)`` returns ``None`` for every source the recorded target
does not depend on, and a non-differentiable op such as ``argmax`` or an integer cast cuts
the path; a non-persistent tape gives one set of gradients), ``optimizer.apply_gradients``
(pairs of gradient and variable, each gradient of its variable's shape; Keras raises "No
gradients provided for any variable" when every gradient is ``None``), ``tf.function``
(traces Python code once per signature: tensors inside are symbolic, so ``.numpy()`` and
Python printing of values fail, and a ``tf.Variable``, which every Keras metric and
optimizer creates, may only be created on the first trace), TensorFlow's binary ops (no
implicit casts: an ``int64`` label tensor cannot be subtracted from a ``float32``
prediction), ``keras.metrics.MeanIoU`` (``update_state(y_true, y_pred)`` takes class ids
for both unless ``sparse_y_pred=False``), and ``Model.train_step(data)`` (``data`` is
``(x, y)`` or ``(x, y, sample_weight)``: ``fit`` adds the weights when ``class_weight`` or
``sample_weight`` is given; ``keras.utils.unpack_x_y_sample_weight`` handles both).

Evidence a diagnosis needs: which line of the loop computed what (inside or after the
tape's block, inside the traced function), which sources the gradients were taken
against and which variables they were zipped with, the dtypes of labels and predictions
where an op mixes them, what the metric received against what it takes, and the
structure ``fit`` handed to ``train_step``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_SETUP = """
x = np.random.rand(8, 4).astype("float32")
y = np.array([0, 1, 2, 1, 0, 2, 1, 0])
model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)]
)
optimizer = keras.optimizers.Adam(1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
"""

CASES = [
    # ValueError: No gradients provided for any variable.
    Case(
        name="l2_penalty_added_after_the_tape_closes",
        family="custom_loops",
        code=_SETUP
        + """
with tf.GradientTape() as tape:
    logits = model(x, training=True)
    loss = loss_fn(y, logits)
loss = loss + 1e-4 * tf.add_n([tf.nn.l2_loss(v) for v in model.trainable_variables])
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="T03",
        must=("l2",),
        must_not=("argmax", "persistent"),
        fix="add the L2 term inside the with block",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first call.
    # Make sure the tf.Variable is only created once or created outside tf.function. ...
    Case(
        name="accuracy_metric_constructed_inside_the_tf_function_step",
        family="custom_loops",
        code=_SETUP
        + """
@tf.function
def train_step(xb, yb):
    acc = keras.metrics.SparseCategoricalAccuracy()
    with tf.GradientTape() as tape:
        logits = model(xb, training=True)
        loss = loss_fn(yb, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    acc.update_state(yb, logits)
    return loss, acc.result()
train_step(x, y)
""",
        expect="T03",
        must=("metric",),
        must_not=("persistent",),
        fix="create the metric once, outside train_step",
    ),
    # InvalidArgumentError: cannot compute Sub as input #1(zero-based) was expected to be a
    # int64 tensor but is a float tensor [Op:Sub] name:
    Case(
        name="hand_written_mse_on_int64_targets_from_the_dataset",
        family="custom_loops",
        code="""
x = np.random.rand(6, 3).astype("float32")
y = np.array([[3], [5], [2], [8], [4], [6]])
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(3)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
for xb, yb in ds:
    with tf.GradientTape() as tape:
        pred = model(xb, training=True)
        loss = tf.reduce_mean(tf.square(yb - pred))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="S11",
        must=("int64", "cast"),
        must_not=("float64",),
        fix="tf.cast(yb, pred.dtype) (or y.astype('float32'))",
    ),
    # AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
    Case(
        name="loss_printed_with_numpy_inside_tf_function_step",
        family="custom_loops",
        code=_SETUP
        + """
@tf.function
def train_step(xb, yb):
    with tf.GradientTape() as tape:
        loss = loss_fn(yb, model(xb, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    print(f"loss {loss.numpy():.4f}")
    return loss
train_step(x, y)
""",
        expect="T02",
        must=("print",),
        must_not=("tf.cond",),
        fix="tf.print(loss), or return the loss and print it outside",
    ),
    # ValueError: too many values to unpack (expected 2)
    Case(
        name="custom_train_step_unpacks_two_when_class_weight_adds_a_third",
        family="custom_loops",
        code="""
class WeightedModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}
inputs = keras.Input((4,))
outputs = keras.layers.Dense(2, activation="softmax")(inputs)
model = WeightedModel(inputs, outputs)
model.compile("adam", "sparse_categorical_crossentropy")
x = np.random.rand(8, 4).astype("float32")
y = np.array([0, 1, 0, 0, 0, 0, 1, 0])
model.fit(x, y, class_weight={0: 1.0, 1: 4.0}, epochs=1, verbose=0)
""",
        expect="S12",
        must=("sample_weight",),
        must_not=("reshape",),
        fix="x, y, sw = keras.utils.unpack_x_y_sample_weight(data) and pass sample_weight=sw",
    ),
    # InvalidArgumentError: ... Incompatible shapes: [32] vs. [96] [Op:LogicalAnd] name:
    Case(
        name="mean_iou_updated_with_softmax_probabilities",
        family="custom_loops",
        code="""
masks = np.random.randint(0, 3, size=(2, 4, 4))
probs = tf.nn.softmax(tf.random.normal((2, 4, 4, 3)))
miou = keras.metrics.MeanIoU(num_classes=3)
miou.update_state(masks, probs)
""",
        expect="S07",
        must=("meaniou",),
        must_not=("reshape",),
        fix="tf.argmax(probs, -1), or MeanIoU(num_classes=3, sparse_y_pred=False)",
    ),
    # InvalidArgumentError: ... Incompatible shapes: [8,3] vs. [4,8] [Op:Sub]
    Case(
        name="head_gradients_zipped_with_all_model_variables",
        family="custom_loops",
        code=_SETUP
        + """
head = model.layers[-1]
with tf.GradientTape() as tape:
    loss = loss_fn(y, model(x, training=True))
grads = tape.gradient(loss, head.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="S07",
        must=("head",),
        must_not=("persistent",),
        fix="zip(grads, head.trainable_variables)",
    ),
    # ValueError: No gradients provided for any variable.
    Case(
        name="loss_on_argmax_predicted_grade",
        family="custom_loops",
        code=_SETUP
        + """
y_f = tf.constant(y, tf.float32)
with tf.GradientTape() as tape:
    logits = model(x, training=True)
    predicted_grade = tf.cast(tf.argmax(logits, axis=-1), tf.float32)
    loss = tf.reduce_mean(tf.abs(predicted_grade - y_f))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="G04",
        must=("argmax",),
        must_not=("after the", "persistent"),
        fix="a differentiable loss on the logits (cross-entropy, or expected grade under softmax)",
    ),
]
