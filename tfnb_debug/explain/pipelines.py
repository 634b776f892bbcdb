"""tf.data shapes: a step that lost the shape (S10), elements of different shapes batched (S13)."""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext, fmt_shape, parse_shape
from tfnb_debug.explain._evidence import DatasetStage
from tfnb_debug.explain._operands import cell_text
from tfnb_debug.explain._traceback_objects import DatasetInfo
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_UNKNOWN = re.compile(
    r"as_list\(\) is not defined on an unknown TensorShape|"
    r"Cannot take the length of shape with unknown rank"
)
_BATCH_SHAPES = re.compile(
    r"Cannot batch tensors with different shapes in component (\d+)\. First element had shape "
    r"\[([\d,]*)\] and element (\d+) had shape \[([\d,]*)\]"
)
_BATCH_COUNT = re.compile(
    r"Cannot add tensor to the batch: number of elements does not match\. Shapes are: "
    r"\[tensor\]: \[([\d,]*)\], \[batch\]: \[([\d,]*)\]"
)


def _lost_shape(ds: DatasetInfo) -> tuple[int, DatasetStage | None, DatasetStage | None] | None:
    """(component, the stage that lost its shape, the stage before it) for a dataset."""
    unknown = [i for i, s in enumerate(ds.shapes) if s is None]
    if not unknown:
        return None
    component = unknown[0]
    previous: DatasetStage | None = None
    for stage in ds.stages:
        shapes = stage.shapes
        if component < len(shapes) and shapes[component] is None:
            return component, stage, previous
        previous = stage
    return component, None, None


def _role(component: int, count: int) -> str:
    if count in (2, 3) and component < 3:
        return ("the inputs (x)", "the labels (y)", "the sample weights")[component]
    return f"component {component}"


def unknown_shape(ctx: ErrorContext) -> Explained | None:
    """S10: data of unknown rank from tf.data reached a layer or the loss."""
    if _UNKNOWN.search(ctx.text) is None:
        return None
    for ds in ctx.datasets:
        lost = _lost_shape(ds)
        if lost is None:
            continue
        component, stage, previous = lost
        return _s10(ctx, ds, component, stage, previous)
    return None


def _s10(
    ctx: ErrorContext,
    ds: DatasetInfo,
    component: int,
    stage: DatasetStage | None,
    previous: DatasetStage | None,
) -> Explained:
    name = f"dataset `{ds.name}`" if ds.name else "the tf.data dataset given to this call"
    role = _role(component, len(ds.shapes))
    shape = _element_shape(ctx, ds, component, stage, previous)
    shown = fmt_shape(shape) if shape is not None else "(...)"
    if stage is None:
        step = "its source"
        hint = f"give its elements a static shape, e.g. tf.ensure_shape(t, {shown})"
    elif stage.kind == "from_generator":
        gen = f" `{stage.function}`" if stage.function else ""
        step = f"from_generator({stage.function or '...'}) without shapes"
        specs = ", ".join(
            f"tf.TensorSpec(shape={fmt_shape(s) if s is not None else '(...)'}, dtype=tf.{d})"
            for s, d in zip(_signature_shapes(ctx, ds, stage), stage.dtypes, strict=False)
        )
        hint = (
            f"from_generator was given no shapes (output_types alone, or a TensorSpec with "
            f"shape=None), so every element has an unknown shape: pass output_signature=({specs}) "
            f"for the generator{gen}"
        )
    else:
        func_text = (
            f"`{stage.function}`"
            if stage.function and stage.function != "<lambda>"
            else "the mapped function"
        )
        var = "y" if component == 1 and len(ds.shapes) in (2, 3) else "x"
        cause = f"{stage.python} returns" if stage.python else "an op in it returns"
        step = f"{stage.kind}({stage.function or '...'})" + (
            f" with {stage.python}" if stage.python else ""
        )
        wrapped = re.search(
            r"(?:numpy|py)_function\(\s*(?:func=)?(\w+)", cell_text(ctx.user_frames())
        )
        if shape is None and stage.python and wrapped is not None:
            shown = f"<the shape {wrapped.group(1)} returns>"
            cause = f"{stage.python}({wrapped.group(1)}, ...) returns"
        hint = (
            f"{cause} tensors of unknown shape: in {func_text}, restore the shape after it, "
            f"e.g. `{var} = tf.ensure_shape({var}, {shown})` (or {var}.set_shape({shown}))"
        )
        if stage.python == "tf.io.decode_image":
            hint = (
                f"in {func_text}: {_DECODE_IMAGE_FIX}; for batches of one size add "
                f"`{var} = tf.ensure_shape({var}, {shown})` or a resize"
            )
    verb = "have" if role.startswith("the") and "(" in role else "has"
    evidence = f"{name}: {role} {verb} unknown shape after {step}"
    if stage is not None and stage.kind != "from_generator" and previous is not None:
        before = previous.shapes[component] if component < len(previous.shapes) else None
        if before is not None:
            evidence += f" (shape {fmt_shape(before)} before it)"
    return (
        finding(
            "S10",
            f"{role} of {name} {verb} no known shape, so Keras cannot check or build the "
            "model on them",
            place=f"{name}, {step}",
            evidence=evidence,
            hint=hint,
        ),
        (NextStep(text=f"print `{ds.name or 'ds'}.element_spec` after each step of the pipeline"),),
    )


