"""Family: optimizers, learning-rate schedules and callbacks that change training.

API: ``keras.optimizers.schedules.*`` (``ExponentialDecay``, ``PiecewiseConstantDecay``,
``CosineDecay``) and custom ``LearningRateSchedule`` subclasses; the optimizer's
``learning_rate`` argument and attribute; ``keras.callbacks.LearningRateScheduler``,
``ReduceLROnPlateau``, ``ModelCheckpoint``/``EarlyStopping``; saving and reloading a
model whose optimizer holds a custom schedule; ``keras.mixed_precision.LossScaleOptimizer``.
Contract: an optimizer's ``learning_rate`` is a Python ``float`` (a NumPy float32 is
not one), a ``LearningRateSchedule`` or a callable of the step.  A schedule's
``__call__(step)`` receives ``optimizer.iterations``, an int64 tensor (TensorFlow
backend), and runs inside the traced train function: it must be written with tensor
ops (no Python ``if``/``math`` on ``step``), cast ``step`` to float before float
math, return a scalar float tensor, and be defined for every step ``fit`` takes
(``ceil(n / batch_size)`` per epoch).  ``PiecewiseConstantDecay`` takes
``len(values) == len(boundaries) + 1`` values of one dtype.  A custom schedule is
saved through ``get_config()``, which must return every constructor argument, and it
is found again at load time only if registered
(``@keras.saving.register_keras_serializable()``) or passed in ``custom_objects``.
An optimizer built on a schedule has no settable learning rate, so
``ReduceLROnPlateau``/``LearningRateScheduler`` cannot assign one; the
``LearningRateScheduler`` function takes ``(epoch, lr)`` and returns a float.  Keras 3's
``LossScaleOptimizer`` is always dynamic.  Evidence a diagnosis could read: the
optimizer and its ``_learning_rate`` (float variable or schedule object and its
attributes), ``optimizer.iterations`` and its dtype, the schedule's class, source and
``get_config()`` against its ``__init__`` signature, the arguments of the callbacks,
the logged metric names, the number of rows and the batch size, the saved config.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "schedules"

CASES = [
    # OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool`
    # is not allowed. You can attempt the following resolutions to the problem: ...
    # (Python ``if`` on the step tensor inside a warmup schedule)
    Case(
        "sch_warmup_python_if_on_step",
        FAMILY,
        """
class LinearWarmup(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps):
        self.peak_lr = peak_lr
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        if step < self.warmup_steps:
            return self.peak_lr * (step + 1) / self.warmup_steps
        return self.peak_lr

    def get_config(self):
        return {"peak_lr": self.peak_lr, "warmup_steps": self.warmup_steps}

x = np.random.rand(48, 6).astype("float32")
y = np.random.randint(0, 2, (48, 1))
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=LinearWarmup(1e-3, 10)),
              loss="binary_crossentropy")
model.fit(x, y, batch_size=16, epochs=1, verbose=0)
""",
        "T02",
        must=("warmup_steps",),
        must_not=("register_keras_serializable",),
        fix="tf.where / tf.cond on step in __call__",
    ),
    # TypeError: Value passed to parameter 'x' has DataType int64 not in list of allowed
    # values: bfloat16, float16, float32, float64, complex64, complex128
    # (the Transformer tutorial's schedule with its ``tf.cast(step, tf.float32)`` left out)
    Case(
        "sch_noam_rsqrt_on_int64_step",
        FAMILY,
        """
class NoamSchedule(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, d_model, warmup_steps=4000):
        self.d_model = tf.cast(d_model, tf.float32)
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        arg1 = tf.math.rsqrt(step)
        arg2 = step * (self.warmup_steps ** -1.5)
        return tf.math.rsqrt(self.d_model) * tf.math.minimum(arg1, arg2)

tokens = np.random.rand(32, 10, 8).astype("float32")
targets = np.random.randint(0, 5, (32,))
model = keras.Sequential([keras.Input((10, 8)), keras.layers.GlobalAveragePooling1D(),
                          keras.layers.Dense(5)])
