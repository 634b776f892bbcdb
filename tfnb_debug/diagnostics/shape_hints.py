"""The fix for a layer that failed on its input's shape: the hint of S01 and its parts.

:func:`failure_hint` reads a failed row of the shape trace (the error Keras
raised, what the layer received and which layer produced it) and says what to
change: a missing batch or channel axis, a missing Flatten, a skip branch not
downsampled, a Reshape whose target does not hold the values it gets.  Its
parts are shared with the diagnosis under a failing cell (``explain/``), which
reads the same facts from the exception instead of a row:
:func:`producer_rank_hint` (a wrong-rank tensor made by a layer, not the data),
:func:`width_hint` (a last axis of another width than the layer was built for),
:func:`channels_moved_hint` (channels-first data), :func:`projection` and
:func:`build_failure_hint` (a layer that raised while a Sequential was built).
Plain rows and strings only, like the rules in
:mod:`tfnb_debug.diagnostics.shapes`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tfnb_debug.records.shapes import LayerCall, TensorInfo

__all__ = [
    "AXIS_DROPPERS",
    "GENERIC_FAILURE_HINT",
    "RNN_LAYERS",
    "SAME_LAST_AXIS",
    "build_failure_hint",
    "channels_moved_hint",
    "failure_hint",
    "producer_rank_hint",
    "projection",
    "width_hint",
]


def _shapes(infos: Sequence[TensorInfo]) -> str:
    from tfnb_debug.ground.values import format_shape

    parts = []
    for t in infos:
        shape = "(?)" if t.shape is None else format_shape(t.shape)
        parts.append(f"{shape} {t.dtype}")
    return ", ".join(parts) or "nothing"


_NDIM = re.compile(r"expected (min_|max_)?ndim=(\d+), found ndim=(\d+)")
_AXIS = re.compile(r"expected axis (-?\d+) of input shape to have value (\d+)")
_MATMUL = re.compile(r"Matrix size-incompatible|Incompatible shapes|incompatible shapes", re.I)


# the start of failure_hint's last resort, when nothing in the row pointed at a cause
GENERIC_FAILURE_HINT = "compare what"


def failure_hint(row: LayerCall, calls: Sequence[LayerCall]) -> str:
    """A fix for the common failures: missing batch axis, missing Flatten, skip branch not downsampled."""
    from tfnb_debug.ground.values import format_shape

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
        shape = tuple(first.shape) if first is not None and first.shape else ()
        batched = bool(shape) and shape[0] is None
        if from_data and found == expected - 1 and kind != "max_" and batched:
            return (
                f"each example is {format_shape(shape[1:])}, {found - 1} axes where "
                f"'{row.name}' reads {expected - 1}: add the channel axis (the feature axis of "
                "a sequence), x[..., None] and Input(shape + (1,))"
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
    made_by = _producer_row(first.producer if first else None, calls)
    reshape = reshape_hint(
        row.error, row.name, producer, made_by.class_name if made_by is not None else ""
    )
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


def reshape_hint(error: str, layer: str, producer: str, producer_class: str = "") -> str:
    """A Reshape whose target does not hold the values it receives: say both counts; a target
    that starts with the batch size, and a Dense producer that can make the count."""
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
    rest = 1
    for d in target[1:]:
        rest *= d
    if len(target) >= 2 and rest == have:
        # the sizes after the first hold exactly the input: the first is a batch size
        inner = ", ".join(map(str, target[1:])) + ("," if len(target) == 2 else "")
        return (
            f"the target ({match.group(2)}) of '{layer}' starts with {target[0]}, a batch "
            f"size: Reshape's target_shape is per example, without the batch axis (Keras "
            f"keeps it); use `keras.layers.Reshape(({inner}))`, whose {rest} values are what "
            f"{source} gives"
        )
    make = (
        f"make '{producer}' output {want} values (`keras.layers.Dense({want})`)"
        if producer_class == "Dense"
        else f"make {source} output {want} values"
    )
    return (
        f"the target ({match.group(2)}) of '{layer}' holds {want} values per example but "
        f"{source} gives {have}: {make}, or give '{layer}' a target whose sizes multiply "
        f"to {have}"
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

#: layers whose output has the last axis of their input: a channel count reaching a layer
#: through them came from before them
SAME_LAST_AXIS = frozenset(
    {
        "Rescaling",
        "Normalization",
        "Dropout",
        "SpatialDropout1D",
        "SpatialDropout2D",
        "SpatialDropout3D",
        "GaussianNoise",
        "GaussianDropout",
        "AlphaDropout",
        "BatchNormalization",
        "LayerNormalization",
        "UnitNormalization",
        "Activation",
        "ReLU",
        "LeakyReLU",
        "ELU",
        "Softmax",
        "Identity",
        "Masking",
        "Resizing",
        "CenterCrop",
        "RandomCrop",
        "RandomFlip",
        "RandomRotation",
        "RandomZoom",
        "RandomTranslation",
        "RandomContrast",
        "RandomBrightness",
        "RandomHeight",
        "RandomWidth",
        "ZeroPadding1D",
        "ZeroPadding2D",
        "ZeroPadding3D",
        "Cropping1D",
        "Cropping2D",
        "Cropping3D",
        "MaxPooling1D",
        "MaxPooling2D",
        "MaxPooling3D",
        "AveragePooling1D",
        "AveragePooling2D",
        "AveragePooling3D",
    }
)


_ID_MAKERS = ("TextVectorization", "StringLookup", "IntegerLookup")


def producer_rank_hint(
    layer: str,
    expected_ndim: int,
    received: tuple[int | None, ...],
    producer: str,
    producer_class: str,
    inner_last: str = "",
) -> str | None:
    """The hint when the wrong-rank tensor was made by a layer of the model, not by the data
    (``inner_last``: the class of the producer's last layer, when the producer is a model)."""
    if not producer or producer_class in ("", "InputLayer"):
        return None
    from tfnb_debug.ground.values import format_shape

    made_by = f"layer '{producer}' ({producer_class})"
    if len(received) < expected_ndim and producer_class in _ID_MAKERS:
        return (
            f"{made_by} makes integer token ids {format_shape(received)}, one per token, and "
            f"'{layer}' reads a vector per step: embed the ids between them, "
            f"`keras.layers.Embedding({producer}.vocabulary_size(), 64)` after '{producer}'"
        )
    if len(received) < expected_ndim and inner_last in AXIS_DROPPERS:
        return (
            f"{made_by} already ends in {inner_last} (a keras.applications base built with "
            f"pooling='avg' or 'max' does), so it gives {format_shape(received)} without the "
            f"axes '{layer}' needs: drop '{layer}', or build '{producer}' with pooling=None"
        )
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
    if producer_class in SAME_LAST_AXIS:
        return (
            f"'{layer}' was built for {value} features but gets {got} through layer "
            f"'{producer}' ({producer_class}), which keeps the last axis of its input: the "
            f"{got} come from before it (the data, when it follows the Input); feed data with "
            f"{value} on the last axis, or build the model for {got}"
        )
    if producer and producer_class not in ("", "InputLayer") and producer != "input":
        return (
            f"'{layer}' was built for {value} features but layer '{producer}' "
            f"({producer_class}) now gives {got}: either the model was changed after '{layer}' "
            f"was built (rebuild it), or '{producer}' gives another width than Keras read for "
            "it when the model was built (a custom layer's compute_output_shape)"
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
    first = " (channels_first data for a channels_last model)" if axis == 1 else ""
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

    reshape = reshape_hint(error, layer, producer, producer_class)
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
