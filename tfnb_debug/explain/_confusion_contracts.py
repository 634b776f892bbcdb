"""``tf.math.confusion_matrix`` given something other than class ids in 0..num_classes-1:
rows of probabilities or one-hot labels (S07), ids that start at 1 or run past num_classes
(P12)."""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._violation import Violation, fmt, shape_of


def confusion_matrix_ids(call: LiveCall, exc: BaseException) -> Violation | None:
    """``tf.math.confusion_matrix(labels, predictions)`` given probabilities or one-hot rows."""
    labels, predictions = shape_of(call.value("labels")), shape_of(call.value("predictions"))
    for name, shape in (("predictions", predictions), ("labels", labels)):
        if shape is not None and len(shape) == 2 and (shape[-1] or 0) > 1:
            text = call.text(name)
            return Violation(
                "S07",
                text,
                f"`{call.api}` takes one class id per example for labels and predictions; "
                f"`{text}` {fmt(shape)} has a row of {shape[-1]} per example "
                f"({_rows_of(call.value(name))})",
                f"pass class ids: `tf.argmax({text}, axis=-1)`",
            )
    classes = call.value("num_classes")
    if not isinstance(classes, int) or "out of bound" not in str(exc):
        return None
    for name in ("labels", "predictions"):  # ids past num_classes - 1 (1-based, or too few)
        values = _ids(call.value(name))
        if values is None or (values.min() >= 0 and values.max() < classes):
            continue
        low, high, text = int(values.min()), int(values.max()), call.text(name)
        shift = low >= 1 and high == classes
        return Violation(
            "P12",
            text,
            f"`{text}` runs {low}..{high}, and num_classes={classes} takes ids 0..{classes - 1}"
            + (": they start at 1" if shift else ""),
            f"shift them to start at 0, `{text} - 1`"
            if shift
            else f"num_classes must be the class count (at least {high + 1}), or remap the ids",
        )
    return None


def _ids(value: Any) -> Any:
    try:
        import numpy as np

        array = np.asarray(value)
        return array if array.dtype.kind in "iu" and array.size else None
    except Exception:
        return None


def _rows_of(value: Any) -> str:
    """What the rows of a (batch, classes) array hold: one-hot labels, probabilities or scores."""
    try:
        import numpy as np

        rows = np.asarray(value, dtype="float64")
        if np.isin(rows, (0.0, 1.0)).all():
            return "one-hot rows"
        if (rows >= 0).all() and np.allclose(rows.sum(axis=-1), 1.0, atol=1e-3):
            return "probabilities: each row sums to 1"
    except Exception:
        return "a score per class"
    return "a score per class"
