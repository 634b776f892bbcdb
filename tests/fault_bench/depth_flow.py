"""The signal or the gradient stops flowing through the depth of a network during training,
because of the hidden activations or the initialization.

Each layer should keep the scale of the forward signal and of the backward gradient
roughly constant (Glorot & Bengio 2010; He et al. 2015).  What breaks it here, in Dense,
Conv1D and Conv2D stacks of 4 to 12 hidden layers (Sequential and functional models,
classification and regression, SGD, Adam and RMSprop): saturating activations stacked
deep (sigmoid, whose derivative is at most 0.25, and ``hard_sigmoid``, whose slope is
1/6); a kernel spread so large that tanh units sit at their bounds
(``RandomNormal(stddev=1.0)``, "standard normal weights") or a non-centred one that pins
every tanh unit at +1 or -1 (``RandomUniform(0, 1)``); a spread so small that the signal
shrinks by a constant factor per layer until nothing of the input is left
(``TruncatedNormal(stddev=0.01)``, ``RandomUniform(-1e-3, 1e-3)``, the
``"random_normal"`` default of stddev 0.05 in a ten-layer softsign stack,
``RandomNormal(stddev=0.01)`` in a VGG-like CNN without normalization); a constant
``"ones"`` kernel (all filters of a layer identical and saturated, the symmetry never
broken); and raw inputs around 1000 fed into a tanh stack (every first-layer unit pinned
at +1 or -1, the same for every example).

User reports: "my deep network with sigmoid / hard_sigmoid activations does not learn";
"CNN with sigmoid activations does not train, accuracy at 25%"; "tanh network does not
train with large (standard normal) weights"; "I initialized the weights uniformly in
[0, 1] and nothing learns"; "deep network with weights of stddev 0.01 is stuck, loss at
log(10)"; "all neurons (filters) learn the same weights"; "the model predicts the mean of
the targets / the same class for every input"; "the network outputs the same value for
every input when I feed the raw sensor readings".  Each correct version changes only the
fix: ReLU with He initialization, a Glorot initializer, BatchNormalization, or scaling
the input.
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
from tests.fault_bench._data import BINARY, BLOBS, IMAGES, REGRESSION, cell

FAMILY = "depth_flow"

_SEED = "keras.utils.set_random_seed(0)\n"

#: three classes of noisy 1-D signals of 32 steps: a rising ramp, a falling ramp, or a
#: bump at a random position; ``x`` (480, 32, 1), integer ``y`` (480,)
_SIGNALS = """\
import numpy as np
import keras
rng = np.random.default_rng(6)
t = np.linspace(-1.0, 1.0, 32)
y = rng.integers(0, 3, 480)
centre = rng.uniform(-0.6, 0.6, 480)
shapes = np.stack([t[None, :].repeat(480, 0), -t[None, :].repeat(480, 0),
                   2.0 * np.exp(-((t[None, :] - centre[:, None]) / 0.15) ** 2) - 0.5])
x = shapes[y, np.arange(480)] + 0.3 * rng.normal(0.0, 1.0, (480, 32))
x = x[..., None].astype("float32")
"""

#: raw sensor readings around 1000 (a pressure in hPa, say) with a spread of 20:
#: ``x`` (512, 8), ``y`` (512, 1) a smooth function of the standardized readings
_READINGS = """\
import numpy as np
import keras
rng = np.random.default_rng(7)
z = rng.normal(0.0, 1.0, (512, 8))
x = (1000.0 + 20.0 * z).astype("float32")
w = rng.normal(0.0, 0.5, (8, 1))
y = (np.tanh(z @ w) + 0.3 * z[:, :1] * z[:, 1:2]).astype("float32")
"""

_STANDARDIZE = "x = (x - x.mean(axis=0)) / x.std(axis=0)  # scale the inputs\n"

# six Conv2D layers, sigmoid (buggy) or relu + he_normal (correct)
_CONV_SIGMOID = """\
layers = [keras.Input((8, 8, 1)), keras.layers.Rescaling(1.0 / 255, name="scale")]
for i in range(1, 7):
    layers.append(keras.layers.Conv2D(8, 3, padding="same", activation={act!r},
                                      kernel_initializer={init!r}, name=f"conv{{i}}"))
