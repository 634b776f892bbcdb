"""The compiled metrics of a Keras model as plain facts, and what they report on real data.

Where Keras 3 keeps them: ``model.compile(metrics=...)`` stores a
``CompileMetrics`` object in ``model._compile_metrics`` with the user's list
unresolved (``_user_metrics``, ``_user_weighted_metrics``).  On the first
batch (``fit``/``evaluate``, or the symbolic build of ``_symbolic_build``) it
is *built*: ``_flat_metrics`` and ``_flat_weighted_metrics`` then hold one
``MetricsList`` (or None) per model output, in output order, whose
``.metrics`` are the metric objects that run.  A string is resolved there by
``compile_utils.get_metric``: ``"accuracy"``/``"acc"`` becomes
``BinaryAccuracy(threshold=0.5)`` when the output's last axis is 1,
``SparseCategoricalAccuracy`` when the labels have a lower rank (or a last
axis of 1 against more units), else ``CategoricalAccuracy``; every other
string goes through ``keras.metrics.get`` (``"binary_accuracy"`` is the plain
function wrapped in a ``MeanMetricWrapper``, threshold 0.5).
(``model.compiled_metrics`` is a deprecated shim, not the metrics.)

:func:`collect_metrics` reads the built objects when they exist, and otherwise
builds a private copy of ``CompileMetrics`` from the user's list with Keras'
own ``build`` on symbolic labels and outputs, so the strings resolve exactly
as they will on the first batch; the user's object is never touched.
:func:`measure_metric` runs a metric as configured and as corrected on the
model's real predictions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MetricFact", "collect_metrics", "measure_metric"]

# metric kinds the M07 rule reads; everything else is "other"
_FUNCTIONS = {
    "binary_accuracy": "binary_accuracy",
    "categorical_accuracy": "categorical_accuracy",
    "top_k_categorical_accuracy": "top_k_categorical_accuracy",
}
_CLASSES = {
    "BinaryAccuracy": "binary_accuracy",
    "Precision": "precision",
    "Recall": "recall",
    "AUC": "auc",
    "CategoricalAccuracy": "categorical_accuracy",
    "TopKCategoricalAccuracy": "top_k_categorical_accuracy",
}


@dataclass(frozen=True)
class MetricFact:
    """One compiled metric of one model output.

    ``kind``: ``binary_accuracy``, ``precision``, ``recall``, ``auc``,
    ``categorical_accuracy``, ``top_k_categorical_accuracy`` or ``other``.
    ``thresholds``: the decision thresholds it applies to the output (empty
    for argmax-based metrics; for AUC its ``from_logits`` flag says the scale).
    ``from_string``: Keras resolved it from ``"accuracy"``/``"acc"``, so it fits
    the labels' encoding by construction.  ``resolved``: read from the built
    objects (True) or resolved here from the user's list (False).
    """

    output: int
    name: str
    class_name: str
    kind: str
    thresholds: tuple[float, ...] = ()
    top_k: int | None = None
    from_logits: bool | None = None
    num_thresholds: int | None = None
    curve: str | None = None
    from_string: bool = False
    resolved: bool = True


def collect_metrics(model: Any, y: Any = None) -> tuple[MetricFact, ...]:
    """The compiled metrics of ``model`` per output (empty when it has none or they cannot be read).

    ``y`` (the labels of a batch) lets an unbuilt ``"accuracy"`` resolve as it
    will on that data; without it the labels are assumed to have the output's
    shape, or its shape without the class axis for a sparse loss.
    """
    compiled = getattr(model, "_compile_metrics", None)
    if compiled is None:
        return ()
    lists: list[Any]
    resolved = bool(getattr(compiled, "built", False))
    try:
        if resolved:
            lists = [*compiled._flat_metrics, *compiled._flat_weighted_metrics]
            outputs = len(compiled._flat_metrics)
        else:
            copy = _resolve_copy(model, compiled, y)
            if copy is None:
                return ()
            lists = [*copy._flat_metrics, *copy._flat_weighted_metrics]
            outputs = len(copy._flat_metrics)
    except Exception:
        return ()
    strings = _strings([compiled._user_metrics, compiled._user_weighted_metrics])
    facts = []
    for index, entry in enumerate(lists):
        for metric in getattr(entry, "metrics", None) or ():
            facts.append(_fact(metric, index % max(outputs, 1), resolved, strings))
    return tuple(facts)


def _resolve_copy(model: Any, compiled: Any, y: Any) -> Any:
    """A private ``CompileMetrics`` with the user's metrics, built by Keras on symbolic tensors."""
    import keras

    from tfnb_debug.collect.keras_access import private

    if not (compiled._user_metrics or compiled._user_weighted_metrics):
        return None
    outputs = list(model.outputs)
    losses = _losses_per_output(model, len(outputs))
    y_pred = outputs[0] if len(outputs) == 1 else outputs
    if y is not None:
        labels = keras.tree.flatten(y)
        y_true: Any = [keras.KerasTensor(tuple(_shape(t)), "float32") for t in labels]
    else:
        y_true = [
            keras.KerasTensor(_label_shape(tuple(o.shape), loss), "float32")
            for o, loss in zip(outputs, losses, strict=True)
        ]
    if len(y_true) != len(outputs):
        return None
    copy = private("CompileMetrics")(
        compiled._user_metrics,
        compiled._user_weighted_metrics,
        output_names=getattr(compiled, "output_names", None),
    )
    copy.build(y_true[0] if len(outputs) == 1 else y_true, y_pred)
    return copy


