"""Data errors: ids past an Embedding (S09), unknown shapes from tf.data (S10), arguments that do
not fit the model's inputs (S12), elements of different shapes batched together (S13)."""

from __future__ import annotations

import re

from tfnb_debug.explain._context import DatasetInfo, ErrorContext, fmt_shape, parse_shape
from tfnb_debug.explain._evidence import Arg, CallInfo, DatasetStage
from tfnb_debug.explain.report import NextStep
from tfnb_debug.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_INDEX = re.compile(r"indices\[([\d,]*)\] = (-?\d+) is not in \[0, (\d+)\)")
_UNKNOWN = re.compile(
    r"as_list\(\) is not defined on an unknown TensorShape|"
    r"Cannot take the length of shape with unknown rank"
)
_CARDINALITY = re.compile(
    r"Data cardinality is ambiguous\..*?'x' sizes: ([\d, ]*)\n'y' sizes: ([\d, ]*)"
    r"(?:\n'sample_weight' sizes: ([\d, ]*))?",
    re.S,
)
_COUNT = re.compile(
    r'Layer "([^"]+)" expects (\d+) (?:named input\(s\) with keys (\[[^\]]*\])|input\(s\)),'
    r" but it received (\d+) input tensors"
)
_MISSING_KEY = re.compile(
    r'Missing data for input "([^"]+)"\. You passed a data dictionary with keys (\[[^\]]*\])\. '
    r"Expected the following keys: (\[[^\]]*\])"
)
_FORMAT = re.compile(r"Data is expected to be in format `x`, `\(x,\)`, `\(x, y\)`")
_NONE_VALUES = "None values not supported"
_BATCH_SHAPES = re.compile(
    r"Cannot batch tensors with different shapes in component (\d+)\. First element had shape "
    r"\[([\d,]*)\] and element (\d+) had shape \[([\d,]*)\]"
)
_BATCH_COUNT = re.compile(
    r"Cannot add tensor to the batch: number of elements does not match\. Shapes are: "
    r"\[tensor\]: \[([\d,]*)\], \[batch\]: \[([\d,]*)\]"
)
_NAMES = re.compile(r"'([^']*)'")


def _scope_layer(ctx: ErrorContext, names: list[str]) -> str | None:
    """The Embedding named by the failing node's scope (``model/emb_1/GatherV2`` -> ``emb``)."""
    node = ctx.node()
    if not node:
        return None
    parts = node.split("/")[:-1]
    for part in reversed(parts):
        if part in names:
            return part
    for part in reversed(parts):
        base = re.sub(r"_\d+$", "", part)
        if base in names:
            return base
    return None


def _ids_arg(call: CallInfo | None, size: int) -> Arg | None:
    """The integer data of the failing call whose range reaches past ``size`` (or below 0)."""
    if call is None:
        return None
    first = call.arg(0, "x") or call.arg(0, "inputs")
    candidates = [first] if first is not None else []
    if first is not None and first.kind in ("tuple", "list", "dict"):
        candidates = list(first.items)
    for arg in candidates:
        if (
            arg is not None
            and arg.dtype.startswith(("int", "uint"))
            and arg.high is not None
            and arg.low is not None
            and (arg.high >= size or arg.low < 0)
        ):
            return arg
    return None


