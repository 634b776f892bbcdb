"""Optimizer calls: the argument contracts of a custom training loop's update step.

API: ``tf.GradientTape.gradient(target, sources)``, ``Optimizer.apply_gradients(grads_and_vars)``,
``Optimizer.apply(grads, trainable_variables=None)`` and ``Optimizer.build(variables)`` of the
Keras 3 optimizers (``keras.optimizers.Adam``, ``SGD``, ...).

Documented contract:

* ``GradientTape.gradient``: "sources: a list or nested structure of Tensors or Variables";
  it returns "one for each element in sources", ``None`` where a source is not connected.
  "Trainable variables ... are automatically watched. Tensors can be manually watched by
  invoking the ``watch`` method", and "only tensors with real or complex dtypes are
  differentiable" (a watched int32 tensor gets ``None``);
* ``apply_gradients`` takes ONE iterable of ``(gradient, variable)`` pairs (Keras 3 unpacks it
  with ``zip(*grads_and_vars)``, so an exhausted ``zip`` iterator is an empty argument);
* ``apply``: "``grads`` should be a list of gradient tensors with 1:1 mapping to the list of
  variables the optimizer was built with. ``trainable_variables`` can be provided on the first
  call to build the optimizer"; the optimizer is built for the first variables it receives and
  afterwards raises "Unknown variable ... This optimizer can only be called for the variables
  it was originally built with" for any other one (another model, or layers unfrozen after the
  first step); each update subtracts a gradient from the variable it is paired with, so a
  gradient paired with a variable of another shape fails in the update op.

Evidence a diagnosis needs: the actual arguments of the failing call (which position holds
variables and which holds tensors, how many of each), the shapes paired in the failing
update, the variables the optimizer was built with against the ones given and which model or
layer owns them, and, for ``tape.gradient``, the type and dtype of the sources and whether
they were watched.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: not enough values to unpack (expected 2, got 0)
    Case(
        name="grads_and_vars_zip_consumed_by_a_norm_logging_loop",
        family="optimizer_calls",
        code="""
model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1),
])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
grads = tape.gradient(loss, model.trainable_variables)
grads_and_vars = zip(grads, model.trainable_variables)
for g, v in grads_and_vars:
    print(v.path, float(tf.norm(g)))
optimizer.apply_gradients(grads_and_vars)
""",
        expect="S12",
        must=("list(zip",),
        must_not=("disconnected", "swap"),
        fix="grads_and_vars = list(zip(grads, vars)): a zip iterator is empty after one loop",
    ),
    # AttributeError: 'tensorflow.python.framework.ops.EagerTensor' object has no attribute
    #   '_unique_id'
    Case(
        name="optimizer_apply_given_variables_then_gradients",
        family="optimizer_calls",
        code="""
model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1),
])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply(model.trainable_variables, grads)
""",
        expect="S12",
        must=("first",),
        must_not=("new optimizer", "recreate"),
        fix="optimizer.apply(grads, model.trainable_variables): the gradients come first",
    ),
    # tensorflow.python.framework.errors_impl.InvalidArgumentError: {{function_node
    #   __wrapped__Sub_device_...}} Incompatible shapes: [4,8] vs. [4] [Op:Sub]
    Case(
        name="gradients_zipped_with_model_variables_including_batchnorm_stats",
        family="optimizer_calls",
        code="""
model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.BatchNormalization(),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1),
])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.variables))
""",
        expect="S12",
        must=("trainable_variables",),
        must_not=("label", "reshape"),
        fix="zip(grads, model.trainable_variables): model.variables adds the moving mean/variance",
    ),
    # ValueError: Unknown variable: <Variable path=base/dense/kernel, shape=(4, 8), ...>. This
    #   optimizer can only be called for the variables it was originally built with. ...
    Case(
        name="optimizer_stepped_once_before_unfreezing_the_base",
        family="optimizer_calls",
        code="""
base = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu")], name="base")
model = keras.Sequential([base, keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")

def train_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))

