"""Initialization: all zeros or one constant (every unit of a layer the same, symmetric),
a huge standard deviation (saturated tanh units), a negative bias that starts every ReLU dead.

User reports: "my network does not learn when I initialize the weights to zero"; "all
the hidden units learn the same thing" (a constant kernel_initializer); "training a tanh
network with RandomNormal(stddev=5) does not work" (saturation); "ReLU network outputs
the same value for every input" (bias_initializer set to a large negative constant).
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    ConstantOutput,
    LossFalls,
    LossStays,
    Metric,
    Mse,
)
from tests.fault_bench._data import BLOBS, REGRESSION, cell

FAMILY = "init"

_CLS = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation={act!r}, kernel_initializer={init}, name="dense1"),
    keras.layers.Dense(64, activation={act!r}, kernel_initializer={init}, name="dense2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_TANH_DEEP = """\
init = {init}
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="tanh", kernel_initializer=init, name="dense1"),
    keras.layers.Dense(64, activation="tanh", kernel_initializer=init, name="dense2"),
    keras.layers.Dense(64, activation="tanh", kernel_initializer=init, name="dense3"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_BIAS = """\
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(32, activation="relu", bias_initializer={bias}, name="dense1"),
    keras.layers.Dense(32, activation="relu", name="dense2"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer="adam", loss="mse")
"""

_INIT_FIXES = (
    "glorot",
    "he_normal",
    "he_uniform",
    "kernel_initializer",
    "random initial",
    "break the symmetry",
    "symmetry",
)

CASES = [
    Case(
        name="zeros_kernel",
        family=FAMILY,
        bug_summary="kernel_initializer='zeros' in both ReLU hidden layers: every hidden output "
        "is exactly 0, no gradient reaches the hidden kernels, only the output bias learns",
        source="Stack Overflow: 'neural network does not learn when the weights are "
        "initialized to zero' (symmetry; answer: random initialization)",
        setup=cell(BLOBS, _CLS.format(act="relu", init='"zeros"')),
        fixed_setup=cell(BLOBS, _CLS.format(act="relu", init='"he_normal"')),
        train="history = model.fit(x, y, epochs=8, batch_size=32, verbose=0)\n",
        codes=frozenset({"N02", "G01", "G04"}),
        symptom_codes=frozenset({"G01", "G07", "N02"}),
        places=("dense1", "dense2", "initial", "zeros"),
        fixes=_INIT_FIXES,
        bug=Accuracy(high=0.2),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="constant_kernel_symmetric",
        family=FAMILY,
        bug_summary="kernel_initializer=Constant(0.1) in two tanh layers: all units of a layer "
        "start equal, get equal gradients and stay equal, so each layer is one unit repeated "
        "and the model sees one projection of the input, too little for 10 classes",
        source="Stack Overflow: 'all neurons in my hidden layer learn the same weights' "
        "(constant initializer; symmetry is never broken)",
        setup=cell(BLOBS, _CLS.format(act="tanh", init="keras.initializers.Constant(0.1)")),
        fixed_setup=cell(BLOBS, _CLS.format(act="tanh", init='"glorot_uniform"')),
        train="history = model.fit(x, y, epochs=8, batch_size=32, verbose=0)\n",
        codes=frozenset({"G07", "G01"}),
        symptom_codes=frozenset({"G07", "P16"}),
        places=("dense1", "dense2", "initial", "constant"),
        fixes=_INIT_FIXES,
        bug=Accuracy(high=0.5),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="huge_stddev_tanh",
        family=FAMILY,
        bug_summary="RandomNormal(stddev=5.0) kernels in three tanh layers: pre-activations are "
        "in the tens, the units sit at +-1 and the gradient through them is ~0; the loss ends "
        "about 5x higher than with Glorot initialization",
        source="Stack Overflow: 'tanh network does not train with a large weight "
        "initialization' (saturation; answer: Glorot/Xavier initialization)",
        setup=cell(BLOBS, _TANH_DEEP.format(init="keras.initializers.RandomNormal(stddev=5.0)")),
        fixed_setup=cell(BLOBS, _TANH_DEEP.format(init='"glorot_uniform"')),
        train="history = model.fit(x, y, epochs=8, batch_size=32, verbose=0)\n",
        codes=frozenset({"N03", "G01"}),
        symptom_codes=frozenset({"N03", "G01"}),
        places=("dense1", "dense2", "dense3", "initial", "stddev"),
        fixes=("glorot", "stddev", "kernel_initializer", "xavier", "smaller initial"),
        bug=AllOf((Metric("loss", low=0.5), Accuracy(high=0.9))),
        learns=AllOf((Metric("loss", high=0.25), Accuracy(low=0.95))),
    ),
    Case(
        name="negative_bias_dead_relu",
        family=FAMILY,
        bug_summary="bias_initializer=Constant(-10.0) in the first ReLU layer: every unit is "
        "negative for every input, outputs 0, gets no gradient; the model predicts a constant",
        source="Stack Overflow: 'Keras ReLU network predicts the same value for every input' "
        "(a large negative bias initializer; dead ReLUs from the start)",
        setup=cell(REGRESSION, _BIAS.format(bias="keras.initializers.Constant(-10.0)")),
        fixed_setup=cell(REGRESSION, _BIAS.format(bias='"zeros"')),
        train="history = model.fit(x, y, epochs=10, batch_size=32, verbose=0)\n",
        codes=frozenset({"N02", "G01", "G04"}),
        symptom_codes=frozenset({"N02", "G07"}),
        places=("dense1", "bias", "initial"),
        fixes=("bias_initializer", "zeros", "bias", "leakyrelu", "leaky_relu"),
        bug=AllOf((ConstantOutput(), LossStays(0.8))),
        learns=Mse(high=0.4),
    ),
]
