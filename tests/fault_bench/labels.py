"""Labels: separated from their inputs, sorted before ``validation_split``, imbalanced,
encoded in the wrong range.

User reports: "validation accuracy stays at 10% while training accuracy rises" (x and y
shuffled separately); "val_accuracy is 0.0000 from the first epoch" (data sorted by
class, ``validation_split`` takes the last 20%); "my model predicts only the majority
class" (95/5 imbalance, fixed with ``class_weight``); "binary crossentropy loss is
negative" (labels -1/+1 instead of 0/1).
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    LossFalls,
    Metric,
    MinorityRecall,
    OneClass,
)
from tests.fault_bench._data import BINARY, BLOBS, cell

FAMILY = "labels"

_CLS_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(128, activation="relu", name="hidden"),
    keras.layers.Dense(128, activation="relu", name="hidden2"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
"""

_IMBALANCED = """\
import numpy as np
import keras
rng = np.random.default_rng(8)
# fraud-like data: 8% positives, shifted along two features
y = np.zeros((800, 1), dtype="float32")
y[:64] = 1.0
rng.shuffle(y)
x = rng.normal(0.0, 1.0, (800, 10)).astype("float32")
x[:, :2] += 1.5 * y
"""

_IMBALANCED_MODEL = """\
model = keras.Sequential([
    keras.Input((10,)),
    keras.layers.Dense(16, activation="relu", name="hidden"),
    keras.layers.Dense(1, activation="sigmoid", name="out"),
])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-3),
              loss="binary_crossentropy", metrics=["accuracy"])
"""

_BINARY_MODEL = """\
model = keras.Sequential([
    keras.Input((10,)),
    keras.layers.Dense(32, activation="relu", name="hidden"),
    keras.layers.Dense(32, activation="relu", name="hidden2"),
    keras.layers.Dense(1, activation="sigmoid", name="out"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
"""

_FIT_VAL = "history = model.fit(x, y, epochs=15, batch_size=32, validation_split=0.2, verbose=0)\n"
_ONE_PERMUTATION = "idx = rng.permutation(len(x))\nx, y = x[idx], y[idx]"
_SHUFFLE_FIXES = (
    "permutation",
    "shuffle with one",
    "same permutation",
    "shuffle before",
    "shuffle the data before",
    "validation_data",
)

CASES = [
    Case(
        name="shuffled_separately",
        family=FAMILY,
        bug_summary="x and y shuffled with two separate rng.shuffle calls: the labels no longer "
        "belong to their inputs; the model memorizes training labels while validation "
        "accuracy stays at chance",
        source="Stack Overflow: 'training accuracy increases but validation accuracy stays at "
        "10%' (features and labels shuffled separately)",
        setup=cell(BLOBS, "rng.shuffle(x)\nrng.shuffle(y)", _CLS_MODEL),
        fixed_setup=cell(BLOBS, _ONE_PERMUTATION, _CLS_MODEL),
        train=_FIT_VAL,
        codes=frozenset({"P15"}),
        symptom_codes=frozenset({"P15"}),
        places=("label", "y", "shuffle"),
        fixes=_SHUFFLE_FIXES,
        bug=AllOf((Metric("val_accuracy", high=0.2), Metric("accuracy", low=0.2))),
        learns=Metric("val_accuracy", low=0.85),
    ),
    Case(
        name="sorted_validation_split",
        family=FAMILY,
        bug_summary="the arrays are sorted by class and fit(validation_split=0.2) takes the "
        "last 20% unshuffled: validation holds only classes 8 and 9, never seen in training; "
        "val_accuracy is 0",
        source="Stack Overflow: 'val_accuracy is 0.0000 while accuracy is high' "
        "(validation_split on data sorted by label)",
        setup=cell(
            BLOBS, "order = np.argsort(y, kind='stable')\nx, y = x[order], y[order]", _CLS_MODEL
        ),
        fixed_setup=cell(
            BLOBS,
            "order = np.argsort(y, kind='stable')\nx, y = x[order], y[order]",
            _ONE_PERMUTATION,
            _CLS_MODEL,
        ),
        train=_FIT_VAL,
        codes=frozenset({"P13"}),
        symptom_codes=frozenset({"P13", "P15"}),
        places=("validation_split", "validation", "label"),
        fixes=_SHUFFLE_FIXES,
        bug=AllOf((Metric("val_accuracy", high=0.05), Metric("accuracy", low=0.8))),
        learns=Metric("val_accuracy", low=0.85),
    ),
    Case(
        name="imbalance_majority",
        family=FAMILY,
        bug_summary="8% positives and no class weights: the classifier predicts the majority "
        "class for every example and reports 92% accuracy",
        source="Stack Overflow: 'Keras model predicts only one class on an imbalanced dataset, "
        "accuracy 95%' (answer: class_weight or resampling)",
        setup=cell(_IMBALANCED, _IMBALANCED_MODEL),
        train="history = model.fit(x, y, epochs=10, batch_size=32, verbose=0)\n",
        fixed_train="history = model.fit(x, y, epochs=10, batch_size=32, verbose=0, "
        "class_weight={0: 1.0, 1: 11.5})\n",
        codes=frozenset({"P16"}),
        symptom_codes=frozenset({"P16"}),
        places=("class", "label", "out"),
        fixes=("class_weight", "oversampl", "resampl", "undersampl"),
        bug=AllOf((OneClass(share=0.98), MinorityRecall(high=0.1))),
        learns=MinorityRecall(low=0.6),
    ),
    Case(
        name="labels_minus_one",
        family=FAMILY,
        bug_summary="binary labels encoded as -1/+1 (SVM style) for a sigmoid with "
        "binary_crossentropy: the loss goes negative and the reported accuracy counts only "
        "the +1 examples",
        source="Stack Overflow: 'binary crossentropy loss is negative in Keras' (labels -1 and "
        "1; answer: use 0 and 1)",
        setup=cell(BINARY, "y = 2 * y - 1  # labels as -1 / +1", _BINARY_MODEL),
        fixed_setup=cell(BINARY, _BINARY_MODEL),
        train="history = model.fit(x, y, epochs=10, batch_size=32, verbose=0)\n",
        codes=frozenset({"P12", "S06"}),
        symptom_codes=frozenset({"P12"}),
        places=("label", "y", "binary_crossentropy", "loss"),
        fixes=("0 and 1", "0/1", "(y + 1) / 2", "y + 1", "[0, 1]"),
        bug=AllOf((Metric("loss", high=0.0), Metric("accuracy", high=0.55, every=True))),
        learns=AllOf((LossFalls(0.5), Accuracy(low=0.9))),
    ),
]