layers += [keras.layers.Flatten(name="flat"), keras.layers.Dense(4, activation="softmax", name="out")]
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.02, momentum=0.9),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

# a functional regression model of eight tanh layers, with a held-out part of the data
_FUNCTIONAL_TANH = """\
x, x_val, y, y_val = x[:384], x[384:], y[:384], y[384:]
inputs = keras.Input((8,), name="features")
h = inputs
for i in range(1, 9):
    h = keras.layers.Dense(64, activation="tanh", kernel_initializer={init}, name=f"tanh{{i}}")(h)
outputs = keras.layers.Dense(1, name="out")(h)
model = keras.Model(inputs, outputs)
model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.001), loss="mse")
"""

# twelve ReLU Dense layers
_RELU_DEEP = """\
layers = [keras.Input((20,))]
for i in range(1, 13):
    layers.append(keras.layers.Dense(64, activation="relu", kernel_initializer={init}, name=f"dense{{i}}"))
layers.append(keras.layers.Dense(10, activation="softmax", name="out"))
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01, momentum=0.9),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

# six tanh Conv1D layers
_CONV1D_TANH = """\
layers = [keras.Input((32, 1))]
for i in range(1, 7):
    layers.append(keras.layers.Conv1D(16, 3, padding="same", activation="tanh",
                                      kernel_initializer={init}, name=f"conv{{i}}"))
layers += [keras.layers.Flatten(name="flat"), keras.layers.Dense(3, activation="softmax", name="out")]
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=0.001),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

# six tanh Dense layers
_TANH_DENSE = """\
layers = [keras.Input((20,))]
for i in range(1, 7):
    layers.append(keras.layers.Dense(32, activation="tanh", kernel_initializer={init}, name=f"hidden{{i}}"))
layers.append(keras.layers.Dense(10, activation="softmax", name="out"))
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=0.001),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

# eight Dense layers, hard_sigmoid (buggy) or relu + he_normal (correct)
_HARD_SIGMOID = """\
layers = [keras.Input((10,))]
for i in range(1, 9):
    layers.append(keras.layers.Dense(32, activation={act!r}, kernel_initializer={init!r}, name=f"h{{i}}"))
layers.append(keras.layers.Dense(1, activation="sigmoid", name="out"))
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1, momentum=0.9),
              loss="binary_crossentropy", metrics=["accuracy"])
"""

# five tanh Dense layers on the readings
_READINGS_TANH = """\
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(64, activation="tanh", name="tanh1"),
    keras.layers.Dense(64, activation="tanh", name="tanh2"),
    keras.layers.Dense(64, activation="tanh", name="tanh3"),
    keras.layers.Dense(64, activation="tanh", name="tanh4"),
    keras.layers.Dense(64, activation="tanh", name="tanh5"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.001), loss="mse")
"""

# ten softsign Dense layers
_SOFTSIGN = """\
layers = [keras.Input((10,))]
for i in range(1, 11):
    layers.append(keras.layers.Dense(32, activation="softsign", kernel_initializer={init!r},
                                     bias_initializer="zeros", name=f"softsign{{i}}"))
layers.append(keras.layers.Dense(1, activation="sigmoid", name="out"))
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05, momentum=0.9),
              loss="binary_crossentropy", metrics=["accuracy"])
"""

# four tanh Conv2D layers
_CONV_TANH = """\
layers = [keras.Input((8, 8, 1)), keras.layers.Rescaling(1.0 / 255, name="scale")]
for i in range(1, 5):
    layers.append(keras.layers.Conv2D(16, 3, padding="same", activation="tanh",
                                      kernel_initializer={init!r}, name=f"conv{{i}}"))
layers += [keras.layers.Flatten(name="flat"), keras.layers.Dense(4, activation="softmax", name="out")]
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.001),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

