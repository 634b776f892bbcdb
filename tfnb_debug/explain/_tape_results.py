"""What ``tape.gradient`` was asked for, read back when its result breaks a later call.

``tf.GradientTape.gradient(target, sources)`` documents its contract: a tape
records operations on the variables it watches (every trainable variable a
computation reads) and on tensors passed to ``tape.watch``; a gradient flows
only to floating-point sources; for a source the target does not depend on
through recorded operations it returns None.  The None then fails wherever it
is used next (``tf.abs(None)``: "Attempt to convert a value (None)"), far from
its cause.

:func:`none_gradient` finds, for an argument of the failing call that is None
(or holds Nones), the line of the user's cell that assigned it from
``tape.gradient``, reads the sources given there and says why each got no
gradient: a tensor the tape did not watch (no ``tape.watch`` in the cell), an
integer tensor, a NumPy array, or a variable the target does not depend on.
:func:`numpy_sources` explains ``tape.gradient`` refusing NumPy sources (the
copies ``get_weights()`` returns).
"""

from __future__ import annotations

import ast
import linecache
import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall, evaluate
from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._violation import Violation, fmt, shape_of

_NONE_USED = re.compile(r"\(None\)|NoneType|None values not supported")


def _assignment(call: LiveCall, name: str) -> tuple[str, str, str, int] | None:
    """``(tape, target, sources, line)`` of the last ``name = tape.gradient(target, sources)``
    in the call's cell before the failing line."""
    if not name.isidentifier() or not call.filename:
        return None
    lines = linecache.getlines(call.filename)[: max(call.lineno - 1, 0)]
    found = None
    for number, line in enumerate(lines, 1):
        try:
            node = ast.parse(line.strip())
        except SyntaxError:
            continue
        statement = node.body[0] if node.body else None
        if not isinstance(statement, ast.Assign) or not isinstance(statement.value, ast.Call):
            continue
        value = statement.value
        names = [t.id for t in statement.targets if isinstance(t, ast.Name)]
        if (
            name in names
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "gradient"
            and len(value.args) >= 2
        ):
            tape = ast.unparse(value.func.value)
            found = (tape, ast.unparse(value.args[0]), ast.unparse(value.args[1]), number)
    return found


def _inline_gradient(call: LiveCall, text: str) -> tuple[str, str, str, int] | None:
    """``(tape, target, sources, line)`` when the argument is itself the gradient call
    (``tf.sign(tape.gradient(loss, x))``), on the failing line."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "gradient"
        and len(node.args) >= 2
    ):
        tape = ast.unparse(node.func.value)
        return tape, ast.unparse(node.args[0]), ast.unparse(node.args[1]), call.lineno
    return None


def _watched(call: LiveCall, tape: str, sources: str, before: int) -> bool:
    pattern = re.compile(rf"\b{re.escape(tape)}\.watch\(\s*{re.escape(sources)}\s*\)")
    lines = linecache.getlines(call.filename)[: max(before - 1, 0)]
    return any(pattern.search(line) for line in lines)


def value_of(call: LiveCall, text: str) -> Any:
    """The value of an expression of the user's (a name, an attribute) in the call's
    namespaces, UNREAD when it cannot be read without running code."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return UNREAD
    return evaluate(node, call.namespaces)


def _is_variable(value: Any) -> bool:
    return any(c.__name__ in ("Variable", "BaseResourceVariable") for c in type(value).__mro__)


