"""The loss does not fit the task.

User reports: "classifier trained with mean squared error is stuck at 10%" (MSE on
one-hot targets with SGD); "accuracy does not improve with mean_absolute_error"
(MAE on one-hot targets); "why is binary_crossentropy more accurate than
categorical_crossentropy for my 10-class problem?" (the reported 'accuracy' is binary
accuracy over 10 outputs, ~90% by predicting all zeros); "loss is 0.0000e+00 and
accuracy never changes" (categorical_crossentropy on a one-unit sigmoid output).
"""

from __future__ import annotations

from tests.fault_bench._case import (
    Accuracy,
    AllOf,
    Case,
    LossFalls,
    LossStays,
    Metric,
)
from tests.fault_bench._data import BINARY, BLOBS, cell

FAMILY = "losses"

_CLS_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer={optimizer}, loss={loss!r}, metrics=["accuracy"])
"""

_BINARY_MODEL = """\
model = keras.Sequential([
    keras.Input((10,)),
    keras.layers.Dense(32, activation="relu", name="hidden"),
    keras.layers.Dense(32, activation="relu", name="hidden2"),
    keras.layers.Dense(1, activation="sigmoid", name="out"),
])
model.compile(optimizer="adam", loss={loss!r}, metrics=["accuracy"])
"""

_FIT_ONEHOT = "history = model.fit(x, y_onehot, epochs={epochs}, batch_size=32, verbose=0)\n"
_SGD = "keras.optimizers.SGD(learning_rate=0.05)"
_CROSSENTROPY = ("categorical_crossentropy", "cross-entropy", "crossentropy", "cross entropy")

CASES = [
    Case(
        name="mse_on_onehot",
        family=FAMILY,
        bug_summary="mean squared error on one-hot targets of a 10-class softmax, with SGD: the "
        "gradient through the softmax is tiny and accuracy stays near chance",
        source="Stack Overflow: 'Keras classifier with mean_squared_error loss stuck at 10% "
        "accuracy' (answer: categorical_crossentropy for classification)",
        setup=cell(BLOBS, _CLS_MODEL.format(optimizer=_SGD, loss="mse")),
        fixed_setup=cell(BLOBS, _CLS_MODEL.format(optimizer=_SGD, loss="categorical_crossentropy")),
        train=_FIT_ONEHOT.format(epochs=8),
        lint_data="(x, y_onehot)",
        codes=frozenset({"M03"}),
        symptom_codes=frozenset({"G07", "G01"}),
        places=("loss", "mse", "mean_squared_error", "out"),
        fixes=_CROSSENTROPY,
        bug=AllOf((LossStays(0.9), Accuracy(high=0.45, y="y_onehot"))),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85, y="y_onehot"))),
    ),
    Case(
        name="mae_on_onehot",
        family=FAMILY,
        bug_summary="mean absolute error on one-hot targets of a 10-class softmax: MAE's gradient "
        "is a constant sign that softmax turns into almost nothing; the loss barely moves",
        source="Stack Overflow: 'accuracy does not improve when using mean_absolute_error for "
        "multi-class classification'",
        setup=cell(BLOBS, _CLS_MODEL.format(optimizer=_SGD, loss="mae")),
        fixed_setup=cell(BLOBS, _CLS_MODEL.format(optimizer=_SGD, loss="categorical_crossentropy")),
        train=_FIT_ONEHOT.format(epochs=8),
        lint_data="(x, y_onehot)",
        codes=frozenset({"M03"}),
        symptom_codes=frozenset({"G07", "G01"}),
        places=("loss", "mae", "mean_absolute_error", "out"),
        fixes=_CROSSENTROPY,
        bug=Accuracy(high=0.6, y="y_onehot"),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.85, y="y_onehot"))),
    ),
    Case(
        name="bce_on_multiclass",
        family=FAMILY,
        bug_summary="binary_crossentropy on a 10-class softmax: each output is scored as its "
        "own yes/no and the pull toward the right class is weak; after 8 epochs accuracy is "
        "~60% where categorical_crossentropy gives 99% (Keras 3 resolves 'accuracy' to "
        "categorical accuracy here, so the number shown is honest)",
        source="Stack Overflow: 'binary_crossentropy vs categorical_crossentropy for a "
        "multi-class problem' (softmax output compiled with binary_crossentropy)",
        setup=cell(BLOBS, _CLS_MODEL.format(optimizer=_SGD, loss="binary_crossentropy")),
        fixed_setup=cell(BLOBS, _CLS_MODEL.format(optimizer=_SGD, loss="categorical_crossentropy")),
        train=_FIT_ONEHOT.format(epochs=8),
        lint_data="(x, y_onehot)",
        codes=frozenset({"M03"}),
        symptom_codes=frozenset({"M03", "G07"}),
        places=("loss", "binary_crossentropy", "out"),
        fixes=("categorical_crossentropy",),
        bug=Accuracy(high=0.75, y="y_onehot"),
        learns=AllOf((LossFalls(0.3), Accuracy(low=0.9, y="y_onehot"))),
    ),
    Case(
        name="categorical_on_one_unit",
        family=FAMILY,
        bug_summary="categorical_crossentropy on a Dense(1, sigmoid) binary classifier: the "
        "one output is normalized to 1.0, the loss is 0 for every example and nothing learns",
        source="Stack Overflow: 'Keras loss is 0.0000e+00 and accuracy stays constant' "
        "(categorical_crossentropy with a single output unit; answer: binary_crossentropy)",
        setup=cell(BINARY, _BINARY_MODEL.format(loss="categorical_crossentropy")),
        fixed_setup=cell(BINARY, _BINARY_MODEL.format(loss="binary_crossentropy")),
        train="history = model.fit(x, y, epochs=10, batch_size=32, verbose=0)\n",
        codes=frozenset({"M03"}),
        symptom_codes=frozenset({"G01", "G04", "G07"}),
        places=("loss", "categorical_crossentropy", "out"),
        fixes=("binary_crossentropy",),
        bug=AllOf((Metric("loss", high=1e-6, every=True), Accuracy(high=0.75))),
        learns=Accuracy(low=0.9),
    ),
]