optimizer = keras.optimizers.Adam(NoamSchedule(128), beta_1=0.9, beta_2=0.98, epsilon=1e-9)
model.compile(optimizer, keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(tokens, targets, batch_size=8, epochs=1, verbose=0)
""",
        "S11",
        must=("step", "int64"),
        must_not=("astype",),
        fix="step = tf.cast(step, tf.float32) first",
    ),
    # TypeError: Input 'y' of 'Mul' Op has type int32 that does not match type float32 of
    # argument 'x'.
    # (the last value of PiecewiseConstantDecay written as the integer 0)
    Case(
        "sch_piecewise_values_int_zero",
        FAMILY,
        """
steps_per_epoch = 4
boundaries = [2 * steps_per_epoch, 4 * steps_per_epoch]
values = [1e-2, 1e-3, 0]  # stop updating after epoch 4
lr_schedule = keras.optimizers.schedules.PiecewiseConstantDecay(boundaries, values)
x = np.random.rand(64, 5).astype("float32")
y = np.random.rand(64, 1).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(keras.optimizers.SGD(learning_rate=lr_schedule, momentum=0.9), "mse")
model.fit(x, y, batch_size=16, epochs=1, verbose=0)
""",
        "S11",
        must=("values", "int32"),
        must_not=("int64",),
        fix="write the values as floats (0.0)",
    ),
    # ValueError: Argument `learning_rate` should be float, or an instance of
    # LearningRateSchedule, or a callable (that takes in the current iteration value and
    # returns the corresponding learning rate value). Received instead:
    # learning_rate=9.999999747378752e-05
    # (a learning-rate sweep over a float32 NumPy grid: np.float32 is not a Python float)
    Case(
        "sch_lr_sweep_numpy_float32",
        FAMILY,
        """
x = np.random.rand(40, 3).astype("float32")
y = np.random.rand(40, 1).astype("float32")
lr_grid = np.geomspace(1e-4, 1e-1, 4).astype("float32")
results = {}
for lr in lr_grid:
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.Adam(learning_rate=lr), "mse")
    results[lr] = model.fit(x, y, epochs=1, verbose=0).history["loss"][-1]
""",
        "S11",
        must=("learning_rate", "float32"),
        must_not=(),
        fix="learning_rate=float(lr)",
    ),
    # TypeError: <class 'keras.src.optimizers.adam.Adam'> could not be deserialized
    # properly. Please ensure that components that are Python object instances (layers,
    # models, etc.) returned by `get_config()` are explicitly deserialized in the model's
    # `from_config()` method.  (further down: Could not locate class 'TriangularCycle')
    Case(
        "sch_load_model_unregistered_schedule",
        FAMILY,
        """
import os
import tempfile

class TriangularCycle(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, base_lr, max_lr, step_size):
        self.base_lr = base_lr
        self.max_lr = max_lr
        self.step_size = step_size

    def __call__(self, step):
        s = tf.cast(step, tf.float32)
        cycle = tf.floor(1 + s / (2 * self.step_size))
        pos = tf.abs(s / self.step_size - 2 * cycle + 1)
        return self.base_lr + (self.max_lr - self.base_lr) * tf.maximum(0.0, 1 - pos)

    def get_config(self):
        return {"base_lr": self.base_lr, "max_lr": self.max_lr, "step_size": self.step_size}