def index_out_of_range(ctx: ErrorContext) -> Explained | None:
    """S09: an Embedding (or a gather) got an id outside [0, input_dim)."""
    match = _INDEX.search(ctx.text)
    if match is None:
        return None
    value, size = int(match.group(2)), int(match.group(3))
    embeddings = dict(ctx.evidence.embeddings)
    layer = _scope_layer(ctx, list(embeddings))
    if layer is None:
        eager = [name for name, cls in ctx.layers if cls == "Embedding"]
        layer = eager[0] if eager else None
    if layer is None:
        sized = [name for name, dim in embeddings.items() if dim == size]
        layer = sized[0] if len(sized) == 1 else None
    data = _ids_arg(ctx.evidence.call, size)
    low = int(data.low) if data is not None and data.low is not None else None
    high = int(data.high) if data is not None and data.high is not None else None
    word = ("id", "ids") if layer is not None else ("index", "indices")
    evidence = f"{word[0]} {value} at indices[{match.group(1)}], valid {word[1]} 0..{size - 1}"
    if data is not None:
        evidence += f"; {word[1]} in `{data.text}` run from {low} to {high}"
    if layer is None:
        return _gather_out_of_range(ctx, value, size, evidence, low)
    vocab = [
        (n, v) for n, v in ctx.evidence.vocabularies if v > size and (high is None or v > high)
    ]
    if len(vocab) == 1:
        name, v = vocab[0]
        evidence += f"; `{name}` has vocabulary_size() {v}"
        hint = (
            f"if these ids come from `{name}`: its ids run to {v - 1} (they count the padding "
            f"and OOV tokens), more than '{layer}' has rows; set input_dim = max id + 1 = "
            f"{name}.vocabulary_size() = {v}"
        )
    elif low is not None and low < 0:
        hint = (
            f"negative ids ({low}) are not rows of '{layer}': map padding or unknown markers to a "
            f"reserved id (e.g. 0) before the model"
        )
    elif high is not None and low == 1 and high == size:
        hint = (
            f"the ids start at 1 and reach {high}, so id {high} needs row {high}: set "
            f"input_dim = max id + 1 = {high + 1} (row 0 then serves padding), or subtract 1 from "
            "the ids"
        )
    elif high is not None:
        hint = (
            f"the ids go up to {high} but '{layer}' has input_dim={size}: set input_dim = max id "
            f"+ 1 = {high + 1}, or re-index the ids to 0..{size - 1}"
        )
    elif value == size:
        hint = (
            f"id {value} equals input_dim: ids must be below it, so input_dim = max id + 1 "
            "(ids that start at 1, or a vocabulary size without the padding/OOV slot, need one "
            f"more row: at least {size + 1}), or re-index the ids to 0..{size - 1}"
        )
    else:
        hint = (
            f"the ids reach at least {value}: set input_dim = max id + 1 (at least {value + 1}; "
            f"check the largest id with np.max), or re-index the ids to 0..{size - 1}"
        )
    return (
        finding(
            "S09",
            f"Embedding '{layer}' has input_dim={size} (ids 0..{size - 1}) but got id {value}",
            place=f"layer '{layer}'",
            evidence=evidence,
            hint=hint,
        ),
        (
            NextStep(
                text="compare the data's id range with the layer: `ids.min(), ids.max()` against "
                "input_dim (a GPU gives zeros for such ids instead of failing)"
            ),
        ),
    )


def _gather_out_of_range(
    ctx: ErrorContext, value: int, size: int, evidence: str, low: int | None
) -> Explained:
    op = ctx.eager_op() or (ctx.node() or "").rpartition("/")[2] or "a gather"
    user = ctx.user_code_line()
    place = f"op {op}"
    if user is not None:
        place += f" at {ctx.where(user[0], user[1], user[2])}"
        if user[3]:
            evidence += f"; `{user[3]}`"
    if value < 0:
        hint = (
            f"index {value} is negative: tf.gather does not wrap negative indices; map them to "
            f"0..{size - 1} (or mask them) first"
        )
    else:
        hint = (
            f"index {value} is past the {size} rows it indexes: the indices must be below {size}; "
            "re-index them, or index a tensor with more rows (max index + 1)"
        )
    del low
    return (
        finding(
            "S09",
            f"{op} got index {value}, outside [0, {size})",
            place=place,
            evidence=evidence,
            hint=hint,
        ),
        (),
    )


# S10 -----------------------------------------------------------------------------------


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
    from tfnb_debug.explain._context import linecache_line

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


# S12 -----------------------------------------------------------------------------------


def _sizes(text: str | None) -> list[int]:
    return [int(s) for s in (text or "").replace(" ", "").split(",") if s.isdigit()]


def _flat(arg: Arg | None) -> list[Arg]:
    if arg is None:
        return []
    if arg.kind in ("tuple", "list", "dict"):
        return list(arg.items)
    return [arg]


def input_structure(ctx: ErrorContext) -> Explained | None:
    """S12: the data given does not fit the model's inputs, or its parts differ in length."""
    text = ctx.text
    call = ctx.evidence.call
    cardinality = _CARDINALITY.search(text)
    if cardinality is not None:
        return _cardinality(ctx, call, cardinality)
    missing = _MISSING_KEY.search(text)
    if missing is not None:
        return _missing_key(missing)
    count = _COUNT.search(text)
    if count is not None:
        return _input_count(ctx, call, count)
    bad_form = _FORMAT.search(text) is not None or _NONE_VALUES in text
    if call is not None and call.method in ("fit", "evaluate") and bad_form:
        return _bad_tuple(ctx, call)
    return None


