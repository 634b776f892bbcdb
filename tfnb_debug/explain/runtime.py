"""Tracing, memory, numerics and gradient errors: T02, R03, N01, G03 and G04."""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext, scope_owner, split_node
from tfnb_debug.explain._none_sizes import none_axis
from tfnb_debug.explain._nonfinite_findings import gradient_hint, sourced
from tfnb_debug.explain._symbolic_escapes import PY_CONVERT, conversion, escaped, layer_place
from tfnb_debug.explain._traced_checks import as_loss, traced_check_source
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_NO_VALUE_ATTR = re.compile(
    r"'(SymbolicTensor|KerasTensor)' object has no attribute '(numpy|item|tolist|__array__)'"
)
_TO_NUMPY = re.compile(
    r"Cannot convert a symbolic (?:tf\.Tensor|Tensor|Keras \w+) \(([^)]*)\) to a numpy array"
)
_FORMAT = re.compile(
    r"unsupported format string passed to (SymbolicTensor|Tensor|KerasTensor)\.__format__"
)
_NOT_SCALAR = re.compile(
    r"condition of (if statement|while loop|if expression|assert statement) expected to be "
    r"`tf\.bool` scalar, got Tensor\(\"[^\"]*\", shape=(\([^)]*\))"
)
# the same condition, when AutoGraph's tf.cond only meets it at run time (a dataset map): the
# Switch op of the converted `if` takes one bool as its second input
_SWITCH_NOT_SCALAR = re.compile(
    r"The second input must be a scalar, but it has shape \[([\d,\s]+)\]\s*\[\[\{\{node "
    r"(?:[\w.]+/)*cond(?:_\d+)?/"
)
_KERAS_BOOL = re.compile(r"A symbolic KerasTensor cannot be used as a (boolean|Python \w+)")
_NOT_ALLOWED = re.compile(
    r"(Using a symbolic `tf\.Tensor` as a Python `\w+`|Iterating over a symbolic `tf\.Tensor`|[^\n.]*symbolic `tf\.Tensor`[^\n.]*?) is not allowed"
)

_OOM = re.compile(
    r"OOM when allocating tensor with shape\[([\d,]*)\] and type (\w+) on (\S+) by allocator (\S+)"
)
_XLA_OOM = re.compile(r"Out of memory while trying to allocate (\d+) bytes")
_DTYPE_BYTES = {
    "float": 4,
    "float32": 4,
    "half": 2,
    "float16": 2,
    "bfloat16": 2,
    "double": 8,
    "float64": 8,
    "int32": 4,
    "int64": 8,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "bool": 1,
    "complex64": 8,
}

_CHECK = re.compile(
    r"(?:^|\n|\}\} )([^\n]*?) : Tensor had ((?:NaN|[-+]?Inf)(?: and (?:NaN|[-+]?Inf))?) values"
)
_CHECK_V2_OP = re.compile(
    r'Detected Infinity or NaN in output (\d+) of (graph|eagerly-executing) op "(\w+)"'
)

REMEDIES = (
    "1) a smaller batch size",
    "2) mixed precision: keras.mixed_precision.set_global_policy('mixed_float16')",
    "3) gradient accumulation to keep the effective batch",
    "4) a lower input resolution or a smaller model",
)


