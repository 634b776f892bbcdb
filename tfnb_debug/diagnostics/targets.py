"""What the targets ask of the output: a range the output activation cannot reach (M03) and
an accuracy metric on a regression (M07).

* **M03, output range.**  A regression loss (MSE, MAE, Huber, ...) compares the output
  with the targets directly, so an output activation bounds what the model can
  predict: ReLU never goes below 0, sigmoid stays in (0, 1), tanh in (-1, 1).  The rule
  reads the targets and computes the *floor* the bound puts under the loss: the mean
  squared distance from each target to the nearest value the output can take, as a
  share of the targets' variance (the loss of predicting their mean).  A floor of at
  least :attr:`TargetThresholds.unreachable_share` of the variance is reported, with the
  share of targets out of reach; the fix is a linear output (or targets scaled into the
  range), which the rule checks is not already there.
* **M03, a value loss on class targets.**  A softmax is paired with
  ``categorical_crossentropy`` and a sigmoid with ``binary_crossentropy`` because their
  gradient at the logits is ``p - y``.  A loss that compares values (MSE, MAE, Huber, ...)
  multiplies its gradient by the activation's derivative, ~0 wherever a unit saturates,
  also on the wrong side: a confidently wrong example gives almost no gradient and training
  stalls near chance.  Reported when the output is squashed (softmax, sigmoid) and the
  targets are class targets: 0/1 rows of the output's width (one 1 per row: one class per
  example; several or none: multi-label), or 0/1 values for one sigmoid unit.  Continuous
  targets in [0, 1] (a bounded regression) and soft rows that are not 0/1 (distillation
  onto probabilities) are regressions and stay silent, as does a linear output.
* **M07, accuracy on a regression.**  ``"accuracy"`` with a regression loss is resolved
  by Keras to ``BinaryAccuracy(threshold=0.5)`` (one output unit) or a categorical
  accuracy: on continuous targets it counts how often a thresholded prediction equals
  a real number, which says nothing about the model.  Reported when the targets are not
  all class ids (0/1 for one unit, whole numbers otherwise).

* **N05, non-finite training data.**  NaN or Inf in the arrays given to ``fit`` (an empty
  CSV cell read as NaN): the first batch holding one makes the loss and every gradient
  NaN, which no learning rate cures.  Named with the rows and columns that hold them.

Pure NumPy (with the 0/1 row reader of the loss pairing, `diagnostics.model.target_rows`): the facts (output layer, its activation, the loss's name, the metrics as
Keras resolves them) are read by :func:`tfnb_debug.features.model_outputs.check_targets`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tfnb_debug.diagnostics.model import target_rows
from tfnb_debug.ground.reports import Finding, finding

__all__ = [
    "REGRESSION_LOSSES",
    "TargetThresholds",
    "accuracy_on_regression",
    "nonfinite_data",
    "regression_loss_on_classes",
    "unreachable_targets",
]

#: loss names (string, function or class, lower-cased) that compare the output with the
#: targets directly
REGRESSION_LOSSES = frozenset(
    {
        "mse",
        "mean_squared_error",
        "meansquarederror",
        "mae",
        "mean_absolute_error",
        "meanabsoluteerror",
        "huber",
        "huber_loss",
        "log_cosh",
        "logcosh",
        "mean_absolute_percentage_error",
        "mape",
    }
)

#: (low, high) of what each output activation can produce
_RANGES = {
    "relu": (0.0, math.inf),
    "relu6": (0.0, 6.0),
    "softplus": (0.0, math.inf),
    "exponential": (0.0, math.inf),
    "sigmoid": (0.0, 1.0),
    "hard_sigmoid": (0.0, 1.0),
    "softmax": (0.0, 1.0),
    "tanh": (-1.0, 1.0),
    "elu": (-1.0, math.inf),
    "selu": (-1.7580993408473766, math.inf),
}


@dataclass(frozen=True)
class TargetThresholds:
    """``unreachable_share`` (M03): the loss floor an output's range puts under the targets,
    as a share of their variance, from which it is reported."""

    unreachable_share: float = 0.05


def unreachable_targets(
    layer: str,
    activation: str | None,
    loss: str,
    y: np.ndarray,
    thresholds: TargetThresholds | None = None,
) -> list[Finding]:
    """M03 when ``activation``'s range cannot reach a real share of the targets ``y``."""
    th = thresholds or TargetThresholds()
    bounds = _RANGES.get(activation or "")
    values = np.asarray(y, dtype=np.float64).reshape(-1)
    values = values[np.isfinite(values)]
    if bounds is None or loss.lower() not in REGRESSION_LOSSES or values.size < 2:
        return []
    low, high = bounds
    nearest = np.clip(values, low, high)
    floor = float(np.mean((values - nearest) ** 2))
    variance = float(np.var(values))
    if variance <= 0 or floor < th.unreachable_share * variance:
        return []
    below, above = values < low, values > high
    out = float(np.mean(below | above))
    parts = []
    if below.any():
        parts.append(f"{np.mean(below):.0%} below {low:g} (down to {values.min():.4g})")
    if above.any():
        parts.append(f"{np.mean(above):.0%} above {high:g} (up to {values.max():.4g})")
    where = f"[{low:g}, {high:g}]" if math.isfinite(high) else f"[{low:g}, inf)"
    scaled = (
        f", or scale the targets into {where} (and back after predict)"
        if math.isfinite(high)
        else ""
    )
    return [
        finding(
            "M03",
            f"the output layer '{layer}' applies {activation}, whose outputs stay in {where}, "
            f"but the targets lie {' and '.join(parts)}: {loss} cannot fall below "
            f"{floor:.4g} ({floor / variance:.0%} of the targets' variance) however the model "
            "trains",
            place=f"output layer '{layer}'",
            evidence=f"{out:.1%} of {values.size} target values outside {where}; mean squared "
            f"distance to the reachable range {floor:.4g}, target variance {variance:.4g}",
            hint=f"use a linear output (activation=None) in '{layer}'{scaled}",
        )
    ]


