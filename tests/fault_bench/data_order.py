"""The data reaches ``fit`` in a state that breaks the link between inputs and labels.

User reports: "validation accuracy stays at chance although training accuracy rises"
(``np.random.shuffle(x); np.random.shuffle(y)``: two calls, two different permutations,
so every label now belongs to a random example); "validation accuracy is 0.0 from the
first epoch" (the arrays are sorted by class, e.g. read folder by folder, and
``validation_split`` takes the last 20% without shuffling, so the validation classes are
never trained on); "my classifier learns nothing from a CSV" (``y = data[:, -1]`` out of
habit, while this file keeps the label in the first column and the last one is a
recording-site id).
"""

from __future__ import annotations

from tests.fault_bench._case import (
    AllOf,
    Case,
    Metric,
)
from tests.fault_bench._data import BLOBS, cell

FAMILY = "data_order"

_SEED = "keras.utils.set_random_seed(0)\n"

_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_SHUFFLE_APART = """\
np.random.seed(0)
np.random.shuffle(x)
np.random.shuffle(y)
"""
_SHUFFLE_TOGETHER = """\
np.random.seed(0)
idx = np.random.permutation(len(x))
x, y = x[idx], y[idx]
"""

_SORTED = """\
order = np.argsort(y, kind="stable")  # as if read class by class, one folder each
x, y = x[order], y[order]
"""

#: a table as a CSV holds it: the class (0..2) first, six measurements, then the id (0..2)
#: of the site that recorded the row, unrelated to the class
_TABLE = """\
import numpy as np
import keras
rng = np.random.default_rng(6)
label = rng.integers(0, 3, 600)
centers = rng.normal(0.0, 1.5, (3, 6))
measurements = centers[label] + rng.normal(0.0, 1.0, (600, 6))
site = rng.integers(0, 3, 600)
table = np.column_stack([label, measurements, site]).astype("float32")
"""

_TABLE_MODEL = """\
model = keras.Sequential([
    keras.Input(x.shape[1:]),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense(64, activation="relu", name="hidden2"),
    keras.layers.Dense(3, activation="softmax", name="out"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_FIT = (
    "history = model.fit(x, y, epochs={epochs}, batch_size=32, validation_split=0.2, verbose=0)\n"
)

CASES = [
    Case(
        name="x_and_y_shuffled_apart",
        family=FAMILY,
        bug_summary="x and y shuffled by two separate np.random.shuffle calls: each call draws "
        "its own permutation, so the labels no longer belong to their examples; the network "
        "memorizes some training labels while validation accuracy stays at chance (10%)",
        source="Stack Overflow: 'validation accuracy stuck at chance, training accuracy rises' "
        "(np.random.shuffle(x) and np.random.shuffle(y) called one after the other; answer: "
        "index both with one permutation)",
        setup=cell(BLOBS, _SHUFFLE_APART, _SEED, _MODEL),
        fixed_setup=cell(BLOBS, _SHUFFLE_TOGETHER, _SEED, _MODEL),
        train=_FIT.format(epochs=15),
        codes=frozenset({"P15"}),
        symptom_codes=frozenset({"P15"}),
        places=("label", "shuffle"),
        fixes=("permutation", "same order", "shuffle"),
        bug=AllOf((Metric("val_accuracy", high=0.25), Metric("accuracy", low=0.2))),
        learns=Metric("val_accuracy", low=0.85),
    ),
    Case(
        name="sorted_data_validation_split",
        family=FAMILY,
        bug_summary="the arrays are sorted by class and fit(validation_split=0.2) takes the "
        "last 20% before any shuffling: classes 8 and 9 are only in validation, the model "
        "never sees them, and validation accuracy is 0 while training accuracy is ~99%",
        source="Stack Overflow: 'val_accuracy is 0.0000 from the first epoch' (data loaded "
        "class by class; validation_split is taken from the end, before shuffle; answer: "
        "shuffle x and y together first)",
        setup=cell(BLOBS, _SORTED, _SEED, _MODEL),
        fixed_setup=cell(BLOBS, _SORTED, _SHUFFLE_TOGETHER, _SEED, _MODEL),
        train=_FIT.format(epochs=10),
        codes=frozenset({"P13"}),
        symptom_codes=frozenset({"P13"}),
        places=("validation_split", "validation split"),
        fixes=("shuffle", "validation_data"),
        bug=AllOf((Metric("val_accuracy", high=0.05), Metric("accuracy", low=0.85))),
        learns=Metric("val_accuracy", low=0.85),
    ),
    Case(
        name="label_from_wrong_column",
        family=FAMILY,
        bug_summary="x, y = table[:, :-1], table[:, -1] on a table whose label is in column 0: "
        "y is the recording-site id, unrelated to the measurements, and validation accuracy "
        "stays at chance (1/3) while the class itself sits unused among the inputs",
        source="Stack Overflow: 'my Keras classifier on a CSV learns nothing, val_accuracy "
        "~33%' (the label column is the first one, not the last)",
        setup=cell(_TABLE, "x, y = table[:, :-1], table[:, -1]\n", _SEED, _TABLE_MODEL),
        fixed_setup=cell(_TABLE, "x, y = table[:, 1:-1], table[:, 0]\n", _SEED, _TABLE_MODEL),
        train=_FIT.format(epochs=10),
        codes=frozenset({"P15"}),
        symptom_codes=frozenset({"P15"}),
        places=("label", "column"),
        fixes=("column",),
        bug=Metric("val_accuracy", high=0.45),
        learns=Metric("val_accuracy", low=0.85),
    ),
]