def symbolic_value(ctx: ErrorContext) -> Explained | None:
    """T02: Python asked a symbolic tensor for a concrete value inside a tf.function or Keras graph."""
    from tfnb_debug.explain.step_data import step_data_structure

    if step_data_structure(ctx) is not None:
        return None  # a step unpacking the batch fit gave it: the form of its data is the cause
    text = ctx.text
    attr = _NO_VALUE_ATTR.search(text)
    to_numpy = _TO_NUMPY.search(text)
    not_allowed = _NOT_ALLOWED.search(text)
    outside = ""
    if attr is not None:
        what = f"`.{attr.group(2)}()` on a {attr.group(1)}"
        hint = (
            "a graph tensor has no value while the function is traced: keep the computation in "
            "TensorFlow ops (tf.reduce_max, tf.where, ...) or debug eagerly with "
            "tf.config.run_functions_eagerly(True)"
        )
        outside = escaped(ctx, attr.group(2))
        statement = (ctx.user_code_line() or ("", 0, "", ""))[3]
        logged = re.search(r"(?:append|print|write|format)\(.*\b(\w+)\.numpy\(\)", statement)
        if logged is not None and not outside:  # a value kept or shown for the user: a log
            hint = (
                f"to log `{logged.group(1)}` from a traced function, return it and call "
                f"`.numpy()` on the result outside (`{logged.group(1)} = step(...)`), or print "
                f"it from the graph with `tf.print({logged.group(1)})`"
            )
        hint = outside or hint
        if attr.group(1) == "KerasTensor":
            hint = (
                "a Keras Input/layer output is a placeholder without values while the model is "
                "built: do this inside a Layer's call() with keras.ops, or on real data after "
                "model(x)"
            )
    elif to_numpy is not None:
        what = f"a NumPy call on the symbolic tensor {to_numpy.group(1)}"
        hint = (
            "NumPy cannot read a graph tensor: use the tf.math / keras.ops equivalent, or wrap "
            "the NumPy code in tf.numpy_function"
        )
    elif (scalar := _NOT_SCALAR.search(text) or _SWITCH_NOT_SCALAR.search(text)) is not None:
        statement, shape = (
            (f"an {scalar.group(1)}", scalar.group(2))
            if scalar.re is _NOT_SCALAR
            else ("a Python `if`, conditional expression or `and`/`or`", f"({scalar.group(1)},)")
        )
        what = (
            f"the condition of {statement} is a tensor of shape {shape}, one "
            "value per element, where AutoGraph's tf.cond takes one bool"
        )
        hint = (
            "no single branch fits all elements: choose element by element with "
            "tf.where(condition, value_if_true, value_if_false) (keras.ops.where), computing "
            "both values; or reduce the condition to one bool (tf.reduce_any / tf.reduce_all) "
            "if one branch is meant for the whole tensor"
        )
        if scalar.re is _SWITCH_NOT_SCALAR:
            hint += (
                "; an `and`/`or` of element-wise conditions is `&`/`|` "
                "(tf.logical_and / tf.logical_or)"
            )
    elif (axis := none_axis(ctx)) is not None:
        what, hint = axis
    elif (converted := PY_CONVERT.search(text)) is not None:
        what, hint = conversion(ctx, converted)
    elif (formatted := _FORMAT.search(text)) is not None:
        what = f"a format spec (f'{{t:.2f}}') applied to a {formatted.group(1)}"
        hint = (
            "a traced tensor has no value to format: print it with tf.print(...) (or build the "
            "text with tf.strings.format) inside the function, or return it and format its "
            "value outside"
        )
    elif (keras_bool := _KERAS_BOOL.search(text)) is not None and _bool_asked_by_user(ctx):
        what = f"a KerasTensor used as a Python {keras_bool.group(1).removeprefix('Python ')}"
        hint = (
            "a Keras Input/layer output is a placeholder without values while the model is "
            "built, so Python cannot branch on it: pick values with keras.ops.where(cond, a, b) "
            "(or a layer that always applies, e.g. keras.layers.Rescaling), or branch inside a "
            "Layer's call() with keras.ops.cond"
        )
    elif not_allowed is not None and ctx.is_a("OperatorNotAllowedInGraphError"):
        what = not_allowed.group(1).replace("Using a symbolic", "using a symbolic")
        if "bool" in what and ctx.condition_rank is not None and ctx.condition_rank > 0:
            hint = (
                f"the condition holds one value per element (a rank-{ctx.condition_rank} "
                "tensor), so no single branch fits: choose element by element with "
                "tf.where(condition, value_if_true, value_if_false) (keras.ops.where), "
                "computing both values"
            )
        elif "bool" in what and _statement(ctx) == "assert":
            hint = (
                "a Python `assert` on a tensor needs its value: check it in the graph with "
                "tf.debugging (e.g. tf.debugging.assert_greater(x, 0.0), "
                "tf.debugging.assert_all_finite(x, 'msg')), which raise when the step runs"
            )
        elif "bool" in what and ctx.condition_rank == 0:
            hint = (
                "the condition is one value (a scalar tensor) whose value is known only when "
                "the step runs: branch with tf.cond(condition, true_fn, false_fn) "
                "(keras.ops.cond), or compute both values and pick with tf.where"
            )
        elif "bool" in what:
            hint = (
                "a Python `if`/`while`/`and` on a tensor needs its value: use tf.cond / tf.where "
                "(or let AutoGraph convert it: the function's source must be visible), or run "
                "eagerly with tf.config.run_functions_eagerly(True) to debug"
            )
        elif "Iterating" in what:
            hint = "iterate with tf.range / tf.map_fn / tf.while_loop, or over a Python range of a static size"
        else:
            hint = (
                "use TensorFlow control flow (tf.cond, tf.while_loop) instead of Python on a tensor"
            )
    else:
        return None
    line = ctx.user_code_line()
    if line is not None:
        filename, lineno, function, source = line
        place = ctx.where(filename, lineno, function)
        layer = layer_place(ctx)
        place += f" of {layer}" if layer else ""
        evidence = f"`{source}`" if source else ""
        if not_allowed is not None and attr is None and to_numpy is None:
            hint = _builtin_hint(source or "") or hint
    else:
        place, evidence = "", ""
    method = _dataset_method(ctx)
    tracing = "while Keras built the model" if "KerasTensor" in what else "while tracing"
    if attr is not None and outside:
        tracing = "outside the traced function that made it"
    step = NextStep(
        text="to see values, run `tf.config.run_functions_eagerly(True)` in a cell, re-run "
        "this one, and switch it back off afterwards (eager is slower)"
    )
    if method:
        # tf.data traces the functions it is given whatever run_functions_eagerly says
        tracing = f"while `Dataset.{method}` traced the function it was given"
        hint = (
            f"`Dataset.{method}` always traces its function into a graph (run_functions_eagerly "
            "does not change that): use tf.strings / tf.math ops on the tensor, or wrap the Python "
            "code in tf.py_function and set the result's shape"
        )
        step = NextStep(
            text="to step through the function eagerly, run "
            "`tf.data.experimental.enable_debug_mode()` before building the dataset"
        )
    return (
        finding(
            "T02",
            f"{what}: a symbolic tensor was used as a Python value {tracing}",
            place=place,
            evidence=evidence,
            hint=hint,
        ),
        (step,),
    )


