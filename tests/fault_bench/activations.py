"""Hidden activations: saturating sigmoids in a deep stack (vanishing gradients) where
ReLU with He initialization trains, and ReLU units killed by a large first step.

User reports: "my deep network with sigmoid activations does not learn, the loss stays at
2.30"; "a 10-layer MLP predicts the mean of the targets"; "after the first epoch every
prediction is the same and the loss is frozen" (dying ReLU, Adam with a large step).
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    ConstantOutput,
    LossFalls,
    LossStays,
    Mse,
)
from tests.fault_bench._data import BLOBS, REGRESSION, cell

FAMILY = "activations"

_DEEP_CLS = """\
layers = [keras.Input((20,))]
for i in range(1, 9):
    layers.append(keras.layers.Dense(32, activation={act!r}, kernel_initializer={init!r}, name=f"h{{i}}"))
layers.append(keras.layers.Dense(10, activation="softmax", name="out"))
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_DEEP_REG = """\
layers = [keras.Input((8,))]
for i in range(1, 11):
    layers.append(keras.layers.Dense(32, activation={act!r}, kernel_initializer={init!r}, name=f"h{{i}}"))
layers.append(keras.layers.Dense(1, name="out"))
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01), loss="mse")
"""

_DEAD = """\
y = y + 30.0  # the measured quantity sits around 30
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(32, activation="relu", name="relu1"),
    keras.layers.Dense(32, activation="relu", name="relu2"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer=keras.optimizers.SGD(learning_rate={lr}), loss="mse")
"""

_SIGMOID_PLACES = tuple(f"h{i}" for i in range(1, 11)) + ("sigmoid",)
_SIGMOID_FIXES = (
    "relu",
    "he_normal",
    "he initial",
    "batchnormalization",
    "batch normalization",
    "residual",
    "skip connection",
)

CASES = [
    Case(
        name="deep_sigmoid_vanishing",
        family=FAMILY,
        bug_summary="8 Dense(32, sigmoid) hidden layers with SGD: the gradient of the first "
        "layers vanishes and the loss stays at log(10)",
        source="Stack Overflow: 'deep neural network with sigmoid activation not learning, "
        "loss stuck at 2.30' (answer: vanishing gradients, use ReLU and He initialization)",
        setup=cell(BLOBS, _DEEP_CLS.format(act="sigmoid", init="glorot_uniform")),
        fixed_setup=cell(BLOBS, _DEEP_CLS.format(act="relu", init="he_normal")),
        train="history = model.fit(x, y, epochs=10, batch_size=32, verbose=0)\n",
        codes=frozenset({"G01", "N03"}),
        symptom_codes=frozenset({"G01", "G07"}),
        places=_SIGMOID_PLACES,
        fixes=_SIGMOID_FIXES,
        bug=AllOf((LossStays(0.95), Accuracy(high=0.3))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="deep_sigmoid_regression_mean",
        family=FAMILY,
        bug_summary="10 Dense(32, sigmoid) hidden layers on a regression: the network "
        "predicts the mean of the targets, MSE stays at var(y)",
        source="Stack Overflow: 'Keras regression always predicts the same value / the mean' "
        "with a deep sigmoid MLP (answer: vanishing gradients; ReLU + He init)",
        setup=cell(REGRESSION, _DEEP_REG.format(act="sigmoid", init="glorot_uniform")),
        fixed_setup=cell(REGRESSION, _DEEP_REG.format(act="relu", init="he_normal")),
        train="history = model.fit(x, y, epochs=20, batch_size=32, verbose=0)\n",
        codes=frozenset({"G01", "N03"}),
        symptom_codes=frozenset({"G01", "G07"}),
        places=_SIGMOID_PLACES,
        fixes=_SIGMOID_FIXES,
        bug=Mse(low=0.9),
        learns=Mse(high=0.4),
    ),
    Case(
        name="dying_relu_large_step",
        family=FAMILY,
        bug_summary="SGD(learning_rate=0.03) on a ReLU MLP regression with targets around 30: "
        "the first large steps push every unit of the second ReLU layer negative, it outputs 0 "
        "for all inputs and never recovers (the model predicts one constant)",
        source="Stack Overflow: 'all predictions are the same after the first epoch, loss "
        "frozen' (dying ReLU after a too large learning rate)",
        setup=cell(REGRESSION, _DEAD.format(lr="0.03")),
        fixed_setup=cell(REGRESSION, _DEAD.format(lr="0.01")),
        train="history = model.fit(x, y, epochs=20, batch_size=32, verbose=0)\n",
        codes=frozenset({"N02", "G01", "G06", "G02"}),
        symptom_codes=frozenset({"N02"}),
        places=("relu1", "relu2", "learning rate", "learning_rate"),
        fixes=(
            "lower the learning rate",
            "smaller learning rate",
            "reduce the learning rate",
            "leakyrelu",
            "leaky_relu",
            "leaky relu",
        ),
        bug=AllOf((ConstantOutput(), Mse(low=0.9))),
        learns=Mse(high=0.45),
    ),
]
