"""Metrics that do not read what the model computes.

User reports: "accuracy is 0 for my regression model though the loss goes down"
(``metrics=['accuracy']`` on a regression); "accuracy stuck at ~10% although the loss
falls" (``CategoricalAccuracy`` with integer labels).
"""

from __future__ import annotations

from tests.fault_bench._case import Accuracy, AllOf, Case, LossFalls, Metric
from tests.fault_bench._data import BLOBS, REGRESSION, cell

FAMILY = "metrics"

_REG_MODEL = """\
model = keras.Sequential([
    keras.Input((8,)),
    keras.layers.Dense(32, activation="relu", name="hidden"),
    keras.layers.Dense(1, name="out"),
])
model.compile(optimizer="adam", loss={loss}, metrics={metrics})
"""

_CLS_MODEL = """\
model = keras.Sequential([
    keras.Input((20,)),
    keras.layers.Dense(64, activation="relu", name="hidden"),
    keras.layers.Dense(10, activation="softmax", name="out"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
              metrics=[keras.metrics.{metric}()])
"""

CASES = [
    Case(
        name="accuracy_on_regression",
        family=FAMILY,
        bug_summary="metrics=['accuracy'] on an MSE regression: accuracy compares real-valued "
        "targets with thresholded outputs and stays ~0 while the loss falls",
        source="Stack Overflow: 'Keras regression accuracy is always 0' (answer: accuracy is "
        "a classification metric; use MAE)",
        setup=cell(REGRESSION, _REG_MODEL.format(loss='"mse"', metrics='["accuracy"]')),
        fixed_setup=cell(REGRESSION, _REG_MODEL.format(loss='"mse"', metrics='["mae"]')),
        train="history = model.fit(x, y, epochs=8, batch_size=32, verbose=0)\n",
        codes=frozenset({"M07"}),
        symptom_codes=frozenset({"M07"}),
        places=("accuracy", "metric"),
        fixes=("mae", "mean_absolute_error", "rootmeansquarederror", "regression metric"),
        bug=AllOf((LossFalls(0.5), Metric("accuracy", high=0.05, every=True))),
        learns=AllOf((LossFalls(0.5), Metric("mae", high=0.6))),
    ),
    Case(
        name="categorical_accuracy_sparse_labels",
        family=FAMILY,
        bug_summary="CategoricalAccuracy with integer labels (sparse loss): the metric takes "
        "argmax of the (B,) labels and reports ~10% while the model is ~97% right",
        source="Stack Overflow: 'accuracy stays at 0.1 while the loss decreases' "
        "(CategoricalAccuracy with sparse_categorical_crossentropy; answer: "
        "SparseCategoricalAccuracy)",
        setup=cell(BLOBS, _CLS_MODEL.format(metric="CategoricalAccuracy")),
        fixed_setup=cell(BLOBS, _CLS_MODEL.format(metric="SparseCategoricalAccuracy")),
        train="history = model.fit(x, y, epochs=8, batch_size=32, verbose=0)\n",
        codes=frozenset({"M07", "M05"}),
        symptom_codes=frozenset({"M07"}),
        places=("categorical_accuracy", "metric", "accuracy"),
        fixes=("sparsecategoricalaccuracy", "sparse_categorical_accuracy"),
        bug=AllOf((Metric("categorical_accuracy", high=0.3), Accuracy(low=0.85))),
        learns=AllOf((Metric("sparse_categorical_accuracy", low=0.85), Accuracy(low=0.85))),
    ),
]
