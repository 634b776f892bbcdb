"""Rules over a shape trace: S01-S05, N01-N03, T01.  Each takes ``(facts, thresholds)``.

Rules read plain rows only (no TensorFlow, not the report): :class:`ShapeFacts`
holds the layer-call rows and trace counts; :class:`ShapeThresholds` are the
documented limits, which callers override with
``trace_shapes(..., thresholds=ShapeThresholds(dead_relu_fraction=0.95))``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, Target, finding
from tfnb_debug.records.shapes import LayerCall, TensorInfo, TensorStats, TraceCount

__all__ = [
    "GENERIC_FAILURE_HINT",
    "RULES",
    "ShapeFacts",
    "ShapeThresholds",
    "batch_dim_changed",
    "build_failure_hint",
    "channels_moved_hint",
    "dead_relu",
    "failure_hint",
    "float64_tensor",
    "mixed_precision_output",
    "nonfinite_activation",
    "producer_rank_hint",
    "retracing",
    "run_rules",
    "saturated_activation",
    "shape_mismatch",
    "width_hint",
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


def _shapes(infos: Sequence[TensorInfo]) -> str:
    from tfnb_debug.ground.values import format_shape

    parts = []
    for t in infos:
        shape = "(?)" if t.shape is None else format_shape(t.shape)
        parts.append(f"{shape} {t.dtype}")
    return ", ".join(parts) or "nothing"


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


_NDIM = re.compile(r"expected (min_|max_)?ndim=(\d+), found ndim=(\d+)")
_AXIS = re.compile(r"expected axis (-?\d+) of input shape to have value (\d+)")
_MATMUL = re.compile(r"Matrix size-incompatible|Incompatible shapes|incompatible shapes", re.I)


# the start of failure_hint's last resort, when nothing in the row pointed at a cause
GENERIC_FAILURE_HINT = "compare what"


def failure_hint(row: LayerCall, calls: Sequence[LayerCall]) -> str:
    """A fix for the common failures: missing batch axis, missing Flatten, skip branch not downsampled."""
    ranks = [len(t.shape) for t in row.inputs if t.shape is not None]
    first = row.inputs[0] if row.inputs else None
    producer = (first.producer if first else None) or "the previous step"
    match = _NDIM.search(row.error)
    if match:
        kind, expected, found = match.group(1) or "", int(match.group(2)), int(match.group(3))
        made = _producer_row(first.producer if first else None, calls)
        by_layer = (
            producer_rank_hint(row.name, expected, tuple(first.shape), made.name, made.class_name)
            if made is not None
            and first is not None
            and first.shape is not None
            and found < expected
            else None
        )
        if by_layer:
            return by_layer
        from_data = first is not None and first.producer == "input"
        batched = first is not None and bool(first.shape) and first.shape[0] is None  # type: ignore[index]
        if from_data and found == expected - 1 and kind != "max_" and batched:
            return (
                f"the input has a batch axis but one axis too few ({found}, '{row.name}' needs "
                f"{expected}): add the channel axis (the feature axis of a sequence), "
                "x[..., None] and Input(shape + (1,))"
            )
        if from_data and found == expected - 1 and kind != "max_":
            return (
                f"the data has one axis too few ({found} axes, '{row.name}' needs {expected}): "
                "a single example without its batch axis (pass x[None, ...] or "
                "np.expand_dims(x, 0)), or images without their channel axis (x[..., None])"
            )
        if found > expected and expected == 2:
            return (
                f"'{producer}' gives {found} axes but {row.class_name} '{row.name}' takes "
                f"{expected} (batch, features): add layers.Flatten() (or "
                f"GlobalAveragePooling) before '{row.name}'"
            )
        if found > expected:
            return (
                f"'{producer}' gives {found} axes but {row.class_name} '{row.name}' takes "
                f"{expected} (batch included): add a layers.Reshape(...) to {expected} axes "
                f"(e.g. Reshape((steps, features)) before an RNN) before '{row.name}'"
            )
        return (
            f"'{row.name}' needs {expected} axes (batch included) but got {found}: add a "
            f"layers.Reshape(...) before it to give it the shape it expects"
        )
    match = _AXIS.search(row.error)
    if match and first is not None and first.shape is not None:
        moved = channels_moved_hint(int(match.group(2)), tuple(first.shape))
        if moved:
            return moved
    if match and first is not None and first.shape is not None and match.group(1) == "-1":
        made = _producer_row(first.producer, calls)
        return width_hint(
            row.name,
            int(match.group(2)),
            tuple(first.shape),
            made.name if made is not None else "input",
            made.class_name if made is not None else "InputLayer",
        )
    if match:
        axis, value = match.group(1), match.group(2)
        return (
            f"'{row.name}' was built for {value} values on axis {axis}; its input now has "
            f"{_shapes(row.inputs)}: the data or an earlier layer changed size (e.g. a "
            "different image size before Flatten). Feed data of the size the model was built "
            "for, or rebuild the model"
        )
    if len(row.inputs) >= 2 and len(set(ranks)) == 1 and ranks:
        hint = _merge_hint(row)
        if hint:
            return hint
    reshape = _reshape_hint(row.error, row.name, producer)
    if reshape:
        return reshape
    if _MATMUL.search(row.error) and ranks:
        return (
            f"the last axis of the input ({_shapes(row.inputs)}) does not match what "
            f"'{row.name}' was built for: check '{producer}' and whether a Flatten is missing"
        )
    return (
        f"{GENERIC_FAILURE_HINT} '{producer}' produced ({_shapes(row.inputs)}) with what "
        f"'{row.name}' expects"
    )


def _producer_row(path: str | None, calls: Sequence[LayerCall]) -> LayerCall | None:
    """The row of the layer that produced a tensor (its path), or None for the input."""
    if not path or path == "input":
        return None
    return next((c for c in calls if c.path == path), None)


_RESHAPE = re.compile(
    r"total size of the tensor must be unchanged\. Received: input_shape=\(([^()]*)\), "
    r"target_shape=\(([^()]*)\)"
)


def _sizes(text: str) -> list[int] | None:
    try:
        return [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        return None


def _reshape_hint(error: str, layer: str, producer: str) -> str:
    """A Reshape whose target does not hold the values it receives: say both counts."""
    match = _RESHAPE.search(error)
    if match is None:
        return ""
    given, target = _sizes(match.group(1)), _sizes(match.group(2))
    if not given or not target or any(d < 0 for d in given):
        return ""
    have = 1
    for d in given:
        have *= d
    source = "the input" if producer == "input" else f"'{producer}'"
    if any(d == -1 for d in target):
        return (
            f"{source} gives {have} values per example, which the fixed sizes of the target "
            f"({match.group(2)}) do not divide: change the target of '{layer}'"
        )
    want = 1
    for d in target:
        want *= d
    if len(target) == 1 and len(given) >= 2:
        # a flattening Reshape with a size computed by hand for another input size
        return (
            f"'{layer}' flattens to a fixed {want} values, but {source} gives "
            f"{' x '.join(map(str, given))} = {have} for this input size: use Flatten() (or "
            "GlobalAveragePooling) instead, which takes whatever size the layers before give"
        )
    return (
        f"the target ({match.group(2)}) of '{layer}' holds {want} values per example but "
        f"{source} gives {have}: give '{layer}' a target whose sizes multiply "
        f"to {have}, or make {source} output {want} values"
    )


_NEEDED_RANK = re.compile(
    r"(?:at least|minimum of|min_ndim=|expected ndim=) ?(\d+)(?: dimensions| axes)?"
)
RNN_LAYERS = ("LSTM", "GRU", "SimpleRNN", "RNN", "Bidirectional", "ConvLSTM1D", "ConvLSTM2D")
AXIS_DROPPERS = (
    "Flatten",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalAveragePooling3D",
    "GlobalMaxPooling3D",
)


def producer_rank_hint(
    layer: str,
    expected_ndim: int,
    received: tuple[int | None, ...],
    producer: str,
    producer_class: str,
) -> str | None:
    """The hint when the wrong-rank tensor was made by a layer of the model, not by the data."""
    if not producer or producer_class in ("", "InputLayer"):
        return None
    from tfnb_debug.ground.values import format_shape

    made_by = f"layer '{producer}' ({producer_class})"
    if len(received) < expected_ndim and producer_class in RNN_LAYERS:
        return (
            f"{made_by} returns only its last output, {format_shape(received)}, but '{layer}' needs "
            f"the whole sequence: give '{producer}' return_sequences=True"
        )
    if len(received) < expected_ndim and producer_class in AXIS_DROPPERS:
        return f"{made_by} removed the axes '{layer}' needs: move it after '{layer}', or drop it"
    if len(received) < expected_ndim:
        return (
            f"the tensor comes from {made_by}, not from the data: add a keras.layers.Reshape "
            f"between '{producer}' and '{layer}' to give it {expected_ndim} axes "
            "(batch included)"
        )
    return (
        f"the tensor comes from {made_by}, not from the data, with "
        f"{len(received) - expected_ndim} axis too many: add a Flatten, Reshape or global "
        f"pooling layer between '{producer}' and '{layer}'"
    )


def width_hint(
    layer: str, value: int, received: tuple[int | None, ...], producer: str, producer_class: str
) -> str:
    """A last axis of another width than the layer was built for: what made it, and both causes."""
    got = received[-1] if received else "?"
    if producer_class in ("Flatten", "Reshape"):
        return (
            f"the input comes from {producer_class} '{producer}', which folds every axis into "
            f"one: it gives {got} features now, {value} when '{layer}' was built, so an axis "
            "before it changed size (a longer window or sequence, a larger image): feed data of "
            "the size the model was built for, or, to accept any length, replace the Flatten "
            "with GlobalAveragePooling (or an RNN)"
        )
    if producer and producer_class not in ("", "InputLayer") and producer != "input":
        return (
            f"'{layer}' was built for {value} features but layer '{producer}' "
            f"({producer_class}) now gives {got}: the model was changed after '{layer}' was "
            f"built; rebuild it (or '{producer}') so the widths agree"
        )
    return (
        f"'{layer}' was built for {value} features but the data's last axis has {got}: either "
        "the data has the wrong width (a column too many or too few, e.g. a label or id column "
        "left in the features), or the model was built for other data and its Input must change"
    )


def channels_moved_hint(value: int, received: tuple[int | None, ...]) -> str:
    """Channels on another axis than the last (channels-first data): the transpose that fits."""
    moved = [i for i in range(1, len(received) - 1) if received[i] == value]
    if len(received) < 3 or not moved or received[-1] == value:
        return ""
    axis = moved[0]
    order = (0, *(i for i in range(1, len(received)) if i != axis), axis)
    first = " (channels-first data for a channels-last model)" if axis == 1 else ""
    return (
        f"the data has its {value} channels on axis {axis}, not last{first}: transpose it, "
        f"`x = np.transpose(x, {order})` (or `tf.transpose(x, {list(order)})` in a "
        "tf.data map); the model is right, do not rebuild it for this shape"
    )


def build_failure_hint(
    error: str,
    *,
    layer: str,
    class_name: str,
    producer: str,
    received: tuple[int | None, ...] | None,
    producer_class: str = "",
) -> str:
    """The fix for a layer that raised while a Sequential was built (used by the automatic diagnosis)."""
    from tfnb_debug.ground.values import format_shape

    reshape = _reshape_hint(error, layer, producer)
    if reshape:
        return reshape
    # a rank the layer states in its own words ("should be passed an `input_shape` with at
    # least 3 dimensions"): the same reading as an input-spec ndim check
    needed = _NEEDED_RANK.search(error)
    if needed is not None and received is not None:
        ranked = producer_rank_hint(layer, int(needed.group(1)), received, producer, producer_class)
        if ranked is not None and len(received) < int(needed.group(1)):
            return ranked
    source = "the model's input" if producer == "input" else f"'{producer}'"
    shape = format_shape(received) if received is not None else "(?)"
    return (
        f"{source} gives {shape} to {class_name} '{layer}', which cannot take it: fix the "
        f"arguments of '{layer}' (or of {source}) so the shapes fit"
    )


def _merge_hint(row: LayerCall) -> str:
    """Two branches meeting with different sizes: say which to downsample or project."""
    shapes = [t.shape for t in row.inputs if t.shape is not None]
    if len(shapes) < 2 or any(len(s) != len(shapes[0]) for s in shapes):
        return ""
    a_info, b_info = row.inputs[0], row.inputs[1]
    a, b = shapes[0], shapes[1]
    spatial = [
        i for i in range(1, len(a) - 1) if a[i] is not None and b[i] is not None and a[i] != b[i]
    ]
    channels_differ = a[-1] != b[-1] and a[-1] is not None and b[-1] is not None
    if spatial:
        big, small = (
            (a_info, b_info) if (a[spatial[0]] or 0) > (b[spatial[0]] or 0) else (b_info, a_info)
        )
        big_s, small_s = big.shape or (), small.shape or ()
        ratio = (big_s[spatial[0]] or 1) / max(small_s[spatial[0]] or 1, 1)
        stride = int(round(ratio)) if ratio >= 1 else 1
        text = (
            f"inputs {_shapes(row.inputs)} differ on axis {spatial[0]}: downsample the skip "
            f"branch from '{big.producer or '?'}' with strides={stride} (e.g. a 1x1 Conv2D with "
            f"strides={stride}) so it matches '{small.producer or '?'}'"
        )
        if channels_differ and row.class_name != "Concatenate":
            text += f", and project it to {small_s[-1]} channels"
        return text
    if channels_differ and row.class_name != "Concatenate":
        width = max(a[-1] or 0, b[-1] or 0)
        return (
            f"inputs {_shapes(row.inputs)} differ in channels: project the skip branch with "
            f"{projection(len(a), width)} so both have the same number"
        )
    return ""


def projection(rank: int, width: int) -> str:
    """The layer that changes only the last axis of a tensor of this rank (batch included):
    Dense for vectors, a kernel-1 convolution for sequences and images."""
    if rank <= 2:
        return f"a Dense({width})"
    conv = {3: "Conv1D", 4: "Conv2D", 5: "Conv3D"}.get(rank, "Dense")
    return f"a 1x1 {conv}({width})" if conv != "Dense" else f"a Dense({width})"


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