def _bool_asked_by_user(ctx: ErrorContext) -> bool:
    """The KerasTensor's ``__bool__`` was called by the user's own line (``if ops.max(x) > 1``),
    not by a Keras op that got a KerasTensor where it takes a Python value (``axis=``)."""
    if len(ctx.frames) < 2:
        return False
    caller = ctx.frames[-2].filename.replace("\\", "/")
    return not any(part in caller for part in ("/keras/", "/tensorflow/", "/tf_keras/"))


_DATASET_METHODS = ("map", "filter", "flat_map", "interleave", "reduce", "scan", "group_by_window")


def _dataset_method(ctx: ErrorContext) -> str:
    """The Dataset method that traced the user's function (``map``), or "" when none did."""
    for frame in ctx.frames:
        path = frame.filename.replace("\\", "/")
        if "tensorflow/python/data/" in path and frame.function in _DATASET_METHODS:
            return frame.function
    return ""


# Python builtins that compare (bool) or iterate over their argument, and the op that
# does the same on a graph tensor
_BUILTINS = {
    "max": "tf.maximum(a, b) for two values (elementwise), tf.reduce_max(x) over a tensor",
    "min": "tf.minimum(a, b) for two values (elementwise), tf.reduce_min(x) over a tensor",
    "sum": "tf.reduce_sum(x) over a tensor, tf.add_n([...]) over a list of tensors",
    "sorted": "tf.sort(x) (tf.argsort for the order)",
    "any": "tf.reduce_any(x)",
    "all": "tf.reduce_all(x)",
}
_BUILTIN_CALL = re.compile(r"(?<![\w.])(" + "|".join(_BUILTINS) + r")\s*\(")


def _statement(ctx: ErrorContext) -> str:
    """The keyword that starts the user's failing line (``if``, ``while``, ``assert``), or ""."""
    line = ctx.user_code_line()
    found = re.match(r"\s*(if|elif|while|assert)\b", line[3]) if line is not None else None
    return found.group(1) if found is not None else ""


