"""Hints of the shape rules under a failing cell that read only the shapes in the message.

The S01 and S07 rules of :mod:`tfnb_debug.explain.shapes` find the shapes in
the exception's text; these turn them into the fix: a missing Flatten or
channels on the wrong axis for a width the layer was not built for
(:func:`_feature_hint`), a wrong rank (:func:`_rank_hint`), merge branches of
different sizes (:func:`_merge_hint`), a loss whose labels and model output
differ on the last axis or by axes the labels lack (:func:`_label_width_hint`,
:func:`_loss_shape_hint`).  The hints the shape trace shares (a width, channels
moved, a projection) come from :mod:`tfnb_debug.diagnostics.shape_hints`.
"""

from __future__ import annotations

import math
import re

from tfnb_debug.diagnostics.shape_hints import (
    RNN_LAYERS,
    channels_moved_hint,
    projection,
    width_hint,
)
from tfnb_debug.explain._context import (
    ErrorContext,
    InputInfo,
    fmt_shape,
    parse_shape,
    same_shape,
)
from tfnb_debug.explain._data_origin import fed_by_data
from tfnb_debug.explain._image_axes import channel_hint
from tfnb_debug.explain._input_data import read_input_data
from tfnb_debug.explain._layer_declared import declared_output
from tfnb_debug.explain._layer_made import layer_sized_hint
from tfnb_debug.explain._operands import cell_text
from tfnb_debug.explain._traceback_objects import SequentialBuild


def _feature_hint(
    ctx: ErrorContext,
    layer: str,
    value: int,
    received: tuple[int | None, ...],
    source: InputInfo | None,
) -> str:
    channels = channel_hint(ctx, layer, value, received, source)
    if channels:
        return channels
    made = (
        layer_sized_hint(ctx.evidence.call, (*received[:-1], value), received)
        if fed_by_data(source)
        else None
    )
    if made:
        return made
    trailing = received[1:]
    if len(received) > 2 and all(d is not None for d in trailing) and math.prod(trailing) == value:  # type: ignore[arg-type]
        return (
            f"a Flatten is missing: {fmt_shape(received)} flattens to {value} features; add "
            f"keras.layers.Flatten() before '{layer}'"
        )
    moved = channels_moved_hint(value, received)
    if moved:
        return moved
    producer = (source.producer, source.producer_class) if source is not None else ("", "")
    declared = ctx.read(declared_output, producer[0]) if producer[0] else None
    if declared is not None:
        return (
            f"layer '{producer[0]}' ({producer[1]}) declares its output with "
            f"compute_output_shape, `{declared}`, and Keras built '{layer}' for that width "
            f"({value}); its call returns {received[-1] if received else '?'}: make "
            "compute_output_shape return the shape call gives (or drop it and let Keras "
            "trace call)"
        )
    return width_hint(layer, value, received, *producer)


