"""The output layer does not fit the loss or the targets.

User reports: "binary classifier stuck, loss not decreasing" with a linear ``Dense(1)``
and ``binary_crossentropy``; "regression never predicts negative values" with a ReLU
output; "accuracy stays at 50%, loss constant" with ``Dense(1, activation='softmax')``;
"multi-label classifier only ever predicts one tag" (softmax where each label is its own
yes/no); "loss will not go below 1.4 though accuracy is high" (softmax output and
``from_logits=True``); "model always predicts 1" (an export wrapper adds a second
sigmoid); "sigmoid output with categorical_crossentropy for 10 classes".
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    LossFalls,
    Metric,
    Mse,
    OneClass,
    OutsideRange,
)
from tests.fault_bench._data import BINARY, BLOBS, REGRESSION, cell

FAMILY = "outputs"

_BINARY_MODEL = """\
model = keras.Sequential([
    keras.Input((10,)),
    keras.layers.Dense(32, activation="relu", name="hidden"),
    keras.layers.Dense(32, activation="relu", name="hidden2"),
    keras.layers.Dense(1{act}, name="out"),{extra}
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
"""

_REG_MODEL = """\
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(32, activation="relu", name="hidden"),
    keras.layers.Dense(1{act}, name="out"),
])
model.compile(optimizer="adam", loss="mse")
"""

_CLS_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense(10, activation={act!r}, name="out"),
])
model.compile(optimizer="adam", loss={loss}, metrics=["accuracy"])
"""

_MULTILABEL = """\
import numpy as np
import keras
rng = np.random.default_rng(6)
x = rng.normal(0.0, 1.0, (600, 12)).astype("float32")
# five independent tags, each present when its own feature is positive (0 to 5 tags per row)
y = (x[:, :5] > 0).astype("float32")
"""

_MULTILABEL_MODEL = """\
model = keras.Sequential([
    keras.Input((12,)),
    keras.layers.Dense(32, activation="relu", name="hidden"),
    keras.layers.Dense(5, activation={act!r}, name="tags"),
])
model.compile(optimizer="adam", loss={loss!r}, metrics=["binary_accuracy"])
"""

_FIT = "history = model.fit(x, y, epochs={epochs}, batch_size=32, verbose=0)\n"