def _batched_after(ds: DatasetInfo, stage: DatasetStage | None) -> bool:
    seen = stage is None
    for item in ds.stages:
        if item is stage:
            seen = True
        elif seen and item.kind in ("batch", "padded_batch", "ragged_batch"):
            return True
    return False


def _element_shape(
    ctx: ErrorContext,
    ds: DatasetInfo,
    component: int,
    stage: DatasetStage | None,
    previous: DatasetStage | None,
) -> tuple[int | None, ...] | None:
    """The shape the element should have at that step: the model's Input, else the shape before."""
    batched = _batched_after(ds, stage)
    if component == 0 and len(ctx.model_inputs) == 1 and ctx.model_inputs[0]:
        expected = ctx.model_inputs[0]
        return expected[1:] if batched else expected
    if stage is not None and stage.python in ("tf.py_function", "tf.numpy_function"):
        return None  # a Python function returns what it returns: the shape before is no guide
    if previous is not None and component < len(previous.shapes):
        return previous.shapes[component]
    return None


def _signature_shapes(
    ctx: ErrorContext, ds: DatasetInfo, stage: DatasetStage
) -> list[tuple[int | None, ...] | None]:
    shapes: list[tuple[int | None, ...] | None] = [None] * len(stage.shapes)
    if shapes and len(ctx.model_inputs) == 1 and ctx.model_inputs[0]:
        expected = ctx.model_inputs[0]
        shapes[0] = expected[1:] if _batched_after(ds, stage) else expected
    return shapes


_DECODE_IMAGE_FIX = (
    "tf.io.decode_image gives no rank (it may return a GIF's frames, 4-D): pass "
    "expand_animations=False (or use tf.io.decode_png / decode_jpeg) so the image is "
    "(height, width, channels)"
)
_NO_SHAPE = re.compile(r"'?(\w+)'? contains no shape")
_SHAPE_LOSERS = (
    ("decode_image", "tf.io.decode_image"),
    ("py_function", "tf.py_function"),
    ("numpy_function", "tf.numpy_function"),
    ("parse_tensor", "tf.io.parse_tensor"),
)


_UNDEFINED_SIZE = re.compile(
    r"Shapes used to initialize variables must be fully-defined|last dimension of the inputs"
    r" to a Dense layer should be defined"
)
_DECODER = re.compile(r"\b(decode_(?:png|jpeg|image))\(([^()]*(?:\([^()]*\))?[^()]*)\)")


def unknown_channels(ctx: ErrorContext) -> Explained | None:
    """S10: a dataset's images have an unknown size on an axis after a map that decodes them
    without ``channels=`` (the decoder cannot know the channels before reading a file)."""
    if _UNDEFINED_SIZE.search(ctx.text) is None:
        return None
    for ds in ctx.datasets:
        first = ds.shapes[0] if ds.shapes else None
        if not first or None not in first[1:]:
            continue
        made = next(
            (st for st in ds.stages if st.shapes and st.shapes[0] and None in st.shapes[0][1:]),
            None,
        )
        decoders = [
            d
            for d in _DECODER.finditer(cell_text(ctx.user_frames()))
            if "channels" not in d.group(2)
        ]
        if made is None or made.kind != "map" or not decoders:
            continue
        call = decoders[0].group(1)
        name = f"dataset `{ds.name}`" if ds.name else "the dataset"
        return (
            finding(
                "S10",
                f"the images of {name} have shape {fmt_shape(first)}: `tf.io.{call}` in "
                f"`{made.function or 'the mapped function'}` was given no `channels=`, so their "
                "channel count is unknown until a file is read, and the model cannot size its "
                "weights",
                place=f"{name}, map({made.function or '...'})",
                evidence=f"element shape {fmt_shape(first)} after map({made.function or '...'}); "
                f"`{decoders[0].group(0)}`",
                hint=f"tell the decoder the channels: `tf.io.{call}(..., channels=3)` (1 for "
                "grayscale), which also makes every image that many channels",
            ),
            (),
        )
    return None