def sequence_rank_hint(
    ctx: ErrorContext, layer: str, expected_ndim: int, received: tuple[int | None, ...]
) -> str:
    """An RNN (or a 1-D convolution or pooling) given (batch, steps) where it takes (batch,
    steps, features): two causes fit, and both are named (token ids not yet embedded, or one
    feature per step without its axis), unless the data the call got holds fractional values
    (then only the second); "" for any other layer or rank."""
    build = ctx.sequential_build
    cls = dict(ctx.layers).get(layer) or (
        build.layer_class if build is not None and build.layer == layer else ""
    )
    if not cls:
        # a layer the context did not list (a Sequential built by its first call): Keras
        # names layers after their class, snake_case, with a _N suffix
        base = re.sub(r"_\d+$", "", layer)
        cls = next((c for c in (*RNN_LAYERS, *_STEP_LAYERS) if _snake(c) == base), "")
    if cls not in (*RNN_LAYERS, *_STEP_LAYERS) or expected_ndim != 3 or len(received) != 2:
        return ""
    steps = received[1]
    features = (
        f"give them their feature axis (the channel axis): `x[..., None]` and "
        f"`keras.Input(({steps}, 1))`"
    )
    copied = next((d for d in ctx.read(read_input_data) or () if d.shape[1:] == (steps,)), None)
    if copied is not None:  # the Input copies the array's shape: the axis goes on the array
        name = copied.name
        features = (
            f"give `{name}` its feature axis before the model is built, `{name} = "
            f"{name}[..., None]`: `keras.Input(shape={copied.expression})` then reads "
            f"({steps}, 1)"
        )
        if copied.fractional:
            return (
                f"'{layer}' ({cls}) reads (batch, steps, features) and got "
                f"{fmt_shape(received)}: `{name}` {fmt_shape(copied.shape)} holds {steps} "
                f"measurements per example (fractional values, not token ids), one feature "
                f"per step: {features}"
            )
    call = ctx.evidence.call
    x = call.arg(0, "x") if call is not None else None
    if x is not None and x.kind in ("array", "tensor") and x.low is not None and not x.whole:
        # fractional values cannot be token ids: one feature per step is the one cause
        return (
            f"'{layer}' ({cls}) reads (batch, steps, features) and got {fmt_shape(received)}: "
            f"`{x.text}` holds {steps} measurements per example (fractional values, not token "
            f"ids), one feature per step: {features}"
        )
    return (
        f"'{layer}' ({cls}) reads (batch, steps, features) and got {fmt_shape(received)}: "
        f"if the {steps} values per example are token ids, embed them first: put "
        f"`keras.layers.Embedding(input_dim=vocab_size, output_dim=32)` before '{layer}'; if "
        f"they are {steps} time steps of one feature, {features}"
    )


# image layers and their counterpart for (batch, steps, features) sequences
_IMAGE_TO_SEQUENCE = {
    "Conv2D": "Conv1D",
    "SeparableConv2D": "SeparableConv1D",
    "DepthwiseConv2D": "DepthwiseConv1D",
    "Conv2DTranspose": "Conv1DTranspose",
    "MaxPooling2D": "MaxPooling1D",
    "AveragePooling2D": "AveragePooling1D",
    "GlobalAveragePooling2D": "GlobalAveragePooling1D",
    "GlobalMaxPooling2D": "GlobalMaxPooling1D",
}


def image_layer_on_sequence_hint(
    ctx: ErrorContext, layer: str, expected_ndim: int, received: tuple[int | None, ...]
) -> str:
    """An image layer (rank 4) given batched (steps, features) examples: two causes fit, a
    sequence that wants the layer's 1-D counterpart, or a one-channel image without its
    channel axis; the first is named first when the examples are long and narrow."""
    build = ctx.sequential_build
    cls = dict(ctx.layers).get(layer) or (
        build.layer_class if build is not None and build.layer == layer else ""
    )
    if not cls:
        base = re.sub(r"_\d+$", "", layer)
        cls = next((c for c in _IMAGE_TO_SEQUENCE if _snake(c) == base), "")
    one_d = _IMAGE_TO_SEQUENCE.get(cls)
    if one_d is None or expected_ndim != 4 or len(received) != 3 or received[0] is not None:
        return ""
    steps, width = received[1], received[2]
    sequence = (
        f"if each example is {steps} steps of {width} features (a sequence), use the layer "
        f"for sequences, `keras.layers.{one_d}(...)` with the same arguments"
    )
    image = (
        f"if it is a one-channel {steps}x{width} image, add the channel axis, x[..., None] in "
        f"the data and Input(({steps}, {width}, 1))"
    )
    long_and_narrow = steps is not None and width is not None and width <= 16 and steps >= 4 * width
    first, second = (sequence, image) if long_and_narrow else (image, sequence)
    return (
        f"'{layer}' ({cls}) reads images (height, width, channels) and each example is "
        f"{fmt_shape(received[1:])}: {first}; {second}"
    )


