"""Rules over a shape trace: S01-S05, N01-N03, T01.  Each takes ``(facts, thresholds)``.

Rules read plain rows only (no TensorFlow, not the report): :class:`ShapeFacts`
holds the layer-call rows and trace counts; :class:`ShapeThresholds` are the
documented limits, which callers override with
``trace_shapes(..., thresholds=ShapeThresholds(dead_relu_fraction=0.95))``.
The fix S01 gives for the layer that failed, and the hints it shares with
``explain/``, are in :mod:`tfnb_debug.diagnostics.shape_hints`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tfnb_debug.diagnostics.shape_hints import _shapes, failure_hint
from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Target, finding
from tfnb_debug.records.shapes import LayerCall, TensorInfo, TensorStats, TraceCount

__all__ = [
    "RULES",
    "ShapeFacts",
    "ShapeThresholds",
    "batch_dim_changed",
    "dead_relu",
    "float64_tensor",
    "mixed_precision_output",
    "nonfinite_activation",
    "retracing",
    "run_rules",
    "saturated_activation",
    "shape_mismatch",
]


@dataclass(frozen=True)
class ShapeThresholds:
    """The documented, overridable thresholds of the shape rules.

    * ``dead_relu_fraction`` (N02): share of exact zeros above which a ReLU output is "dead",
      when at least ``dead_unit_share`` of its units are 0 for every example of the batch.
    * ``saturated_fraction`` and ``saturation_epsilon`` (N03): share of sigmoid/tanh
      outputs within ``saturation_epsilon`` of the bounds.
    * ``min_values`` (N02, N03): outputs with fewer values are too small to judge.
    * ``retrace_limit`` (T01): traces of one ``tf.function`` allowed in one cell.
    """

    dead_relu_fraction: float = 0.9
    dead_unit_share: float = 0.5
    saturated_fraction: float = 0.9
    saturation_epsilon: float = 1e-3
    min_values: int = 64
    retrace_limit: int = 5

    def __post_init__(self) -> None:
        for name in ("dead_relu_fraction", "dead_unit_share", "saturated_fraction"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise TfnbDebugError(f"ShapeThresholds.{name} must be within [0, 1], got {value}")
        if self.retrace_limit < 1:
            raise TfnbDebugError("ShapeThresholds.retrace_limit must be at least 1")


@dataclass(frozen=True)
class ShapeFacts:
    """What the shape rules read: the layer-call rows in call order and the trace counts."""

    calls: tuple[LayerCall, ...] = ()
    traces: tuple[TraceCount, ...] = ()


_RELU_FAMILY = {"relu", "relu6"}
_SATURATING = {"sigmoid", "tanh", "hard_sigmoid"}


def _producers(infos: Sequence[TensorInfo]) -> str:
    return ", ".join(t.producer or "(computed outside a layer)" for t in infos)


# ------------------------------------------------------------------------ S01
def shape_mismatch(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    """S01: a layer raised while the trace ran; name it, what it received, and a hint."""
    out = []
    failed_roots = {r.index for r in facts.calls if r.parent is None and r.status != "ok"}
    for row in facts.calls:
        if row.status != "failed" or row.root not in failed_roots:
            continue
        evidence = f"received {_shapes(row.inputs)} from {_producers(row.inputs)}"
        out.append(
            finding(
                "S01",
                f"{row.class_name} '{row.name}' raised {row.error_type}: {row.error}",
                place=row.path,
                target=Target("layer", row.path),
                evidence=evidence,
                hint=failure_hint(row, facts.calls),
            )
        )
    return out


# ------------------------------------------------------------------------ S02
def batch_dim_changed(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    """S02: the first layer whose output's leading axis differs from the batch that entered."""
    out = []
    for root in _roots(facts.calls):
        batch = _batch_of(root)
        if batch is None:
            continue
        rows = [r for r in facts.calls if r.root == root.index and r.status == "ok"]
        changed = [
            r
            for r in rows
            if r.inputs
            and all(t.shape and t.shape[0] == batch for t in r.inputs if t.shape)
            and any(t.shape and t.shape[0] not in (batch, None) for t in r.outputs)
        ]
        if not changed:
            continue
        first = min(changed, key=lambda r: r.finished)
        got = next(t.shape[0] for t in first.outputs if t.shape and t.shape[0] != batch)
        more = len({r.path for r in changed}) - 1
        out.append(
            finding(
                "S02",
                f"{first.class_name} '{first.name}' turned the batch of {batch} into a leading "
                f"axis of {got}" + (f" ({more} enclosing layer(s) inherit it)" if more else ""),
                place=first.path,
                target=Target("layer", first.path),
                evidence=f"in {_shapes(first.inputs)} -> out {_shapes(first.outputs)}",
                hint="keep axis 0 as the batch: use layers.Reshape(target_shape) (the target "
                "excludes the batch) or keras.ops.reshape(x, (-1, ...)) with -1 first",
            )
        )
    return out


