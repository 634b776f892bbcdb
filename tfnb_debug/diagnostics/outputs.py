"""Rules over what a model's output means to its metrics and its users: M07 and M08.

* M07 metric-on-logits: a compiled metric reads the output on the wrong
  scale.  A threshold metric (``BinaryAccuracy``, also as ``"accuracy"``
  resolved by Keras for one output unit, ``Precision``, ``Recall``) with a
  probability threshold in (0, 1), or an ``AUC`` with ``from_logits=False``,
  on the linear output of a binary cross-entropy with ``from_logits=True``;
  or a categorical accuracy the user chose (not ``"accuracy"``, which Keras
  resolves from the labels) on integer class ids.  Argmax-based metrics on
  logits are never flagged: argmax does not depend on the scale.
* M08 double-activation: a weightless squashing layer (``Activation``,
  ``Softmax``) squashes an output that the layer before it already squashed.

The facts come from :mod:`tfnb_debug.collect.metric_facts` and
:mod:`tfnb_debug.collect.output_chain`; the output/loss pairing from
:mod:`tfnb_debug.diagnostics.model`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tfnb_debug.collect.metric_facts import MetricFact
from tfnb_debug.collect.output_chain import DoubleActivation
from tfnb_debug.diagnostics.model import UNKNOWN, LossInfo, OutputInfo
from tfnb_debug.ground.reports import Finding, Target, finding

__all__ = [
    "MetricContext",
    "double_activation",
    "metric_on_logits",
    "metric_problem",
    "squashed_band",
]

_THRESHOLD_KINDS = ("binary_accuracy", "precision", "recall")
_CATEGORICAL_KINDS = ("categorical_accuracy", "top_k_categorical_accuracy")
# measured (reported, corrected, examples) per (output index, metric name)
Measured = Mapping[tuple[int, str], tuple[float, float, int]]


@dataclass(frozen=True)
class MetricContext:
    """What M07 knows about one output: its layer, its loss, and the labels and values seen.

    ``sparse_labels``: the labels of the data are class ids (None: no data);
    ``output_range``: the smallest and largest output value on the data (None: not run).
    """

    output: OutputInfo
    loss: LossInfo | None
    sparse_labels: bool | None = None
    output_range: tuple[float, float] | None = None


def _on_logits(context: MetricContext) -> bool:
    """The output is a logit of a binary cross-entropy: linear, or unknown and outside [0, 1]."""
    loss = context.loss
    if loss is None or loss.kind != "binary" or not loss.from_logits:
        return False
    act = context.output.activation
    if act in (None, "linear"):
        return True
    if act == UNKNOWN and context.output_range is not None:
        low, high = context.output_range
        return low < 0.0 or high > 1.0
    return False


def metric_problem(metric: MetricFact, context: MetricContext) -> str | None:
    """``"threshold"``, ``"auc"``, ``"sparse"`` or None: what (if anything) M07 says of ``metric``."""
    if metric.kind in _THRESHOLD_KINDS and any(0.0 < t < 1.0 for t in metric.thresholds):
        return "threshold" if _on_logits(context) else None
    if metric.kind == "auc" and metric.from_logits is False:
        return "auc" if _on_logits(context) else None
    if metric.kind in _CATEGORICAL_KINDS and not metric.from_string:
        units = context.output.units or 0
        sparse = context.sparse_labels
        if sparse is None and context.loss is not None:
            sparse = context.loss.kind == "sparse"
        return "sparse" if sparse and units > 1 else None
    return None


def metric_on_logits(
    metrics: Sequence[MetricFact],
    contexts: Sequence[MetricContext],
    measured: Measured | None = None,
) -> list[Finding]:
    """M07: one finding per output and cause (metrics on logits; categorical metrics on ids)."""
    measured = measured or {}
    out: list[Finding] = []
    for index, context in enumerate(contexts):
        mine = [m for m in metrics if m.output == index]
        on_logits = [m for m in mine if metric_problem(m, context) in ("threshold", "auc")]
        on_ids = [m for m in mine if metric_problem(m, context) == "sparse"]
        if on_logits:
            out.append(_logits_finding(on_logits, context, index, measured))
        if on_ids:
            out.append(_ids_finding(on_ids, context, index, measured))
    return out


def _configured(metric: MetricFact) -> str:
    if metric.kind == "auc":
        return "AUC(from_logits=False)"
    if metric.kind == "binary_accuracy":
        return f"BinaryAccuracy(threshold={_num(metric.thresholds[0])})"
    if metric.kind in ("precision", "recall"):
        shown = ", ".join(_num(t) for t in metric.thresholds)
        return f"{metric.class_name}(thresholds={shown})"
    return metric.class_name


def _fixed(metric: MetricFact) -> str:
    name = f'name="{metric.name}", ' if metric.from_string else ""
    if metric.kind == "auc":
        return "keras.metrics.AUC(from_logits=True)"
    if metric.kind == "binary_accuracy":
        return f"keras.metrics.BinaryAccuracy({name}threshold=0.0)"
    if metric.kind == "precision":
        return "keras.metrics.Precision(thresholds=0.0)"
    if metric.kind == "recall":
        return "keras.metrics.Recall(thresholds=0.0)"
    if metric.kind == "top_k_categorical_accuracy":
        return f"keras.metrics.SparseTopKCategoricalAccuracy(k={metric.top_k or 5})"
    return "keras.metrics.SparseCategoricalAccuracy()"


def _num(value: float) -> str:
    return f"{value:g}"


def _label(metric: MetricFact) -> str:
    if metric.from_string:
        return f"'{metric.name}' (Keras made it {_configured(metric)})"
    return f"'{metric.name}' ({_configured(metric)})"


def _corrected(metric: MetricFact) -> str:
    """How the corrected twin of ``metric`` was measured."""
    if metric.kind == "auc":
        return "with from_logits=True"
    if metric.kind in _CATEGORICAL_KINDS:
        return "as sparse accuracy"
    return "at logit 0 (probability 0.5)"


def _measured_text(metrics: Sequence[MetricFact], index: int, measured: Measured) -> str:
    parts = []
    examples = 0
    for m in metrics:
        numbers = measured.get((index, m.name))
        if numbers is not None:
            reported, corrected, examples = numbers
            parts.append(f"'{m.name}' reported {reported:.3f}, {_corrected(m)} {corrected:.3f}")
    if not parts:
        return ""
    return f"; on the first {examples} examples of the data: " + "; ".join(parts)


def _logits_finding(
    metrics: Sequence[MetricFact], context: MetricContext, index: int, measured: Measured
) -> Finding:
    loss = context.loss
    assert loss is not None  # _on_logits checked it
    out = context.output
    names = ", ".join(_label(m) for m in metrics)
    thresholded = [m for m in metrics if m.kind != "auc"]
    why = []
    if thresholded:
        t = next(t for t in thresholded[0].thresholds if 0.0 < t < 1.0)
        p = 1.0 / (1.0 + math.exp(-t))
        why.append(
            f"a threshold of {_num(t)} on a logit is a probability of {p:.2f}, so a logit "
            f"between 0 and {_num(t)} (probability 0.5 to {p:.2f}) counts as class 0"
        )
    if len(thresholded) < len(metrics):
        why.append(
            "AUC with from_logits=False compares the values with thresholds in [0, 1], so all "
            "negative logits tie below every threshold and all logits above 1 tie above it"
        )
    fixes = ", ".join(_fixed(m) for m in metrics)
    range_text = ""
    if context.output_range is not None:
        low, high = context.output_range
        range_text = f"; outputs on the data from {low:.3g} to {high:.3g}"
    return finding(
        "M07",
        f"{names} read{'s' if len(metrics) == 1 else ''} the output as a probability, but "
        f"{loss.name} has from_logits=True, so output layer '{out.layer}' gives logits: "
        + "; ".join(why)
        + ". The reported number is not the model's",
        place=f"output layer '{out.layer}'",
        target=Target("layer", out.layer),
        evidence=f"output layer '{out.layer}' activation {out.activation or 'none'}, "
        f"{out.units} unit(s), loss {loss.name}(from_logits=True){range_text}"
        + _measured_text(metrics, index, measured),
        hint=f"compile with metrics=[{fixes}] (a logit of 0 is a probability of 0.5); or end "
        "the model in activation='sigmoid' and use "
        "keras.losses.BinaryCrossentropy(from_logits=False)",
        cause="metrics thresholded on logits",
    )


def _ids_finding(
    metrics: Sequence[MetricFact], context: MetricContext, index: int, measured: Measured
) -> Finding:
    out = context.output
    names = ", ".join(
        f"'{m.name}'" + (f" ({m.class_name})" if m.class_name != m.name else "") for m in metrics
    )
    if context.sparse_labels:
        source = "the labels are integer class ids"
    else:
        loss_name = context.loss.name if context.loss is not None else "the loss"
        source = f"{loss_name} takes integer class ids"
    fixes = ", ".join(_fixed(m) for m in metrics)
    return finding(
        "M07",
        f"{names} expect{'s' if len(metrics) == 1 else ''} one-hot labels, but {source}: it "
        "takes the argmax of the labels (always 0 for ids of shape (B, 1)), so it does not "
        "compare the predicted class with the label",
        place=f"output layer '{out.layer}'",
        target=Target("layer", out.layer),
        evidence=f"output layer '{out.layer}' with {out.units} units, {source}"
        + _measured_text(metrics, index, measured),
        hint=f'compile with metrics=[{fixes}], or "accuracy", which Keras resolves from '
        "the labels' shape",
        cause="categorical accuracy on class ids",
    )


# ------------------------------------------------------------------ M08


def squashed_band(outer: str, units: int | None) -> tuple[float, float] | None:
    """The range ``outer`` can output when its inputs lie in [0, 1] (per value)."""
    if outer == "sigmoid":
        return 0.5, 1.0 / (1.0 + math.exp(-1.0))
    if outer == "hard_sigmoid":
        return 0.5, 1.0 / 6.0 + 0.5
    if outer == "softmax" and units and units > 1:
        e = math.e
        return 1.0 / (1.0 + (units - 1) * e), e / (e + units - 1)
    return None


def double_activation(
    facts: Sequence[DoubleActivation],
    ranges: Mapping[int, tuple[float, float]] | None = None,
) -> list[Finding]:
    """M08: an output squashed twice in a row (``ranges``: measured output ranges per output)."""
    ranges = ranges or {}
    out = []
    for fact in facts:
        band = squashed_band(fact.outer_activation, fact.units)
        if fact.outer_activation == "softmax" and (fact.units or 0) <= 1:
            continue  # softmax over one unit is M03's finding
        effect = ""
        if band is not None:
            effect = f": every output is confined to [{band[0]:.3g}, {band[1]:.3g}]"
            if fact.outer_activation != "softmax":
                effect += ", so with a 0.5 threshold every example is positive"
            else:
                effect += f", squeezed toward the uniform 1/{fact.units}"
        measured = ""
        if fact.output in ranges:
            low, high = ranges[fact.output]
            measured = f"; outputs on the data from {low:.3g} to {high:.3g}"
        inner_model = fact.inner_path.rpartition("/")[0]
        outer_model = fact.outer_path.rpartition("/")[0]
        if inner_model != outer_model and inner_model:
            hint = (
                f"remove the {fact.outer_class} '{fact.outer_path}': the model "
                f"'{inner_model}' already ends in {fact.inner_activation}"
            )
        else:
            hint = (
                f"remove one of them: the {fact.outer_class} '{fact.outer_path}', or the "
                f"activation of '{fact.inner_path}'"
            )
        out.append(
            finding(
                "M08",
                f"{fact.outer_class} '{fact.outer_path}' applies {fact.outer_activation} to the "
                f"output of {fact.inner_class} '{fact.inner_path}', which already applied "
                f"{fact.inner_activation}{effect}",
                place=f"layers '{fact.inner_path}' and '{fact.outer_path}'",
                target=Target("layer", fact.outer_path),
                evidence=f"'{fact.inner_path}' ({fact.inner_activation}) -> "
                f"'{fact.outer_path}' ({fact.outer_activation}), no weighted layer between, "
                f"{fact.units} unit(s){measured}",
                hint=hint,
            )
        )
    return out