def _builtin_hint(source: str) -> str:
    """The TensorFlow op for each Python builtin the failing line calls (``max`` compares
    with ``>``, ``sum``/``sorted`` iterate), or "" when it calls none."""
    found = list(dict.fromkeys(m.group(1) for m in _BUILTIN_CALL.finditer(source)))
    if not found:
        return ""
    named = "; ".join(f"for Python's `{name}(...)` use {_BUILTINS[name]}" for name in found)
    return (
        f"the line calls Python's {', '.join(f'`{n}()`' for n in found)}, which "
        f"{'compares' if set(found) <= {'max', 'min'} else 'compares or iterates over'} "
        f"its arguments in Python: {named}"
    )


def out_of_memory(ctx: ErrorContext) -> Explained | None:
    """R03: an allocation failed (ResourceExhaustedError / OOM)."""
    oom = _OOM.search(ctx.text)
    xla = _XLA_OOM.search(ctx.text)
    if oom is None and xla is None and not ctx.is_a("ResourceExhaustedError"):
        return None
    if oom is None and xla is None and "memory" not in ctx.text.lower() and "OOM" not in ctx.text:
        return None  # a ResourceExhaustedError that is not about memory (e.g. a quota)
    evidence = ""
    place = ""
    if oom is not None:
        dims = [int(d) for d in oom.group(1).split(",") if d]
        count = 1
        for d in dims:
            count *= d
        size = _DTYPE_BYTES.get(oom.group(2))
        device = oom.group(3).split("device:")[-1]
        evidence = f"tensor shape [{oom.group(1)}] of {oom.group(2)}"
        if size is not None:
            evidence += f" = {_bytes(count * size)}"
        evidence += f" on {device} (allocator {oom.group(4)})"
        place = device
    elif xla is not None:
        evidence = f"XLA allocation of {_bytes(int(xla.group(1)))}"
    node = ctx.node()
    op = split_node(node)[1] if node else ctx.eager_op()
    if oom is not None and _creates_a_weight(ctx, op or ""):
        return _weight_oom(ctx, oom, evidence, op or "")
    if op:
        place = f"op {op}" + (f" on {place}" if place else "")
    return (
        finding(
            "R03",
            "the device ran out of memory for an allocation",
            place=place,
            evidence=evidence,
            hint="remedies in order of cost: " + "; ".join(REMEDIES),
        ),
        (
            NextStep(
                text="re-run this cell with `%%tfmem` as its first line (after a smaller batch) to "
                "see the memory over the run",
                magic="tfmem",
                fallback="halve the batch size and re-run; restart the kernel if memory stays held",
            ),
        ),
    )


# ops that only initializers run (tf.zeros's Fill is not among them: it is also plain user code)
_INITIALIZER_OP = re.compile(r"Random|TruncatedNormal|^(Qr|VarHandleOp)$")
_BUILD_FRAMES = frozenset({"add_weight", "build", "build_wrapper", "_maybe_build"})


def _creates_a_weight(ctx: ErrorContext, op: str) -> bool:
    """The failed allocation is a weight being created (an initializer op, or a layer's build)."""
    if op and _INITIALIZER_OP.search(op):
        return True
    return any(
        f.function.rsplit(".", 1)[-1] in _BUILD_FRAMES
        or "/initializers/" in f.filename.replace("\\", "/")
        for f in ctx.frames
    )


def _weight_oom(ctx: ErrorContext, oom: re.Match[str], evidence: str, op: str) -> Explained:
    """R03 for a weight too big to create: name the layer and its size; the batch is not the cause."""
    dims = [int(d) for d in oom.group(1).split(",") if d]
    count = 1
    for d in dims:
        count *= d
    size = _DTYPE_BYTES.get(oom.group(2))
    amount = _bytes(count * size) if size is not None else f"{count:,} values"
    build = ctx.sequential_build
    if build is not None:
        layer = f"{build.layer_class} '{build.layer}'"
        short = f"'{build.layer}'"
        source = "the model's input" if build.producer == "input" else f"'{build.producer}'"
        features = build.received[-1] if build.received else None
        feeds = (
            f"; its input from {source} has {features:,} features"
            if isinstance(features, int)
            else ""
        )
    else:
        user = ctx.user_code_line()
        layer = "a layer"
        short = "the layer"
        feeds = f"; created at {ctx.where(user[0], user[1], user[2])}: {user[3]}" if user else ""
    if op:
        evidence += f", by the initializer op {op}"
    return (
        finding(
            "R03",
            f"a weight of {layer} does not fit in memory: it needs {amount} "
            f"(shape [{oom.group(1)}])",
            place=f"layer '{build.layer}'" if build is not None else (op and f"op {op}"),
            evidence=evidence + feeds,
            hint=(
                f"shrink {short}: a weight's size is its input width times its units (or "
                "filters); reduce what feeds it (pooling or strided convolutions before "
                "Flatten -> Dense, or GlobalAveragePooling2D instead of Flatten) or give it fewer "
                "units. A smaller batch does not help: weights do not depend on the batch size"
            ),
        ),
        (
            NextStep(
                text=f"rebuild the model with {short} shrunk and check each layer's parameters "
                "with model.summary()",
            ),
        ),
    )


