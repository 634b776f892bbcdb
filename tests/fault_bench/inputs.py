"""Inputs and targets on the wrong scale, and missing values.

User reports: "loss is nan training on MNIST" (pixels 0..255 fed as they are, answer:
divide by 255); "accuracy stuck at 50% on tabular data" (raw features in the thousands
into a tanh layer, answer: standardize); "MSE loss huge and not decreasing" predicting
house prices in dollars (answer: scale the targets); "loss is nan from the first epoch"
with a CSV that has empty cells (answer: fill or drop the NaNs).
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    LossFalls,
    LossNonFinite,
    LossStays,
    Mse,
)
from tests.fault_bench._data import IMAGES, REGRESSION, cell

FAMILY = "inputs"

_PIXELS_MODEL = """\
model = keras.Sequential([
    keras.Input((8, 8, 1)),
    keras.layers.Flatten(name="flatten"),
    keras.layers.Dense(64, activation="relu", name="dense1"),
    keras.layers.Dense(4, activation="softmax", name="out"),
])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_FEATURES = """\
import numpy as np
import keras
rng = np.random.default_rng(4)
# house records: living area (sq ft), lot area, year built, distance to centre (m)
area = rng.uniform(500, 4000, 600)
lot = rng.uniform(1000, 20000, 600)
year = rng.uniform(1900, 2020, 600)
dist = rng.uniform(100, 30000, 600)
x = np.stack([area, lot, year, dist], axis=1).astype("float32")
score = (area - 2250) / 1000 - (dist - 15000) / 8000 + (year - 1960) / 60
y = (score > 0).astype("float32").reshape(-1, 1)
"""

_FEATURES_MODEL = """\
model = keras.Sequential([
    keras.Input((4,)),
    {norm}keras.layers.Dense(16, activation="tanh", name="dense1"),
    keras.layers.Dense(16, activation="tanh", name="dense2"),
    keras.layers.Dense(1, activation="sigmoid", name="out"),
])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3),
              loss="binary_crossentropy", metrics=["accuracy"])
"""

_PRICES = """\
import numpy as np
import keras
rng = np.random.default_rng(5)
x = rng.normal(0.0, 1.0, (512, 6)).astype("float32")
w = rng.uniform(0.5, 1.5, (6, 1)).astype("float32")
price = 300_000 + 60_000 * (x @ w) + 10_000 * rng.normal(0.0, 1.0, (512, 1))
y = price.astype("float32")
"""

_PRICES_MODEL = """\
model = keras.Sequential([
    keras.Input((6,)),
    keras.layers.Dense(32, activation="relu", name="dense1"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-2), loss="mse")
"""

_REG_MODEL = """\
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(32, activation="relu", name="dense1"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer="adam", loss="mse")
"""

_MISSING = """\
# a few empty cells in the table were read as NaN
holes = rng.random(x.shape) < 0.01
x[holes] = np.nan
"""

CASES = [
    Case(
        name="pixels_0_255",
        family=FAMILY,
        bug_summary="grey images with pixel values 0..255 fed unscaled to an MLP trained with "
        "SGD(0.05): the first steps' logits and gradients are huge, the loss jumps to ~1e5, "
        "then every ReLU is dead and accuracy stays at chance (25%)",
        source="Stack Overflow: 'accuracy stuck at chance training an MLP on MNIST images' "
        "(the pixels were not divided by 255)",
        setup=cell(IMAGES, _PIXELS_MODEL),
        fixed_setup=cell(IMAGES, "x = x / 255.0", _PIXELS_MODEL),
        train="history = model.fit(x, y, epochs=8, batch_size=32, verbose=0)\n",
        codes=frozenset({"N04"}),
        symptom_codes=frozenset({"G02", "N02", "G05", "G03", "P16"}),
        places=("input", "dense1", "flatten", "x"),
        fixes=("/ 255", "/255", "rescaling", "normaliz", "scale the input", "standardiz"),
        bug=Accuracy(high=0.35),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.9))),
    ),
    Case(
        name="features_in_thousands",
        family=FAMILY,
        bug_summary="raw tabular features in the hundreds to tens of thousands into Dense(tanh) "
        "layers: the first layer saturates at +-1, the loss hardly falls and accuracy stays "
        "around 70% where the scaled features give 98%",
        source="Stack Overflow: 'Keras binary classifier accuracy stuck at ~70% on tabular "
        "data' (unscaled features; answer: standardize them, e.g. a Normalization layer)",
        setup=cell(_FEATURES, _FEATURES_MODEL.format(norm="")),
        fixed_setup=cell(
            _FEATURES,
            "norm = keras.layers.Normalization(name='norm')\nnorm.adapt(x)",
            _FEATURES_MODEL.format(norm="norm,\n    "),
        ),
        train="history = model.fit(x, y, epochs=15, batch_size=32, verbose=0)\n",
        codes=frozenset({"N04", "N03", "G01"}),
        symptom_codes=frozenset({"N03", "G01", "G07", "P16"}),
        places=("input", "dense1", "x"),
        fixes=("normaliz", "standardiz", "scale the input", "scale the features", "(x - mean)"),
        bug=AllOf((LossStays(0.85), Accuracy(high=0.8))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.9))),
    ),
    Case(
        name="targets_in_dollars",
        family=FAMILY,
        bug_summary="house prices of ~300,000 as regression targets with MSE: the loss is ~1e11 "
        "and falls by a tiny fraction in 10 epochs",
        source="Stack Overflow: 'Keras regression loss is huge and not decreasing' (house prices "
        "in dollars as targets; answer: scale the targets)",
        setup=cell(_PRICES, _PRICES_MODEL),
        fixed_setup=cell(_PRICES, "y = (y - 300_000) / 60_000", _PRICES_MODEL),
        train="history = model.fit(x, y, epochs=10, batch_size=32, verbose=0)\n",
        codes=frozenset({"G07", "G02"}),
        symptom_codes=frozenset({"G07"}),
        places=("target", "label", "y", "loss"),
        fixes=(
            "scale the target",
            "scale the label",
            "normalize the target",
            "standardize the target",
            "y / ",
            "y - ",
        ),
        bug=AllOf((LossStays(0.8), Mse(low=0.5))),
        learns=AllOf((LossFalls(0.2), Mse(high=0.2))),
    ),
    Case(
        name="nan_in_features",
        family=FAMILY,
        bug_summary="about 1% of the feature values are NaN (empty CSV cells): every batch "
        "that holds one gives a NaN loss, and the weights turn NaN",
        source="Stack Overflow: 'Keras loss is nan from the first epoch' (the data frame had "
        "missing values)",
        setup=cell(REGRESSION, _MISSING, _REG_MODEL),
        fixed_setup=cell(REGRESSION, _MISSING, "x = np.nan_to_num(x, nan=0.0)", _REG_MODEL),
        train="history = model.fit(x, y, epochs=8, batch_size=32, verbose=0)\n",
        codes=frozenset({"N05"}),
        symptom_codes=frozenset({"G05", "G03", "N01"}),
        places=("input", "x", "data"),
        fixes=(
            "nan_to_num",
            "fillna",
            "dropna",
            "impute",
            "missing value",
            "isnan",
            "replace the nan",
            "remove the nan",
        ),
        bug=LossNonFinite(),
        learns=LossFalls(0.5),
    ),
]
