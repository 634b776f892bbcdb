"""Family: optimizers, learning rates and learning-rate schedules.

The APIs and their documented contract (Keras 3 on TensorFlow):

- ``keras.optimizers.Optimizer`` subclasses (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ...)
  take ``learning_rate`` as a Python ``float`` (``np.float64`` passes, being a ``float``
  subclass; an ``int``, a ``np.float32``, a string or a tensor is rejected with
  "Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or a
  callable"), a ``keras.optimizers.schedules.LearningRateSchedule``, or a callable of the
  iteration count.  At most one of ``clipnorm``, ``clipvalue`` and ``global_clipnorm`` may be
  set; ``weight_decay`` is a float (``AdamW`` requires it; ``exclude_from_weight_decay`` only
  before the optimizer is built).
- An optimizer creates ``iterations`` (int64 on TensorFlow) and, for a float learning rate, a
  ``learning_rate`` variable in its constructor, and its slot variables (momenta) in
  ``build(variables)``, which the first ``apply``/``apply_gradients`` (or ``fit``) runs.  It is
  then bound to THOSE variables: applying it to any other variable raises "Unknown variable
  ... This optimizer can only be called for the variables it was originally built with", so
  one optimizer object cannot serve two models (nor a generator and a discriminator).
  Because it creates variables, an optimizer must be created once, outside a ``tf.function``
  (inside one, TensorFlow raises "tf.function only supports singleton tf.Variables created
  on the first call"), and, under a ``tf.distribute`` strategy, inside ``strategy.scope()``
  like the model (its slot variables are created under the scope of the variables they
  mirror: "Mixing different tf.distribute.Strategy objects").
- ``optimizer.apply_gradients(grads_and_vars)`` takes an iterable of ``(gradient, variable)``
  pairs, ``zip(grads, variables)`` with the grads in the order of the list given to
  ``tape.gradient``; ``optimizer.apply(grads, variables)`` takes the two lists.  Each
  gradient must have its variable's shape (the update is an ``assign_sub`` on the variable).
- ``LearningRateSchedule.__call__(step)`` receives the optimizer's iteration count, a
  scalar INTEGER tensor (int64 on TensorFlow); a schedule that does float math on it must
  ``tf.cast(step, tf.float32)`` first (``tf.math.rsqrt``, ``tf.math.exp`` reject integers).
  An optimizer built on a schedule has a learning rate that is not settable: anything that
  assigns ``optimizer.learning_rate`` (``ReduceLROnPlateau``, ``LearningRateScheduler``, user
  code) raises "This optimizer was created with a `LearningRateSchedule` object ... hence
  its learning rate is not settable".
- ``keras.callbacks.LearningRateScheduler(schedule)`` calls ``schedule(epoch, lr)`` (with
  ``lr`` a Python float) at every epoch begin and requires a Python float (or ``np.float32``/
  ``np.float64``) back: a tensor (``lr * tf.math.exp(-0.1)``) is rejected with "The output of
  the `schedule` function should be a float. Got: 0.0090..." -- the message prints the
  tensor's value, so it looks like a float.
- ``ReduceLROnPlateau`` assigns ``optimizer.learning_rate`` when the monitored value stops
  improving; ``compile(optimizer="adam")`` builds a fresh optimizer with default arguments.
- A learning rate too large for the problem makes ``fit`` diverge: the loss in
  ``history.history["loss"]`` turns Inf/NaN within a few steps (Keras does not stop).

Evidence a diagnosis needs: the optimizer object and which variables it was built on (and
which model owns the new ones), the type and dtype of the learning rate or of what the
schedule returned (a ``np.float32``, a string, a tensor), the dtype of the schedule's
``step``, whether the learning rate is a schedule, the shapes of the gradients against the
variables they are zipped with, where the optimizer was created (inside a ``tf.function``,
outside a strategy scope), and the loss history (the first non-finite step) with the
learning rate and the input scale.
"""

from tests.explain_corpus import Case

