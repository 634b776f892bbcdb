"""Where a spatial size came from, for merges and windows: the chains of
:mod:`tfnb_debug.explain._lineage` read into fixes.

A merge layer (``Concatenate``, ``Add``, ``Multiply``, ``Dot``) needs its inputs to
agree on every axis but the one it joins (element-wise merges on all of them); a
window (a convolution's kernel, a pooling) needs a map at least its size.  Each check
traces the axis that disagrees back through the model graph (the stride, pool,
padding, upsampling, cropping of every layer on the path) and names the layer and the
argument where the wrong size entered: the layer that rounded an odd size, the
``valid`` padding that removed pixels, the transposed convolution that needs
``output_padding``, the cropping counted twice, the units that set a width."""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._violation import (
    Violation,
    fmt,
    is_a,
    items_of,
    shape_of,
)


def differing_axis(shapes: list[tuple[int | None, ...]], skip: int | None) -> int | None:
    rank = len(shapes[0])
    for axis in range(1, rank):
        if skip is not None and axis == skip % rank:
            continue
        sizes = {s[axis] for s in shapes if s[axis] is not None}
        if len(sizes) > 1:
            return axis
    return None


def size_fix(chains: list[tuple[Any, ...]], target: str, want: int | None) -> str:
    """The fix a chain of axis sizes supports: the layer that rounded an odd size, the layer whose
    ``valid`` padding changed it, the layer whose units set it, or that nothing on the paths did."""
    from tfnb_debug.explain._lineage import has_shrinking_layer, rounding_step, total_factor

    for chain in chains:
        transposed = _output_padding(chain, want)
        if transposed:
            return transposed
    for chain in chains:
        found = rounding_step(chain)
        if found is not None:
            step, before = found
            factor = total_factor(chain)
            start = chain[0].size
            multiple = (
                -(-start // factor) * factor if isinstance(start, int) and factor > 1 else None
            )
            if multiple == start:  # the input already is one: the rounding came from padding
                multiple = None
            return (
                f"{step.class_name} '{step.layer}' divides {before} (odd) by {step.stride} and "
                f"rounds to {step.size} ({step.rounds(before)}), so the way back up does not "
                f"return to the same size: use an input size that is a multiple of {factor}"
                + (f" (e.g. {multiple} instead of {start})" if multiple else "")
                + f", or crop/pad one side to match before {target} (Cropping2D / ZeroPadding2D, "
                "or keras.layers.Resizing)"
            )
    for chain in chains:
        valid = _valid_steps(chain)
        if valid:
            shown = ", ".join(f"{s.class_name} '{s.layer}' {b} -> {s.size}" for s, b in valid[:3])
            return (
                f"padding='valid' changes the size where a kernel of more than 1 does not fit "
                f"exactly: {shown}; use padding='same' there (a stride-s layer then divides or "
                "multiplies by s exactly), or crop/pad to match"
            )
    for chain in chains:
        strided = _strided_steps(chain)
        size = chain[-1].size if chain else None
        if strided and isinstance(want, int) and isinstance(size, int) and want > size:
            shown = ", ".join(
                f"{s.class_name} '{s.layer}' {b} -> {s.size} (stride {s.stride})"
                for s, b in strided[:4]
            )
            up_by = want // size if want % size == 0 else None
            them = "them" if len(strided) > 1 else "it"
            up = (
                f"upsample by {up_by} after {them} (UpSampling with size {up_by}, or a "
                f"Conv*Transpose with strides {up_by})"
                if up_by
                else f"upsample back to {want} after {them}"
            )
            return (
                f"the strides on the path divide this axis from {chain[0].size} to {size}: "
                f"{shown}; to give {target} the labels' {want}, {up}, or remove the downsampling"
            )
    for chain in chains:
        last = chain[-1] if chain else None
        units = _units_of(last)
        if last is not None and units is not None and want is not None and units != want:
            return f"{last.class_name} '{last.layer}' makes this axis with {units} units; give it {want}"
    if not any(has_shrinking_layer(c) for c in chains):
        starts = ", ".join(f"{c[0].size} at {c[0].layer}" for c in chains if c)
        return (
            "no layer on the path has a stride or 'valid' padding; the sizes differ from where "
            f"the path starts ({starts}): give {target} tensors of the same size"
        )
    return ""


def _output_padding(chain: tuple[Any, ...], want: int | None) -> str:
    """A Conv*Transpose at the end of the path that lands 1..stride-1 short of the size wanted:
    its ``output_padding`` adds exactly that (a strided layer on the way down rounded down)."""
    last = chain[-1] if chain else None
    if last is None or "Transpose" not in last.class_name or not isinstance(want, int):
        return ""
    short = want - (last.size or 0)
    if not 0 < short < last.upsample:
        return ""
    return (
        f"{last.class_name} '{last.layer}' gives {last.size} where {want} is needed: a strided "
        f"layer on the way down rounded an odd size, and a transposed convolution cannot know "
        f"it; set output_padding={short} on '{last.layer}' (or crop/pad the input to a size the "
        "strides divide exactly)"
    )


def _cropping_fix(chains: list[tuple[Any, ...]], sizes: list[int | None]) -> str:
    """A Cropping layer on one branch whose amount was computed as the whole difference: an int
    crops that many rows on each side, so it removes twice the amount."""
    for index, chain in enumerate(chains):
        last = chain[-1] if chain else None
        if last is None or not last.class_name.startswith("Cropping") or len(chain) < 2:
            continue
        before = chain[-2].size
        others = [s for i, s in enumerate(sizes) if i != index and isinstance(s, int)]
        if not isinstance(before, int) or not others or not isinstance(last.size, int):
            continue
        want = others[0]
        total = before - want
        removed = before - last.size
        if total <= 0 or removed == total:
            continue
        per_side = total // 2
        pair = f"({per_side}, {total - per_side})"
        return (
            f"{last.class_name} '{last.layer}' removes {removed} ({before} -> {last.size}): an int "
            f"`cropping` crops that many rows on each side, twice over; to go from {before} to "
            f"{want} crop {total} in all, cropping={per_side if total % 2 == 0 else pair} per "
            "side"
        )
    return ""


def _valid_steps(chain: tuple[Any, ...]) -> list[tuple[Any, int | None]]:
    """Layers whose padding='valid' (a kernel > 1) changed the size on this axis: the size
    differs from the one padding='same' gives (ceil of size / stride), so a pooling or strided
    layer that only divides by its stride is not one."""
    out = []
    before = chain[0].size if chain else None
    for step in chain[1:]:
        if step.padding == "valid" and step.kernel > 1 and step.changes(before):
            same = -(-before // max(step.stride, 1)) if isinstance(before, int) else None
            if same != step.size:
                out.append((step, before))
        before = step.size if step.size is not None else before
    return out


def _strided_steps(chain: tuple[Any, ...]) -> list[tuple[Any, int | None]]:
    """Layers that divided the size on this axis by a stride (or pool size) > 1."""
    out = []
    before = chain[0].size if chain else None
    for step in chain[1:]:
        if step.stride > 1 and step.changes(before):
            out.append((step, before))
        before = step.size if step.size is not None else before
    return out


def _units_of(step: Any) -> int | None:
    """The ``units``/``filters`` of the layer that made a step (the feature axis' size)."""
    value = getattr(step, "units", 0)
    return int(value) if isinstance(value, int) and value > 0 else None


def merge_shapes(call: LiveCall, exc: BaseException) -> Violation | None:
    """A merge layer (Concatenate, Add, ...) on branches whose sizes differ: each branch's chain."""
    from tfnb_debug.explain._lineage import axis_chain, fmt_chain

    inputs = items_of(call.value("inputs"))
    if call.method != "__call__" or not inputs or len(inputs) < 2:
        return None
    shapes = [shape_of(t) for t in inputs]
    if any(s is None for s in shapes):
        return None
    known = [s for s in shapes if s is not None]
    if is_a(call.receiver, "Dot"):
        return _dot_axes(call, known)
    if len({len(s) for s in known}) != 1:
        return _merge_ranks(call, inputs, known)
    skip = getattr(call.receiver, "axis", None) if is_a(call.receiver, "Concatenate") else None
    axis = differing_axis(known, skip)
    if axis is None:
        return None
    if axis == len(known[0]) - 1:
        return _merge_widths(call, inputs, known, axis)
    chains = [axis_chain(t, axis) for t in inputs]
    if not all(chains):
        return None
    name = getattr(call.receiver, "name", "the merge layer")
    sizes = ", ".join(str(s[axis]) for s in known)
    evidence = "; ".join(f"branch {i + 1}: {fmt_chain(c)}" for i, c in enumerate(chains))
    fix = _cropping_fix(chains, [s[axis] for s in known]) or size_fix(chains, f"'{name}'", None)
    if not fix:
        return None  # a whole factor between the branches: the message rule names the strides
    return Violation(
        "S01",
        call.text("inputs"),
        f"{type(call.receiver).__name__} '{name}' gets inputs of sizes {sizes} on axis {axis} "
        f"(shapes {', '.join(fmt(s) for s in known)})",
        fix,
        evidence=f"axis {axis}: {evidence}",
    )


def _width_source(tensor: Any, axis: int) -> tuple[str, str, int] | None:
    """(layer, class, units) of the layer on the tensor's path that set its last axis."""
    from tfnb_debug.explain._lineage import axis_chain

    for step in reversed(axis_chain(tensor, axis)):
        if step.units:
            return step.layer, step.class_name, step.units
        if step.class_name == "InputLayer":
            return step.layer, step.class_name, step.size or 0
    return None


def _merge_widths(
    call: LiveCall, inputs: list[Any], shapes: list[tuple[int | None, ...]], axis: int
) -> Violation | None:
    """Element-wise merge (Add, Multiply, ...) of branches whose feature widths differ: the layer
    that set each width, and the units that make them agree."""
    sources = [_width_source(t, axis) for t in inputs]
    if any(s is None for s in sources):
        return None
    known = [s for s in sources if s is not None]
    widths = [s[2] for s in known]
    if len(set(widths)) < 2:
        return None
    kind = type(call.receiver).__name__
    name = getattr(call.receiver, "name", "the merge layer")
    want = max(widths)
    narrow = [s for s in known if s[2] != want and s[1] != "InputLayer"]
    made = "; ".join(f"{cls} '{layer}' gives {units}" for layer, cls, units in known)
    if narrow:
        layer, cls, units = narrow[0]
        if "Conv" in cls:
            conv = "Conv1D" if "1D" in cls else "Conv3D" if "3D" in cls else "Conv2D"
            hint = (
                f"give {cls} '{layer}' filters={want} (it gives {units}), or project that branch "
                f"to {want} channels with a 1x1 {conv}({want}) before the {kind}, so every "
                f"branch has {want} channels"
            )
        else:
            hint = (
                f"give {cls} '{layer}' units={want} (it gives {units}), so every branch has "
                f"{want} features; or, if {units} is the size you want, change the other branch "
                f"to {units}"
            )
    else:
        hint = f"make every branch give the same number of features ({', '.join(map(str, widths))} now)"
    if kind == "Concatenate":
        joined = getattr(call.receiver, "axis", -1)
        return Violation(
            "S01",
            call.text("inputs"),
            f"Concatenate '{name}' joins its inputs along axis {joined}, so every other axis "
            f"must agree, but their last axes differ: {', '.join(fmt(s) for s in shapes)}",
            "to stack the features of both, join along the last axis: Concatenate(axis=-1); "
            f"to join along axis {joined}, give both branches the same width",
            evidence=f"the last axis is set by: {made}",
        )
    return Violation(
        "S01",
        call.text("inputs"),
        f"{kind} '{name}' combines its inputs element by element, but their last axes differ: "
        f"{', '.join(fmt(s) for s in shapes)}",
        hint,
        evidence=f"the last axis is set by: {made}",
    )


def _merge_ranks(
    call: LiveCall, inputs: list[Any], shapes: list[tuple[int | None, ...]]
) -> Violation | None:
    """Branches of different ranks: the extra axes of the higher-rank one, and where they come
    from (an Embedding over one id keeps a length-1 sequence axis)."""
    low = min(len(s) for s in shapes)
    index = max(range(len(shapes)), key=lambda i: len(shapes[i]))
    high = shapes[index]
    extra = high[1 : len(high) - low + 1]
    history = getattr(inputs[index], "_keras_history", None)
    producer = getattr(history, "operation", None)
    made = (
        f" made by {type(producer).__name__} '{producer.name}'"
        if producer is not None and hasattr(producer, "name")
        else ""
    )
    kind = type(call.receiver).__name__
    name = getattr(call.receiver, "name", "the merge layer")
    ones = all(d == 1 for d in extra)
    if ones:
        hint = (
            f"Flatten() (or Reshape(({high[-1]},))) the {fmt(high)} branch before the {kind}, "
            f"so it drops its axes of size 1"
            + (
                "; an Embedding of one id per example keeps a sequence axis of length 1"
                if "Embedding" in made
                else ""
            )
        )
    elif (
        producer is not None
        and getattr(producer, "return_sequences", False)
        and len(high) == low + 1
    ):
        hint = (
            f"{type(producer).__name__} '{producer.name}' returns its whole sequence "
            f"(return_sequences=True): set return_sequences=False to merge its last output, or "
            f"pool the sequence (GlobalAveragePooling1D) before the {kind}"
        )
    else:
        hint = (
            f"bring both branches to the same rank before the {kind}: Flatten() or a pooling "
            f"layer (GlobalAveragePooling) on the {fmt(high)} branch, or RepeatVector/Reshape on "
            "the other"
        )
    return Violation(
        "S01",
        call.text("inputs"),
        f"{kind} '{name}' gets inputs of different ranks: {fmt(high)}{made} against "
        f"{', '.join(fmt(s) for i, s in enumerate(shapes) if i != index)}",
        hint,
        evidence=f"extra axes {fmt(extra)} on input {index + 1}",
    )


def _dot_axes(call: LiveCall, shapes: list[tuple[int | None, ...]]) -> Violation | None:
    """``Dot(axes=...)`` naming an axis the inputs do not have."""
    axes = getattr(call.receiver, "axes", None)
    raw = list(axes) if isinstance(axes, list | tuple) else [axes]
    given = [a for a in raw if isinstance(a, int)]
    if len(given) != len(raw):
        return None
    per_input = given * len(shapes) if len(given) == 1 else given
    bad = [(a, s) for a, s in zip(per_input, shapes, strict=False) if not -len(s) <= a < len(s)]
    if not bad:
        return _dot_sizes(call, per_input, shapes)
    axis, shape = bad[0]
    last = len(shape) - 1
    return Violation(
        "S01",
        call.text("inputs"),
        f"Dot(axes={axes}) names axis {axis}, but its inputs {', '.join(fmt(s) for s in shapes)} "
        f"have rank {len(shape)} (axes 0..{last}, 0 being the batch)",
        f"use Dot(axes={last}) to take the dot product over the feature axis of the "
        f"{fmt(shape)} vectors"
        + (" (axes=2 is for (batch, steps, features) sequences)" if axis == 2 else ""),
    )


_SHRUNK = re.compile(r"would be zero or negative|Negative dimension size")


def shrunk_input(call: LiveCall, exc: BaseException) -> Violation | None:
    """A layer whose spatial input shrank below its window: the sizes along the path, and the
    layers that removed pixels (``valid`` convolutions) or divided the size (strides, pooling)."""
    from tfnb_debug.explain._lineage import axis_chain, fmt_chain

    if call.method != "__call__" or not _SHRUNK.search(str(exc)):
        return None
    inputs = call.value("inputs")
    shape = shape_of(inputs)
    if shape is None or len(shape) < 3 or not hasattr(inputs, "_keras_history"):
        return None
    chain = axis_chain(inputs, 1)
    if len(chain) < 2:
        return None
    valid = _valid_steps(chain)
    strided = _strided_steps(chain)
    name = getattr(call.receiver, "name", "the layer")
    kind = type(call.receiver).__name__
    start, size = chain[0].size, chain[-1].size
    if valid:
        lost = sum((b or 0) - (st.size or 0) for st, b in valid if st.stride == 1)
        shown = ", ".join(f"'{st.layer}' {b} -> {st.size}" for st, b in valid[:4])
        more = f" and {len(valid) - 4} more" if len(valid) > 4 else ""
        fix = (
            f"the convolutions use the default padding='valid', so each k x k one removes k - 1 "
            f"pixels ({shown}{more}; {lost} in all at stride 1): use padding='same' in them, and "
            f"the size is only divided by the poolings"
        )
    elif strided:
        fix = (
            f"{len(strided)} strided or pooling layers divide {start} down to {size}: use fewer "
            f"of them for this input size, or a larger input"
        )
        others = [d for d in shape[2:-1] if d is not None]
        if others and min(others) >= 2 * (start or 0):
            # the short axis runs out while the others are still large: pool only those
            keep = "(" + ", ".join(["1"] + ["2"] * len(others)) + ")"
            fix = (
                f"axis 1 is the short one ({start}, while the others are still "
                f"{', '.join(str(d) for d in others)} here): {len(strided)} strided or pooling "
                f"layers divide it down to {size}; pool the other axes only, pool_size={keep} "
                f"(strides={keep}) in those layers, or use fewer of them"
            )
    else:
        return None
    return Violation(
        "S01",
        call.text("inputs"),
        f"{kind} '{name}' gets a map of {fmt(shape)}: too small for its window after the layers "
        f"before it shrank {start} to {size}",
        fix,
        evidence=f"axis 1: {fmt_chain(chain)}",
    )


# image preprocessing layers that also take one unbatched image (height, width, channels): given
# a (batch, height, width) tensor they read it as one image and hand on a rank-3 result, so the
# layer that raises later (a Conv2D) is not where the axis went missing
_IMAGE_LAYERS = re.compile(
    r"^(Resizing|CenterCrop|Random(Flip|Rotation|Zoom|Crop|Translation|Contrast|Brightness))$"
)


def image_input_without_channels(call: LiveCall, exc: BaseException) -> Violation | None:
    """A Sequential whose ``Input`` is (height, width) feeding image preprocessing layers, which
    take (batch, height, width, channels): grayscale images without their channel axis."""
    layers = items_of(call.value("layers"))
    if not layers:
        return None
    first = layers[0]
    shape = shape_of(first) if not is_a(first, "Layer") else None
    if shape is None and is_a(first, "InputLayer"):
        shape = shape_of(getattr(first, "output", None))
    if shape is None or len(shape) != 3:
        return None
    image = next((layer for layer in layers[1:] if _IMAGE_LAYERS.match(type(layer).__name__)), None)
    if image is None:
        return None
    height, width = shape[1], shape[2]
    return Violation(
        "S01",
        "keras.Input",
        f"the model's input is {fmt(shape)}, (batch, height, width) with no channel axis, but "
        f"{type(image).__name__} '{image.name}' takes images as (batch, height, width, "
        "channels): it reads the width as the channels and the rest of the model gets shapes "
        "it cannot use",
        f"add the channel axis: `keras.Input(({height}, {width}, 1))`, and give the data that "
        "axis too (`x[..., None]`, or np.expand_dims(x, -1))",
        f"first image layer: {type(image).__name__} '{image.name}'",
    )


def _dot_sizes(
    call: LiveCall, axes: list[int], shapes: list[tuple[int | None, ...]]
) -> Violation | None:
    """``Dot(axes=(i, j))`` over axes whose sizes differ: the axes whose sizes do agree."""
    if len(axes) != 2 or len(shapes) != 2:
        return None
    (a, b), (first, second) = axes, shapes
    size_a, size_b = first[a], second[b]
    if size_a is None or size_b is None or size_a == size_b:
        return None
    pairs = [
        (i, j)
        for i in range(1, len(first))
        for j in range(1, len(second))
        if first[i] is not None and first[i] == second[j]
    ]
    if pairs:
        i, j = pairs[-1]  # the last matching axes: the features, for (batch, steps, features)
        rest = [d for k, d in enumerate(first) if k not in (0, i)] + [
            d for k, d in enumerate(second) if k not in (0, j)
        ]
        result = fmt((None, *rest))
        hint = (
            f"contract axes whose sizes agree: Dot(axes=({i}, {j})) ({first[i]} each) gives "
            f"{result}"
        )
    else:
        hint = "choose axes of equal size in both inputs, or project one input first"
    return Violation(
        "S01",
        call.text("inputs"),
        f"Dot(axes=({a}, {b})) takes the dot product over axis {a} of {fmt(first)} and axis "
        f"{b} of {fmt(second)}, whose sizes differ ({size_a} vs {size_b})",
        hint,
    )
