"""Family: ``tf.distribute`` strategies on one CPU, with Keras 3 models.

The APIs and their documented contract:

* ``tf.distribute.MirroredStrategy(devices=None)`` mirrors every variable on each device;
  on a machine with one CPU and no GPU it has one replica (``num_replicas_in_sync == 1``).
  ``tf.distribute.OneDeviceStrategy("/cpu:0")`` places everything on one device;
  ``tf.distribute.get_strategy()`` returns the current (default) strategy.
* ``strategy.scope()`` is a context manager (a method to call: ``with strategy.scope():``).
  Every variable that the strategy must distribute is created inside it: the model's
  weights, the optimizer's slots and iterations (Keras 3 creates them when the optimizer is
  built: at ``compile`` for a string optimizer, at the first ``apply_gradients``), the
  metrics.  An object created under one strategy (or the default strategy, i.e. outside any
  scope) and then used under another raises ``RuntimeError: Mixing different
  tf.distribute.Strategy objects``, ``RuntimeError: Need to be inside "with
  strategy.scope()"``, or a bare ``AssertionError`` from the distributed optimizer update.
  The fix is to create the model, ``compile`` it (or create the optimizer) and create the
  metrics inside one ``with strategy.scope():`` block.
* ``strategy.experimental_distribute_dataset(dataset)`` takes a ``tf.data.Dataset``
  already batched with the GLOBAL batch size (per-replica batch x
  ``num_replicas_in_sync``); each element the returned ``DistributedDataset`` yields is a
  structure of ``PerReplica`` values (a plain tensor when there is one replica).  It has no
  ``batch``/``map``: those go on the dataset before distributing.  NumPy arrays must first
  become a dataset (``tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)``).
* ``strategy.run(fn, args=(...), kwargs=None)`` runs ``fn`` once per replica in replica
  context; ``args`` is a tuple or list (a lone tensor is refused).  Code that calls replica
  context APIs (``tf.nn.compute_average_loss`` without ``global_batch_size``, a
  ``merge_call``) outside ``strategy.run`` runs in cross-replica context and is refused.
  ``fn`` is usually wrapped in a ``tf.function``; that function must not create a
  ``tf.Variable`` on every trace (it retraces when the last batch is smaller).
* ``strategy.reduce(reduce_op, value, axis)`` combines per-replica values:
  ``axis=None`` for per-replica scalars (a loss), ``axis=0`` to also reduce along the batch
  axis of per-replica tensors.  ``axis`` is required.
* ``tf.nn.compute_average_loss(per_example_loss, sample_weight=None,
  global_batch_size=None)`` needs a per-example loss of rank >= 1 (a Keras loss object with
  ``reduction=None``/``"none"``, or a loss function like
  ``keras.losses.sparse_categorical_crossentropy``); it sums and divides by the global batch
  size so that the summed gradients of the replicas are right.  A Keras loss object with its
  default reduction (``"sum_over_batch_size"``) already returns a scalar, which it refuses.
* ``model.compile``/``fit`` work under ``MirroredStrategy``/``OneDeviceStrategy`` in
  Keras 3 when model and compile are inside the scope; ``fit`` accepts arrays or datasets
  and splits the global batch itself.

Evidence a diagnosis needs: which object (model, optimizer, metric, variable) was created
under which strategy, or outside any scope, and where it is used; the type of what was
passed to ``experimental_distribute_dataset`` or ``strategy.run``; the rank of the loss a
replica returns and the ``reduction`` of the Keras loss that produced it; whether a call
happens inside ``strategy.run`` (replica context) or not; the shape of a per-replica value
given to ``strategy.reduce`` and its ``axis``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "distribution_strategies_on_cpu"

CASES = [
    # RuntimeError: Mixing different tf.distribute.Strategy objects: <...MirroredStrategy object at 0x...> is not <..._DefaultDistributionStrategy object at 0x...>
    Case(
        name="f26_compile_after_leaving_strategy_scope",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([
        keras.Input((4,)),
        keras.layers.Dense(16, activation="relu"),
        keras.layers.Dense(1),
    ])
model.compile(optimizer="adam", loss="mse")
x = np.random.rand(32, 4).astype("float32")
y = x.sum(axis=1, keepdims=True)
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        expect="D05",
        must=("compile",),
        must_not=("multiworker",),
        fix="call compile inside strategy.scope() too",
    ),
    # AssertionError: (empty message, raised in keras' _distributed_tf_update_step)
    Case(
        name="f26_trained_model_refit_under_new_strategy",
        family=FAMILY,
        code="""
x = np.random.rand(32, 4).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)],
    name="regressor",
)
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, epochs=1, verbose=0)