def _dtype(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    return str(getattr(dtype, "name", dtype or ""))


def none_gradient(call: LiveCall, exc: BaseException) -> Violation | None:
    """A None from ``tape.gradient`` reached this call: why that source got no gradient."""
    if not _NONE_USED.search(str(exc)):
        return None
    for argument, value in call.values.items():
        items = value if isinstance(value, list | tuple) else [value]
        if not items or not any(item is None for item in items):
            continue
        text = call.text(argument)
        assigned = _assignment(call, text) or _inline_gradient(call, text)
        if assigned is None and (looped := _iterated(call, text)):
            # an item of a loop over the gradients: the list is what tape.gradient returned
            assigned, text = _assignment(call, looped), looped
        if assigned is None:
            continue
        tape, target, sources, line = assigned
        found = _why_none(call, tape, target, sources, line, text)
        if found is not None:
            return found
    return None


def _iterated(call: LiveCall, name: str) -> str:
    """``grads`` when ``name`` is the variable of a loop or comprehension over it on the
    failing line (``[tf.norm(g) for g in grads]``), else ""."""
    if not name.isidentifier():
        return ""
    line = linecache.getline(call.filename, call.lineno) if call.filename else ""
    match = re.search(rf"\bfor\s+(?:\w+\s*,\s*)?{re.escape(name)}\s+in\s+(\w+)\b", line)
    return match.group(1) if match else ""


def _after_block(call: LiveCall, tape: str, target: str, before: int) -> int:
    """The line where ``target`` was assigned after the tape's ``with`` block closed (and
    before line ``before``); 0 when it was assigned inside the block or not found."""
    lines = linecache.getlines(call.filename)[: max(before - 1, 0)]
    opened = _last_opener(lines, tape)
    if opened is None or not target.isidentifier():
        return 0
    start, indent = opened
    assigned = re.compile(rf"^\s*{re.escape(target)}\s*=[^=]")
    closed = False
    found = 0
    for number, line in enumerate(lines[start + 1 :], start + 2):
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            closed = True
        if assigned.match(line):
            found = number if closed else 0
    return found


def _why_none(
    call: LiveCall, tape: str, target: str, sources: str, line: int, result: str
) -> Violation | None:
    given = (
        f"`{result} = {tape}.gradient({target}, {sources})` (line {line}) returned None"
        if result.isidentifier()
        else f"it returned None (line {line})"
    )
    outside = _after_block(call, tape, target, line)
    if outside:
        return Violation(
            "T03",
            result,
            f"`{result}` holds None: {given}, because `{target}` is computed on line "
            f"{outside}, after the tape's `with` block closed, so the tape recorded none of it",
            f"compute `{target}` inside the `with {tape}` block (indent that line into it); "
            f"only `{tape}.gradient(...)` itself goes after the block",
            f"`{target} = ...` on line {outside}, outside `with ... as {tape}:`",
        )
    source = value_of(call, sources)
    if source is UNREAD:
        return None
    if isinstance(source, list | tuple):
        return _none_entries(call, result, target, sources, source, given)
    dtype = _dtype(source)
    if _is_variable(source):
        return Violation(
            "G04",
            result,
            f"`{result}` is None: {given}, because `{target}` does not depend on the variable "
            f"`{sources}` through operations the tape recorded",
            f"compute `{target}` from `{sources}` inside the tape's `with` block, with TensorFlow "
            "ops (no NumPy, no .numpy(), no casts to int in between)",
            f"`{sources}` is a {dtype} variable",
        )
    if dtype.startswith(("int", "uint", "bool", "string")):
        return Violation(
            "G04",
            result,
            f"`{result}` is None: {given}, because `{sources}` is an {dtype} tensor and gradients "
            "flow only to floating-point tensors (integer ids reach the model through a lookup "
            "such as an Embedding, which has no gradient with respect to the ids)",
            f"take the gradient with respect to the float tensor the ids become, the "
            f"Embedding's output: compute it inside the tape, have the tape watch it, and "
            f"differentiate `{target}` with respect to it",
            f"`{sources}` has dtype {dtype} and shape {fmt(shape_of(source))}",
        )
    block = _with_block(call, tape, line)
    cut = _numpy_in(block)
    if cut:
        return Violation(
            "G04",
            result,
            f"`{result}` is None: {given}, because the path from `{sources}` to `{target}` "
            f"goes through NumPy (`{cut}`), which the tape cannot record: the gradient stops "
            "there",
            "do that step with TensorFlow ops inside the tape (np.clip -> tf.clip_by_value, "
            "np.mean -> tf.reduce_mean, np.exp -> tf.exp, ...), so the tape records it",
            f"inside the tape's with block: `{cut}`",
        )
    if _watched(call, tape, sources, line) and block:
        made = _made_by_call(block, sources)
        if made:
            return Violation(
                "G04",
                result,
                f"`{result}` is None: {given}: `{sources}` is watched, but `{target}` is not "
                f"computed from it: `{sources}` comes from its own call (`{made}`), and "
                f"`{target}` from another pass that never reads it",
                f"compute both in one pass: a model whose outputs are [the inner layer's output, "
                f"the prediction] (`keras.Model(model.inputs, [layer.output, model.output])`), "
                f"called once inside the tape, and differentiate `{target}` with respect to the "
                "first output",
                f"`{sources}` = `{made}`",
            )
    if shape_of(source) is not None and not _watched(call, tape, sources, line):
        return Violation(
            "T03",
            result,
            f"`{result}` is None: {given}, because `{sources}` is a tensor, not a variable, and "
            f"the tape only records operations on the tensors it watches",
            f"call `{tape}.watch({sources})` inside the `with` block before `{sources}` is used "
            f"(or make it a tf.Variable)",
            f"`{sources}` is a {dtype} {type(source).__name__} of shape {fmt(shape_of(source))}; "
            f"no `{tape}.watch({sources})` in the cell",
        )
    return None


def _none_entries(
    call: LiveCall, result: str, target: str, sources: str, source: Any, given: str
) -> Violation | None:
    """G04 for a list of variables of which some got None: the layers that do not reach the
    target, and whether they make an output of the model the target leaves out."""
    grads = value_of(call, result)
    variables = list(source)
    if not isinstance(grads, list | tuple) or len(grads) != len(variables):
        return None
    none = [v for g, v in zip(grads, variables, strict=True) if g is None and _is_variable(v)]
    if not none or len(none) == len(variables):
        return None
    paths = [str(getattr(v, "path", None) or getattr(v, "name", "?")) for v in none]
    layers = list(dict.fromkeys(p.rsplit("/", 1)[0].rsplit("/", 1)[-1] for p in paths))
    owner = value_of(call, sources.rpartition(".")[0]) if "." in sources else UNREAD
    outputs = [n for n in getattr(owner, "output_names", None) or [] if n in layers]
    shown = ", ".join(f"'{n}'" for n in layers[:4]) + (" and more" if len(layers) > 4 else "")
    if outputs:
        why = (
            f"`{target}` does not reach the model's output{'s' if len(outputs) > 1 else ''} "
            f"{', '.join(repr(n) for n in outputs)} through ops with a gradient (it is left out "
            "of the loss, or reaches it only through argmax, round or a cast)"
        )
        fix = (
            f"add a differentiable loss term for {', '.join(repr(n) for n in outputs)} to "
            f"`{target}` if it is meant to train; otherwise skip the None gradients before "
            f"using them, `pairs = [(g, v) for g, v in zip({result}, {sources}) if g is not None]`"
        )
    else:
        why = f"`{target}` does not depend on layer{'s' if len(layers) > 1 else ''} {shown}"
        fix = (
            f"compute `{target}` through those layers inside the tape, or leave them out of the "
            f"variables (set `trainable = False`, or skip None gradients: `[(g, v) for g, v in "
            f"zip({result}, {sources}) if g is not None]`)"
        )
    return Violation(
        "G04",
        result,
        f"`{result}` holds None for {len(none)} of {len(variables)} variables "
        f"(layer{'s' if len(layers) > 1 else ''} {shown}): {given} for them, because {why}",
        fix,
        f"None for {', '.join(paths[:4])}" + (" and more" if len(paths) > 4 else ""),
    )


def _with_block(call: LiveCall, tape: str, before: int) -> list[str]:
    """The lines of the last ``with ... as <tape>:`` block before line ``before``."""
    lines = linecache.getlines(call.filename)[: max(before - 1, 0)]
    opened = _last_opener(lines, tape)
    if opened is None:
        return []
    start, indent = opened
    block = []
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line.strip())
    return block


