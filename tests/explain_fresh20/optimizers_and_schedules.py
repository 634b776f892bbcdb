"""Family: optimizers and learning-rate schedules.

The APIs and their documented contract (Keras 3, ``keras.optimizers``):

- ``keras.optimizers.Adam/SGD/AdamW/RMSprop/...(learning_rate=..., weight_decay=None,
  clipnorm=None, clipvalue=None, global_clipnorm=None, ...)``.  ``learning_rate`` is a
  Python ``float``, a ``keras.optimizers.schedules.LearningRateSchedule`` or a callable
  (step -> rate); anything else (an ``int``, a ``np.float32`` scalar, a ``tf.Tensor``) is
  refused with "Argument `learning_rate` should be float" although its printed value looks
  like a float (``np.float64`` passes: it subclasses ``float``).  At most one of
  ``clipnorm``, ``clipvalue`` and ``global_clipnorm`` may be set.  Unknown keywords (the
  Keras 2 ``lr=``) are refused ("Argument(s) not recognized").
- An optimizer instance is built once, on the first ``apply``/``apply_gradients`` (or
  ``fit``), for one list of trainable variables; its slots (Adam's moments) are created
  then.  Later calls may only pass variables of that list: a second model's variables
  raise "Unknown variable ... recreate a new optimizer instance".  One optimizer per
  model (per GAN half) is the contract.  Its variables (iterations, learning rate,
  slots) are ``tf.Variable``s: creating the optimizer inside a ``tf.function`` makes new
  variables on each trace ("tf.function only supports singleton tf.Variables created on
  the first call"); under ``tf.distribute`` they must be created inside
  ``strategy.scope()`` together with the model ("Mixing different tf.distribute.Strategy
  objects").
- ``optimizer.apply_gradients(grads_and_vars)`` takes ONE iterable of
  ``(gradient, variable)`` pairs, ``zip(grads, vars)``, where ``grads`` came from
  ``tape.gradient(loss, vars)`` with the SAME list in the SAME order;
  ``optimizer.apply(grads, vars)`` takes two lists.  ``model.weights`` is not
  ``model.trainable_variables`` (it also holds BatchNormalization moving statistics,
  interleaved), so zipping gradients of one with the other pairs a gradient with a
  variable of another shape and the update op fails ("Cannot update variable with shape
  [8] using a Tensor with shape [8,8]").
- Schedules: ``ExponentialDecay(initial_learning_rate, decay_steps, decay_rate)``,
  ``PiecewiseConstantDecay(boundaries, values)`` with ``len(values) ==
  len(boundaries) + 1``, ``CosineDecay(initial_learning_rate, decay_steps)``; a schedule
  is called with the optimizer's step (iterations), not the epoch.  An optimizer created
  with a schedule has no settable learning rate: ``ReduceLROnPlateau`` or assigning
  ``optimizer.learning_rate`` raise "its learning rate is not settable".
- Callbacks: ``ReduceLROnPlateau(monitor, factor, patience, min_lr)`` and
  ``LearningRateScheduler(schedule)`` set ``optimizer.learning_rate`` each epoch, so they
  need a float learning rate; ``schedule(epoch, lr)`` must return a float.
- ``compile(optimizer=...)`` takes a string name (defaults only) or an instance.
- A learning rate far too high (``1e3`` typed for ``1e-3``) makes the loss overflow to
  Inf/NaN within an epoch; nothing raises until the user checks the history or the
  predictions.

Evidence a diagnosis needs: the optimizer object and which variables it was built for
versus which it is given now (owner model, count); the learning-rate argument's Python
type; the pairing of gradient shapes with variable shapes (and which list the variables
came from); where (inside a ``tf.function`` body, outside ``strategy.scope()``) the
optimizer was created; the learning-rate value and the step where the loss became
non-finite.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "optimizers_and_schedules"

CASES = [
    # ValueError: Unknown variable: <Variable path=.../dense/kernel, shape=(2, 4), dtype=float32, ...
    Case(
        name="f20_one_adam_shared_by_generator_and_critic",
        family=FAMILY,
        code="""
gen = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4)])
critic = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
opt = keras.optimizers.Adam(1e-3)
real = tf.random.normal((8, 4))
z = tf.random.normal((8, 2))
for step in range(2):
    with tf.GradientTape() as tape:
        c_loss = tf.reduce_mean(critic(gen(z))) - tf.reduce_mean(critic(real))
    grads = tape.gradient(c_loss, critic.trainable_variables)
    opt.apply_gradients(zip(grads, critic.trainable_variables))
    with tf.GradientTape() as tape:
        g_loss = -tf.reduce_mean(critic(gen(z)))
    grads = tape.gradient(g_loss, gen.trainable_variables)
    opt.apply_gradients(zip(grads, gen.trainable_variables))