def shrunk_hint(
    layer: str,
    kernel: int | None,
    left: int | None,
    build: SequentialBuild | None = None,
    received: tuple[int | None, ...] = (),
) -> str:
    """The fix for a window that no longer fits, from what the message gives (the window, the
    positions left) and, for a Sequential being built, which layers trim the size with
    padding='valid' (only those are told to pad)."""
    valid = [s.name for s in build.steps if s.valid_window] if build is not None else []
    if build is not None and build.layer_valid_window and _shrank(build):
        valid.append(build.layer)  # its own window trims too, on a size the layers cut
    pad = (
        f"padding='same' in {', '.join(repr(v) for v in valid[:4])} (their 'valid' windows trim "
        "the size), "
        if valid
        else ""
    )
    first_layer = build is not None and len(build.steps) == 1
    size = received[1] if received and len(received) >= 3 else None
    if first_layer and size:
        return (
            f"the input is {size} long on its first spatial axis, shorter than the window of "
            f"'{layer}': a kernel (or pool) size of at most {size}, or a longer input"
        )
    if kernel is not None and left is not None and left > 0:
        return (
            f"the window must fit in the {left} positions that reach '{layer}': {pad}a window "
            f"(kernel or pool size) of at most {left} there, fewer size-reducing layers before "
            "it, or a longer input"
        )
    return (
        f"the layers before it reduce the input below this layer's window: {pad}fewer "
        "size-reducing layers (pooling, strides), a smaller kernel or pool size, or a larger "
        "input"
    )


def _shrank(build: SequentialBuild) -> bool:
    """The layers before the failing one made the first spatial axis smaller than the input's
    (an input too small from the start is not a padding problem)."""
    first = build.steps[0].shape if build.steps else None
    last = build.steps[-1].shape if build.steps else None
    if not first or not last or len(first) < 3 or len(last) < 3:
        return False
    return first[1] is not None and last[1] is not None and last[1] < first[1]


def _snake(name: str) -> str:
    """Keras' default layer name for a class: ``Conv1D`` -> ``conv1d``, ``MaxPooling1D`` ->
    ``max_pooling1d``, ``SimpleRNN`` -> ``simple_rnn`` (Keras' own function names them)."""
    from keras.src.utils.naming import to_snake_case

    return str(to_snake_case(name))


# layers that read (batch, steps, features) besides the recurrent ones
_STEP_LAYERS = (
    "Conv1D",
    "SeparableConv1D",
    "Conv1DTranspose",
    "MaxPooling1D",
    "AveragePooling1D",
    "GlobalAveragePooling1D",
    "GlobalMaxPooling1D",
)


def _rank_hint(
    layer: str,
    *,
    expected_ndim: int,
    received: tuple[int | None, ...],
    expected: tuple[int | None, ...] = (),
) -> str:
    if expected and len(received) > len(expected) and len(expected) >= 2:
        trailing = received[1:]
        if all(d is not None for d in trailing) and expected[-1] == math.prod(trailing):  # type: ignore[arg-type]
            return (
                f"a Flatten is missing: {fmt_shape(received)} flattens to {expected[-1]} features; "
                "reshape the data (x.reshape(len(x), -1)) or declare the model's Input with the unflattened shape and add keras.layers.Flatten()"
            )
    if expected and len(received) == len(expected) - 1 and same_shape(received, expected[1:]):
        return (
            f"the input is a single example without its batch axis ({fmt_shape(received)} where "
            f"{fmt_shape(expected)} is expected): pass a batch, e.g. x[None] or x[:1] instead of x[0]"
        )
    if len(received) == 1:  # the data was not read here: both ways to one axis fit
        return (
            "the tensor has one axis: either the data is 1-D (one value per example: "
            "x.reshape(-1, 1); or one example: x[None]), or a reshape to (-1,) folded the "
            "batch axis into the features (keras.layers.Reshape / Flatten keep it)"
        )
    if len(received) == expected_ndim - 1 and received and received[0] is None:
        # batched (Keras traced the batch size as None): each example lacks one axis
        return (
            f"each example is {fmt_shape(received[1:])}, {len(received) - 1} axes where "
            f"'{layer}' reads {expected_ndim - 1}: add the channel axis (the feature axis of a "
            "sequence), x[..., None] in the data and Input(shape + (1,))"
        )
    if len(received) < expected_ndim:
        return (
            f"the input has {expected_ndim - len(received)} axis too few: add the channel axis "
            "(x[..., None] or Input(shape + (1,))), or, for a single example, the batch axis (x[None])"
        )
    if len(received) > expected_ndim:
        return (
            f"the input has {len(received) - expected_ndim} axis too many: put a Flatten, Reshape or "
            f"GlobalAveragePooling layer before '{layer}'"
        )
    return "make the data's shape match what the layer expects"


