"""M05 / S07: a metric that takes one column per class (``F1Score``, ``FBetaScore``) given labels
of another encoding.

Keras says "FBetaScore expects 2D inputs with shape (batch_size, output_dim)" with both
shapes.  With two or more output columns the labels are class ids where the metric wants
one-hot rows (M05); with one sigmoid column they are 0/1 values that lack only their column
axis (S07), and the metric's default threshold (None, each row's largest value) would count
every row as positive.

A metric that compares labels and predictions element by element (``AUC``, ``Precision``,
``Recall``, ``CategoricalAccuracy``) fails inside its own ops when it gets class ids for a
multi-class output: the graph error's stack names the metric's module, and the labels of
the fit are 1-D class ids (M07, :func:`metric_on_class_ids`).
"""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext, fmt_shape, parse_shape
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]


def _name(ctx: ErrorContext) -> str:
    return ctx.labels.name if ctx.labels is not None else "y"


_METRIC_2D = re.compile(
    r"(\w+) expects 2D inputs with shape \(batch_size, output_dim\)\. Received input shapes: "
    r"y_pred\.shape=\(([^)]*)\) and y_true\.shape=\(([^)]*)\)"
)


def metric_label_encoding(ctx: ErrorContext) -> Explained | None:
    """M05: a metric that takes one-hot (or multi-hot) rows (F1Score, FBetaScore) got class ids;
    S07 when the output is one column (0/1 labels that lack only their column axis)."""
    found = _METRIC_2D.search(ctx.text)
    if found is None:
        return None
    metric = "F1Score" if found.group(1) == "FBetaScore" else found.group(1)
    pred = parse_shape(f"({found.group(2)})")
    true = parse_shape(f"({found.group(3)})")
    if pred is None or true is None or len(true) != len(pred) - 1 or pred[-1] is None:
        return None
    units = pred[-1]
    if units == 1:
        # one sigmoid column: the labels are 0/1 per example and lack only the column axis
        # (one-hot needs two or more classes); F1Score's default threshold (None) takes each
        # row's largest value as the positive, which with one column is every row
        return (
            finding(
                "S07",
                f"{metric} takes labels shaped like the predictions, (batch, 1), but the labels "
                f"are {fmt_shape(true)}: one 0/1 value per example without its column axis",
                place=f"metric {metric}",
                evidence=f"y_pred.shape={fmt_shape(pred)}, y_true.shape={fmt_shape(true)}",
                hint=f"give the labels the column axis, `{_name(ctx)}.reshape(-1, 1)`; with "
                f"one sigmoid column also set `keras.metrics.{metric}(threshold=0.5)`",
            ),
            (),
        )
    return (
        finding(
            "M05",
            f"{metric} takes one-hot labels of shape (batch, {units}), one column per class, but "
            f"the labels are class ids {fmt_shape(true)}",
            place=f"metric {metric}",
            evidence=f"y_pred.shape={fmt_shape(pred)}, y_true.shape={fmt_shape(true)}",
            hint=f"one-hot encode the labels (`keras.utils.to_categorical(y, {units})`) with "
            "loss='categorical_crossentropy'; or keep the class ids and the sparse loss, and drop "
            f"{metric} (compute it after training on argmax predictions)",
        ),
        (),
    )


# the metrics that need labels shaped like the predictions (no sparse form)
_ELEMENTWISE = (
    "AUC",
    "Precision",
    "Recall",
    "CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "PrecisionAtRecall",
    "RecallAtPrecision",
    "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
    "TruePositives",
    "FalsePositives",
)
_METRIC_FILE = re.compile(r"keras/src/metrics/(\w+)\.py\", line \d+, in update_state")


def metric_on_class_ids(ctx: ErrorContext) -> Explained | None:
    """M07: a compiled metric that needs labels shaped like the output failed in its own ops on
    a fit whose labels are class ids."""
    import keras

    where = _METRIC_FILE.search(ctx.text)
    labels = ctx.labels
    if where is None or labels is None or len(labels.shape) != 1 or not labels.whole:
        return None
    compiled = [m for model in ctx.trained for m in model.metrics if m in _ELEMENTWISE]
    failed = [
        m
        for m in compiled
        if getattr(getattr(keras.metrics, m, None), "__module__", "").endswith(where.group(1))
    ]
    if len(failed) != 1:
        return None
    metric = failed[0]
    high = int(labels.high) if labels.high is not None else None
    classes = f" 0..{high}" if high is not None else ""
    return (
        finding(
            "M07",
            f"{metric} compares the labels with the predictions element by element, so it needs "
            f"labels shaped like the output (one-hot rows); the labels `{labels.name}` are class "
            f"ids{classes} of shape {fmt_shape(labels.shape)}",
            place=f"metric {metric}",
            evidence=f"the error is raised in keras/src/metrics/{where.group(1)}.py "
            f"(update_state); `{labels.name}`: {labels.dtype} {fmt_shape(labels.shape)}",
            hint=f"one-hot encode the labels (`keras.utils.to_categorical({labels.name})`) with "
            "loss='categorical_crossentropy', or keep the class ids and the sparse loss and drop "
            f"{metric} (SparseCategoricalAccuracy reads ids; compute {metric} after training on "
            "one-hot ids)",
        ),
        (),
    )