""",
        expect=None,
        must_not=("learning_rate",),
        unexplained="the message says the optimizer can only update the variables it was "
        "built with and to recreate a new optimizer instance: one optimizer per model",
        fix="a second Adam for the generator",
    ),
    # TypeError: This optimizer was created with a `LearningRateSchedule` object as its
    # `learning_rate` constructor argument, hence its learning rate is not settable. ...
    Case(
        name="f20_reduce_lr_on_plateau_over_exponential_decay",
        family=FAMILY,
        code="""
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
schedule = keras.optimizers.schedules.ExponentialDecay(1e-2, decay_steps=100, decay_rate=0.9)
model.compile(optimizer=keras.optimizers.Adam(schedule), loss="mse")
plateau = keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=0, min_delta=10.0)
model.fit(x, y, validation_split=0.25, epochs=4, verbose=0, callbacks=[plateau])
""",
        expect=None,
        must_not=("float32",),
        unexplained="the message says an optimizer built on a LearningRateSchedule has no "
        "settable learning rate and to pass a float learning_rate instead",
        fix="a float learning_rate, or drop ReduceLROnPlateau",
    ),
    # ValueError: The length of boundaries should be 1 less than the length of values.
    # Received: boundaries=[300, 600] of length 2, and values=[0.01, 0.001] of length 2.
    Case(
        name="f20_piecewise_decay_one_value_per_boundary",
        family=FAMILY,
        code="""
schedule = keras.optimizers.schedules.PiecewiseConstantDecay(
    boundaries=[300, 600], values=[1e-2, 1e-3]
)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(schedule, momentum=0.9), loss="mse")
""",
        expect=None,
        must_not=("float32",),
        unexplained="the message says boundaries must be one shorter than values and shows "
        "both lists with their lengths",
        fix="a third value for steps after 600",
    ),
    # ValueError: Argument `learning_rate` should be float, or an instance of
    # LearningRateSchedule, or a callable (...). Received instead: learning_rate=9.99...e-05
    Case(
        name="f20_learning_rate_sweep_over_float32_array",
        family=FAMILY,
        code="""
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
results = {}
for lr in np.logspace(-4, -2, 3).astype("float32"):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=lr), loss="mse")
    results[lr] = model.fit(x, y, epochs=1, verbose=0).history["loss"][-1]
""",
        expect="S11",
        must=("learning_rate", "float32"),
        must_not=("tf.cast", "tf.constant"),
        fix="Adam(learning_rate=float(lr))",
    ),
    # InvalidArgumentError: {{function_node __wrapped__AssignAddVariableOp_device_...}} Cannot
    # update variable with shape [8] using a Tensor with shape [8,8], shapes must be equal.
    Case(
        name="f20_gradients_zipped_with_model_weights",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(8),
    keras.layers.BatchNormalization(),
    keras.layers.Dense(1),
])
opt = keras.optimizers.Adam()
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
grads = tape.gradient(loss, model.trainable_variables)
opt.apply_gradients(zip(grads, model.weights))
""",
        expect="S07",
        must=("trainable",),
        must_not=("hard-code", "batch size"),
        fix="zip(grads, model.trainable_variables)",
    ),
    # ValueError: tf.function only supports singleton tf.Variables created on the first call.
    # Make sure the tf.Variable is only created once or created outside tf.function. ...
    Case(
        name="f20_adam_constructed_inside_tf_function_step",
        family=FAMILY,
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1))

@tf.function
def train_step(x, y):
    opt = keras.optimizers.Adam(1e-3)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss

for epoch in range(3):
    train_step(x, y)
""",
        expect="T03",
        must=("optimizer",),
        must_not=("persistent",),
        fix="create the optimizer once, outside the tf.function",
    ),
    # AssertionError: training diverged
    Case(
        name="f20_learning_rate_1e3_typed_for_1e_minus_3",
        family=FAMILY,
        code="""
x = np.random.rand(64, 4).astype("float32")
y = (x.sum(axis=1, keepdims=True) * 100).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=1e3), loss="mse")
history = model.fit(x, y, epochs=3, verbose=0)
assert np.isfinite(history.history["loss"][-1]), "training diverged"
""",
        expect="G05",
        must=("learning",),
        must_not=("from_logits",),
        fix="SGD(learning_rate=1e-3)",
    ),
    # RuntimeError: Mixing different tf.distribute.Strategy objects: <...MirroredStrategy object
    # at 0x...> is not <..._DefaultDistributionStrategy object at 0x...>
    Case(
        name="f20_optimizer_built_before_strategy_scope",
        family=FAMILY,
        code="""
strategy = tf.distribute.MirroredStrategy()
opt = keras.optimizers.Adam(1e-3)
with strategy.scope():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer=opt, loss="mse")
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
""",
        expect="D05",
        must=("scope",),
        must_not=("MultiWorker",),
        fix="create the Adam inside strategy.scope()",
    ),
]
