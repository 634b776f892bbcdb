"""The data given to a model does not fit its inputs or itself (S12): x and y of different
lengths, N inputs given M arrays, a dict key that names no Input, a malformed validation_data."""

from __future__ import annotations

import re

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import ErrorContext, fmt_shape, same_shape
from tfnb_debug.explain._data_keys import missing_key
from tfnb_debug.explain._evidence import Arg, CallInfo
from tfnb_debug.explain._input_order import flat_element
from tfnb_debug.explain._operands import enclosing_parameters
from tfnb_debug.explain._several_tensors import several_tensors_hint
from tfnb_debug.explain._target_columns import TARGET_NAME, columns_for_one_input
from tfnb_debug.explain._validation_data import validation_flat, validation_unlabeled
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

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
_NAMES = re.compile(r"'([^']*)'")


_STRUCTURE = re.compile(
    r"The structure of `inputs` doesn't match the expected structure\.\s*Expected: "
    r"(keras_tensor\w*)\s*Received: inputs=\{([^}]*)\}"
)


def _columns_for_one_input(
    ctx: ErrorContext, call: CallInfo | None, match: re.Match[str]
) -> Explained | None:
    """S12: a dict of columns (``dict(df)``, a dataset of dict elements) given to a model with
    one unnamed Input: Keras does not stack the columns into one feature tensor."""
    keys = re.findall(r"'([^']+)':", match.group(2))
    if len(keys) < 2:
        return None
    listed = ", ".join(repr(k) for k in keys[:8])
    x = call.arg(0, "x") if call is not None and call.method == "fit" else None
    unlabeled = x is not None and x.kind == "dict" and call is not None and call.arg(1, "y") is None
    named = [k for k in keys if TARGET_NAME.fullmatch(k.lower())]
    problem, hint = columns_for_one_input(keys, named[0] if unlabeled and len(named) == 1 else "")
    return (
        finding(
            "S12",
            problem,
            place=_call_place(ctx, call) or "the model's input",
            evidence=f"inputs received: dict with keys [{listed}]; model Inputs: 1 "
            f"({match.group(1)})",
            hint=hint,
        ),
        (),
    )


def _unlabeled_dataset(ctx: ErrorContext, call: CallInfo | None) -> Explained | None:
    """S12: fit/evaluate given a dataset whose elements are inputs only (no targets) and no y:
    Keras then computes the loss against None."""
    if call is None or call.method not in ("fit", "evaluate", "train_on_batch"):
        return None
    x, y = call.arg(0, "x"), call.arg(1, "y")
    if x is None or x.kind != "dataset" or (y is not None and y.kind != "none"):
        return None
    ds = next((d for d in ctx.datasets if d.name == x.text), None)
    if ds is None or len(ds.shapes) != 1:
        return None
    return (
        finding(
            "S12",
            f"`{x.text}` yields inputs only, {fmt_shape(ds.shapes[0]) if ds.shapes[0] else 'one tensor'} "
            f"per element, and `{call.method}` was given no y: there are no targets to compute "
            "the loss against",
            place=_call_place(ctx, call),
            evidence=f"element of `{x.text}`: one component, no (inputs, targets) pair",
            hint=_pairs_hint(ds.stages[0].kind if ds.stages else ""),
        ),
        (),
    )