def unknown_shape_in_map(ctx: ErrorContext) -> Explained | None:
    """S10 raised inside a mapped function: an image op got a tensor of unknown rank."""
    match = _NO_SHAPE.search(ctx.text)
    user = ctx.user_code_line()
    if match is None or user is None:
        return None
    filename, lineno, function, source = user
    body = _function_lines(filename, lineno)
    losers = [(word, call) for word, call in _SHAPE_LOSERS if any(word in b for b in body)]
    if not losers:
        return None
    word, call = losers[0]
    line = next(b.strip() for b in body if word in b)
    name = f"`{function}`" if function and function not in ("None", "<lambda>") else "the function"
    hint = (
        f"in {name}: {_DECODE_IMAGE_FIX}"
        if call == "tf.io.decode_image"
        else f"{call} returns a tensor of unknown shape: in {name}, set it right after the call, "
        "e.g. `t = tf.ensure_shape(t, (height, width, channels))`"
    )
    return (
        finding(
            "S10",
            f"'{match.group(1)}' has no known rank in {name}: it comes from {call}",
            place=ctx.where(filename, lineno, "" if function == "None" else function),
            evidence=f"`{source}` after `{line}`",
            hint=hint,
        ),
        (),
    )


def _function_lines(filename: str, lineno: int) -> list[str]:
    """The lines of the function that holds ``lineno``, up to that line (from its ``def``)."""
    from tfnb_debug.explain._traceback_objects import linecache_line

    lines: list[str] = []
    current = linecache_line(filename, lineno)
    indent = len(current) - len(current.lstrip())
    for number in range(lineno, max(lineno - 40, 0), -1):
        text = linecache_line(filename, number)
        lines.append(text)
        stripped = text.lstrip()
        if stripped.startswith(("def ", "async def ")) and len(text) - len(stripped) < indent:
            break
    return lines


# S13 -----------------------------------------------------------------------------------


def _dims(text: str) -> tuple[int | None, ...]:
    return parse_shape("[" + text + "]") or ()


def ragged_batch(ctx: ErrorContext) -> Explained | None:
    """S13: ``batch()`` met elements of different shapes."""
    text = ctx.text
    shapes = _BATCH_SHAPES.search(text)
    count = _BATCH_COUNT.search(text) if shapes is None else None
    if shapes is None and count is None:
        return None
    if shapes is not None:
        component: int | None = int(shapes.group(1))
        a, b = _dims(shapes.group(2)), _dims(shapes.group(4))
        pair = f"{fmt_shape(a)} (element 0) and {fmt_shape(b)} (element {shapes.group(3)})"
    else:
        assert count is not None
        component = None
        a, b = _dims(count.group(1)), _dims(count.group(2))
        pair = f"{fmt_shape(a)} and {fmt_shape(b)}"
    ds, stage = _batching(ctx)
    if component is None and stage is not None:
        varying = [i for i, s in enumerate(stage.shapes) if s is None or any(d is None for d in s)]
        component = varying[0] if len(varying) == 1 else None
    name = f"dataset `{ds.name}`" if ds is not None and ds.name else "the dataset"
    what = (
        _role(component, len(stage.shapes) if stage is not None else 1)
        if component is not None
        else "a component"
    )
    size = next(
        (s.batch_size for s in (ds.stages if ds else ()) if s.kind == "batch" and s.batch_size),
        None,
    )
    b_text = str(size) if size else "batch_size"
    declared = ctx.model_inputs[0] if len(ctx.model_inputs) == 1 else None  # the model's one Input
    if len(a) >= 3 or len(b) >= 3:
        target = declared[1:3] if declared else None
        size_text = (
            f"({target[0]}, {target[1]})"
            if target and len(target) == 2 and all(isinstance(t, int) for t in target)
            else "(height, width)"
        )
        # ragged batches fit only a model whose Input leaves the image size open
        open_size = target is not None and any(t is None for t in target)
        hint = (
            f"the images have different sizes: resize them in the map before batch(), e.g. "
            f"`image = tf.image.resize(image, {size_text})`"
            + (f", or use .ragged_batch({b_text})" if open_size else "")
        )
    else:
        # a model whose Input fixes the length takes neither batches padded to their longest
        # element (a length per batch) nor ragged ones: the elements need that one length
        fixed = declared[1] if declared and len(declared) > 1 else None
        hint = (
            f"the sequences have different lengths and the model's Input takes {fixed} steps: "
            f"pad or cut each to {fixed} in the map before batch() (or, when none is longer, "
            f".padded_batch({b_text}, padded_shapes=...) with {fixed} on that axis)"
            if isinstance(fixed, int)
            else f"the sequences have different lengths: replace .batch({b_text}) with "
            f".padded_batch({b_text}) (pads with 0, or padding_values=...) or "
            f".ragged_batch({b_text}), or pad/cut them to one length in the map"
        )
    window = next(
        (s for s in (ds.stages if ds else ()) if s.kind == "window" and s.drop_remainder is False),
        None,
    )
    if window is not None:
        # windows that start near the end hold fewer elements: the shorter ones are the cause,
        # padding them would train on windows that run past the data
        hint = (
            f"`window({window.batch_size or 'size'}, ...)` without `drop_remainder=True` ends "
            "with shorter windows (those starting near the end of the data): pass "
            "`drop_remainder=True` to window() so every window is full"
        )
    evidence = f"shapes {pair}"
    if ds is not None and stage is not None and component is not None:
        before = stage.shapes[component] if component < len(stage.shapes) else None
        if before is not None:
            evidence += f"; element_spec before batch: {fmt_shape(before)}"
    return (
        finding(
            "S13",
            f"batch() combined elements of different shapes in {what} of {name}: {pair}",
            place=f"{name}, batch()",
            evidence=evidence,
            hint=hint,
        ),
        (),
    )