def _cardinality(ctx: ErrorContext, call: CallInfo | None, match: re.Match[str]) -> Explained:
    x_sizes, y_sizes = _sizes(match.group(1)), _sizes(match.group(2))
    weights = _sizes(match.group(3))
    where = "the data"
    x_arg = y_arg = None
    if call is not None:
        x_arg, y_arg = call.arg(0, "x"), call.arg(1, "y")
        val = call.arg(99, "validation_data")
        if val is not None and val.kind in ("tuple", "list") and len(val.items) >= 2:
            vx, vy = _flat(val.items[0]), _flat(val.items[1])
            if [a.samples for a in vx] == x_sizes and [a.samples for a in vy] == y_sizes:
                x_arg, y_arg, where = val.items[0], val.items[1], "validation_data"
    xs = _flat(x_arg)
    x_names = [a.text for a in xs] if len(xs) == len(x_sizes) else []
    y_name = y_arg.text if y_arg is not None and y_arg.kind not in ("tuple", "list") else "y"
    evidence = (
        "x sizes "
        + ", ".join(str(s) for s in x_sizes)
        + "; y sizes "
        + ", ".join(str(s) for s in y_sizes)
    )
    if weights:
        evidence += "; sample_weight sizes " + ", ".join(str(s) for s in weights)
    if len(set(x_sizes)) > 1:
        parts = [
            f"`{n}` has {s}" if n else f"input {i} has {s}"
            for i, (n, s) in enumerate(zip(x_names or [""] * len(x_sizes), x_sizes, strict=True))
        ]
        message = f"the inputs in {where} have different numbers of samples: " + ", ".join(parts)
        hint = (
            "every input needs one row per sample: take the same rows from each input (a split, "
            "filter or shuffle was applied to some of them only)"
        )
    elif weights and set(weights) != set(x_sizes):
        message = f"sample_weight in {where} has {weights[0]} entries for {x_sizes[0]} samples"
        hint = "give one weight per sample, computed from the same rows as x and y"
    else:
        x_name = f"`{x_names[0]}`" if len(x_names) == 1 else "x"
        y_shown = f"`{y_name}`" if y_name != "y" else "y"
        message = (
            f"x and y in {where} have different numbers of samples: {x_name} has "
            f"{x_sizes[0] if x_sizes else '?'}, {y_shown} has {', '.join(map(str, y_sizes))}"
        )
        hint = (
            "x and y need one row per sample, in the same order: take the same rows from both "
            "(a split, filter or shuffle applied to only one of them?), e.g. split once with "
            "one index for both"
        )
    return (
        finding(
            "S12",
            message,
            place=_call_place(ctx, call),
            evidence=evidence,
            hint=hint,
        ),
        (),
    )


def _call_place(ctx: ErrorContext, call: CallInfo | None) -> str:
    if call is None:
        return ""
    return f"`{call.func}(...)` at {ctx.where(call.filename, call.lineno)}"


def _missing_key(match: re.Match[str]) -> Explained:
    missing = match.group(1)
    given = _NAMES.findall(match.group(2))
    expected = _NAMES.findall(match.group(3))
    extra = [k for k in given if k not in expected]
    absent = [k for k in expected if k not in given]
    if len(extra) == 1 and len(absent) == 1:
        hint = (
            f"the dict key '{extra[0]}' matches no input: rename it to '{absent[0]}' (the "
            "keys must be the names of the model's Input layers)"
        )
    else:
        hint = f"give one key per model input, named as the Input layers: {expected}" + (
            f"; keys that match no input: {extra}" if extra else ""
        )
    return (
        finding(
            "S12",
            f"the data dict has no key for input '{missing}'",
            place=f"input '{missing}'",
            evidence=f"keys given {given}, inputs {expected}",
            hint=hint,
        ),
        (),
    )