def _roots(calls: Sequence[LayerCall]) -> list[LayerCall]:
    return [r for r in calls if r.parent is None]


def _batch_of(root: LayerCall) -> int | None:
    sizes = {t.shape[0] for t in root.inputs if t.shape and len(t.shape) > 0}
    if len(sizes) != 1:
        return None
    size = next(iter(sizes))
    return size if isinstance(size, int) else None


# ------------------------------------------------------------------------ S03
def float64_tensor(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    """S03: float64 data that a layer computing in another dtype lets through uncast.

    Keras casts a layer's floating inputs to its compute dtype on entry, so the
    usual case (NumPy's float64 fed to a float32 model) is a benign conversion:
    the numbers are computed in float32 as intended, and ``fit`` converts its
    batches the same way.  That is not reported (it fires on nearly every
    correct program).  What is reported is a layer whose outputs stay float64
    although it computes in float32 (``autocast=False``, a custom ``call`` that
    returns its input's dtype): float64 then flows on into the layers after it.
    """
    hits = [
        r
        for r in facts.calls
        if any(t.dtype == "float64" for t in r.inputs)
        and r.compute_dtype != "float64"
        and any(t.dtype == "float64" for t in r.outputs)
    ]
    if not hits:
        return []
    first = hits[0]
    more = len({r.path for r in hits}) - 1
    target = first.compute_dtype or "float32"
    also = f" ({more} more layer(s) pass float64 on)" if more else ""
    return [
        finding(
            "S03",
            f"float64 data passes through {first.class_name} '{first.name}' uncast although it "
            f"computes in {target}: the layers after it get float64{also}",
            place=first.path,
            target=Target("layer", first.path),
            evidence=f"inputs {_shapes(first.inputs)}; outputs {_shapes(first.outputs)}",
            hint=f"cast once at the source: x.astype('{target}') (NumPy's default is float64) "
            f"or tf.cast(x, tf.{target}) in the tf.data map",
        )
    ]


# ------------------------------------------------------------------------ S05
def mixed_precision_output(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    """S05: under a mixed policy the model's final output is not float32."""
    out = []
    for root in _roots(facts.calls):
        if not root.policy.startswith("mixed_") or root.status != "ok":
            continue
        bad = [t for t in root.outputs if t.dtype != "float32"]
        if not bad:
            continue
        out.append(
            finding(
                "S05",
                f"under the {root.policy} policy the output of '{root.name}' is "
                f"{bad[0].dtype}, not float32: softmax and the loss lose precision",
                place=root.path,
                target=Target("layer", root.path),
                evidence=f"outputs {_shapes(root.outputs)}",
                hint="end the model with layers.Activation('linear', dtype='float32') "
                "(or give the last layer dtype='float32')",
            )
        )
    return out


# ------------------------------------------------------------------------ N01
def nonfinite_activation(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    """N01: the FIRST layer (execution order) whose output holds NaN/Inf, and whether its inputs did."""
    bad = [r for r in facts.calls if any(t.stats and t.stats.nonfinite for t in r.outputs)]
    if not bad:
        return []
    first = min(bad, key=lambda r: r.finished)
    by_index = {r.index: r for r in facts.calls}
    stats = next(t.stats for t in first.outputs if t.stats and t.stats.nonfinite)
    assert stats is not None
    dirty = []
    for t in first.inputs:
        if t.producer_index is not None:
            src = by_index.get(t.producer_index)
            if src and any(o.stats and o.stats.nonfinite for o in src.outputs):
                dirty.append(t.producer or "?")
        elif t.nonfinite:
            dirty.append(t.producer or "data")
    if dirty:
        inputs_text = f"its input from {', '.join(dirty)} already held NaN/Inf"
        hint = (
            "the data fed to the model holds NaN/Inf: clean it before training (check the pipeline)"
        )
    else:
        inputs_text = "its inputs were finite, so this layer produced them"
        hint = (
            "look for log/sqrt/division of zero or negative values in this layer, weights "
            "blown up by a too-high learning rate, or float16 overflow under mixed precision"
        )
    return [
        finding(
            "N01",
            f"{first.class_name} '{first.name}' is the first layer whose output holds NaN/Inf; "
            + inputs_text,
            place=first.path,
            target=Target("layer", first.path),
            evidence=f"{stats.nonfinite} of {stats.count} values non-finite",
            hint=hint,
        )
    ]


# ------------------------------------------------------------ N02, N03 guard
def _after_idle_batchnorm(facts: ShapeFacts) -> Callable[[LayerCall], bool]:
    """Whether a row ran after a BatchNormalization that passed its input through unchanged.

    A BatchNormalization that was never trained (moving mean 0, variance 1)
    and is called in inference mode returns its input divided by
    ``sqrt(1 + epsilon)``: it normalizes nothing, and activations after it
    drift with depth (the residual stream of EfficientNetV2L reaches a std of
    about 600 at 32x32, and 40-51 of its 61 squeeze-and-excitation sigmoids sit at
    0/1).  Training normalizes with batch statistics instead (the same model
    with ``training=True``: none saturates), so dead or saturated units seen
    after such a layer say nothing about training, and N02/N03 stay silent there.
    The evidence is in the rows: the layer's output has its input's mean and std.
    """
    by_index = {r.index: r for r in facts.calls}
    first: dict[int, int] = {}
    for row in facts.calls:
        if row.class_name != "BatchNormalization" or row.status != "ok" or not row.inputs:
            continue
        src = row.inputs[0]
        source = by_index.get(src.producer_index) if src.producer_index is not None else None
        before = src.stats or (source.stats if source is not None else None)
        after = row.stats
        if _passed_through(before, after) and row.root not in first:
            first[row.root] = row.index
    return lambda row: row.root in first and row.index > first[row.root]


def _passed_through(before: TensorStats | None, after: TensorStats | None) -> bool:
    if before is None or after is None or before.count != after.count:
        return False
    if None in (before.std, after.std, before.mean, after.mean):
        return False
    assert before.std is not None and after.std is not None
    assert before.mean is not None and after.mean is not None
    if before.std <= 0 or abs(before.std - 1.0) < 0.1:
        return False  # already unit-scaled: normalizing would change nothing either
    return (
        abs(after.std / before.std - 1.0) < 0.01
        and abs(after.mean - before.mean) <= 0.01 * before.std
    )


# ------------------------------------------------------------------------ N02
def dead_relu(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    """N02: a ReLU-family output that is (almost) all exact zeros because its units died.

    Many zeros alone are sparse activations, not dead units: a layer of a model
    that trains well can output 90% zeros with every unit firing on some
    examples, and gradient reaches each of them.  A unit is dead when it is zero
    for every example (and position) of the batch; the finding needs at least
    ``dead_unit_share`` of the layer's units dead, when the output has a unit axis.
    """
    limit = thresholds.dead_relu_fraction
    unjudged = _after_idle_batchnorm(facts)
    out = []
    seen: set[str] = set()
    for row in facts.calls:
        if row.path in seen or not _is_relu(row) or row.stats is None or unjudged(row):
            continue
        s = row.stats
        if s.count < thresholds.min_values or s.zero_fraction <= limit:
            continue
        units = ""
        if s.units:
            if (s.dead_units or 0) < thresholds.dead_unit_share * s.units:
                continue  # sparse, but most units fire on some example
            units = f"; {s.dead_units} of its {s.units} units are 0 for every example"
        seen.add(row.path)
        out.append(
            finding(
                "N02",
                f"{s.zero_fraction:.1%} of the outputs of ReLU layer '{row.name}' are exactly "
                f"zero (threshold {limit:.0%})" + units,
                place=row.path,
                target=Target("layer", row.path),
                evidence=f"{round(s.zero_fraction * s.count)} of {s.count} values are 0",
                hint="dead units: lower the learning rate, check the input scale, use He "
                "initialization, or try LeakyReLU/GELU",
                cause=f"{row.activation or 'relu'} output of {row.class_name} layers",
            )
        )
    return out


def _is_relu(row: LayerCall) -> bool:
    return row.activation in _RELU_FAMILY or (row.class_name == "ReLU" and row.activation is None)


# ------------------------------------------------------------------------ N03
def _output_rows(facts: ShapeFacts) -> set[int]:
    """The rows whose outputs a traced root returns (its output layers, through nested
    models): a sigmoid or softmax there is the prediction, and a trained classifier's
    confident predictions sit at the bounds by design."""
    by_index = {r.index: r for r in facts.calls}
    found: set[int] = set()
    todo = [r for r in facts.calls if r.parent is None]
    while todo:
        row = todo.pop()
        for t in row.outputs:
            inner = by_index.get(t.producer_index) if t.producer_index is not None else None
            if inner is not None and inner.index not in found:
                found.add(inner.index)
                todo.append(inner)
    return found


def saturated_activation(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    """N03: a sigmoid/tanh output sitting at its bounds."""
    limit = thresholds.saturated_fraction
    eps = thresholds.saturation_epsilon
    unjudged = _after_idle_batchnorm(facts)
    out = []
    seen: set[str] = set()
    outputs = _output_rows(facts)
    for row in facts.calls:
        s = row.stats
        if row.path in seen or row.activation not in _SATURATING or s is None:
            continue
        if unjudged(row) or row.index in outputs:
            continue
        if s.saturated_fraction is None or s.count < thresholds.min_values:
            continue
        if s.saturated_fraction <= limit:
            continue
        seen.add(row.path)
        out.append(
            finding(
                "N03",
                f"{s.saturated_fraction:.1%} of the outputs of {row.activation} layer "
                f"'{row.name}' sit within {eps:g} of its bounds (threshold {limit:.0%})",
                place=row.path,
                target=Target("layer", row.path),
                evidence=f"min {s.min}, max {s.max}, mean {s.mean}",
                hint="saturated units pass almost no gradient: normalize the inputs "
                "(BatchNormalization before it), scale down the initialization, or use ReLU",
                cause=f"{row.activation} output of {row.class_name} layers",
            )
        )
    return out


# ------------------------------------------------------------------------ T01
def retracing(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    """T01: a tf.function traced more than ``retrace_limit`` times while recording."""
    limit = thresholds.retrace_limit
    out = []
    for trace in facts.traces:
        if trace.traces <= limit:
            continue
        shown = "; ".join(_short(s) for s in trace.signatures[:3])
        out.append(
            finding(
                "T01",
                f"tf.function '{trace.name}' was traced {trace.traces} times in one run "
                f"(limit {limit}): each trace rebuilds the graph",
                place=trace.name,
                target=Target("function", trace.name),
                evidence=f"first signatures: {shown}",
                hint="pass tensors instead of Python numbers, give it an input_signature with "
                "None for the varying axes, or use reduce_retracing=True",
            )
        )
    return out


def _short(signature: str, limit: int = 160) -> str:
    text = " ".join(signature.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


RULES: tuple[Callable[[ShapeFacts, ShapeThresholds], list[Finding]], ...] = (
    shape_mismatch,
    batch_dim_changed,
    float64_tensor,
    mixed_precision_output,
    nonfinite_activation,
    dead_relu,
    saturated_activation,
    retracing,
)


def run_rules(facts: ShapeFacts, thresholds: ShapeThresholds) -> list[Finding]:
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(rule(facts, thresholds))
    return findings