#: output activations whose derivative vanishes where a unit saturates
_SQUASHING = {"softmax": "softmax", "sigmoid": "sigmoid"}


def regression_loss_on_classes(
    layer: str, activation: str | None, units: int | None, loss: str, y: np.ndarray
) -> list[Finding]:
    """M03 when a value loss (:data:`REGRESSION_LOSSES`) trains a softmax/sigmoid output on
    class targets ``y``: 0/1 rows of the output's width, or 0/1 values for one unit."""
    squash = _SQUASHING.get(activation or "")
    if squash is None or loss.lower() not in REGRESSION_LOSSES or not units:
        return []
    values = np.asarray(y, dtype=np.float64)
    if values.size < 2 or not bool(np.all(np.isin(values, (0.0, 1.0)))):
        return []
    if units == 1:
        if values.ndim > 2 or values.ndim == 2 and values.shape[-1] != 1:
            return []
        flat = values.reshape(-1)
        if flat.min() == flat.max():
            return []  # one label value: not a classification the loss could be wrong for
        targets = f"{flat.size} binary 0/1 targets ({np.mean(flat):.0%} ones)"
        if squash == "softmax":
            return [_softmax_one_unit(layer, loss, targets)]
        return [_value_loss(layer, "sigmoid", 1, loss, targets, "binary_crossentropy", "")]
    # the 1s per 0/1 row, as the binary-loss pairing reads them (None: ids or another shape)
    rows = target_rows(values, units) if values.ndim == 2 else None
    if rows is None or rows.ids:
        return []
    single = rows.least == rows.most == 1
    targets = (
        f"{len(values)} one-hot rows, one class per example"
        if single
        else f"{len(values)} 0/1 rows with {rows.least} to {rows.most} ones, multi-label"
    )
    if single and squash == "softmax":
        fix = "categorical_crossentropy"
        other = " (or 'sparse_categorical_crossentropy' on the class ids y.argmax(-1))"
    elif single:
        fix = "categorical_crossentropy"
        other = f" and activation='softmax' in '{layer}': the classes are exclusive"
    elif squash == "sigmoid":
        fix, other = "binary_crossentropy", ""
    else:
        fix = "binary_crossentropy"
        other = (
            f" and activation='sigmoid' in '{layer}': a softmax row sums to 1 and cannot "
            "reach several 1s"
        )
    return [_value_loss(layer, squash, units, loss, targets, fix, other)]