def _bytes(n: float) -> str:
    from tfnb_debug.ground.values import format_bytes

    return format_bytes(n)


def nonfinite_check(ctx: ErrorContext) -> Explained | None:
    """N01 / G03: a tf.debugging numerics check found NaN or Inf."""
    text = ctx.text
    check = _CHECK.search(text)
    if check is None or ctx.diverged is not None:
        return None  # a check after a fit that went non-finite: that fit is the finding
    label = re.sub(r"\{\{function_node [^}]*\}\}", "", check.group(1)).strip()
    # a check in a Dataset.map function: the label follows tf.data's own prefix
    label = re.sub(r"^Error in user-defined function passed to .*?: (?=[^:]*$)", "", label)
    kind = check.group(2)
    v2 = _CHECK_V2_OP.search(text)
    node = ctx.node()
    if node and node.endswith(("/CheckNumerics", "/CheckNumericsV2")):
        scope = split_node(node)[0]
    else:
        scope = split_node(node)[0] if node else ""
    producing_op = v2.group(3) if v2 else ""
    gradient = (
        node is not None and ("gradient_tape/" in node or node.startswith("gradients/"))
    ) or "grad" in label.lower()
    pieces = []
    if label and not label.startswith("!!!") and not v2:
        pieces.append(f"check '{label}'")
    if producing_op:
        pieces.append(f"op {producing_op}")
    if scope and scope != producing_op:
        pieces.append(f"in {scope_owner(scope)}")
    defined = ctx.defined_at()
    if defined is not None:
        pieces.append(f"defined at {ctx.where(*defined)}")
    else:
        user = ctx.user_code_line()
        if user is not None:
            pieces.append(f"at {ctx.where(user[0], user[1], user[2])}")
    place = ", ".join(pieces)
    evidence = f"tensor had {kind} values" + (f" (node {node})" if node else "")
    source = None
    if defined is not None:  # traced code: its line, and the model a loss's y_pred came from
        linear = [m.name for m in ctx.trained if m.output_activation == "linear"]
        source = traced_check_source(
            defined[0], defined[1], kind, linear[0] if len(linear) == 1 else ""
        )
        if source is not None:  # a check in a compiled loss (its label, its graph node)
            source = as_loss(source, f"{label} {node or ''}")
    source = source or ctx.nonfinite_source
    if source is not None and not gradient:
        return sourced(source, kind, place, evidence), ()
    if gradient:
        return (
            finding(
                "G03",
                f"a gradient holds {kind} values",
                place=place,
                evidence=evidence,
                hint=gradient_hint(ctx),
            ),
            (
                NextStep(
                    text="re-run this cell with `%%tfgrad` as its first line to see which layer's "
                    "gradients go bad first",
                    magic="tfgrad",
                    fallback="print tf.reduce_max(tf.abs(g)) per gradient to find the first bad one",
                ),
            ),
        )
    loss_op = re.match(r"compile_loss/(\w+)/(?:.*/)?(\w+)/CheckNumerics", node or "")
    if loss_op is not None:  # an op of the compiled loss: the loss itself went non-finite
        return finding(
            "G05",
            f"the loss '{loss_op.group(1)}' is {kind} at its {loss_op.group(2)} op",
            place=place,
            evidence=evidence,
            hint=_LOSS_OP_HINTS.get(loss_op.group(2), _LOSS_OP_HINTS[""]),
        ), ()
    return (
        finding(
            "N01",
            f"a tensor holds {kind} values",
            place=place,
            evidence=evidence,
            hint=(
                "look at the op that produced it: log/sqrt of non-positive values, division by "
                "zero, exp overflow; add an epsilon or clip the input, and check the data for NaN"
            ),
        ),
        (
            NextStep(
                text="re-run this cell with `%%tfcheck` as its first line to find the first layer "
                "whose output is not finite",
                magic="tfcheck",
                fallback="call tf.debugging.enable_check_numerics() and re-run to find the first op",
            ),
        ),
    )


