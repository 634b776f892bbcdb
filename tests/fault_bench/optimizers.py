"""The optimizer is configured so that the updates are far too large or far too small.

User reports: "SGD with momentum=0.99 (or 0.999): loss jumps around and never
settles" (the effective step of momentum SGD is ``learning_rate / (1 - momentum)``);
"Adam does not learn after I set epsilon=1.0 as the docs suggest for Inception"
(an epsilon far above ``sqrt(v)`` turns Adam into SGD with a tiny step);
"ExponentialDecay: the learning rate is almost 0 after the first epoch" (``decay_steps``
counts optimizer steps, i.e. batches, not epochs, so ``decay_steps=1`` decays the
rate at every batch).
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    LossFalls,
    LossStays,
)
from tests.fault_bench._data import BLOBS, cell

FAMILY = "optimizers"

_SEED = "keras.utils.set_random_seed(0)\n"

_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_FIT = "history = model.fit(x, y, epochs={epochs}, batch_size=32, verbose=0)\n"


def _setup(optimizer: str) -> str:
    return cell(BLOBS, _SEED, f"optimizer = {optimizer}\n", _MODEL)


CASES = [
    Case(
        name="sgd_momentum_near_one",
        family=FAMILY,
        bug_summary="SGD with momentum=0.999 and an ordinary learning rate of 0.05: the velocity "
        "accumulates ~1000 past gradients, the effective step is learning_rate / (1 - momentum) "
        "= 50, and the loss swings up and never settles",
        source="Stack Overflow: 'Keras SGD with high momentum: loss oscillates / explodes' "
        "(answer: momentum 0.9, or lower the learning rate with it)",
        setup=_setup("keras.optimizers.SGD(learning_rate=0.05, momentum=0.999)"),
        fixed_setup=_setup("keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)"),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G02", "G06"}),
        places=("momentum", "learning rate", "learning_rate"),
        fixes=("momentum",),
        bug=AllOf((LossStays(1.0), Accuracy(high=0.5))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="adam_huge_epsilon",
        family=FAMILY,
        bug_summary="Adam with epsilon=10: the denominator sqrt(v) + epsilon is ~10 instead of "
        "~|g|, so each step is learning_rate x g / 10, a ten-thousandth of Adam's usual step; "
        "the loss hardly moves in 8 epochs",
        source="GitHub issue / Stack Overflow: 'Adam with a large epsilon (the docs say 1.0 or "
        "0.1 may be good for Inception) stops my model from learning'",
        setup=_setup("keras.optimizers.Adam(learning_rate=0.001, epsilon=10.0)"),
        fixed_setup=_setup("keras.optimizers.Adam(learning_rate=0.001)"),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("epsilon",),
        fixes=("epsilon",),
        bug=AllOf((LossStays(0.9), Accuracy(high=0.5))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="lr_schedule_decays_per_batch",
        family=FAMILY,
        bug_summary="ExponentialDecay(0.05, decay_steps=1, decay_rate=0.9) meant as 'decay 10% "
        "per epoch': decay_steps counts batches, so the learning rate is 0.05 x 0.9^19 ~ 0.007 "
        "after the first epoch and ~1e-8 after the eighth; training stops almost at once",
        source="Stack Overflow: 'Keras ExponentialDecay: learning rate goes to zero after the "
        "first epoch' (decay_steps is in optimizer steps, not epochs)",
        setup=_setup(
            "keras.optimizers.SGD(learning_rate=keras.optimizers.schedules.ExponentialDecay(\n"
            "    0.05, decay_steps=1, decay_rate=0.9))"
        ),
        fixed_setup=_setup(
            "keras.optimizers.SGD(learning_rate=keras.optimizers.schedules.ExponentialDecay(\n"
            "    0.05, decay_steps=19, decay_rate=0.9))"
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"G06"}),
        symptom_codes=frozenset({"G06", "G07"}),
        places=("learning rate", "learning_rate", "decay_steps", "schedule"),
        fixes=("decay_steps",),
        bug=AllOf((LossStays(0.7), Accuracy(high=0.5))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
]