CASES = [
    Case(
        name="linear_output_bce",
        family=FAMILY,
        bug_summary="Dense(1) without activation under binary_crossentropy (from_logits=False): "
        "the loss clips the raw outputs to [eps, 1 - eps] (no gradient outside it), and "
        "predict() returns values below 0 and above 1 instead of probabilities",
        source="Stack Overflow: 'Keras binary classifier: predict returns negative values and "
        "values above 1' (the last Dense had no sigmoid)",
        setup=cell(BINARY, _BINARY_MODEL.format(act="", extra="")),
        fixed_setup=cell(BINARY, _BINARY_MODEL.format(act=', activation="sigmoid"', extra="")),
        train=_FIT.format(epochs=15),
        codes=frozenset({"M02"}),
        symptom_codes=frozenset({"M02"}),
        places=("out", "binary_crossentropy", "loss"),
        fixes=('activation="sigmoid"', "sigmoid", "from_logits=true"),
        bug=OutsideRange(0.0, 1.0, share=0.3),
        learns=Accuracy(low=0.9),
    ),
    Case(
        name="relu_output_negative_targets",
        family=FAMILY,
        bug_summary="Dense(1, activation='relu') as the output of a regression whose targets are "
        "half negative: it can never predict below 0",
        source="Stack Overflow: 'Keras regression model never predicts negative values' (ReLU on "
        "the output layer; answer: a linear output)",
        setup=cell(REGRESSION, _REG_MODEL.format(act=', activation="relu"')),
        fixed_setup=cell(REGRESSION, _REG_MODEL.format(act="")),
        train=_FIT.format(epochs=15),
        codes=frozenset({"N02", "M03"}),
        symptom_codes=frozenset({"N02"}),
        places=("out", "relu", "activation"),
        fixes=(
            "linear",
            "activation=none",
            "no activation",
            "remove the relu",
            "without activation",
        ),
        bug=Mse(low=0.45),
        learns=Mse(high=0.35),
    ),
    Case(
        name="linear_output_sparse_cce",
        family=FAMILY,
        bug_summary="Dense(10) without activation under sparse_categorical_crossentropy "
        "(from_logits=False): the loss reads raw scores as probabilities (normalized by their "
        "sum, clipped at 0) and the classifier learns badly (about 50% after 8 epochs where "
        "a softmax output reaches 97%)",
        source="Stack Overflow: 'loss is nan / accuracy stuck with "
        "sparse_categorical_crossentropy' where the last Dense had no activation (answer: "
        "softmax, or from_logits=True)",
        setup=cell(BLOBS, _CLS_MODEL.format(act=None, loss='"sparse_categorical_crossentropy"')),
        fixed_setup=cell(
            BLOBS, _CLS_MODEL.format(act="softmax", loss='"sparse_categorical_crossentropy"')
        ),
        train=_FIT.format(epochs=8),
        codes=frozenset({"M02"}),
        symptom_codes=frozenset({"M02"}),
        places=("out", "sparse_categorical_crossentropy", "loss"),
        fixes=('activation="softmax"', "softmax", "from_logits=true"),
        bug=Accuracy(high=0.7),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85))),
    ),
    Case(
        name="softmax_one_unit",
        family=FAMILY,
        bug_summary="Dense(1, activation='softmax') for a binary task: softmax over one unit is "
        "always 1.0, so every example is 'positive' and accuracy stays at the positive share "
        "(the loss, which Keras computes from the logits, still falls)",
        source="Stack Overflow: 'Keras accuracy stays the same every epoch' with "
        "Dense(1, activation='softmax') (answer: sigmoid for one unit)",
        setup=cell(BINARY, _BINARY_MODEL.format(act=', activation="softmax"', extra="")),
        fixed_setup=cell(BINARY, _BINARY_MODEL.format(act=', activation="sigmoid"', extra="")),
        train=_FIT.format(epochs=15),
        codes=frozenset({"M03"}),
        symptom_codes=frozenset({"P16"}),
        places=("out", "softmax"),
        fixes=("sigmoid", "dense(2"),
        bug=AllOf((OneClass(share=1.0), Metric("accuracy", high=0.5, every=True))),
        learns=Accuracy(low=0.9),
    ),
    Case(
        name="softmax_multilabel",
        family=FAMILY,
        bug_summary="multi-label targets (0 to 5 tags per example) with a softmax output and "
        "categorical_crossentropy: the tags compete for one unit of probability and no example "
        "gets more than one",
        source="Stack Overflow: 'multi-label classification in Keras only predicts one label' "
        "(softmax + categorical_crossentropy; answer: sigmoid + binary_crossentropy)",
        setup=cell(
            _MULTILABEL, _MULTILABEL_MODEL.format(act="softmax", loss="categorical_crossentropy")
        ),
        fixed_setup=cell(
            _MULTILABEL, _MULTILABEL_MODEL.format(act="sigmoid", loss="binary_crossentropy")
        ),
        train=_FIT.format(epochs=15),
        codes=frozenset({"M03"}),
        symptom_codes=frozenset({"M03"}),
        places=("tags", "softmax", "categorical_crossentropy", "loss"),
        fixes=("sigmoid", "binary_crossentropy"),
        bug=Metric("binary_accuracy", high=0.8),
        learns=Metric("binary_accuracy", low=0.85),
    ),
    Case(
        name="double_sigmoid_export",
        family=FAMILY,
        bug_summary="an Activation('sigmoid') added after a Dense(1, activation='sigmoid'): "
        "outputs lie in [0.5, 0.73], every example is predicted positive",
        source="Stack Overflow: 'model always predicts 1 / accuracy equals the positive share' "
        "(a second sigmoid appended to a model that already ends in one)",
        setup=cell(
            BINARY,
            _BINARY_MODEL.format(
                act=', activation="sigmoid"',
                extra='\n    keras.layers.Activation("sigmoid", name="prob"),',
            ),
        ),
        fixed_setup=cell(BINARY, _BINARY_MODEL.format(act=', activation="sigmoid"', extra="")),
        train=_FIT.format(epochs=15),
        codes=frozenset({"M08"}),
        symptom_codes=frozenset({"P16", "M08"}),
        places=("prob", "out"),
        fixes=("remove", "one of"),
        bug=OneClass(share=1.0),
        learns=Accuracy(low=0.9),
    ),
]
