"""Family ``custom_training_loops``: training loops written with ``tf.GradientTape``.

APIs: ``tf.GradientTape`` (records only the operations run inside its ``with`` block; a
loss computed after the block is not on the tape, so ``tape.gradient`` returns ``None`` for
every variable; a non-persistent tape allows one ``gradient`` call, ``persistent=True``
allows several), ``tape.gradient(target, sources)`` (sources: a variable or a (nested)
list/dict of variables, such as ``model.trainable_variables``), the Keras 3 optimizer
(``apply_gradients(zip(grads, vars))`` takes (gradient, variable) pairs; ``apply(grads,
trainable_variables)`` takes two lists; an optimizer builds its slots for the variables of
its first call and refuses other variables later, so two models need two optimizers),
``model(x, training=True)`` (``x`` needs its batch axis: an unbatched ``tf.data`` dataset
yields single examples), ``trainable_variables`` against ``weights`` of a model with a
frozen part (the frozen layers' variables are in ``weights`` only, so zipping gradients of
one list with the other pairs them with the wrong variables), ``tf.function`` train steps
(the Python body runs once while tracing, on symbolic tensors: ``float()``/``.numpy()`` on
them fail, Python state should be fed from returned values), and metric objects in a loop
(``keras.metrics.Accuracy`` compares values exactly; class ids against logits need
``SparseCategoricalAccuracy``).

Evidence a diagnosis needs: where the loss was computed relative to the tape's ``with``
block, how many times a tape's ``gradient`` ran and whether it is persistent, the lists of
gradients and variables handed to the optimizer (their lengths, shapes and which model
they belong to), the shape of the batch the model received (and the dataset's
``element_spec``: batched or not), the user's line inside a ``tf.function``, and the metric
class with the shapes it was given.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: No gradients provided for any variable.
    Case(
        name="f12_mse_computed_after_the_tape_block_closed",
        family="custom_training_loops",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    pred = model(x, training=True)
loss = tf.reduce_mean(tf.square(y - pred))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="T03",
        must=("block",),
        must_not=("argmax",),
        fix="compute the loss inside the with tf.GradientTape() block",
    ),
    # RuntimeError: A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)
    Case(
        name="f12_gan_generator_and_discriminator_grads_from_one_tape",
        family="custom_training_loops",
        code="""
generator = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4)])
discriminator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
z = tf.random.normal((8, 2))
with tf.GradientTape() as tape:
    fake = generator(z, training=True)
    score = discriminator(fake, training=True)
    g_loss = -tf.reduce_mean(score)
    d_loss = tf.reduce_mean(score)
g_grads = tape.gradient(g_loss, generator.trainable_variables)
d_grads = tape.gradient(d_loss, discriminator.trainable_variables)
""",
        expect="T03",
        must=("persistent",),
        must_not=("outside the tape",),
        fix="tf.GradientTape(persistent=True) (or two tapes)",
    ),
    # ValueError: Unknown variable: <Variable path=sequential_.../dense_.../kernel, shape=(2, 4), ...>.
    #   This optimizer can only be called for the variables it was originally built with. ...
    Case(
        name="f12_one_adam_instance_shared_by_generator_and_critic",
        family="custom_training_loops",
        code="""
generator = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4)])
critic = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-4)
z = tf.random.normal((8, 2))
with tf.GradientTape(persistent=True) as tape:
    score = critic(generator(z, training=True), training=True)
    g_loss = -tf.reduce_mean(score)
    c_loss = tf.reduce_mean(score)
optimizer.apply_gradients(zip(tape.gradient(c_loss, critic.trainable_variables), critic.trainable_variables))
optimizer.apply_gradients(zip(tape.gradient(g_loss, generator.trainable_variables), generator.trainable_variables))
""",
        expect=None,
        unexplained="the message says the optimizer only takes the variables it was built with and to create a new optimizer instance",
        fix="one optimizer per model",
    ),
    # TypeError: object of type 'zip' has no len()
    Case(
        name="f12_optimizer_apply_given_zipped_grads_and_vars",
        family="custom_training_loops",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam()
x = tf.random.normal((8, 4))
y = tf.random.normal((8, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(y - model(x, training=True)))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply(zip(grads, model.trainable_variables))
""",
        expect="S12",
        must=("apply_gradients",),
        must_not=("list(zip",),
        fix="optimizer.apply_gradients(zip(...)) or optimizer.apply(grads, model.trainable_variables)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Sub_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   Incompatible shapes: [8,1] vs. [4,8] [Op:Sub]
    Case(
        name="f12_trainable_grads_zipped_with_all_weights_of_frozen_base",
        family="custom_training_loops",
        code="""
base = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu")], name="base")
base.trainable = False
model = keras.Sequential([base, keras.layers.Dense(1, name="head")])
optimizer = keras.optimizers.Adam()
x = tf.random.normal((8, 4))
y = tf.random.normal((8, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(y - model(x, training=True)))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.weights))
""",
        expect="S12",
        must=("trainable_variables",),
        must_not=("reshape",),
        fix="zip(grads, model.trainable_variables)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Invalid input shape for input [...] with name 'keras_tensor_...' and path ''. Expected shape
    #   (None, 4), but input has incompatible shape (4,)
    Case(
        name="f12_loop_over_shuffled_dataset_that_was_never_batched",
        family="custom_training_loops",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
optimizer = keras.optimizers.Adam()
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
features = np.random.rand(16, 4).astype("float32")
labels = np.random.randint(0, 3, 16)
ds = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(16)
for x, y in ds:
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="S12",
        must=("batch",),
        must_not=("reshape",),
        fix="ds = ds.shuffle(16).batch(4)",
    ),
    # TypeError: float() argument must be a string or a real number, not 'SymbolicTensor'
    Case(
        name="f12_tf_function_step_appends_float_loss_to_history",
        family="custom_training_loops",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
history = []

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(y - model(x, training=True)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    history.append(float(loss))
    return loss

train_step(tf.random.normal((8, 4)), tf.random.normal((8, 1)))
""",
        expect="T02",
        must=("float",),
        must_not=("tf.cond",),
        fix="return the loss and append float(train_step(x, y)) outside the tf.function",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Equal_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   Incompatible shapes: [4] vs. [4,3] [Op:Equal] name:
    Case(
        name="f12_accuracy_metric_updated_with_class_ids_and_logits",
        family="custom_training_loops",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
val_acc = keras.metrics.Accuracy()
val_ds = tf.data.Dataset.from_tensor_slices(
    (np.random.rand(16, 4).astype("float32"), np.random.randint(0, 3, 16))
).batch(4)
for x, y in val_ds:
    logits = model(x, training=False)
    val_acc.update_state(y, logits)
print("val acc", float(val_acc.result()))
""",
        expect="S07",
        must=("sparsecategoricalaccuracy",),
        must_not=("reshape",),
        fix="keras.metrics.SparseCategoricalAccuracy()",
    ),
]