def _value_loss(
    layer: str, squash: str, units: int, loss: str, targets: str, fix: str, other: str
) -> Finding:
    derivative = "p (1 - p)" if squash == "sigmoid" else "the softmax's Jacobian"
    return finding(
        "M03",
        f"{loss} trains the {squash} output '{layer}' on class targets ({targets}): its "
        f"gradient is multiplied by {derivative}, ~0 wherever a unit saturates, also when it "
        f"is confidently wrong, so such examples stop teaching the model; {fix}'s gradient at "
        "the logits is p - y",
        place=f"output layer '{layer}'",
        evidence=f"loss {loss}, activation {squash} over {units} unit{'s' if units > 1 else ''}, "
        f"{targets}",
        hint=f"compile with loss='{fix}'{other}",
    )


def _softmax_one_unit(layer: str, loss: str, targets: str) -> Finding:
    return finding(
        "M03",
        f"the output '{layer}' applies softmax over 1 unit, which is always 1.0, so {loss} on "
        f"class targets ({targets}) cannot fall however the model trains",
        place=f"output layer '{layer}'",
        evidence=f"loss {loss}, activation softmax over 1 unit, {targets}",
        hint=f"give '{layer}' activation='sigmoid' and compile with loss='binary_crossentropy'",
    )


def accuracy_on_regression(
    layer: str, units: int | None, loss: str, metrics: Sequence[str], y: np.ndarray
) -> list[Finding]:
    """M07 when an accuracy metric is compiled with a regression loss on targets that are
    not class ids.  ``metrics``: the names of the accuracy metrics as Keras resolved them."""
    values = np.asarray(y, dtype=np.float64).reshape(-1)
    values = values[np.isfinite(values)]
    if not metrics or loss.lower() not in REGRESSION_LOSSES or values.size == 0:
        return []
    ids = np.isin(values, (0.0, 1.0)) if (units or 1) == 1 else np.equal(np.mod(values, 1), 0)
    if bool(np.all(ids)):
        return []
    names = ", ".join(f"'{m}'" for m in metrics)
    return [
        finding(
            "M07",
            f"{names} on a regression ({loss} on targets from {values.min():.4g} to "
            f"{values.max():.4g}, {np.mean(~ids):.0%} of them not class ids): it counts how "
            "often a thresholded prediction equals the target, a number that says nothing "
            "about this model",
            place=f"output layer '{layer}'",
            evidence=f"loss {loss}, metrics {names}, {values.size} target values",
            hint="drop the accuracy and watch a regression metric: metrics=['mae'] or "
            "keras.metrics.RootMeanSquaredError()",
        )
    ]


def nonfinite_data(parts: Sequence[tuple[str, np.ndarray]]) -> list[Finding]:
    """N05 for the named arrays of a ``fit`` (``("x", array)``, ``("y", array)``, an input's
    name) that hold NaN or Inf: how many values, in how many rows, in which columns."""
    bad = []
    for name, array in parts:
        if array.dtype.kind != "f" or array.size == 0:
            continue
        finite = np.isfinite(array)
        if bool(finite.all()):
            continue
        rows = ~finite.reshape(len(array), -1).all(axis=1) if array.ndim else finite
        text = f"{int(array.size - finite.sum())} in {name} ({int(rows.sum())} of {len(array)} rows"
        if array.ndim == 2:
            columns = np.flatnonzero(~finite.all(axis=0))
            shown = ", ".join(str(int(c)) for c in columns[:5])
            text += f", column{'s' if len(columns) > 1 else ''} {shown}"
            text += f" and {len(columns) - 5} more" if len(columns) > 5 else ""
        bad.append((name, text + ")"))
    if not bad:
        return []
    names = " and ".join(name for name, _ in bad)
    return [
        finding(
            "N05",
            f"the training data already holds NaN/Inf: {'; '.join(t for _, t in bad)}; the "
            "loss and the gradients of every batch holding one are NaN, whatever the model",
            place=f"the data given to fit ({names})",
            evidence="; ".join(t for _, t in bad),
            hint="clean the data before fit: drop or impute the rows "
            "(keep = np.isfinite(x).all(axis=1); x, y = x[keep], y[keep]) or "
            "np.nan_to_num; a lower learning rate does not help",
        )
    ]