def _merge_hint(shapes: list[tuple[int | None, ...]], kind: str, batchless: bool) -> str:
    a, b = shapes[0], shapes[1]
    if len(a) != len(b):
        return "the branches have different ranks: reshape one branch so both have the same axes"
    start = 0 if batchless else 1
    spatial = range(start, len(a) - 1)
    ratios = [
        (a[i] / b[i]) if a[i] and b[i] else 1.0  # type: ignore[operator]
        for i in spatial
    ]
    if ratios and any(r != 1.0 for r in ratios):
        big = a if ratios[0] > 1 or any(r > 1 for r in ratios) else b
        factor = max(max(ratios), 1 / min(ratios))
        if float(factor).is_integer():
            return (
                f"the skip branch is not downsampled: the spatial axes differ by a factor of "
                f"{int(factor)}; give the branch with {fmt_shape(big)} strides={int(factor)} "
                f"(or MaxPooling with pool_size={int(factor)}), or use padding='same' consistently"
            )
        return "the spatial axes differ: check strides and padding='same' on both branches"
    if a[-1] != b[-1] and kind != "Concatenate":
        width = max(a[-1] or 0, b[-1] or 0)
        return (
            f"the last axes differ ({a[-1]} vs {b[-1]}): project the narrower branch with "
            f"{projection(len(a), width)} to the same size, or give the layer that makes it "
            f"{width} units"
        )
    return "make the branches' shapes equal on every axis but the concatenation axis"


_LABEL_INPUT = re.compile(r"^(data(_\d+)?|y_true|IteratorGetNext(:\d+)?|Cast(_\d+)?)$")


def _label_width_hint(inputs: str, shapes: list[str], owner: str) -> str:
    """A loss op whose label input and model output differ on the last axis only."""
    names = [n.strip() for n in inputs.split(",")]
    if len(shapes) != 2 or len(names) != 2 or not owner.startswith("the loss"):
        return ""
    a, b = parse_shape(shapes[0]), parse_shape(shapes[1])
    if a is None or b is None or len(a) != len(b) or a[:-1] != b[:-1] or a[-1] == b[-1]:
        return ""
    is_label = [bool(_LABEL_INPUT.match(n.split("/")[-1])) for n in names]
    if is_label.count(True) != 1:
        return ""
    labels, output = (a, b) if is_label[0] else (b, a)
    return (
        f"the model output has {output[-1]} units but the labels have {labels[-1]} columns: "
        "give the output layer as many units as label columns (or fix the labels' width)"
    )


def _loss_shape_hint(
    labels: tuple[int | None, ...], output: tuple[int | None, ...], loss: str
) -> str:
    """A hint from the two shapes alone (the model was not read): axes the labels lack, or a
    last axis of another width when the ranks agree."""
    from tfnb_debug.explain._output_axes import extra_axes

    if not labels or not output:  # a scalar on either side: no axis to compare
        return "make the labels' shape match the model output (see model.output_shape)"
    extra = extra_axes(labels, output, loss)
    if 0 < extra <= len(output) - 2:
        return (
            f"the model output keeps {extra} ax{'es' if extra > 1 else 'is'} between the batch "
            "and the last axis that the labels do not have: remove them before the output layer "
            "(Flatten or GlobalAveragePooling, or return_sequences=False where an RNN keeps its "
            "time axis), or give the labels one value per position"
        )
    if (
        not loss.startswith("sparse")
        and len(output) == len(labels) > 1
        and output[-1] != labels[-1]
    ):
        return (
            f"the output layer has {output[-1]} units but the labels have {labels[-1]} columns: "
            "use as many units as label columns, or labels shaped like the output"
        )
    return "make the labels' shape match the model output (see model.output_shape)"


_SHAPE_RE_MERGE = r"(\([^()]*\))"
_CONCAT = re.compile(
    r"A `(\w+)` layer requires inputs with matching shapes .*?input_shape=\[(.*?)\]\s*$", re.M
)
_MERGE = re.compile(
    r"Inputs have incompatible shapes\. Received shapes "
    + _SHAPE_RE_MERGE
    + " and "
    + _SHAPE_RE_MERGE
)