base.trainable = False
train_step()          # warm up the head
base.trainable = True
train_step()          # fine-tune everything
""",
        expect="S12",
        must=("trainable",),
        must_not=("second model", "another model"),
        fix="create a new optimizer after base.trainable = True (it was built for the head only)",
    ),
    # ValueError: When passing `grads` without `variables`, the optimizer must already be built
    #   on a list of variables. Call `optimizer.build(trainable_variables)` first.
    Case(
        name="optimizer_apply_with_gradients_only_on_the_first_step",
        family="optimizer_calls",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply(grads)
""",
        expect=None,
        unexplained=(
            "the message says the optimizer must already be built and to call "
            "`optimizer.build(trainable_variables)` first: the fix is in the message"
        ),
        fix="optimizer.apply(grads, model.trainable_variables), or build it first",
    ),
    # tensorflow.python.framework.errors_impl.InvalidArgumentError: {{function_node
    #   __wrapped__Sub_device_...}} Incompatible shapes: [8,16] vs. [4,16] [Op:Sub]
    Case(
        name="generator_gradients_zipped_with_discriminator_variables",
        family="optimizer_calls",
        code="""
generator = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(4),
], name="generator")
discriminator = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1),
], name="discriminator")
g_optimizer = keras.optimizers.Adam(1e-4)
noise = np.random.randn(8, 8).astype("float32")
with tf.GradientTape() as tape:
    fake = generator(noise)
    g_loss = -tf.reduce_mean(discriminator(fake))
g_grads = tape.gradient(g_loss, generator.trainable_variables)
g_optimizer.apply_gradients(zip(g_grads, discriminator.trainable_variables))
""",
        expect="S12",
        must=("generator", "discriminator"),
        must_not=("label", "reshape"),
        fix="zip(g_grads, generator.trainable_variables): the pairs mix two models",
    ),
    # ValueError: Attempt to convert a value (None) with an unsupported type
    #   (<class 'NoneType'>) to a Tensor.
    Case(
        name="saliency_gradient_of_an_unwatched_image_constant",
        family="optimizer_calls",
        code="""
model = keras.Sequential([
    keras.Input((8, 8, 1)),
    keras.layers.Conv2D(4, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(3),
])
image = tf.constant(np.random.rand(1, 8, 8, 1).astype("float32"))
with tf.GradientTape() as tape:
    score = model(image)[0, 1]
saliency = tape.gradient(score, image)
saliency = tf.reduce_max(tf.abs(saliency), axis=-1)
""",
        expect="T03",
        must=("watch",),
        must_not=("disconnected", "integer"),
        fix="tape.watch(image) inside the with block: only variables are watched by default",
    ),
    # ValueError: Attempt to convert a value (None) with an unsupported type
    #   (<class 'NoneType'>) to a Tensor.
    Case(
        name="input_gradient_of_integer_token_ids",
        family="optimizer_calls",
        code="""
model = keras.Sequential([
    keras.Input((5,), dtype="int32"),
    keras.layers.Embedding(20, 4),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1),
])
ids = tf.constant(np.random.randint(0, 20, (2, 5)).astype("int32"))
with tf.GradientTape() as tape:
    tape.watch(ids)
    score = model(ids)
token_grads = tape.gradient(score, ids)
importance = tf.reduce_sum(tf.abs(token_grads), axis=0)
""",
        expect="G04",
        must=("integer",),
        must_not=("tape.watch(",),
        fix="integer ids have no gradient: take it w.r.t. the Embedding output (a float tensor)",
    ),
    # AttributeError: 'numpy.ndarray' object has no attribute '_id'
    Case(
        name="gradient_sources_from_get_weights_arrays",
        family="optimizer_calls",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
weights = model.get_weights()
grads = tape.gradient(loss, weights)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="T03",
        must=("trainable_variables",),
        must_not=("convert_to_tensor",),
        fix="tape.gradient(loss, model.trainable_variables): get_weights() returns NumPy copies",
    ),
    # ValueError: Unknown variable: <Variable path=classifier/dense_1/kernel, shape=(4, 3), ...>.
    #   This optimizer can only be called for the variables it was originally built with. When
    #   working with a new set of variables, you should recreate a new optimizer instance.
    Case(
        name="one_adam_reused_for_pretraining_and_the_classifier",
        family="optimizer_calls",
        code="""
encoder = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8)], name="encoder")
classifier = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)], name="classifier")
optimizer = keras.optimizers.Adam(1e-3)
x = np.random.rand(16, 4).astype("float32")
for net in (encoder, classifier):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(net(x)))
    grads = tape.gradient(loss, net.trainable_variables)
    optimizer.apply_gradients(zip(grads, net.trainable_variables))
""",
        expect=None,
        unexplained=(
            "the message names the unknown variable (classifier/...) and says 'When working "
            "with a new set of variables, you should recreate a new optimizer instance'"
        ),
        fix="one optimizer per model",
    ),
]