def _last_opener(lines: list[str], tape: str) -> tuple[int, int] | None:
    """(index, indent) of the last ``with ... as <tape>:`` line among ``lines``."""
    opener = re.compile(rf"^(\s*)with\s.+\bas\s+{re.escape(tape)}\s*:")
    found = None
    for number, line in enumerate(lines):
        match = opener.match(line)
        if match:
            found = (number, len(match.group(1)))
    return found


_NUMPY_CALL = re.compile(r"\b(?:np|numpy)\.\w+\(|\.numpy\(\)")


def _numpy_in(block: list[str]) -> str:
    """The first line of the block that runs NumPy on a value (np.clip(...), x.numpy())."""
    for line in block:
        if _NUMPY_CALL.search(line) and "=" in line:
            return line
    return ""


def _made_by_call(block: list[str], name: str) -> str:
    """``name = something(...)`` in the block, when no later line of the block reads ``name``
    except to watch it: the watched tensor is an output no other computation uses."""
    assign = re.compile(rf"^{re.escape(name)}\s*=\s*(.+\(.*\))\s*$")
    made = ""
    for index, line in enumerate(block):
        match = assign.match(line)
        if match:
            made = match.group(1)
            later = block[index + 1 :]
            reads = [
                other
                for other in later
                if re.search(rf"\b{re.escape(name)}\b", other) and ".watch(" not in other
            ]
            return "" if reads else made
    return ""