def _input_count(ctx: ErrorContext, call: CallInfo | None, match: re.Match[str]) -> Explained:
    model, expected, received = match.group(1), int(match.group(2)), int(match.group(4))
    keys = _NAMES.findall(match.group(3) or "")
    shapes = [s for s in ctx.model_inputs if s is not None]
    inputs = ", ".join(
        (f"'{k}' " if k else "") + fmt_shape(s)
        for k, s in zip(keys or [""] * len(shapes), shapes, strict=False)
    )
    given = call.arg(0, "x") or call.arg(0, "inputs") if call is not None else None
    evidence = f"model inputs: {inputs or expected}"
    if given is not None:
        evidence += f"; given {given.describe()}"
    names = keys or [f"x{i + 1}" for i in range(expected)]
    listed = "[" + ", ".join(f"x_{n}" for n in names) + "]"
    hint = f"pass {expected} arrays, one per input in the order of model.inputs: {listed}"
    if keys:
        hint += ", or a dict {" + ", ".join(f"'{k}': x_{k}" for k in keys) + "}"
    widths = [s[-1] for s in shapes]
    if (
        given is not None
        and received == 1
        and given.shape
        and len(shapes) == expected
        and all(isinstance(w, int) for w in widths)
        and given.shape[-1] == sum(w for w in widths if isinstance(w, int))
    ):
        cuts, start = [], 0
        for w in widths:
            assert isinstance(w, int)
            cuts.append(f"{given.text}[:, {start}:{start + w}]")
            start += w
        hint = (
            f"`{given.text}` holds all {given.shape[-1]} features in one array but the model "
            f"takes them as {expected} inputs: split it, e.g. [{', '.join(cuts)}]"
        )
    return (
        finding(
            "S12",
            f"model '{model}' has {expected} inputs but received {received}",
            place=f"model '{model}'",
            evidence=evidence,
            hint=hint,
        ),
        (),
    )


def _bad_tuple(ctx: ErrorContext, call: CallInfo) -> Explained | None:
    val = call.arg(99, "validation_data")
    if val is not None and not (val.kind in ("tuple", "list") and len(val.items) in (2, 3)):
        if val.kind in ("tuple", "list"):
            got = f"a {val.kind} of {len(val.items)}"
        elif val.kind == "dataset":
            return None
        else:
            got = val.describe()
        return (
            finding(
                "S12",
                f"validation_data is {got}; fit expects (x_val, y_val) or (x_val, y_val, "
                "sample_weight)",
                place=_call_place(ctx, call),
                evidence=f"validation_data={val.text}",
                hint="pass validation_data=(x_val, y_val): the labels are missing"
                if (val.kind not in ("tuple", "list") or len(val.items) < 2)
                else "pass validation_data=(x_val, y_val) or (x_val, y_val, val_sample_weight)",
            ),
            (),
        )
    x, y = call.arg(0, "x"), call.arg(1, "y")
    if (
        _NONE_VALUES in ctx.text
        and y is None
        and x is not None
        and x.kind in ("list", "tuple")
        and len(x.items) == 2
        and len(ctx.model_inputs) == 1
    ):
        return (
            finding(
                "S12",
                f"{call.method}() got no y: x is {x.describe()} for a model with one input",
                place=_call_place(ctx, call),
                evidence=f"x={x.text}, y not given",
                hint=f"pass features and labels separately: {call.method}({x.items[0].text}, "
                f"{x.items[1].text}, ...)",
            ),
            (),
        )
    return None


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
    if len(a) >= 3 or len(b) >= 3:
        target = (
            ctx.model_inputs[0][1:3] if len(ctx.model_inputs) == 1 and ctx.model_inputs[0] else None
        )
        size_text = (
            f"({target[0]}, {target[1]})"
            if target and len(target) == 2 and all(isinstance(t, int) for t in target)
            else "(height, width)"
        )
        hint = (
            f"the images have different sizes: resize them in the map before batch(), e.g. "
            f"`image = tf.image.resize(image, {size_text})`, or use .ragged_batch({b_text}) "
            "if the model takes ragged input"
        )
    else:
        hint = (
            f"the sequences have different lengths: replace .batch({b_text}) with "
            f".padded_batch({b_text}) (pads with 0, or padding_values=...) or "
            f".ragged_batch({b_text}), or pad/cut them to one length in the map"
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


def _batching(ctx: ErrorContext) -> tuple[DatasetInfo | None, DatasetStage | None]:
    """The dataset with a batch() step and the stage just before its batch()."""
    for ds in ctx.datasets:
        previous = None
        for stage in ds.stages:
            if stage.kind == "batch":
                return ds, previous
            previous = stage
    return (ctx.datasets[0], None) if ctx.datasets else (None, None)