# what makes each op of a hand-written loss non-finite, and the fix
_LOSS_OP_HINTS = {
    "Log": "log of a probability that reached 0 (a saturated sigmoid or softmax): clip it, "
    "`tf.math.log(tf.clip_by_value(p, 1e-7, 1.0))`, or use keras.losses.BinaryCrossentropy / "
    "CategoricalCrossentropy, which clip (from_logits=True on a linear output is stabler)",
    "Sqrt": "sqrt of a negative value, or its gradient at 0: `tf.sqrt(tf.maximum(x, 1e-12))`",
    "RealDiv": "a division by 0 in the loss: `tf.math.divide_no_nan(a, b)` or divide by "
    "`tf.maximum(b, 1e-7)`",
    "Exp": "exp of a large value overflows above 88.7: compute it in log space "
    "(`tf.reduce_logsumexp`, a from_logits loss)",
    "": "find the op in the loss that makes it (log of 0, sqrt of a negative, a division by "
    "0, exp overflow) and clip its input",
}


def no_gradients(ctx: ErrorContext) -> Explained | None:
    """G04: Keras found no gradient for any variable, and the loss was computed inside the tape.

    A loss computed after the tape's block closed is T03's (see
    :mod:`tfnb_debug.explain.tape`); here the loss's own code (the compiled loss
    function written in the notebook, or the lines inside the tape that compute
    the target) is searched for the ops that cut a gradient.
    """
    if "No gradients provided for any variable" not in ctx.text:
        return None
    from tfnb_debug.diagnostics.gradients import no_gradient_at_all
    from tfnb_debug.explain.tape import gradient_cuts, gradient_target, late_loss, loss_lines

    if late_loss(ctx) is not None:
        return None
    model = ctx.trained[0] if len(ctx.trained) == 1 else None
    source = model.loss_source if model and model.loss_source else loss_lines(ctx)
    found = no_gradient_at_all(
        loss=model.loss if model and model.loss else gradient_target(ctx),
        model=model.name if model else None,
        variables=model.variables if model else None,
        cuts=gradient_cuts(source),
    )
    return found, (
        NextStep(
            text="check the loss alone on one batch: under `with tf.GradientTape() as tape:` "
            "compute it from `model(x, training=True)`, then `tape.gradient(loss, "
            "model.trainable_variables)` is all None until the loss is differentiable"
        ),
    )


_ASSIGN_SHAPE = re.compile(
    r"Cannot assign value to variable '\s*([^']*)': Shape mismatch\.\s*The variable shape "
    r"(\([^)]*\)), and the assigned value shape (\([^)]*\)) are incompatible"
)


def variable_shape(ctx: ErrorContext) -> Explained | None:
    """S07: a value of another shape assigned to a tf.Variable, whose shape is fixed when made."""
    found = _ASSIGN_SHAPE.search(ctx.text)
    if found is None:
        return None
    name, have, given = found.group(1).removesuffix(":0"), found.group(2), found.group(3)
    line = ctx.user_code_line()
    place = ctx.where(line[0], line[1], line[2]) if line else f"variable '{name}'"
    return (
        finding(
            "S07",
            f"variable '{name}' has shape {have}, and a tf.Variable keeps the shape it was "
            f"created with; the value assigned has shape {given}",
            place=place,
            evidence=f"`{line[3]}`" if line and line[3] else f"variable shape {have}",
            hint="assign a value of the variable's shape; or, when the length must change, "
            "create the variable with `shape=tf.TensorShape(None)` (or `[None]` on the axis "
            "that varies) so it takes other shapes, or make a new variable",
        ),
        (),
    )