x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(keras.optimizers.Adam(TriangularCycle(1e-4, 1e-2, 20)), "mse")
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "clr_model.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        "C05",
        must=("TriangularCycle",),
        must_not=("from_config",),
        fix="register the schedule or custom_objects",
    ),
    # TypeError: <class 'keras.src.optimizers.adam.Adam'> could not be deserialized
    # properly. Please ensure that components that are Python object instances (layers,
    # models, etc.) returned by `get_config()` are explicitly deserialized in the model's
    # `from_config()` method.  (further down: WarmupThenDecay.__init__() missing 1
    # required positional argument: 'warmup_steps')
    Case(
        "sch_schedule_get_config_drops_warmup_steps",
        FAMILY,
        """
import os
import tempfile

@keras.saving.register_keras_serializable(package="sch_corpus")
class WarmupThenDecay(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak_lr, warmup_steps, decay_rate=0.5):
        self.peak_lr = peak_lr
        self.warmup_steps = warmup_steps
        self.decay_rate = decay_rate

    def __call__(self, step):
        s = tf.cast(step, tf.float32)
        return self.peak_lr * tf.minimum(s / self.warmup_steps,
                                         self.decay_rate ** (s / self.warmup_steps))

    def get_config(self):
        return {"peak_lr": self.peak_lr, "decay_rate": self.decay_rate}

x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(keras.optimizers.Adam(WarmupThenDecay(1e-3, 100)), "mse")
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "warmup_model.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        "C05",
        must=("warmup_steps",),
        must_not=("custom_objects",),
        fix="return warmup_steps from get_config",
    ),
    # InvalidArgumentError: Graph execution error:
    # (further down: indices = 3 is not in [0, 3) [[{{node sgd_1/GatherV2}}]]; on CPU.
    # The table was sized with len(x) // batch_size = 3 steps, fit runs ceil(50 / 16) = 4.)
    Case(
        "sch_one_cycle_table_floor_steps",
        FAMILY,
        """
class OneCycle(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, table):
        self.table = tf.constant(table, dtype=tf.float32)

    def __call__(self, step):
        return tf.gather(self.table, step)

x = np.random.rand(50, 4).astype("float32")
y = np.random.rand(50, 1).astype("float32")
batch_size, epochs = 16, 1
steps_per_epoch = len(x) // batch_size
total_steps = epochs * steps_per_epoch
lr_table = np.interp(np.arange(total_steps), [0, total_steps // 2, total_steps - 1],
                     [1e-4, 1e-2, 1e-5])
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(keras.optimizers.SGD(OneCycle(lr_table), momentum=0.9), "mse")
model.fit(x, y, batch_size=batch_size, epochs=epochs, verbose=0)
""",
        "S09",
        must=("OneCycle",),
        must_not=("input_dim", "embedding"),
        fix="size the table with ceil(len(x) / batch_size)",
    ),
    # TypeError: This optimizer was created with a `LearningRateSchedule` object as its
    # `learning_rate` constructor argument, hence its learning rate is not settable. If
    # you need the learning rate to be settable, you should instantiate the optimizer with
    # a float `learning_rate` argument.
    Case(
        "sch_reduce_lr_on_plateau_with_decay_schedule",
        FAMILY,
        """
keras.utils.set_random_seed(0)
x = np.random.rand(64, 8).astype("float32")
y = np.random.rand(64, 1).astype("float32")
decay = keras.optimizers.schedules.ExponentialDecay(1e-4, decay_steps=100, decay_rate=0.9)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(keras.optimizers.Adam(learning_rate=decay), "mse")
plateau = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1,
                                            min_delta=0.01)
model.fit(x, y, batch_size=32, epochs=3, verbose=0, callbacks=[plateau])
""",
        None,
        unexplained="Keras says an optimizer built on a LearningRateSchedule has no settable "
        "learning rate and to pass a float learning_rate instead",
        fix="float learning_rate, or no ReduceLROnPlateau",
    ),
    # ValueError: The output of the `schedule` function should be a float. Got:
    # 0.009048374369740486   (a tf.Tensor, printed as its value)
    # (the scheduler of the TF 2 docs, ``lr * tf.math.exp(-0.1)``)
    Case(
        "sch_lr_scheduler_returns_tensor",
        FAMILY,
        """
def scheduler(epoch, lr):
    if epoch < 1:
        return lr
    return lr * tf.math.exp(-0.1)

x = np.random.rand(40, 5).astype("float32")
y = np.random.randint(0, 3, (40,))
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation="softmax")])
model.compile(keras.optimizers.SGD(0.01), "sparse_categorical_crossentropy")
model.fit(x, y, epochs=2, verbose=0,
          callbacks=[keras.callbacks.LearningRateScheduler(scheduler)])
""",
        None,
        unexplained="Keras says the schedule function must return a float and shows the "
        "tensor it returned",
        fix="return float(lr * np.exp(-0.1))",
    ),
    # ValueError: LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply
    # set `loss_scale_factor` directly on the `inner_optimizer`.
    Case(
        "sch_loss_scale_optimizer_static_scale",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_float16")
try:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(1, dtype="float32")])
    optimizer = keras.mixed_precision.LossScaleOptimizer(
        keras.optimizers.Adam(1e-3), dynamic=False, initial_scale=1024)
    model.compile(optimizer, "mse")
finally:
    keras.mixed_precision.set_global_policy("float32")
""",
        None,
        unexplained="Keras says dynamic=False is gone and to set loss_scale_factor on the "
        "inner optimizer",
        fix="Adam(loss_scale_factor=1024)",
    ),
]
