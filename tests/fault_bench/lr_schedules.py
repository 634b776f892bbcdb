"""A learning-rate schedule whose step arguments are counted in epochs, so the rate
becomes tiny or zero within the first epoch or two while its initial value is fine.

Every ``keras.optimizers.schedules`` schedule is called with the optimizer's step
counter (``optimizer.iterations``): one step per *batch*, not per epoch.  User reports:
"ExponentialDecay with decay_steps=epochs: the learning rate is ~0 after the first
epoch"; "PiecewiseConstantDecay boundaries=[30, 60] (epochs): only the first batches
use the high rate"; "PolynomialDecay / CosineDecay to 0: my loss is flat from epoch 2"
(``decay_steps`` given in epochs, so the decay ends after a handful of batches and the
rate stays at ``end_learning_rate`` / ``alpha`` x initial, here 0); "CosineDecayRestarts
with m_mul=0.5 restarts every couple of batches"; the Hugging Face-style linear decay
``num_training_steps=num_epochs``; a step-decay ``LearningRateSchedule`` subclass whose
"every 3 epochs" is read as every 3 batches.  The correct version of each case changes
only the schedule's step arguments to batch counts (steps per epoch x epochs).
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    LossFalls,
    LossStays,
    Mse,
)
from tests.fault_bench._data import BINARY, BLOBS, IMAGES, REGRESSION, cell

FAMILY = "lr_schedules"

_SEED = "keras.utils.set_random_seed(0)\n"

#: 600 examples in batches of 32: 19 steps per epoch
_BLOBS_SEQ = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_BLOBS_FUNC = """\
inputs = keras.Input((20,), name="features")
h = keras.layers.Dense(128, activation="relu", name="dense_a")(inputs)
h = keras.layers.Dense(32, activation="relu", name="dense_b")(h)
outputs = keras.layers.Dense(10, activation="softmax", name="probs")(h)
model = keras.Model(inputs, outputs)
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

#: 512 examples in batches of 32: 16 steps per epoch
_BINARY_MLP = """\
model = keras.Sequential([
    keras.Input((10,)),
    keras.layers.Dense(32, activation="relu", name="dense1"),
    keras.layers.Dense(32, activation="relu", name="dense2"),
    keras.layers.Dense(1, activation="sigmoid", name="out"),
])
model.compile(optimizer=optimizer, loss="binary_crossentropy", metrics=["accuracy"])
"""

#: 512 examples in batches of 32: 16 steps per epoch
_REG_MLP = """\
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(64, activation="relu", name="hidden1"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer=optimizer, loss="mse")
"""

#: 480 images in batches of 32: 15 steps per epoch
_CNN = """\
model = keras.Sequential([
    keras.Input((8, 8, 1)),
    keras.layers.Rescaling(1.0 / 255, name="scale"),
    keras.layers.Conv2D(8, 3, padding="same", activation="relu", name="conv"),
    keras.layers.MaxPooling2D(2, name="pool"),
    keras.layers.Flatten(name="flat"),
    keras.layers.Dense(16, activation="relu", name="dense"),
    keras.layers.Dense(4, activation="softmax", name="out"),
])
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_LINEAR_DECAY = """\
class LinearDecay(keras.optimizers.schedules.LearningRateSchedule):
    \"\"\"Linear decay from `initial_learning_rate` to 0 over `total_steps` steps.\"\"\"

    def __init__(self, initial_learning_rate, total_steps):
        self.initial_learning_rate = initial_learning_rate
        self.total_steps = total_steps

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        left = keras.ops.maximum(0.0, 1.0 - step / self.total_steps)
        return self.initial_learning_rate * left

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "total_steps": self.total_steps}