_PAD_SMALLER = "Attempted to pad to a smaller size than the input element"


def padded_too_small(ctx: ErrorContext) -> Explained | None:
    """S13: ``padded_batch``'s fixed ``padded_shapes`` is shorter than an element (at iteration)."""
    if _PAD_SMALLER not in ctx.text:
        return None
    for ds in ctx.datasets:
        before: DatasetStage | None = None
        for stage in ds.stages:
            fixed = [
                (i, shape)
                for i, shape in enumerate(stage.padded)
                if any(d is not None for d in shape)
            ]
            if stage.kind != "padded_batch" or not fixed:
                before = stage
                continue
            component, shape = fixed[0]
            element = (
                before.shapes[component] if before and component < len(before.shapes) else None
            )
            what = _role(component, len(stage.padded)) if len(stage.padded) > 1 else "the elements"
            name = f"dataset `{ds.name}`" if ds.name else "the dataset"
            longest = "[" + ", ".join("None" for _ in shape) + "]"
            cut = ", ".join(":" if d is None else f":{d}" for d in shape)
            evidence = f"padded_shapes {fmt_shape(shape)} for {what}"
            if element is not None:
                evidence += f"; their shape before padded_batch: {fmt_shape(element)}"
                if any(e is None for e, d in zip(element, shape, strict=False) if d is not None):
                    evidence += " (the length varies, so some are longer)"
            names = [f"c{i}" for i in range(len(stage.padded))] if len(stage.padded) > 1 else ["t"]
            cut_parts = [f"{n}[{cut}]" if i == component else n for i, n in enumerate(names)]
            result = cut_parts[0] if len(names) == 1 else f"({', '.join(cut_parts)})"
            given = longest if len(names) == 1 else f"{longest} for {what}"
            hint = (
                f"pad each batch to its longest element with padded_shapes={given}, or cut "
                f"every element to {fmt_shape(shape)} with a map before padded_batch, e.g. "
                f"`.map(lambda {', '.join(names)}: {result})`"
            )
            return (
                finding(
                    "S13",
                    f"padded_batch() of {name} pads {what} to a fixed {fmt_shape(shape)}, but an "
                    "element is longer: padding cannot shorten it",
                    place=f"{name}, padded_batch()",
                    evidence=evidence,
                    hint=hint,
                ),
                (),
            )
    return None


def _batching(ctx: ErrorContext) -> tuple[DatasetInfo | None, DatasetStage | None]:
    """The dataset with a batch() step and the stage just before its batch()."""
    for ds in ctx.datasets:
        previous = None
        for stage in ds.stages:
            if stage.kind == "batch":
                return ds, previous
            previous = stage
    return (ctx.datasets[0], None) if ctx.datasets else (None, None)


_GENERATOR_SHAPE = re.compile(
    r"`generator` yielded an element of shape (\([^)]*\)) where an element of shape "
    r"(\([^)]*\)) was expected"
)


