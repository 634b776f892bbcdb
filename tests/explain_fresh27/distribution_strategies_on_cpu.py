"""Family: ``tf.distribute`` strategies on one CPU (scopes, ``strategy.run``, distributed data).

The APIs and their documented contract:

- ``tf.distribute.MirroredStrategy(devices=None)`` mirrors variables over the visible
  devices; on a machine with one CPU and no GPU it has ONE replica on ``/cpu:0``
  (``strategy.num_replicas_in_sync == 1``).  ``tf.distribute.OneDeviceStrategy("/cpu:0")``
  places everything on one device; ``tf.distribute.get_strategy()`` returns the current
  strategy (the default, no-op strategy outside any scope).  One replica does not make the
  contract optional: the same errors are raised as on eight GPUs.
- ``strategy.scope()``: every variable created inside it (a model's weights, the optimizer's
  ``iterations`` and slot variables, a metric's state) is a distributed variable of THAT
  strategy.  Keras: build the model AND create the optimizer (``compile`` with a string or a
  new optimizer object) inside the scope; ``fit``/``evaluate``/``predict`` may then be
  called outside it.  A model built outside the scope and compiled inside raises
  ``RuntimeError: Need to be inside "with strategy.scope()"``; an optimizer object created
  before the scope (its ``iterations`` variable belongs to the default strategy) raises
  ``RuntimeError: Mixing different tf.distribute.Strategy objects``; in a custom loop a
  model whose variables are not mirrored makes the optimizer's ``extended.update`` fail with
  a bare ``AssertionError`` (no message at all).
- ``strategy.experimental_distribute_dataset(dataset)`` takes a ``tf.data.Dataset`` (not
  NumPy arrays or a tuple of them: build one with
  ``tf.data.Dataset.from_tensor_slices((x, y))``) that is ALREADY BATCHED with the GLOBAL
  batch size; each replica receives ``global_batch / num_replicas`` examples, and its
  iterator yields per-replica values (``PerReplica``; with one replica plain tensors).
  An unbatched dataset hands each replica single examples without a batch axis.  The last
  batch is partial unless ``drop_remainder=True``: code that hard-codes the global batch
  size in a shape (``tf.reshape(x, [GLOBAL_BATCH])``) fails on it.
- ``strategy.run(fn, args=(...), kwargs=None)`` calls ``fn`` once per replica in replica
  context; ``args`` must be a tuple or list (``args=(x)`` is just ``x``).  It returns
  per-replica values, which ``strategy.reduce(op, value, axis)`` (``axis=None`` for
  per-replica scalars) turns into one tensor in cross-replica context.
- Losses in a distributed custom loop: each replica must divide the SUM of its per-example
  losses by the GLOBAL batch size, i.e.
  ``tf.nn.compute_average_loss(per_example_loss, global_batch_size=...)`` (plus
  ``tf.nn.scale_regularization_loss``).  ``per_example_loss`` must have rank >= 1 (one value
  per example): a Keras loss object must be built with ``reduction=None`` (Keras 3; the old
  ``tf.keras.losses.Reduction.NONE`` is gone), otherwise it already returns the batch mean
  (a scalar) and ``compute_average_loss`` rejects it.

The evidence a diagnosis needs to name the cause: which object (the model, by name, or the
optimizer) holds variables of which strategy (default vs the strategy in use), and where it
was created relative to ``with strategy.scope()``; what was passed to
``experimental_distribute_dataset`` (its type; whether it is batched, from the element
shapes) and what a replica received; the loss object's ``reduction`` and the rank of what
reached ``compute_average_loss``; a hard-coded batch size against the size of the last
(partial) batch.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "distribution_strategies_on_cpu"

CASES = [
    # RuntimeError: Need to be inside "with strategy.scope()" for <tensorflow.python.distribute.mirrored_strategy.MirroredStrategy object at 0x...>
    Case(
        name="f27_mirrored_model_built_before_scope_compiled_inside",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)],
    name="price_regressor",
)
with strategy.scope():
    model.compile(optimizer="adam", loss="mse")
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        expect="D05",
        must=("price_regressor",),
        must_not=("compute_average_loss", "drop_remainder"),
        fix="build the model inside strategy.scope() too",
    ),
    # RuntimeError: Mixing different tf.distribute.Strategy objects: <...MirroredStrategy object at 0x...> is not <..._DefaultDistributionStrategy object at 0x...>
    Case(
        name="f27_adam_object_created_before_strategy_scope",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
optimizer = keras.optimizers.Adam(learning_rate=1e-3)
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)], name="scorer")
    model.compile(optimizer=optimizer, loss="mse")
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        expect="D05",
        must=("optimizer",),
        must_not=("compute_average_loss", "drop_remainder"),
        fix="create the optimizer inside strategy.scope()",
    ),
    # AssertionError: in user code:  (... distribution.extended.update( / AssertionError: with no message, from the optimizer's update)
    Case(
        name="f27_custom_loop_model_outside_scope_bare_assertion",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)], name="ranker")
with strategy.scope():
    optimizer = keras.optimizers.SGD(0.1)
features = np.random.rand(16, 4).astype("float32")
targets = np.random.rand(16, 1).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((features, targets)).batch(8)

@tf.function
def train_step(x, y):
    def step_fn(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return strategy.run(step_fn, args=(x, y))

for x, y in strategy.experimental_distribute_dataset(ds):
    train_step(x, y)
""",
        expect="D05",
        must=("ranker",),
        must_not=("drop_remainder", "persistent=true"),
        fix="build the model inside strategy.scope()",
    ),
    # ValueError: Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. Received per_example_loss=1.10... with rank 0
    Case(
        name="f27_compute_average_loss_fed_mean_reduced_loss",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 16
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    optimizer = keras.optimizers.Adam()
    loss_obj = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 3, 32)
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)