def _shape(t: Any) -> tuple[int | None, ...]:
    return tuple(getattr(t, "shape", ()))


def _losses_per_output(model: Any, n: int) -> list[Any]:
    loss = getattr(model, "loss", None)
    if isinstance(loss, list | tuple) and len(loss) == n:
        return list(loss)
    if isinstance(loss, dict):
        names = list(getattr(model, "output_names", []) or [])
        return [loss.get(name) for name in names] if len(names) == n else [None] * n
    return [loss] * n


def _label_shape(shape: tuple[int | None, ...], loss: Any) -> tuple[int | None, ...]:
    """The labels' shape a loss implies: without the class axis for a sparse loss."""
    if isinstance(loss, str):
        name = loss
    else:
        fn = getattr(loss, "fn", None)
        name = str(getattr(fn, "__name__", None) or getattr(loss, "__name__", type(loss).__name__))
    sparse = name.lower().replace("_", "").startswith("sparsecategorical")
    return shape[:-1] if sparse and len(shape) > 1 else shape


def _strings(value: Any) -> set[str]:
    """Every string in the user's (nested) metric lists and dicts, lower-cased."""
    if isinstance(value, str):
        return {value.lower()}
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def _fact(metric: Any, output: int, resolved: bool, strings: set[str]) -> MetricFact:
    class_name = type(metric).__name__
    fn = getattr(metric, "_fn", None)
    fn_name = str(getattr(fn, "__name__", ""))
    kind = _CLASSES.get(class_name) or _FUNCTIONS.get(fn_name) or "other"
    name = str(getattr(metric, "name", class_name))
    thresholds: tuple[float, ...] = ()
    kwargs = getattr(metric, "_fn_kwargs", {}) or {}
    top_k = getattr(metric, "top_k", None)
    if kind == "top_k_categorical_accuracy":
        top_k = kwargs.get("k", 5)
    if kind == "binary_accuracy":
        thresholds = (float(getattr(metric, "threshold", kwargs.get("threshold", 0.5))),)
    elif kind in ("precision", "recall") and top_k is None:
        thresholds = tuple(float(t) for t in _as_list(getattr(metric, "thresholds", ())))
    return MetricFact(
        output=output,
        name=name,
        # a plain function (keras.metrics.binary_accuracy) is wrapped: show the function
        class_name=fn_name if class_name == "MeanMetricWrapper" and fn_name else class_name,
        kind=kind,
        thresholds=thresholds,
        top_k=int(top_k) if top_k is not None else None,
        from_logits=bool(getattr(metric, "_from_logits", False)) if kind == "auc" else None,
        num_thresholds=_auc_option(metric, kind, "num_thresholds"),
        curve=_auc_option(metric, kind, "curve"),
        # Keras names a metric made from a string after the string
        from_string=name.lower() in ("accuracy", "acc") and name.lower() in strings,
        resolved=resolved,
    )


def _auc_option(metric: Any, kind: str, name: str) -> Any:
    if kind != "auc":
        return None
    value = getattr(metric, name, None)
    value = getattr(value, "value", value)  # AUCCurve.ROC -> "ROC"
    return value if isinstance(value, int | str) else None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def measure_metric(
    fact: MetricFact, batches: Sequence[tuple[Any, Any]]
) -> tuple[float, float, int] | None:
    """``(as configured, corrected, examples)`` of ``fact`` over ``(labels, logits)`` batches.

    The metric is rebuilt from its facts twice: as compiled, and with the
    threshold at 0 (logit 0 is probability 0.5), ``from_logits=True`` for AUC,
    or the sparse twin of a categorical accuracy.  None when the metric has
    no corrected form or does not run on the data.
    """
    pair = _metric_pair(fact)
    if pair is None or not batches:
        return None
    reported, corrected = pair
    examples = 0
    try:
        for y, logits in batches:
            reported.update_state(y, logits)
            corrected.update_state(y, logits)
            examples += int(getattr(logits, "shape", (0,))[0] or 0)
        return float(reported.result()), float(corrected.result()), examples
    except Exception:
        return None


def _metric_pair(fact: MetricFact) -> tuple[Any, Any] | None:
    import keras

    m = keras.metrics
    if fact.kind == "binary_accuracy" and len(fact.thresholds) == 1:
        return m.BinaryAccuracy(threshold=fact.thresholds[0]), m.BinaryAccuracy(threshold=0.0)
    if fact.kind in ("precision", "recall") and len(fact.thresholds) == 1:
        cls = m.Precision if fact.kind == "precision" else m.Recall
        return cls(thresholds=fact.thresholds[0]), cls(thresholds=0.0)
    if fact.kind == "auc":
        options = {"num_thresholds": fact.num_thresholds or 200, "curve": fact.curve or "ROC"}
        return m.AUC(**options), m.AUC(from_logits=True, **options)
    if fact.kind == "categorical_accuracy":
        return m.CategoricalAccuracy(), m.SparseCategoricalAccuracy()
    if fact.kind == "top_k_categorical_accuracy":
        k = fact.top_k or 5
        return m.TopKCategoricalAccuracy(k=k), m.SparseTopKCategoricalAccuracy(k=k)
    return None