def _pairs_hint(source: str) -> str:
    """How to make a dataset yield (inputs, labels), for the way it was made."""
    if source == "from_tensor_slices":
        return (
            "make it yield (inputs, targets) pairs: give the labels to the same call, "
            "`tf.data.Dataset.from_tensor_slices((x, y))`, then batch"
        )
    if source == "from_generator":
        return (
            "yield (inputs, labels) pairs from the generator, and declare both in output_signature"
        )
    return (
        "make the dataset yield (inputs, targets) pairs, the labels with their inputs: "
        "`timeseries_dataset_from_array(data, "
        "targets=..., ...)` for windows, `from_tensor_slices((x, y))`, or `.map(lambda x: (x, "
        "label_of(x)))`"
    )


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
        return missing_key(missing)
    count = _COUNT.search(text)
    if count is not None:
        return _input_count(ctx, call, count)
    columns = _STRUCTURE.search(text)
    if columns is not None:
        return _columns_for_one_input(ctx, call, columns)
    bad_form = _FORMAT.search(text) is not None or _NONE_VALUES in text
    unlabeled = (
        _unlabeled_dataset(ctx, call) or validation_unlabeled(ctx, call)
        if _NONE_VALUES in text
        else None
    )
    if unlabeled is not None:
        return unlabeled
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
    rows = _rows_as_inputs(call, x_arg, xs, y_sizes)
    if rows is not None:
        message, hint = rows
    elif len(set(x_sizes)) > 1:
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
        ys = _flat(y_arg) if y_arg is not None and y_arg.kind in ("tuple", "list") else []
        counts = (  # the targets of several outputs, each named
            ", ".join(f"`{a.text}` has {n}" for a, n in zip(ys, y_sizes, strict=True))
            if len(ys) == len(y_sizes) > 1
            else f"{y_shown} has {', '.join(map(str, y_sizes))}"
        )
        message = (
            f"x and y in {where} have different numbers of samples: {x_name} has "
            f"{x_sizes[0] if x_sizes else '?'}, {counts}"
        )
        y_shape = y_arg.shape if y_arg is not None and y_arg.kind != "tuple" else None
        if (
            y_shape is not None
            and len(y_shape) == 2
            and x_sizes
            and y_shape[0] != x_sizes[0]
            and y_shape[1] == x_sizes[0]
        ):
            # one row of n values for n samples: the labels are lying on their side
            return (
                finding(
                    "S12",
                    message + f": {y_shown} {fmt_shape(y_shape)} holds the {x_sizes[0]} labels "
                    f"along its second axis (transposed)",
                    place=_call_place(ctx, call),
                    evidence=evidence,
                    hint=(
                        f"drop the `.T`: `{y_name[:-2]}` gives one row per sample"
                        if y_name.endswith(".T")
                        else f"transpose it to one row per sample: `{y_name}.T`"
                    )
                    + f", shape ({x_sizes[0]}, {y_shape[0]})",
                ),
                (),
            )
        hint = (
            "x and y need one row per sample, in the same order: take the same rows from both "
            "(a split, filter or shuffle applied to only one of them?), e.g. split once with "
            "one index for both"
        )
        names = [n for n in (*x_names[:1], y_name) if n.isidentifier()] if call else []
        made = {n: assigned_before(n, call.filename, call.lineno) for n in names} if call else {}
        stepped = [n for n, m in made.items() if "steps=" in m.replace(" ", "")]
        evidence += "".join(f"; `{n} = {m}`" for n, m in made.items() if m and len(m) < 100)
        if stepped:  # predict(..., steps=n // batch) leaves out the last, partial batch
            hint = (
                f"`{stepped[0]}` comes from a predict with `steps=`, which reads only that many "
                "batches (the last, partial batch is left out): drop steps= so it covers every "
                "example, or take the same first rows of the other array"
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


def _rows_as_inputs(
    call: CallInfo | None, x_arg: Arg | None, xs: list[Arg], y_sizes: list[int]
) -> tuple[str, str] | None:
    """(message, hint) when x is a Python list of one array per sample: Keras reads a list as
    one array per model input, so each row became an "input" of its own."""
    inputs = len(call.input_dtypes) if call is not None else 0
    if x_arg is None or x_arg.kind != "list" or not inputs or len(xs) <= inputs:
        return None
    shapes = {a.shape for a in xs}
    if len(shapes) != 1 or None in shapes or any(a.kind not in ("array", "tensor") for a in xs):
        return None
    (shape,) = shapes
    assert shape is not None
    stacked = fmt_shape((len(xs), *shape))
    message = (
        f"`{x_arg.text}` is a Python list of {len(xs)} arrays of shape {fmt_shape(shape)}, and "
        f"Keras reads a list as one array per model input (this model has {inputs}): each row "
        f"was taken as an input of {shape[0] if shape else 1} samples"
    )
    if y_sizes and len(xs) not in y_sizes:
        message += f" (y has {', '.join(map(str, y_sizes))} samples)"
    hint = (
        f"stack the rows into one array first: `x = np.stack({x_arg.text})` (shape {stacked}), "
        "or build the features as one array instead of a list"
    )
    return message, hint


def _call_place(ctx: ErrorContext, call: CallInfo | None) -> str:
    if call is None:
        return ""
    return f"`{call.func}(...)` at {ctx.where(call.filename, call.lineno)}"


_MODEL_CLASSES = ("Functional", "Sequential", "Model")
_STEPS = ("train_step", "test_step", "predict_step")


def _layer_inputs(
    ctx: ErrorContext, call: CallInfo | None, layer: str, expected: int, received: int
) -> Explained | None:
    """A plain layer (not a model) given several tensors where it takes ``expected``."""
    cls = dict(ctx.layers).get(layer, "")
    build = ctx.sequential_build
    if not cls and build is not None and build.layer == layer:
        cls = build.layer_class
    api = ctx.contract.api if ctx.contract is not None else ""
    if not cls and api.startswith("keras.layers."):
        cls = api.rsplit(".", 1)[-1]  # the user's line calls this layer on the tensors
    if not cls or any(m in cls for m in _MODEL_CLASSES) or expected != 1 or received < 2:
        return None
    given = call.arg(0, "layers") or call.arg(0, "inputs") if call is not None else None
    items = given.items if given is not None and given.kind in ("list", "tuple") else ()
    texts = [item.text for item in items]
    stateful = next((t for t in texts if "return_state=True" in t.replace(" ", "")), "")
    # one variable holding what a layer returned as several tensors (its states, its scores)
    made = (
        assigned_before(given.text, call.filename, call.lineno)
        if call is not None and given is not None and given.text.isidentifier()
        else ""
    )
    if not made and given is not None and "(" in given.text:
        made = given.text  # the layer call written inline: `Dense(1)(lstm(x, ...))`
    several = re.search(r"return_(state|attention_scores)\s*=\s*True", made)
    if several is not None and given is not None:
        parts = "out, *states" if several.group(1) == "state" else "out, scores"
        lead = f"`{made}`" if made == given.text else f"`{given.text}` is what `{made}`"
        hint = (
            f"{lead} returns with return_{several.group(1)}=True: "
            f"{received} tensors (the output first); unpack it, `{parts} = {made}`, and call "
            f"'{layer}' on the output (or drop return_{several.group(1)}=True)"
        )
        what = f"{cls} '{layer}' takes one tensor but got the {received} that one layer returned"
    elif split := next((t for t in (*texts, made) if "merge_mode=None" in t.replace(" ", "")), ""):
        hint = (
            f"`{split}` returns the forward and backward outputs as {received} separate tensors "
            "(merge_mode=None): give it merge_mode='concat' (the default), 'sum', 'ave' or 'mul' "
            "for one tensor, or use the two outputs apart"
        )
        what = (
            f"{cls} '{layer}' takes one tensor, and the Bidirectional before it returns {received}"
        )
    elif stateful and ctx.sequential_build is not None:
        hint = (
            f"`{stateful}` returns {received} tensors (the output and its states), and a "
            f"Sequential passes them all to {cls} '{layer}': drop return_state=True, or build the "
            "model with the functional API and use only the output (`out, *states = ...`)"
        )
        what = f"{cls} '{layer}' takes one tensor, and the RNN before it returns {received}"
    else:
        names = ", ".join(texts[:received]) if len(texts) >= received else ""
        merged = f"[{names}]" if names else "[a, b]"
        same = len({i.shape for i in items}) == 1 and items[0].shape is not None
        if "Normalization" in cls:
            # a normalization given a block's input and output: the residual sum it normalizes
            widths = [i.shape[-1] for i in items if i.shape]
            shape = f" have shape {fmt_shape(items[0].shape or ())}," if same else ""
            project = (
                f"; their last axes differ ({' vs '.join(str(w) for w in widths)}): project "
                f"the narrower one first, keras.layers.Dense({max(w for w in widths if w)})"
                if len(widths) == len(items) and len(set(widths)) > 1 and all(widths)
                else ""
            )
            hint = (
                f"{cls} normalizes one tensor; the {received} given{shape} are a block's input "
                f"and output (a residual connection): add them first, "
                f"`{cls}()(keras.layers.Add()({merged}))`{project}"
            )
        elif call is not None and len(items) == received:
            hint = several_tensors_hint(cls, layer, items, call.func, call.filename, call.lineno)
        else:  # the items were not read: no evidence for one way to combine them
            hint = (
                f"call '{layer}' on one tensor (the list holds {received}): the one it is for, "
                "or the tensors combined first in the way the model needs"
            )
        what = f"{cls} '{layer}' takes one tensor but was called on {received}"
    return (
        finding(
            "S12",
            what,
            place=f"layer '{layer}'",
            evidence=f"{cls} expects 1 input, received {received}"
            + (f"; given {given.describe()}" if given is not None else ""),
            hint=hint,
        ),
        (),
    )


def _input_count(
    ctx: ErrorContext, call: CallInfo | None, match: re.Match[str]
) -> Explained | None:
    model, expected, received = match.group(1), int(match.group(2)), int(match.group(4))
    layered = _layer_inputs(ctx, call, model, expected, received) or validation_flat(
        ctx, call, expected, received
    )
    if layered is not None:
        return layered
    keys = _NAMES.findall(match.group(3) or "")
    shapes = [s for s in ctx.model_inputs if s is not None]
    inputs = ", ".join(
        (f"'{k}' " if k else "") + fmt_shape(s)
        for k, s in zip(keys or [""] * len(shapes), shapes, strict=False)
    )
    given = call.arg(0, "x") or call.arg(0, "inputs") if call is not None else None
    if given is not None and given.kind == "dataframe" and "Pass inputs as a dict" in ctx.text:
        return None  # Keras names the inputs' keys and says to pass a dict: nothing to add
    evidence = f"model inputs: {inputs or expected}"
    if given is not None:
        evidence += f"; given {given.describe()}"
    names = keys or [f"x{i + 1}" for i in range(expected)]
    listed = "[" + ", ".join(f"x_{n}" for n in names) + "]"
    hint = f"pass {expected} arrays, one per input in the order of model.inputs: {listed}"
    if keys:
        hint += ", or a dict {" + ", ".join(f"'{k}': x_{k}" for k in keys) + "}"
    widths = [s[-1] for s in shapes]
    items = list(given.items) if given is not None and given.kind in ("list", "tuple") else []
    flat = flat_element(ctx, given, expected) if received == 1 else None
    user = ctx.user_code_line()
    step = user[2].rpartition(".")[2] if user else ""
    params = enclosing_parameters(user[0], user[1]) if user and step in _STEPS else None
    batch = params[1] if params and len(params) >= 2 else ""
    if given is not None and batch and given.text == batch and received > expected:
        # Keras' fit passes train_step one batch as a tuple: (x, y) or (x, y, sample_weight)
        hint = (
            f"`{batch}` is the batch Keras gives `{step}`: the tuple (x, y) (or (x, y, "
            "sample_weight)) of what fit got, not x alone; unpack it first, "
            f"`x, y = {batch}` (or `x = {batch}[0]` when fit got no targets), and call "
            f"'{model}' on x"
        )
    elif flat is not None:
        evidence += f"; {flat.evidence}"
        hint = flat.hint
    elif (
        expected == 1
        and len(shapes) == 1
        and len(items) == received > 1
        and all(i.shape is not None and i.shape[1:] == shapes[0][1:] for i in items)
    ):
        callee = call.func if call is not None and call.func.isidentifier() else model
        each = ", ".join(f"{callee}({i.text})" for i in items[:4])
        hint = (
            f"each of the {received} tensors has the shape of '{model}''s one input: call it "
            f"once per tensor, `{each}` (a shared encoder), and combine the results after"
        )
    elif (
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
            rows = ".iloc" if given.kind == "dataframe" else ""  # a DataFrame slices by .iloc
            cuts.append(f"{given.text}{rows}[:, {start}:{start + w}]")
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
    flat = _flat_elements(ctx, x)
    if flat is not None:
        return flat
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


def _flat_elements(ctx: ErrorContext, x: Arg | None) -> Explained | None:
    """S12: a dataset whose elements are one flat tuple of more parts than (x, y, weights),
    for a model of several inputs: fit reads the first part as x and the second as y, so the
    inputs and the targets must each be nested in their own tuple."""
    if x is None or x.kind != "dataset":
        return None
    found = next((d for d in ctx.datasets if d.name == x.text), None)
    inputs = [s for s in ctx.model_inputs if s is not None]
    if found is None or len(found.shapes) <= 3 or not 1 < len(inputs) < len(found.shapes):
        return None
    k, n = len(inputs), len(found.shapes)
    first = found.shapes[:k]
    if not all(
        s is not None and same_shape(s[1:], i[1:]) for s, i in zip(first, inputs, strict=True)
    ):
        return None  # the first parts are not the inputs in order: no nesting to give
    names = [chr(ord("a") + i) for i in range(n)]
    ins, outs = ", ".join(names[:k]), ", ".join(names[k:])
    outs = f"({outs})" if n - k > 1 else outs
    call = ctx.evidence.call
    made = (
        assigned_before(x.text, call.filename, call.lineno)
        if call and x.text.isidentifier()
        else ""
    )
    parts = re.search(r"from_tensor_slices\(\s*\(([\w\s,]+)\)\s*\)", made)
    given = [p.strip() for p in parts.group(1).split(",") if p.strip()] if parts else []
    build = f"`(({ins}), {outs})` in from_tensor_slices"
    if len(given) == n:  # the user's own arrays, nested
        rest = ", ".join(given[k:])
        build = f"`from_tensor_slices((({', '.join(given[:k])}), {f'({rest})' if n - k > 1 else rest}))`"
    shown = ", ".join(fmt_shape(s) if s is not None else "(?)" for s in found.shapes)
    return (
        finding(
            "S12",
            f"`{x.text}` yields flat tuples of {n} parts ({shown}); fit reads an element as "
            f"(x, y) or (x, y, sample_weight), and this model takes {k} inputs",
            place=f"dataset `{x.text}`",
            evidence=f"the first {k} parts have the shapes of the model's {k} inputs",
            hint=f"nest the inputs and the targets: `{x.text}.map(lambda {', '.join(names)}: "
            f"(({ins}), {outs}))`, or build it nested: {build}",
        ),
        (),
    )