"""

_STEP_DECAY = """\
class StepDecay(keras.optimizers.schedules.LearningRateSchedule):
    \"\"\"Multiply the learning rate by `drop` every `step_size` steps.\"\"\"

    def __init__(self, initial_learning_rate, drop, step_size):
        self.initial_learning_rate = initial_learning_rate
        self.drop = drop
        self.step_size = step_size

    def __call__(self, step):
        step = keras.ops.cast(step, "float32")
        return self.initial_learning_rate * keras.ops.power(
            self.drop, keras.ops.floor(step / self.step_size))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "drop": self.drop, "step_size": self.step_size}

"""

_FIT = "history = model.fit(x, y, epochs={epochs}, batch_size=32, verbose=0)\n"


def _setup(data: str, optimizer: str, model: str, prelude: str = "") -> str:
    return cell(data, _SEED, prelude, f"optimizer = {optimizer}\n", model)


def _sched(name: str, args: str) -> str:
    return f"keras.optimizers.schedules.{name}(\n    {args})"


_CLS = AllOf((LossStays(0.8), Accuracy(high=0.5)))
_CLS_LEARNS = AllOf((LossFalls(0.3), Accuracy(low=0.85)))

CASES = [
    Case(
        name="exp_decay_steps_set_to_epochs",
        family=FAMILY,
        bug_summary="ExponentialDecay(0.003, decay_steps=10, decay_rate=0.05) with RMSprop, meant "
        "as 'decay to 5% of the rate over the 10 epochs of training': decay_steps counts "
        "batches (16 per epoch), so the rate is 1.5e-4 after 10 batches, ~2e-7 at the end of "
        "the second epoch and ~5e-24 at the end; the binary classifier stays near chance",
        source="Stack Overflow: 'ExponentialDecay decay_steps: epochs or steps? learning rate "
        "is zero after the first epoch' (decay_steps is in optimizer steps; use "
        "steps_per_epoch * epochs)",
        setup=_setup(
            BINARY,
            "keras.optimizers.RMSprop(learning_rate="
            + _sched("ExponentialDecay", "0.003, decay_steps=10, decay_rate=0.05")
            + ")",
            _BINARY_MLP,
        ),
        fixed_setup=_setup(
            BINARY,
            "keras.optimizers.RMSprop(learning_rate="
            + _sched("ExponentialDecay", "0.003, decay_steps=16 * 10, decay_rate=0.05")
            + ")",
            _BINARY_MLP,
        ),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "decay_steps", "learning rate", "learning_rate"),
        fixes=("decay_steps",),
        bug=AllOf((LossStays(0.85), Accuracy(high=0.72))),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.88))),
    ),
    Case(
        name="exp_decay_staircase_every_two_epochs",
        family=FAMILY,
        bug_summary="ExponentialDecay(0.003, decay_steps=2, decay_rate=0.5, staircase=True) with "
        "Adam, meant as 'halve the rate every 2 epochs': staircase makes the decay discrete "
        "but decay_steps still counts batches, so the rate halves every 2 batches: ~6e-6 at "
        "the end of the first epoch (19 batches), below 1e-7 early in the second; the loss "
        "stays flat from epoch 2",
        source="Stack Overflow: 'staircase=True in ExponentialDecay: does it decay per epoch?' "
        "(no: per decay_steps optimizer steps; set decay_steps = 2 * steps_per_epoch)",
        setup=_setup(
            BLOBS,
            "keras.optimizers.Adam(learning_rate="
            + _sched("ExponentialDecay", "0.003, decay_steps=2, decay_rate=0.5, staircase=True")
            + ")",
            _BLOBS_FUNC,
        ),
        fixed_setup=_setup(
            BLOBS,
            "keras.optimizers.Adam(learning_rate="
            + _sched(
                "ExponentialDecay", "0.003, decay_steps=2 * 19, decay_rate=0.5, staircase=True"
            )
            + ")",
            _BLOBS_FUNC,
        ),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "decay_steps", "learning rate", "learning_rate"),
        fixes=("decay_steps",),
        bug=_CLS,
        learns=_CLS_LEARNS,
    ),
    Case(
        name="piecewise_boundaries_in_epochs",
        family=FAMILY,
        bug_summary="PiecewiseConstantDecay(boundaries=[3, 6, 9], values=[0.05, 0.005, 5e-4, "
        "5e-5]) with SGD, meant as 'divide the rate by 10 at epochs 3, 6 and 9' (the classic "
        "step schedule): the boundaries are compared with the batch counter, so only the "
        "first 3 batches use 0.05 and from the 10th batch on the rate is 5e-5",
        source="Stack Overflow / Keras issue: 'PiecewiseConstantDecay boundaries in epochs, "
        "learning rate drops immediately' (boundaries are optimizer steps; multiply by "
        "steps_per_epoch)",
        setup=_setup(
            BLOBS,
            "keras.optimizers.SGD(learning_rate="
            + _sched(
                "PiecewiseConstantDecay",
                "boundaries=[3, 6, 9], values=[0.05, 0.005, 0.0005, 0.00005]",
            )
            + ")",
            _BLOBS_SEQ,
        ),
        fixed_setup=_setup(
            BLOBS,
            "keras.optimizers.SGD(learning_rate="
            + _sched(
                "PiecewiseConstantDecay",
                "boundaries=[3 * 19, 6 * 19, 9 * 19], values=[0.05, 0.005, 0.0005, 0.00005]",
            )
            + ")",
            _BLOBS_SEQ,
        ),
        train=_FIT.format(epochs=12),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "boundaries", "learning rate", "learning_rate"),
        fixes=("boundaries",),
        bug=_CLS,
        learns=_CLS_LEARNS,
    ),
    Case(
        name="piecewise_boundaries_epochs_cnn",
        family=FAMILY,
        bug_summary="A small CNN on 8x8 images (scaled by a Rescaling layer) with RMSprop and "
        "PiecewiseConstantDecay(boundaries=[4, 7], values=[1e-3, 1e-4, 1e-5]) meant as 'drop "
        "10x at epochs 4 and 7': after the 7th batch the rate is 1e-5 for the rest of the "
        "10 epochs and the quadrant classifier stays near chance",
        source="GitHub issue: 'PiecewiseConstantDecay does not change the LR at the epochs I "
        "gave' (the schedule is evaluated per optimizer step; boundaries = epoch * "
        "steps_per_epoch)",
        setup=_setup(
            IMAGES,
            "keras.optimizers.RMSprop(learning_rate="
            + _sched("PiecewiseConstantDecay", "boundaries=[4, 7], values=[1e-3, 1e-4, 1e-5]")
            + ")",
            _CNN,
        ),
        fixed_setup=_setup(
            IMAGES,
            "keras.optimizers.RMSprop(learning_rate="
            + _sched(
                "PiecewiseConstantDecay",
                "boundaries=[4 * 15, 7 * 15], values=[1e-3, 1e-4, 1e-5]",
            )
            + ")",
            _CNN,
        ),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "boundaries", "learning rate", "learning_rate"),
        fixes=("boundaries",),
        bug=AllOf((LossStays(0.85), Accuracy(high=0.6))),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.85))),
    ),
    Case(
        name="polynomial_decay_to_zero_in_epochs",
        family=FAMILY,
        bug_summary="PolynomialDecay(0.05, decay_steps=10, end_learning_rate=0.0) with SGD "
        "on a regression MLP, meant as 'decay linearly to 0 over the 10 epochs': the decay "
        "ends after 10 batches (16 per epoch) and the rate is exactly 0 "
        "from then on; the MSE stays near the variance of y",
        source="Stack Overflow: 'PolynomialDecay learning rate becomes 0 after first epoch' "
        "(decay_steps must be the total number of optimizer steps, steps_per_epoch * epochs)",
        setup=_setup(
            REGRESSION,
            "keras.optimizers.SGD(learning_rate="
            + _sched("PolynomialDecay", "0.05, decay_steps=10, end_learning_rate=0.0")
            + ")",
            _REG_MLP,
        ),
        fixed_setup=_setup(
            REGRESSION,
            "keras.optimizers.SGD(learning_rate="
            + _sched("PolynomialDecay", "0.05, decay_steps=16 * 10, end_learning_rate=0.0")
            + ")",
            _REG_MLP,
        ),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "decay_steps", "learning rate", "learning_rate"),
        fixes=("decay_steps",),
        bug=AllOf((LossStays(0.8), Mse(low=0.5))),
        learns=AllOf((LossFalls(0.3), Mse(high=0.25))),
    ),
    Case(
        name="cosine_decay_alpha_zero_in_epochs",
        family=FAMILY,
        bug_summary="CosineDecay(1e-3, decay_steps=8, alpha=0.0) with Adam on a small CNN, "
        "meant as 'cosine annealing over the 8 epochs': the cosine reaches alpha x initial = "
        "0 after 8 batches (15 per epoch) and stays there, so the model is frozen for the "
        "rest of training",
        source="Stack Overflow: 'CosineDecay: learning rate reaches zero too quickly' (the "
        "docs: decay_steps is the number of steps to decay over; set it to "
        "steps_per_epoch * epochs)",
        setup=_setup(
            IMAGES,
            "keras.optimizers.Adam(learning_rate="
            + _sched("CosineDecay", "1e-3, decay_steps=8, alpha=0.0")
            + ")",
            _CNN,
        ),
        fixed_setup=_setup(
            IMAGES,
            "keras.optimizers.Adam(learning_rate="
            + _sched("CosineDecay", "1e-3, decay_steps=15 * 8, alpha=0.0")
            + ")",
            _CNN,
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "decay_steps", "learning rate", "learning_rate"),
        fixes=("decay_steps",),
        bug=AllOf((LossStays(0.85), Accuracy(high=0.6))),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.85))),
    ),
    Case(
        name="cosine_warmup_steps_in_epochs",
        family=FAMILY,
        bug_summary="CosineDecay(0.0, decay_steps=12, warmup_target=0.003, warmup_steps=1) "
        "with Adam, meant as 'one epoch of linear warmup, then cosine decay to 0 over 12 "
        "epochs': both step counts are read as batches, so the rate is 0 at the 1st batch, "
        "0.003 at the 2nd and 0 again from the 14th on (16 batches per epoch)",
        source="Keras docs example 'CosineDecay with warmup' (warmup_steps=1000, decay_steps "
        "in steps) misread by users porting an epoch-based recipe: 'my loss is flat after "
        "the warmup'",
        setup=_setup(
            BINARY,
            "keras.optimizers.Adam(learning_rate="
            + _sched("CosineDecay", "0.0, decay_steps=12, warmup_target=0.003, warmup_steps=1")
            + ")",
            _BINARY_MLP,
        ),
        fixed_setup=_setup(
            BINARY,
            "keras.optimizers.Adam(learning_rate="
            + _sched(
                "CosineDecay",
                "0.0, decay_steps=16 * 12, warmup_target=0.003, warmup_steps=16",
            )
            + ")",
            _BINARY_MLP,
        ),
        train=_FIT.format(epochs=13),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "decay_steps", "warmup_steps", "learning rate", "learning_rate"),
        fixes=("decay_steps", "warmup_steps"),
        bug=AllOf((LossStays(0.85), Accuracy(high=0.72))),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.88))),
    ),
    Case(
        name="cosine_restarts_first_decay_in_epochs",
        family=FAMILY,
        bug_summary="CosineDecayRestarts(0.1, first_decay_steps=2, t_mul=1.0, m_mul=0.5) "
        "with SGD, meant as 'restart every 2 epochs at half the previous peak': the period is "
        "2 batches, so the peak halves every 2 batches (0.1 x 0.5^9 ~ 2e-4 at the end of "
        "the first epoch, ~1e-25 by the end) and training stops",
        source="Stack Overflow: 'CosineDecayRestarts first_decay_steps epochs vs "
        "iterations' (SGDR's T_0 is given in epochs in the paper, in steps in Keras)",
        setup=_setup(
            BLOBS,
            "keras.optimizers.SGD(learning_rate="
            + _sched("CosineDecayRestarts", "0.1, first_decay_steps=2, t_mul=1.0, m_mul=0.5")
            + ")",
            _BLOBS_SEQ,
        ),
        fixed_setup=_setup(
            BLOBS,
            "keras.optimizers.SGD(learning_rate="
            + _sched("CosineDecayRestarts", "0.1, first_decay_steps=2 * 19, t_mul=1.0, m_mul=0.5")
            + ")",
            _BLOBS_SEQ,
        ),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "first_decay_steps", "learning rate", "learning_rate"),
        fixes=("first_decay_steps",),
        bug=_CLS,
        learns=_CLS_LEARNS,
    ),
    Case(
        name="custom_linear_decay_total_steps_epochs",
        family=FAMILY,
        bug_summary="A LearningRateSchedule subclass for linear decay to 0 over total_steps "
        "(like Hugging Face's get_linear_schedule_with_warmup) given total_steps=20, the "
        "number of epochs: the rate hits exactly 0 after 20 batches (16 per epoch) and the "
        "RMSprop regression model stops learning in its second epoch",
        source="Hugging Face forum / GitHub issue: 'num_training_steps set to num_epochs, "
        "learning rate is 0 after a few steps' (it must be len(dataloader) * num_epochs)",
        setup=_setup(
            REGRESSION,
            "keras.optimizers.RMSprop(learning_rate=LinearDecay(0.0005, total_steps=20))",
            _REG_MLP,
            prelude=_LINEAR_DECAY,
        ),
        fixed_setup=_setup(
            REGRESSION,
            "keras.optimizers.RMSprop(learning_rate=LinearDecay(0.0005, total_steps=16 * 20))",
            _REG_MLP,
            prelude=_LINEAR_DECAY,
        ),
        train=_FIT.format(epochs=20),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "total_steps", "LinearDecay", "learning rate", "learning_rate"),
        fixes=("total_steps",),
        bug=AllOf((LossStays(0.8), Mse(low=0.5))),
        learns=AllOf((LossFalls(0.3), Mse(high=0.25))),
    ),
    Case(
        name="custom_step_decay_step_size_epochs",
        family=FAMILY,
        bug_summary="A StepDecay LearningRateSchedule subclass (rate x drop every step_size "
        "steps, the Keras port of the classic 'drop by half every 2 epochs' callback) given "
        "step_size=2 with Adam: the schedule receives the batch counter, so the rate halves "
        "every 2 batches, is 0.002 x 0.5^9 ~ 4e-6 at the end of the first epoch (19 "
        "batches) and ~1e-31 at the end",
        source="Stack Overflow: 'Porting LearningRateScheduler step decay to a "
        "LearningRateSchedule: model stops learning' (a LearningRateSchedule is called with "
        "the optimizer step, a LearningRateScheduler callback with the epoch)",
        setup=_setup(
            BLOBS,
            "keras.optimizers.Adam(learning_rate=StepDecay(0.002, drop=0.5, step_size=2))",
            _BLOBS_FUNC,
            prelude=_STEP_DECAY,
        ),
        fixed_setup=_setup(
            BLOBS,
            "keras.optimizers.Adam(learning_rate=StepDecay(0.002, drop=0.5, step_size=2 * 19))",
            _BLOBS_FUNC,
            prelude=_STEP_DECAY,
        ),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("schedule", "step_size", "StepDecay", "learning rate", "learning_rate"),
        fixes=("step_size",),
        bug=_CLS,
        learns=_CLS_LEARNS,
    ),
]