def numpy_sources(call: LiveCall, exc: BaseException) -> Violation | None:
    """``tape.gradient`` given NumPy arrays as sources (``model.get_weights()`` copies)."""
    import numpy as np

    sources = call.value("sources")
    items = sources if isinstance(sources, list | tuple) else [sources]
    if not items or not all(isinstance(s, np.ndarray) for s in items):
        return None
    text = call.text("sources")
    origin = last_assignment(call, text)
    model = origin.rsplit(".get_weights", 1)[0] if origin.endswith(".get_weights()") else "model"
    return Violation(
        "T03",
        text,
        f"`tape.gradient` got NumPy arrays as its sources (`{text}`"
        + (f" = `{origin}`" if origin else "")
        + "): a NumPy array is a copy the tape never saw, so it has no gradient",
        f"differentiate with respect to the variables themselves: "
        f"`tape.gradient(loss, {model}.trainable_variables)`",
        f"{len(items)} NumPy array(s), e.g. {items[0].dtype} {fmt(items[0].shape)}",
    )


def numpy_target(call: LiveCall, exc: BaseException) -> Violation | None:
    """``tape.gradient`` given a NumPy value as its target: the loss left TensorFlow inside the
    tape (``.numpy()``, ``np.mean``), so the tape holds no path from it to any variable."""
    import numpy as np

    target = call.value("target")
    if not isinstance(target, np.ndarray | np.generic):
        return None
    text = call.text("target")
    tape = call.source.partition(".gradient")[0].strip() or "tape"
    block = _with_block(call, tape, call.lineno)
    line = next((b for b in block if ".numpy()" in b and "=" in b), "") or _numpy_in(block)
    where = f": `{line}` in the tape's block took it out of TensorFlow" if line else ""
    return Violation(
        "G04",
        text,
        f"the target `{text}` given to `{tape}.gradient` is a NumPy {type(target).__name__}, "
        f"not a tensor{where}; the tape records TensorFlow ops only, so no variable gets a "
        "gradient",
        "keep the forward pass and the loss in TensorFlow inside the tape: no `.numpy()`, and "
        "tf.reduce_mean / keras.ops.mean instead of np.mean (read values with .numpy() after "
        "the gradient)",
        f"`{text}`: {target.dtype} {fmt(np.shape(target))}",
    )


def last_assignment(call: LiveCall, name: str) -> str:
    """The right-hand side of the last ``name = ...`` before the call, "" when none."""
    if not call.filename:
        return ""
    return assigned_before(name, call.filename, call.lineno)


def consumed_pairs(call: LiveCall, exc: BaseException) -> Violation | None:
    """``apply_gradients`` given a ``zip`` that a loop before it already consumed."""
    value = call.value("grads_and_vars")
    if type(value).__name__ not in ("zip", "map", "generator"):
        return None
    text = call.text("grads_and_vars")
    if not text.isidentifier() or not call.filename:
        return None
    loop = re.compile(rf"^\s*for\s+.+\s+in\s+{re.escape(text)}\s*:")
    lines = linecache.getlines(call.filename)[: max(call.lineno - 1, 0)]
    looped = [n for n, line in enumerate(lines, 1) if loop.match(line)]
    origin = last_assignment(call, text)
    kind = type(value).__name__
    if not looped and "got 0" not in str(exc):
        return None
    where = f"the loop at line {looped[-1]} consumed it" if looped else "it was already consumed"
    return Violation(
        "S12",
        text,
        f"`{text}` is a {kind} iterator and {where}, so `apply_gradients` received no "
        "(gradient, variable) pairs",
        f"make it a list, which can be read twice: `{text} = list({origin or 'zip(grads, vars)'})`",
        f"`{text}` = `{origin}`" if origin else "",
    )