def merge_shapes(text: str) -> tuple[str, list[tuple[int | None, ...]], bool] | None:
    """(kind, shapes, batchless) of a merge or concatenation layer that refused its inputs."""
    concat = _CONCAT.search(text)
    if concat is not None:
        shapes = [parse_shape(s) for s in re.findall(r"\([^()]*\)", concat.group(2))]
        if len(shapes) >= 2 and all(s is not None for s in shapes):
            return concat.group(1), [s for s in shapes if s is not None], False
    merge = _MERGE.search(text)
    if merge is not None:
        a, b = parse_shape(merge.group(1)), parse_shape(merge.group(2))
        if a is not None and b is not None:
            return "merge", [a, b], True
    return None


_DILATED = re.compile(r"kernel shape=\((\d+),[^)]*\)`?, `?dilation_rate=\[(\d+)")


def dilated_window(
    text: str, layer: str, received: tuple[int | None, ...]
) -> tuple[str, str, str] | None:
    """(problem, evidence, hint) when the window that no longer fits is a dilated kernel whose
    span, not its size, exceeds the positions it gets."""
    dilated = _DILATED.search(text)
    size = received[1] if len(received) >= 3 else None
    if dilated is None or int(dilated.group(2)) <= 1 or not size:
        return None
    k, d = int(dilated.group(1)), int(dilated.group(2))
    span, most = (k - 1) * d + 1, (size - 1) // max(k - 1, 1)
    if span <= size:
        return None
    return (
        f"'{layer}' has dilation_rate={d}: its {k}-wide kernel spans {span} positions, more "
        f"than the {size} it gets",
        f"received {fmt_shape(received)}; kernel {k}, dilation_rate {d}",
        (f"a dilation_rate of at most {most} on '{layer}'" if most >= 1 else "a smaller kernel")
        + ", padding='same' on it, or place it earlier, where the map is larger",
    )


def failing_layer(ctx: ErrorContext, class_name: str) -> str:
    """The layer that raised: the one Sequential.build was adding, else the innermost seen."""
    if ctx.sequential_build is not None:
        return ctx.sequential_build.layer
    if class_name and any(cls == class_name for _, cls in ctx.layers):
        return ctx.layer_of_class(class_name) or class_name
    return ctx.layer_names[0] if ctx.layer_names else "a layer"


def written_argument(ctx: ErrorContext) -> bool:
    """Keras' message names an argument with the value the user wrote in the cell ("Received
    groups=4, but the input has 3 channels" for ``Conv2D(32, 3, groups=4)``)."""
    source = cell_text(ctx.user_frames()).replace(" ", "")
    named = re.findall(r"Received:? `?(\w+)=([\w.]+)", ctx.text)
    return any(f"{name}={value}" in source for name, value in named)


def with_user_line(ctx: ErrorContext, evidence: str) -> str:
    """The evidence, with the user's line that led into the failure (``model.fit(X_test)`` at
    Cell In[5], line 2) when the evidence does not quote it yet."""
    line = ctx.user_code_line()
    if line is None or not line[3] or line[3] in evidence:
        return evidence
    at = f"`{line[3]}` at {ctx.where(line[0], line[1], line[2])}"
    return f"{evidence}; {at}" if evidence else at


def frame_target_hint(ctx: ErrorContext, pair: list[str]) -> str:
    """The hint when the labels are a DataFrame whose columns are one of the two widths: its
    columns named, and both fixes (drop the columns that are not targets, or more units)."""
    call = ctx.evidence.call
    y = call.arg(1, "y") if call is not None else None
    if y is None or y.kind != "dataframe" or not y.keys or len(pair) != 2:
        return ""
    widths = [p.strip("[]").split(",")[-1].strip() for p in pair]
    if str(len(y.keys)) not in widths:
        return ""
    units = next((w for w in widths if w != str(len(y.keys))), "?")
    shown = ", ".join(f"'{k}'" for k in y.keys[:8])
    return (
        f"`{y.text}` holds {len(y.keys)} columns ({shown}) and the output has {units} units: "
        f"drop the columns that are not targets (`{y.text} = df[[...the {units} targets...]]`), "
        f"or give the output {len(y.keys)} units if all of them are"
    )