# a VGG-like CNN of eight ReLU Conv2D layers with N(0, 0.01) kernels
_VGG = """\
layers = [keras.Input((8, 8, 1)), keras.layers.Rescaling(1.0 / 255, name="scale")]
for i in range(1, 9):
    layers.append(keras.layers.Conv2D(16, 3, padding="same", activation="relu",
                                      kernel_initializer=keras.initializers.RandomNormal(stddev=0.01),
                                      name=f"conv{{i}}")){bn}
    if i % 4 == 0:
        layers.append(keras.layers.MaxPooling2D(2, name=f"pool{{i // 4}}"))
layers += [keras.layers.Flatten(name="flat"), keras.layers.Dense(4, activation="softmax", name="out")]
model = keras.Sequential(layers)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.01, momentum=0.9),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""
_BN = '\n    layers.append(keras.layers.BatchNormalization(momentum=0.9, name=f"bn{i}"))'

_FIT = "history = model.fit(x, y, epochs={epochs}, batch_size=32, verbose=0)\n"
_FIT_VAL = (
    "history = model.fit(x, y, validation_data=(x_val, y_val), epochs={epochs}, "
    "batch_size=32, verbose=0)\n"
)

_CONV_PLACES = tuple(f"conv{i}" for i in range(1, 9))
_INIT_PLACES = ("kernel_initializer", "initial", "stddev")
_RELU_FIXES = ("relu", "he_normal", "he initial", "batchnormalization", "batch normalization")
_GLOROT_FIXES = ("glorot", "xavier", "lecun", "he_normal", "stddev")


def _setup(data: str, model: str, extra: str = "") -> str:
    return cell(data, extra, _SEED, model)


CASES = [
    Case(
        name="conv2d_sigmoid_stack",
        family=FAMILY,
        bug_summary="six Conv2D(8, 3, activation='sigmoid') layers on 8x8 images with SGD: "
        "every sigmoid multiplies the backward gradient by at most 0.25 and its outputs sit "
        "around 0.5 for every pixel, so the first convolutions get almost no gradient, the "
        "image signal fades through the depth and the classifier predicts one class (loss "
        "at log(4))",
        source="Stack Overflow: 'CNN with sigmoid activations does not train, accuracy "
        "stuck at chance' (answer: vanishing gradients through the sigmoid stack, use ReLU "
        "with He initialization); keras.io/api/layers/activations (sigmoid)",
        setup=_setup(IMAGES, _CONV_SIGMOID.format(act="sigmoid", init="glorot_uniform")),
        fixed_setup=_setup(IMAGES, _CONV_SIGMOID.format(act="relu", init="he_normal")),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G01"}),
        symptom_codes=frozenset({"G01", "G07", "P16"}),
        places=_CONV_PLACES[:6] + ("sigmoid",),
        fixes=_RELU_FIXES,
        bug=AllOf((Metric("loss", low=1.3), Accuracy(high=0.4))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.9))),
    ),
    Case(
        name="functional_tanh_randomnormal_stddev_one",
        family=FAMILY,
        bug_summary="RandomNormal(stddev=1.0) kernels ('standard normal weights') in the eight "
        "Dense(64, tanh) layers of a functional regression model: with 64 inputs per unit the "
        "pre-activations have a spread of ~8, about 60% of the tanh outputs sit within 1e-3 of "
        "-1 or +1 and the stack scrambles its input (the kernel gradient grows ~80x from the "
        "last hidden layer to the first); the training loss falls by memorizing the 384 "
        "examples, but on held-out data the model is worse than predicting the mean",
        source="Stack Overflow: 'tanh network does not train / does not generalize with "
        "weights drawn from a standard normal' (answer: the units saturate; scale the "
        "weights by 1/sqrt(fan_in), i.e. Glorot/LeCun initialization); Glorot & Bengio 2010; "
        "Schoenholz et al. 2017, 'Deep Information Propagation' (the chaotic phase of large "
        "weight variance); keras.io/api/layers/initializers",
        setup=_setup(
            REGRESSION,
            _FUNCTIONAL_TANH.format(init="keras.initializers.RandomNormal(stddev=1.0)"),
        ),
        fixed_setup=_setup(REGRESSION, _FUNCTIONAL_TANH.format(init='"glorot_normal"')),
        train=_FIT_VAL.format(epochs=15),
        codes=frozenset({"N03", "G02"}),
        symptom_codes=frozenset({"N03", "G02"}),
        places=tuple(f"tanh{i}" for i in range(1, 9)) + ("randomnormal",) + _INIT_PLACES,
        fixes=_GLOROT_FIXES,
        bug=Mse(low=0.9, x="x_val", y="y_val"),
        learns=AllOf((LossFalls(0.5), Mse(high=0.3, x="x_val", y="y_val"))),
    ),
    Case(
        name="deep_relu_truncated_normal_0_01",
        family=FAMILY,
        bug_summary="TruncatedNormal(stddev=0.01) kernels (the AlexNet-era recipe) in twelve "
        "Dense(64, relu) layers: each layer multiplies the signal's scale by about "
        "sqrt(64 / 2) x 0.01 = 0.06, so after twelve layers nothing of the input is left, "
        "every kernel's gradient is ~1e-15 and the loss stays at log(10)",
        source="He et al. 2015, 'Delving Deep into Rectifiers' (deep plain nets initialized "
        "with std 0.01 Gaussians stall; He initialization, std = sqrt(2 / fan_in), trains); "
        "Stack Overflow: 'deep network loss stuck at 2.302 (log 10)' with "
        "truncated_normal(stddev=0.01) weights",
        setup=_setup(
            BLOBS, _RELU_DEEP.format(init="keras.initializers.TruncatedNormal(stddev=0.01)")
        ),
        fixed_setup=_setup(BLOBS, _RELU_DEEP.format(init='"he_normal"')),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G01", "G07"}),
        symptom_codes=frozenset({"G01", "G07", "P16"}),
        places=tuple(f"dense{i}" for i in range(1, 13)) + ("truncatednormal",) + _INIT_PLACES,
        fixes=("he_normal", "he initial", "variancescaling", "stddev", "batchnormalization"),
        bug=AllOf((Metric("loss", low=2.2), Accuracy(high=0.2))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="conv1d_tanh_uniform_tiny",
        family=FAMILY,
        bug_summary="RandomUniform(-1e-3, 1e-3) kernels in six Conv1D(16, 3, tanh) layers: "
        "each layer multiplies the signal by ~sqrt(48) x 6e-4 = 4e-3, so the sixth layer's "
        "output is ~1e-14 of the input and the same for every example, and the gradients of "
        "the convolutions are far below RMSprop's epsilon; the classifier stays at chance",
        source="Stack Overflow: 'all my outputs are the same / loss does not change' with "
        "kernel_initializer=RandomUniform(minval=-0.001, maxval=0.001) (answer: the "
        "activations shrink to zero through the layers; use glorot_uniform); "
        "keras.io/api/layers/initializers (RandomUniform)",
        setup=_setup(
            _SIGNALS, _CONV1D_TANH.format(init="keras.initializers.RandomUniform(-1e-3, 1e-3)")
        ),
        fixed_setup=_setup(_SIGNALS, _CONV1D_TANH.format(init='"glorot_uniform"')),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G01", "G07"}),
        symptom_codes=frozenset({"G01", "G07", "P16"}),
        places=tuple(f"conv{i}" for i in range(1, 7)) + ("randomuniform", "minval", "initial"),
        fixes=("glorot", "xavier", "he_normal", "lecun", "minval", "batchnormalization"),
        bug=AllOf((Metric("loss", low=1.0), Accuracy(high=0.45))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.9))),
    ),
    Case(
        name="tanh_random_uniform_zero_one",
        family=FAMILY,
        bug_summary="RandomUniform(0.0, 1.0) kernels ('weights between 0 and 1') in six "
        "Dense(32, tanh) layers: every weight is positive with mean 0.5, so from the second "
        "layer on each unit sums 32 inputs of size ~1 into a pre-activation of ~10 or more, "
        "the tanh units sit at exactly +-1 (all with the same sign pattern), their derivative "
        "is 0 and no hidden kernel gets a gradient; ten classes stay at ~20% accuracy",
        source="Stack Overflow / Cross Validated: 'I initialize the weights uniformly in "
        "[0, 1] and the network does not learn' (answer: weights must be zero-mean and scaled "
        "by the fan-in, e.g. Glorot); keras.io/api/layers/initializers (RandomUniform)",
        setup=_setup(BLOBS, _TANH_DENSE.format(init="keras.initializers.RandomUniform(0.0, 1.0)")),
        fixed_setup=_setup(BLOBS, _TANH_DENSE.format(init='"glorot_uniform"')),
        train=_FIT.format(epochs=10),
        codes=frozenset({"N03", "G01"}),
        symptom_codes=frozenset({"N03", "G01", "G07"}),
        places=tuple(f"hidden{i}" for i in range(1, 7)) + ("randomuniform", "minval", "initial"),
        fixes=("glorot", "xavier", "lecun", "he_normal", "zero mean", "minval"),
        bug=AllOf((Metric("loss", low=1.8), Accuracy(high=0.35))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.9))),
    ),
    Case(
        name="hard_sigmoid_deep_binary",
        family=FAMILY,
        bug_summary="eight Dense(32, activation='hard_sigmoid') layers with SGD: hard_sigmoid's "
        "slope is 1/6 inside [-3, 3], so every layer shrinks the backward gradient (and the "
        "input-dependent part of the signal) about sixfold; the first kernel's gradient is "
        "a few millionths of the last hidden one's and the binary classifier stays at the "
        "class ratio",
        source="Stack Overflow: 'deep network with hard_sigmoid activations not learning, "
        "accuracy stuck at the class ratio' (answer: hard_sigmoid has a small slope and "
        "saturates; use ReLU with He initialization); keras.io/api/layers/activations "
        "(hard_sigmoid)",
        setup=_setup(BINARY, _HARD_SIGMOID.format(act="hard_sigmoid", init="glorot_uniform")),
        fixed_setup=_setup(BINARY, _HARD_SIGMOID.format(act="relu", init="he_normal")),
        train=_FIT.format(epochs=15),
        codes=frozenset({"G01"}),
        symptom_codes=frozenset({"G01", "G07", "P16"}),
        places=tuple(f"h{i}" for i in range(1, 9)) + ("hard_sigmoid",),
        fixes=_RELU_FIXES,
        bug=AllOf((Metric("loss", low=0.67), Accuracy(high=0.6))),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.9))),
    ),
    Case(
        name="raw_readings_tanh_stack",
        family=FAMILY,
        bug_summary="raw sensor readings around 1000 (spread 20) fed to a five-layer tanh MLP: "
        "the first layer's pre-activations are ~1000 x the sum of a unit's weights, hundreds "
        "in size and almost the same for every example, so 99% of the first layer's "
        "outputs sit at +1 or -1 with the same sign for every example: the saturated units "
        "pass no gradient, the layers above see a constant, and the model predicts one "
        "value (the mean of the targets)",
        source="Stack Overflow: 'neural network outputs the same value for every input / "
        "predicts the mean' with unscaled features (answer: standardize the inputs, the tanh "
        "units saturate); keras.io/guides/preprocessing_layers (Normalization)",
        setup=_setup(_READINGS, _READINGS_TANH),
        fixed_setup=_setup(_READINGS, _READINGS_TANH, extra=_STANDARDIZE),
        train=_FIT.format(epochs=15),
        codes=frozenset({"N03", "N04"}),
        symptom_codes=frozenset({"N03", "N04"}),
        places=("tanh1", "input"),
        fixes=("scale the input", "standardi", "normaliz", "rescal"),
        bug=AllOf((Mse(low=0.9), ConstantOutput(tol=0.01))),
        learns=AllOf((LossFalls(0.5), Mse(high=0.3))),
    ),
    Case(
        name="softsign_random_normal_default",
        family=FAMILY,
        bug_summary="kernel_initializer='random_normal' (Keras' RandomNormal default, "
        "stddev=0.05, as in the initializers page's usage example) in ten Dense(32, softsign) "
        "layers: each layer scales the signal by ~sqrt(32) x 0.05 = 0.28, so after ten "
        "layers the hidden output is ~1e-6 and the same for every example, every kernel's "
        "gradient is ~1e-6 and the classifier predicts the majority class",
        source="keras.io/api/layers/initializers (usage: Dense(64, "
        "kernel_initializer='random_normal'); RandomNormal stddev default 0.05); Glorot & "
        "Bengio 2010 (softsign; a fixed-scale initialization shrinks the signal layer by "
        "layer); Stack Overflow: 'deep network predicts the same class for every input'",
        setup=_setup(BINARY, _SOFTSIGN.format(init="random_normal")),
        fixed_setup=_setup(BINARY, _SOFTSIGN.format(init="glorot_uniform")),
        train=_FIT.format(epochs=20),
        codes=frozenset({"G01", "G07"}),
        symptom_codes=frozenset({"G01", "G07", "P16"}),
        places=tuple(f"softsign{i}" for i in range(1, 11)) + ("random_normal",) + _INIT_PLACES,
        fixes=("glorot", "xavier", "lecun", "he_normal", "stddev"),
        bug=AllOf((LossStays(0.98), Accuracy(high=0.6), ConstantOutput(tol=1e-3))),
        learns=AllOf((LossFalls(0.6), Accuracy(low=0.88))),
    ),
    Case(
        name="conv2d_tanh_ones_kernel",
        family=FAMILY,
        bug_summary="kernel_initializer='ones' in four Conv2D(16, 3, tanh) layers: all 16 "
        "filters of a layer are the same, compute the same feature map and get the same "
        "gradient, so the symmetry is never broken; from the second layer on each unit sums "
        "144 inputs near +1 and is pinned at tanh = 1 for every image, and the CNN predicts "
        "one class",
        source="Stack Overflow / Cross Validated: 'why should weights not be initialized to "
        "the same value: all neurons (filters) learn the same thing'; keras.io/api/layers/"
        "initializers (Ones, Constant); deeplearning.ai notes on symmetry breaking",
        setup=_setup(IMAGES, _CONV_TANH.format(init="ones")),
        fixed_setup=_setup(IMAGES, _CONV_TANH.format(init="glorot_uniform")),
        train=_FIT.format(epochs=10),
        codes=frozenset({"N03", "G01"}),
        symptom_codes=frozenset({"N03", "G01", "G07", "P16"}),
        places=tuple(f"conv{i}" for i in range(1, 5)) + ("ones", "constant", "initial"),
        fixes=("glorot", "xavier", "he_normal", "random", "symmetr"),
        bug=AllOf((Metric("loss", low=1.3), Accuracy(high=0.4))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.9))),
    ),
    Case(
        name="vgg_like_stddev_0_01_no_batchnorm",
        family=FAMILY,
        bug_summary="a VGG-like CNN of eight Conv2D(16, 3, relu) layers with "
        "RandomNormal(stddev=0.01) kernels and no normalization: each layer scales the "
        "signal by ~sqrt(144 / 2) x 0.01 = 0.085, so the last convolution sees ~1e-9 of the "
        "input, every kernel's gradient is ~5e-9 and the loss stays at log(4)",
        source="Simonyan & Zisserman 2015 (VGG: the deep configurations initialized from "
        "N(0, 0.01) could not be trained from scratch); Ioffe & Szegedy 2015 "
        "(BatchNormalization); Stack Overflow: 'deep CNN does not learn, loss stuck at "
        "log(num_classes)'",
        setup=_setup(IMAGES, _VGG.format(bn="")),
        fixed_setup=_setup(IMAGES, _VGG.format(bn=_BN)),
        train=_FIT.format(epochs=10),
        codes=frozenset({"G01", "G07"}),
        symptom_codes=frozenset({"G01", "G07", "P16"}),
        places=_CONV_PLACES + ("randomnormal",) + _INIT_PLACES,
        fixes=("batchnormalization", "batch normalization", "he_normal", "stddev"),
        bug=AllOf((Metric("loss", low=1.3), Accuracy(high=0.4))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.9))),
    ),
]
