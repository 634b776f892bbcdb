"""The model's structure cannot represent the task, or cannot be trained as built.

User reports: "accuracy stuck around 30% on a 10-class problem" (a ``Dense(1)`` hidden
layer, a leftover of an autoencoder-style "bottleneck", squeezes every example onto one
number before the 10-way softmax); "my network cannot learn XOR / concentric circles"
(hidden ``Dense`` layers without an activation: a stack of linear layers is one linear
map, so the classifier is logistic regression); "deep network with sigmoid activations
does not learn at all" (a plain stack of ten sigmoid layers: every layer multiplies the
gradient by at most 0.25 and the first layers receive almost none; fixed here with a
``BatchNormalization`` after each layer).
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

FAMILY = "architecture"

_SEED = "keras.utils.set_random_seed(0)\n"

#: two concentric rings in 2-D: ``x`` (400, 2), ``y`` (400, 1) of 0/1 (inner ring 0, outer 1)
_CIRCLES = """\
import numpy as np
import keras
rng = np.random.default_rng(4)
y = rng.integers(0, 2, 400).astype("float32").reshape(-1, 1)
angle = rng.uniform(0.0, 2 * np.pi, 400)
radius = np.where(y[:, 0] > 0, 2.0, 1.0) + rng.normal(0.0, 0.15, 400)
x = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1).astype("float32")
"""

_BOTTLENECK_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense({width}, name="bottleneck"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_CIRCLES_MODEL = """\
model = keras.Sequential([
    keras.Input((2,)),
    keras.layers.Dense(32{act}, name="hidden"),
    keras.layers.Dense(32{act}, name="hidden2"),
    keras.layers.Dense(1, activation="sigmoid", name="out"),
])
model.compile(
    optimizer=keras.optimizers.Adam(0.01), loss="binary_crossentropy", metrics=["accuracy"]
)
"""

_DEEP_MODEL = """\
layers = [keras.Input((20,))]
for i in range(1, 11):
    layers.append(keras.layers.Dense(32, activation="sigmoid", name=f"h{{i}}")){bn}
layers.append(keras.layers.Dense(10, activation="softmax", name="out"))
model = keras.Sequential(layers)
model.compile(
    optimizer=keras.optimizers.SGD(learning_rate=0.05),
    loss="sparse_categorical_crossentropy",
    metrics=["accuracy"],
)
"""
_BN = '\n    layers.append(keras.layers.BatchNormalization(momentum=0.9, name=f"bn{i}"))'

_FIT = "history = model.fit(x, y, epochs={epochs}, batch_size=32, verbose=0)\n"

CASES = [
    Case(
        name="one_unit_bottleneck",
        family=FAMILY,
        bug_summary="a Dense(1) hidden layer between a Dense(64) and the 10-class head: every "
        "example is projected onto one number, ten overlapping blobs cannot be told apart on a "
        "line, and accuracy plateaus far below what the same network gets with a wider layer",
        source="Stack Overflow: 'accuracy stuck at ~30% for 10 classes' (a one-unit 'bottleneck' "
        "layer left in the middle of the classifier; answer: widen or remove it)",
        setup=cell(BLOBS, _SEED, _BOTTLENECK_MODEL.format(width=1)),
        fixed_setup=cell(BLOBS, _SEED, _BOTTLENECK_MODEL.format(width=32)),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G07"}),
        symptom_codes=frozenset({"G07"}),
        places=("bottleneck",),
        fixes=("units", "wider", "bottleneck"),
        bug=Accuracy(high=0.6),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.9))),
    ),
    Case(
        name="linear_stack_on_circles",
        family=FAMILY,
        bug_summary="two hidden Dense layers without an activation on two concentric rings: the "
        "stack is one linear map, no line separates the rings, and the loss stays at ln 2 with "
        "accuracy at chance",
        source="Stack Overflow: 'Keras network cannot learn XOR / circles, accuracy 50%' (the "
        "hidden Dense layers have no activation; answer: activation='relu')",
        setup=cell(_CIRCLES, _SEED, _CIRCLES_MODEL.format(act="")),
        fixed_setup=cell(_CIRCLES, _SEED, _CIRCLES_MODEL.format(act=', activation="relu"')),
        train=_FIT.format(epochs=20),
        codes=frozenset({"G07"}),
        symptom_codes=frozenset({"G07"}),
        places=("hidden", "hidden2"),
        fixes=("activation", "relu", "nonlinear"),
        bug=AllOf((LossStays(0.9), Accuracy(high=0.65))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.95))),
    ),
    Case(
        name="deep_sigmoid_stack",
        family=FAMILY,
        bug_summary="ten Dense(32, sigmoid) layers stacked with no normalization between "
        "them, trained with SGD: each sigmoid scales the backward signal by at most 0.25, the "
        "first layers receive gradients orders of magnitude below the last, and the loss stays "
        "at ln 10 (the fix adds a BatchNormalization after each layer; momentum=0.9 so that its "
        "moving statistics settle within this short run)",
        source="Stack Overflow: 'deep network with sigmoid activations does not learn, shallow "
        "one does' (vanishing gradients; answer: relu, batch normalization, or fewer layers)",
        setup=cell(BLOBS, _SEED, _DEEP_MODEL.format(bn="")),
        fixed_setup=cell(BLOBS, _SEED, _DEEP_MODEL.format(bn=_BN)),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G01"}),
        symptom_codes=frozenset({"G01", "G07"}),
        places=("h1", "sigmoid"),
        fixes=("batchnormalization", "batch normalization", "relu", "residual", "skip connection"),
        bug=AllOf((LossStays(0.95), Accuracy(high=0.3))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
]
