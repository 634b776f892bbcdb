"""M07 and M08 for a compiled model: its metrics against its output, and its output chain.

Glue shared by ``%tflint`` (with data: the metrics measured on the model's
real predictions), ``%%tfgrad`` and ``%%tfcheck`` (the models that trained or
evaluated in the cell, their metrics as Keras built them) and the ``%tfgrad``
probe:

* :func:`tfnb_debug.collect.metric_facts.collect_metrics` reads the metric
  objects Keras resolved (or resolves the user's list the same way);
* :func:`tfnb_debug.collect.output_chain.double_activations` walks the last
  layers before each output;
* :func:`tfnb_debug.diagnostics.outputs.metric_on_logits` (M07) and
  :func:`tfnb_debug.diagnostics.outputs.double_activation` (M08) decide.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from tfnb_debug.ground.reports import Finding

__all__ = ["check_fit_data", "check_outputs", "check_targets", "predict_batches"]

# how many examples %tflint --data runs through the model for M07's numbers and M08's range
MEASURED_EXAMPLES = 512
_MAX_BATCHES = 16


def check_outputs(
    model: Any,
    *,
    loss: Any = None,
    y: Any = None,
    data: Iterable[Any] | None = None,
    notes: list[str] | None = None,
) -> list[Finding]:
    """M07 and M08 for ``model`` (empty for a subclassed model without a graph).

    ``loss`` overrides the compiled loss; ``y`` (labels of one batch) resolves
    an unbuilt ``"accuracy"`` as that data will.  ``data`` (``(x, y)``
    batches) is run through the model only when a finding could use it (a
    metric to measure as reported and as corrected, labels to read, an output
    range to show): :func:`predict_batches`, inference mode; the caller
    restores the model's state.  ``notes`` receives one line saying whether
    and on how many examples the model predicted.
    """
    from tfnb_debug.collect.metric_facts import collect_metrics, measure_metric
    from tfnb_debug.collect.output_chain import double_activations
    from tfnb_debug.diagnostics.model import output_losses
    from tfnb_debug.diagnostics.outputs import (
        MetricContext,
        double_activation,
        metric_on_logits,
        metric_problem,
    )

    pairs = output_losses(model, loss)
    facts = collect_metrics(model, y) if pairs else ()
    doubles = double_activations(model)
    contexts = [MetricContext(out, info) for out, info in pairs]
    batches: list[tuple[list[np.ndarray], list[np.ndarray]]] = []
    if data is not None and (doubles or _data_could_matter(facts, contexts)):
        batches = _predict(model, data, notes)
    elif notes is not None and data is not None:
        notes.append("no prediction needed (no metric or activation the data could judge)")
    ranges = _ranges(batches)
    if batches:
        sparse = _sparse_labels(batches)
        contexts = [
            MetricContext(c.output, c.loss, sparse.get(i), ranges.get(i))
            for i, c in enumerate(contexts)
        ]
    findings: list[Finding] = []
    if facts:
        measured = {}
        for fact in facts:
            if fact.output >= len(contexts) or not metric_problem(fact, contexts[fact.output]):
                continue
            if batches and len(pairs) == 1:
                numbers = measure_metric(fact, [(labels[0], preds[0]) for labels, preds in batches])
                if numbers is not None:
                    measured[(fact.output, fact.name)] = numbers
        findings += metric_on_logits(facts, contexts, measured)
    findings += double_activation(doubles, ranges)
    return findings


def check_fit_data(x: Any, y: Any) -> list[Finding]:
    """N05 for NumPy-convertible arrays given to ``fit`` (``x`` also a dict or list of
    them) that hold NaN or Inf; datasets and generators are not read here."""
    from tfnb_debug.diagnostics.targets import nonfinite_data

    parts: list[tuple[str, np.ndarray]] = []
    named = (
        x.items()
        if isinstance(x, dict)
        else (
            [(f"x[{i}]", v) for i, v in enumerate(x)] if isinstance(x, list | tuple) else [("x", x)]
        )
    )
    for name, value in [*named, ("y", y)]:
        if isinstance(value, np.ndarray) or hasattr(value, "__array__") and not _lazy(value):
            try:
                parts.append((str(name), np.asarray(value)))
            except (TypeError, ValueError):
                continue
    return nonfinite_data(parts)


def _lazy(value: Any) -> bool:
    """A dataset, generator or Keras PyDataset (reading it would consume or run it)."""
    return (
        hasattr(value, "element_spec")
        or hasattr(value, "__next__")
        or (hasattr(value, "__getitem__") and hasattr(value, "on_epoch_end"))
    )


def check_targets(model: Any, y: Any) -> list[Finding]:
    """M03 (an output activation whose range cannot reach the targets; a value loss on class
    targets through a softmax/sigmoid) and M07 (an accuracy on a regression) for a
    single-output Sequential/functional model trained on the targets ``y``
    (:mod:`tfnb_debug.diagnostics.targets`); empty without a graph to read, a regression
    loss or numeric targets."""
    from tfnb_debug.collect.metric_facts import collect_metrics
    from tfnb_debug.diagnostics.model import describe_outputs
    from tfnb_debug.diagnostics.targets import (
        accuracy_on_regression,
        regression_loss_on_classes,
        unreachable_targets,
    )
    from tfnb_debug.ground.text import loss_name

    outputs = describe_outputs(model)
    loss = getattr(model, "loss", None)
    if not outputs or len(outputs) != 1 or loss is None or isinstance(loss, dict | list | tuple):
        return []
    try:
        targets = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        return []
    out, name = outputs[0], loss_name(loss)
    found = unreachable_targets(out.layer, out.activation, name, targets)
    found += regression_loss_on_classes(out.layer, out.activation, out.units, name, targets)
    try:
        facts = collect_metrics(model, y)
    except Exception:  # the metrics could not be resolved: M03 stands alone
        facts = ()
    accuracies = [
        f.name for f in facts if f.output == 0 and "accuracy" in f.kind + f.class_name.lower()
    ]
    found += accuracy_on_regression(out.layer, out.units, name, accuracies, targets)
    return found


def _data_could_matter(facts: Sequence[Any], contexts: Sequence[Any]) -> bool:
    """Whether some metric is flagged, or could be with data (labels that are class ids,
    outputs outside [0, 1]): only then is the model run on the data."""
    from tfnb_debug.diagnostics.outputs import MetricContext, metric_problem

    for fact in facts:
        if fact.output >= len(contexts):
            continue
        context = contexts[fact.output]
        worst = MetricContext(context.output, context.loss, True, (-1.0, 2.0))
        if metric_problem(fact, context) or metric_problem(fact, worst):
            return True
    return False


def _predict(
    model: Any, data: Iterable[Any], notes: list[str] | None
) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
    from tfnb_debug.ground.text import first_line

    try:
        batches = predict_batches(model, data)
    except Exception as err:
        if notes is not None:
            notes.append(f"predicting raised {type(err).__name__}: {first_line(err)}")
        return []
    if notes is not None:
        examples = sum(len(preds[0]) for _, preds in batches if preds and preds[0].ndim)
        notes.append(f"with the model's predictions on {examples} examples")
    return batches


def predict_batches(
    model: Any, data: Iterable[Any], *, examples: int = MEASURED_EXAMPLES
) -> list[tuple[list[np.ndarray], list[np.ndarray]]]:
    """``(labels, predictions)`` per batch of ``data`` (each a list per output), inference mode,
    until ``examples`` examples or 16 batches; the caller restores the model's state."""
    import keras

    out = []
    seen = 0
    for element in data:
        if not isinstance(element, tuple | list) or len(element) < 2 or element[1] is None:
            break
        x, y = element[0], element[1]
        preds = [np.asarray(p) for p in keras.tree.flatten(model(x, training=False))]
        labels = [np.asarray(t) for t in keras.tree.flatten(y)]
        if len(labels) != len(preds):
            break
        out.append((labels, preds))
        seen += len(preds[0]) if preds and preds[0].ndim else 0
        if seen >= examples or len(out) >= _MAX_BATCHES:
            break
    return out