def step_fn(features, labels):
    with tf.GradientTape() as tape:
        per_example = loss_obj(labels, model(features))
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss

for features, labels in strategy.experimental_distribute_dataset(ds):
    strategy.run(step_fn, args=(features, labels))
""",
        expect="D01",
        must=("reduction",),
        must_not=("expand_dims",),
        fix="build the loss with reduction=None",
    ),
    # ValueError: positional args must be a list or tuple, got <class 'tensorflow.python.framework.ops.EagerTensor'>
    Case(
        name="f27_strategy_run_args_parenthesized_not_tuple",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
ds = tf.data.Dataset.from_tensor_slices(np.random.rand(16, 4).astype("float32")).batch(8)

def predict_step(batch):
    return model(batch, training=False)

for batch in strategy.experimental_distribute_dataset(ds):
    outputs = strategy.run(predict_step, args=(batch))
""",
        expect=None,
        unexplained="the message says `args` must be a list or tuple and names the tensor it "
        "got; the fix, args=(batch,), follows from it directly",
        fix="args=(batch,)",
    ),
    # ValueError: in user code:  (... Exception encountered when calling Sequential.call(). Invalid input shape ... Expected shape (None, 4), but input has incompatible shape (4,))
    Case(
        name="f27_distributed_dataset_never_batched",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
features = np.random.rand(16, 4).astype("float32")
targets = np.random.rand(16, 1).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((features, targets)).shuffle(16)
dist_ds = strategy.experimental_distribute_dataset(ds)

@tf.function
def eval_step(x, y):
    return strategy.run(lambda a, b: tf.reduce_mean(tf.square(model(a) - b)), args=(x, y))

for x, y in dist_ds:
    eval_step(x, y)
""",
        expect="S01",
        must=("batch",),
        must_not=("expand_dims",),
        fix="ds.batch(GLOBAL_BATCH) before experimental_distribute_dataset",
    ),
    # AttributeError: 'tuple' object has no attribute '_variant_tensor'
    Case(
        name="f27_distribute_dataset_given_numpy_tuple",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
x_train = np.random.rand(32, 4).astype("float32")
y_train = np.random.rand(32, 1).astype("float32")
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
dist_ds = strategy.experimental_distribute_dataset((x_train, y_train))
for x, y in dist_ds:
    strategy.run(lambda a: model(a), args=(x,))
""",
        expect="S12",
        must=("from_tensor_slices",),
        must_not=("scope",),
        fix="tf.data.Dataset.from_tensor_slices((x, y)).batch(...) first",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Reshape_device_/job:localhost/replica:0/task:0/device:CPU:0}} Input to reshape is a tensor with 8 values, but the requested shape has 16 [Op:Reshape]
    Case(
        name="f27_global_batch_hardcoded_in_reshape_last_batch",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 16
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
x = np.random.rand(40, 4).astype("float32")
y = np.random.rand(40).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)

def step_fn(features, target):
    pred = tf.reshape(model(features), [GLOBAL_BATCH])
    return tf.nn.compute_average_loss(tf.square(pred - target), global_batch_size=GLOBAL_BATCH)

for features, target in strategy.experimental_distribute_dataset(ds):
    strategy.run(step_fn, args=(features, target))
""",
        expect="S07",
        must=("reshape",),
        must_not=("scope",),
        fix="reshape to [-1] (or batch with drop_remainder=True)",
    ),
]
