"""Learning rate: too high (the loss turns NaN, a classifier's accuracy falls to chance)
and too low (the loss barely moves), and a decay schedule that takes it to zero.

User reports: "loss becomes nan after a few iterations" with ``SGD(lr=1)``; "accuracy
stuck at 10% from the second epoch" with ``Adam(lr=1)``; "loss is not decreasing" with a
learning rate of 1e-6; "the loss stops improving after the first epoch" with an
``ExponentialDecay`` that halves the rate every step.
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    LossFalls,
    LossNonFinite,
    LossStays,
)
from tests.fault_bench._data import BLOBS, REGRESSION, cell

FAMILY = "learning_rate"

_REG_MODEL = """\
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(64, activation="relu", name="hidden1"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer=keras.optimizers.SGD(learning_rate={lr}), loss="mse")
"""

_CLS_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden1"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer={optimizer}, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_FIT_REG = "history = model.fit(x, y, epochs=8, batch_size=32, verbose=0)\n"
_FIT_CLS = "history = model.fit(x, y, epochs=10, batch_size=32, verbose=0)\n"

_HIGH_PLACES = ("learning rate", "learning_rate", "optimizer")
_LOWER_LR = (
    "lower the learning rate",
    "lower learning rate",
    "smaller learning rate",
    "reduce the learning rate",
    "decrease the learning rate",
    "learning rate too high",
    "learning_rate=1e-3",
    "learning_rate=1e-4",
)
_RAISE_LR = (
    "raise the learning rate",
    "higher learning rate",
    "larger learning rate",
    "increase the learning rate",
    "learning rate too low",
    "learning_rate=1e-3",
    "learning_rate=1e-2",
)

CASES = [
    Case(
        name="sgd_lr_nan",
        family=FAMILY,
        bug_summary="SGD(learning_rate=1.0) on an MLP regression: the loss overflows to NaN "
        "in the first epoch",
        source="Stack Overflow: 'Keras regression loss becomes nan after a few batches' "
        "(SGD with lr=1, fixed by lr=0.01)",
        setup=cell(REGRESSION, _REG_MODEL.format(lr="1.0")),
        fixed_setup=cell(REGRESSION, _REG_MODEL.format(lr="0.01")),
        train=_FIT_REG,
        codes=frozenset({"G05", "G03", "G02", "G06"}),
        symptom_codes=frozenset({"G05", "G03", "N01"}),
        places=_HIGH_PLACES,
        fixes=_LOWER_LR,
        bug=LossNonFinite(),
        learns=LossFalls(0.5),
    ),
    Case(
        name="adam_lr_too_high_chance",
        family=FAMILY,
        bug_summary="Adam(learning_rate=1.0) on a 10-class MLP: the first steps throw the "
        "weights far off and accuracy stays near chance (10%)",
        source="Stack Overflow: 'accuracy stuck at 0.1 after the first epoch' with Adam(lr=1) "
        "on a 10-class problem",
        setup=cell(BLOBS, _CLS_MODEL.format(optimizer="keras.optimizers.Adam(learning_rate=1.0)")),
        fixed_setup=cell(
            BLOBS, _CLS_MODEL.format(optimizer="keras.optimizers.Adam(learning_rate=1e-3)")
        ),
        train=_FIT_CLS,
        codes=frozenset({"G06", "G02", "N02"}),
        symptom_codes=frozenset({"G02", "N02", "P16"}),
        places=_HIGH_PLACES,
        fixes=_LOWER_LR,
        bug=Accuracy(high=0.35),
        learns=Accuracy(low=0.85),
    ),
    Case(
        name="sgd_lr_too_low",
        family=FAMILY,
        bug_summary="SGD(learning_rate=1e-6): the loss of a 10-class MLP barely moves in 10 epochs",
        source="Stack Overflow: 'Keras loss not decreasing at all' (learning rate 1e-6; "
        "fixed by 1e-2)",
        setup=cell(BLOBS, _CLS_MODEL.format(optimizer="keras.optimizers.SGD(learning_rate=1e-6)")),
        fixed_setup=cell(
            BLOBS, _CLS_MODEL.format(optimizer="keras.optimizers.SGD(learning_rate=0.05)")
        ),
        train=_FIT_CLS,
        codes=frozenset({"G06", "G07"}),
        symptom_codes=frozenset({"G07"}),
        places=("learning rate", "learning_rate", "optimizer"),
        fixes=_RAISE_LR,
        bug=AllOf((LossStays(0.99), Accuracy(high=0.4))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="decay_schedule_to_zero",
        family=FAMILY,
        bug_summary="ExponentialDecay(0.05, decay_steps=1, decay_rate=0.5): the learning rate "
        "halves every step, is ~0 after the first epoch, and the loss stops falling",
        source="Stack Overflow: 'loss stops decreasing after the first epoch with a "
        "learning rate schedule' (decay_steps=1 where the steps of many epochs were meant)",
        setup=cell(
            BLOBS,
            "schedule = keras.optimizers.schedules.ExponentialDecay(0.05, decay_steps=1, "
            "decay_rate=0.5)",
            _CLS_MODEL.format(optimizer="keras.optimizers.SGD(learning_rate=schedule)"),
        ),
        fixed_setup=cell(
            BLOBS,
            "schedule = keras.optimizers.schedules.ExponentialDecay(0.05, decay_steps=1000, "
            "decay_rate=0.5)",
            _CLS_MODEL.format(optimizer="keras.optimizers.SGD(learning_rate=schedule)"),
        ),
        train=_FIT_CLS,
        codes=frozenset({"G06", "G07"}),
        symptom_codes=frozenset({"G07"}),
        places=("learning rate", "learning_rate", "schedule", "decay", "optimizer"),
        fixes=("decay_steps", "schedule", "decay rate", "decay_rate") + _RAISE_LR,
        bug=AllOf((LossStays(0.95), Accuracy(high=0.4))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
]