# now continue training on "all devices"
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model.fit(x, y, epochs=1, verbose=0)
""",
        expect="D05",
        must=("regressor",),
        must_not=("multiworker",),
        fix="build and compile the model inside strategy.scope() (rebuild and load the weights)",
    ),
    # RuntimeError: in user code:  (in IPython; ... add_optimizer_variables ... RuntimeError: Mixing different tf.distribute.Strategy objects: <...MirroredStrategy ...> is not <..._DefaultDistributionStrategy ...>; plain Python gives that line first)
    Case(
        name="f26_optimizer_made_before_scope_custom_loop",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
optimizer = keras.optimizers.Adam(1e-3)
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
x = np.random.rand(16, 4).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((x, x.sum(1, keepdims=True))).batch(8)

@tf.function
def train_step(xb, yb):
    def step_fn(xb, yb):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_mean(tf.square(model(xb) - yb), axis=-1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=8)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return strategy.run(step_fn, args=(xb, yb))

for xb, yb in strategy.experimental_distribute_dataset(ds):
    train_step(xb, yb)
""",
        expect="D05",
        must=("optimizer",),
        must_not=("multiworker",),
        fix="create the optimizer inside strategy.scope()",
    ),
    # ValueError: Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. Received per_example_loss=1.09... with rank 0
    Case(
        name="f26_default_reduction_loss_into_compute_average_loss",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 8 * strategy.num_replicas_in_sync
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = keras.optimizers.SGD(0.1)
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 3, 32)
dist_ds = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))

def step_fn(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(loss_object(yb, model(xb)), global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss

for xb, yb in dist_ds:
    strategy.run(step_fn, args=(xb, yb))
""",
        expect="D01",
        must=("reduction",),
        must_not=("expand_dims",),
        fix='SparseCategoricalCrossentropy(from_logits=True, reduction="none")',
    ),
    # RuntimeError: You are calling `compute_average_loss` in cross replica context, while it was expected to be called in replica context.
    Case(
        name="f26_train_step_called_without_strategy_run",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    optimizer = keras.optimizers.SGD(0.1)
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
x = np.random.rand(16, 4).astype("float32")
y = np.random.randint(0, 3, 16)
dist_ds = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((x, y)).batch(8))

def train_step(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.nn.compute_average_loss(loss_object(yb, model(xb)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss

with strategy.scope():
    for xb, yb in dist_ds:
        train_step(xb, yb)
""",
        expect="D01",
        must=("strategy.run",),
        must_not=("multiworker",),
        fix="call the step through strategy.run(train_step, args=(xb, yb))",
    ),
    # AttributeError: 'tuple' object has no attribute '_variant_tensor'
    Case(
        name="f26_distribute_numpy_arrays_directly",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
GLOBAL_BATCH = 16 * strategy.num_replicas_in_sync
x_train = np.random.rand(64, 4).astype("float32")
y_train = np.random.randint(0, 3, 64)
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
dist_ds = strategy.experimental_distribute_dataset((x_train, y_train))
for xb, yb in dist_ds:
    strategy.run(model, args=(xb,))
""",
        expect="S12",
        must=("tf.data",),
        must_not=("multiworker",),
        fix="tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH) before distributing",
    ),
    # ValueError: in user code:  (... Invalid reduction dimension 0 for input with 0 dimensions ... Sum ...)
    Case(
        name="f26_strategy_reduce_scalar_loss_axis_zero",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
x = tf.random.normal((8, 4))
y = tf.constant([0, 1, 2, 0, 1, 2, 0, 1])

def eval_fn(xb, yb):
    per_example = keras.losses.sparse_categorical_crossentropy(yb, model(xb), from_logits=True)
    return tf.nn.compute_average_loss(per_example, global_batch_size=8)

per_replica_loss = strategy.run(eval_fn, args=(x, y))
total_loss = strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_loss, axis=0)
""",
        expect="S07",
        must=("axis=none",),
        must_not=("multiworker",),
        fix="strategy.reduce(..., axis=None) for per-replica scalars",
    ),
    # ValueError: in user code:  (in IPython; ... line 9, in step_fn: seen = tf.Variable(...) ... ValueError: tf.function only supports singleton tf.Variables created on the first call. ...; plain Python gives that line first)
    Case(
        name="f26_variable_created_inside_replica_step",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
ds = tf.data.Dataset.from_tensor_slices(np.random.rand(10, 4).astype("float32")).batch(4)

@tf.function
def predict_step(xb):
    def step_fn(xb):
        seen = tf.Variable(0, dtype=tf.int64, trainable=False)
        seen.assign_add(tf.shape(xb, out_type=tf.int64)[0])
        return model(xb)
    return strategy.run(step_fn, args=(xb,))

for xb in strategy.experimental_distribute_dataset(ds):
    predict_step(xb)
""",
        expect="T03",
        must=("tf.variable",),
        must_not=("drop_remainder",),
        fix="create the counter variable once, outside the tf.function (under strategy.scope())",
    ),
]