def generator_shape(ctx: ErrorContext) -> Explained | None:
    """S13: ``from_generator``'s ``output_signature`` fixes a size the generator varies."""
    found = _GENERATOR_SHAPE.search(ctx.text)
    if found is None:
        return None
    got, declared = _dims(found.group(1).strip("()")), _dims(found.group(2).strip("()"))
    if len(got) != len(declared):
        hint = (
            f"the generator yields rank {len(got)} where the signature declares rank "
            f"{len(declared)}: make output_signature's shape {fmt_shape(got)} with None on the "
            "axes that vary, or reshape what the generator yields"
        )
        varying: list[int] = []
    else:
        varying = [i for i, (g, d) in enumerate(zip(got, declared, strict=True)) if g != d]
        open_shape = tuple(None if i in varying else d for i, d in enumerate(declared))
        hint = (
            f"declare the axes that vary as None: output_signature=tf.TensorSpec(shape="
            f"{fmt_shape(open_shape)}, ...), then batch the elements with padded_batch (or "
            "ragged_batch), or pad/crop to one length inside the generator"
        )
    axes = ", ".join(str(i) for i in varying)
    return (
        finding(
            "S13",
            f"the generator yielded an element of shape {fmt_shape(got)}, but output_signature "
            f"declares {fmt_shape(declared)}"
            + (f": the elements' length varies on axis {axes}" if varying else ""),
            place="tf.data.Dataset.from_generator",
            evidence=f"yielded {fmt_shape(got)}, declared {fmt_shape(declared)}",
            hint=hint,
        ),
        (),
    )


_PARSE_SHAPE = re.compile(
    r"Key: (\w+)\.\s+Can't parse serialized Example(?:: Some (\w+) slice was not parsed)?"
)
_PARSE_DTYPE = re.compile(
    r"Key: (\w+)\.\s+Data types don't match\. Data type: (\w+) but expected type: (\w+)"
)
_PARSE_SIZE = re.compile(
    r"Key: (\w+), Index: (\d+)\.\s+Number of (\w+) values != expected\.\s+"
    r"Values size: (\d+) but output shape: (\[[^\]]*\])"
)
_FEATURE_LISTS = {
    "float_list": "tf.train.FloatList",
    "int64_list": "tf.train.Int64List",
    "bytes_list": "tf.train.BytesList",
}


def parsed_example(ctx: ErrorContext) -> Explained | None:
    """S07 / S11: ``tf.io.parse_(single_)example`` given a feature spec that does not fit what
    the records hold: a FixedLenFeature shape other than the stored list's length, or another
    dtype than the list the feature was written as."""
    dtype = _PARSE_DTYPE.search(ctx.text)
    if dtype is not None:
        key, stored, declared = dtype.groups()
        stored_tf = {"float": "tf.float32", "int64": "tf.int64", "string": "tf.string"}
        return (
            finding(
                "S11",
                f"feature '{key}' is stored as {stored} in the records, but the parsing spec "
                f"reads it as {declared}",
                place=f"feature '{key}' of tf.io.parse_example",
                evidence=ctx.key_sentence(),
                hint=f"declare the dtype the records store in the spec, "
                f"`tf.io.FixedLenFeature(shape, {stored_tf.get(stored, stored)})`",
            ),
            (),
        )
    shape = _PARSE_SHAPE.search(ctx.text)
    sized = _PARSE_SIZE.search(ctx.text) if shape is None else None
    if shape is None and sized is None:
        return None
    if shape is not None:
        key, kind, length = shape.group(1), shape.group(2), "n"
    else:
        assert sized is not None
        key, kind, length = sized.group(1), f"{sized.group(3)}_list", sized.group(4)
    stored = f" ({_FEATURE_LISTS.get(kind, kind)})" if kind else ""
    held = f" of {length} values" if length != "n" else ""
    # one record's length is known (the message's), not whether the others share it: the
    # spec is told that length; a varying one would show in the next record's error
    return (
        finding(
            "S07",
            f"feature '{key}' holds a list{stored}{held} whose length does not fit the shape "
            "its FixedLenFeature declares (a shape of [] reads exactly one value, [n] exactly n)",
            place=f"feature '{key}' of tf.io.parse_example",
            evidence=ctx.key_sentence(),
            hint=f"declare the stored length in the spec, `tf.io.FixedLenFeature([{length}], "
            f"dtype)` for '{key}'"
            + (" (n: the number of values each record holds)" if length == "n" else ""),
        ),
        (),
    )