def _ranges(batches: Sequence[tuple[Any, Any]]) -> dict[int, tuple[float, float]]:
    """Per output: the smallest and largest finite value predicted."""
    out: dict[int, tuple[float, float]] = {}
    for _, preds in batches:
        for i, p in enumerate(preds):
            values = np.asarray(p, dtype=np.float64)
            values = values[np.isfinite(values)]
            if not values.size:
                continue
            low, high = float(values.min()), float(values.max())
            if i in out:
                low, high = min(low, out[i][0]), max(high, out[i][1])
            out[i] = (low, high)
    return out


def _sparse_labels(batches: Sequence[tuple[Any, Any]]) -> dict[int, bool]:
    """Per output: the labels are whole-number class ids against a class axis of 2 or more."""
    labels, preds = batches[0]
    out = {}
    for i, (y, p) in enumerate(zip(labels, preds, strict=True)):
        y, p = np.asarray(y), np.asarray(p)
        if not p.ndim or not np.issubdtype(y.dtype, np.number):
            continue
        fewer_axes = y.ndim < p.ndim or (y.ndim == p.ndim and y.shape[-1] == 1 < p.shape[-1])
        whole = bool(np.all(np.mod(y, 1) == 0)) if y.size else False
        out[i] = bool(fewer_axes and whole and p.shape[-1] > 1)
    return out