CASES = [
    # TypeError: Value passed to parameter 'x' has DataType int64 not in list of allowed values: bfloat16, float16, float32, float64, complex64, complex128
    Case(
        name="f21_warmup_schedule_rsqrt_on_int_step",
        family="optimizers_and_schedules",
        code="""
class WarmupSchedule(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, d_model, warmup_steps=40):
        self.d_model = tf.cast(d_model, tf.float32)
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        arg1 = tf.math.rsqrt(step)
        arg2 = step * (self.warmup_steps ** -1.5)
        return tf.math.rsqrt(self.d_model) * tf.math.minimum(arg1, arg2)

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.Adam(WarmupSchedule(64)), loss="mse")
x = np.random.rand(32, 8).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model.fit(x, y, epochs=1, batch_size=8, verbose=0)
""",
        expect="S11",
        must=("step",),
        must_not=("astype",),
        fix="tf.cast(step, tf.float32) at the top of the schedule's __call__",
    ),
    # ValueError: The output of the `schedule` function should be a float. Got: 0.009048374369740486
    Case(
        name="f21_lr_scheduler_returns_tensor",
        family="optimizers_and_schedules",
        code="""
def scheduler(epoch, lr):
    if epoch < 1:
        return lr
    return lr * tf.math.exp(-0.1)

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model.fit(x, y, epochs=3, verbose=0,
          callbacks=[keras.callbacks.LearningRateScheduler(scheduler)])
""",
        expect="S11",
        must=("tensor",),
        must_not=("too high",),
        fix="return a Python float: float(lr * tf.math.exp(-0.1)) or lr * math.exp(-0.1)",
    ),
    # ValueError: Unknown variable: <Variable path=sequential_N/dense_N/kernel, shape=(6, 16), dtype=float32>. This optimizer can only be called for the variables it was originally built with. When working with a new set of variables, you should recreate a new optimizer instance.
    Case(
        name="f21_one_adam_for_two_models",
        family="optimizers_and_schedules",
        code="""
opt = keras.optimizers.Adam(1e-3)
x = np.random.rand(32, 6).astype("float32")
y = np.random.rand(32, 1).astype("float32")

small = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1)])
small.compile(optimizer=opt, loss="mse")
small.fit(x, y, epochs=1, verbose=0)

big = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                        keras.layers.Dense(1)])
big.compile(optimizer=opt, loss="mse")
big.fit(x, y, epochs=1, verbose=0)
""",
        expect=None,
        must_not=("clear_session",),
        unexplained="Keras names the unknown variable and says the optimizer only updates the "
        "variables it was built with and to recreate a new optimizer instance for new ones.",
        fix="give each model its own optimizer instance",
    ),
    # TypeError: This optimizer was created with a `LearningRateSchedule` object as its `learning_rate` constructor argument, hence its learning rate is not settable. If you need the learning rate to be settable, you should instantiate the optimizer with a float `learning_rate` argument.
    Case(
        name="f21_reduce_lr_on_plateau_with_decay_schedule",
        family="optimizers_and_schedules",
        code="""
sched = keras.optimizers.schedules.ExponentialDecay(1e-2, decay_steps=10, decay_rate=0.9)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.Adam(sched), loss="mse")
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
plateau = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0,
                                            min_delta=10.0)
model.fit(x, y, epochs=3, callbacks=[plateau], verbose=0)
""",
        expect=None,
        must_not=("too high",),
        unexplained="Keras says the optimizer was built on a LearningRateSchedule, so its "
        "learning rate cannot be set, and to pass a float learning_rate if it must be settable.",
        fix="a float learning_rate with ReduceLROnPlateau, or the schedule without the callback",
    ),
    # AssertionError: loss is nan
    Case(
        name="f21_sgd_momentum_lr_one_diverges",
        family="optimizers_and_schedules",
        code="""
x = np.random.randn(256, 4).astype("float32")
y = x @ np.array([[1.5], [-2.0], [0.7], [3.0]], dtype="float32") + 0.1
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=1.0, momentum=0.9), loss="mse")
history = model.fit(x, y, epochs=5, batch_size=32, verbose=0)
assert not np.isnan(history.history["loss"][-1]), "loss is nan"
""",
        expect="G05",
        must=("learning",),
        must_not=("normaliz",),
        fix="lower the learning rate (e.g. SGD(learning_rate=0.01))",
    ),
    # RuntimeError: Mixing different tf.distribute.Strategy objects: <tensorflow.python.distribute.mirrored_strategy.MirroredStrategy object at 0x...> is not <tensorflow.python.distribute.distribute_lib._DefaultDistributionStrategy object at 0x...>
    Case(
        name="f21_adam_created_before_strategy_scope",
        family="optimizers_and_schedules",
        code="""
strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
opt = keras.optimizers.Adam(1e-3)
with strategy.scope():
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(1)])
model.compile(optimizer=opt, loss="mse")
x = np.random.rand(32, 5).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="D05",
        must=("optimizer",),
        must_not=("gpu",),
        fix="create the optimizer (and compile) inside strategy.scope()",
    ),
    # InvalidArgumentError: {{function_node __wrapped__AssignSubVariableOp_device_/job:localhost/replica:0/task:0/device:CPU:0}} Cannot update variable with shape [1] using a Tensor with shape [3,1], shapes must be equal. [Op:AssignSubVariableOp] name:
    Case(
        name="f21_apply_gradients_vars_in_other_order",
        family="optimizers_and_schedules",
        code="""
w = tf.Variable(tf.random.normal((3, 1)), name="w")
b = tf.Variable(tf.zeros((1,)), name="b")
opt = keras.optimizers.SGD(0.1)
x = tf.random.normal((16, 3))
y = tf.random.normal((16, 1))
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w + b - y) ** 2)
    grads = tape.gradient(loss, [w, b])
    opt.apply_gradients(zip(grads, [b, w]))
""",
        expect="S07",
        must=("order",),
        must_not=("reshape",),
        fix="zip the gradients with the same variable list, in the same order: zip(grads, [w, b])",
    ),
    # ValueError: in user code: (... opt = keras.optimizers.Adam(1e-3) ... ValueError: tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.function.)
    Case(
        name="f21_optimizer_built_inside_tf_function_step",
        family="optimizers_and_schedules",
        code="""
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])

@tf.function
def train_step(x, y):
    opt = keras.optimizers.Adam(1e-3)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss

x = np.random.rand(32, 5).astype("float32")
y = np.random.rand(32, 1).astype("float32")
for i in range(0, 32, 8):
    train_step(x[i:i + 8], y[i:i + 8])
""",
        expect=None,
        must_not=("persistent",),
        unexplained="TensorFlow's message points at the user's line that builds the optimizer "
        "and says to create the variable once or outside the tf.function.",
        fix="create the optimizer once, outside the tf.function",
    ),
]
