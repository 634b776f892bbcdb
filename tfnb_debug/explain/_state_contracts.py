"""Contracts of a layer's or metric's state variables: ``assign``, ``assign_add`` and
``assign_sub`` take a value of the variable's own shape and dtype, both fixed when
``add_weight`` (or ``tf.Variable``) made it.  Read: the variable (its path, shape and dtype),
the value as the user wrote it and its shape, the method of the user's class the line is in,
and the line of that class that made the variable.  Nothing runs."""

from __future__ import annotations

import ast
import re
from typing import Any

from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._operands import enclosing_function, innermost_node, parsed_file
from tfnb_debug.explain._violation import Violation, fmt, shape_of

_SHAPES = re.compile(r"variable\.shape=(\([^)]*\)), Received: value\.shape=(\([^)]*\))")
_CONVERSION = re.compile(r"requested dtype (\w+) for Tensor with dtype (\w+)")
_ASSIGN = re.compile(r"^(.*)\.(assign(?:_add|_sub)?)\($", re.S)


def assigned_shape(call: LiveCall, exc: BaseException) -> Violation | None:
    """S07: a state variable given a value of another shape (a batch's values added to a
    scalar total, a scalar assigned to a per-class state, a state meant to grow)."""
    found = _SHAPES.search(str(exc))
    parts = _parts(call)
    if found is None or parts is None:
        return None
    target, method, value_text, where, made = parts
    held, given = _dims(found.group(1)), _dims(found.group(2))
    if held is None or given is None:
        return None
    problem = (
        f"`{target}` is a state variable of shape {fmt(held)}{made}, and `{method}` in "
        f"{where} gives it `{value_text}` of shape {fmt(given)}: a variable's shape is fixed "
        "when it is made"
    )
    if not held and given:
        per_class = (
            f"; or, if it holds one value per class, make it with `shape=({given[0]},)`"
            if len(given) == 1
            else ""
        )
        hint = (
            f"reduce the batch's values to one number before adding: "
            f"`{target}.{method}(tf.reduce_sum({value_text}))` (count the examples in a second "
            f"state for a mean){per_class}"
        )
    elif held and not given:
        hint = (
            f"assign zeros of the variable's own shape: `{target}.assign(tf.zeros_like("
            f"{target}))` (or `keras.ops.zeros({fmt(held)})`)"
        )
    elif "concat" in value_text or "stack" in value_text:
        hint = (
            f"a state cannot grow batch by batch: keep running sums or counts in `{target}`, "
            "or collect the predictions outside the metric (`model.predict`)"
        )
    else:
        hint = (
            f"give `{method}` a value of shape {fmt(held)}, or make `{target}` with "
            f"`shape={fmt(given)}`"
        )
    return Violation("S07", value_text, problem, hint)


def assigned_dtype(call: LiveCall, exc: BaseException) -> Violation | None:
    """S11: a state variable given a value of another dtype (a float count added to an int
    variable: ``tf.Variable(0)`` is int32)."""
    found = _CONVERSION.search(str(exc))
    parts = _parts(call)
    if found is None or parts is None:
        return None
    target, method, value_text, where, made = parts
    held, given = found.group(1), found.group(2)
    if str(getattr(getattr(call.receiver, "dtype", None), "name", "")) != held:
        return None
    int_made = "int" in held and re.search(r"Variable\(\s*-?\d+\s*[,)]", made)
    origin = " (a Python int as the initial value makes an int32 variable)" if int_made else ""
    inner = re.fullmatch(r"(?:tf|keras\.ops)\.cast\((.+), [\w.'\"]+\)", value_text)
    cast = f"tf.cast({inner.group(1) if inner else value_text}, tf.{held})"
    article = "an" if held[0] in "aeiou" else "a"
    return Violation(
        "S11",
        value_text,
        f"`{target}` is {article} {held} variable{made}{origin}, and `{method}` in {where} gives it "
        f"`{value_text}`, a {given} value",
        f"make the variable {given}, e.g. `tf.Variable(0.0)` or `add_weight(..., "
        f"dtype='{given}')`, or cast the value: `{cast}`",
    )


def _parts(call: LiveCall) -> tuple[str, str, str, str, str] | None:
    """(variable as written, method, value as written, "`Class.method`", " (`line`)" of the
    line that made the variable) of an ``x.assign*(value)`` call."""
    head = _ASSIGN.match(call.source.split("(", 1)[0] + "(") if call.source else None
    receiver = call.receiver
    if head is None or receiver is None or shape_of(receiver) is None:
        return None
    key = next((k for k in ("value", "delta") if k in call.texts), "")  # tf.Variable: delta
    if not key:
        return None
    value = call.text(key)
    function = enclosing_function(call.filename, call.lineno)
    owner = innermost_node(parsed_file(call.filename), call.lineno, (ast.ClassDef,))
    name = getattr(owner, "name", "")
    where = f"`{name}.{function.name}`" if name and function else "the cell"
    return head.group(1), head.group(2), value, where, _made(owner, head.group(1))


def _made(owner: Any, target: str) -> str:
    """`` (made by `self.total = self.add_weight(...)`)``: the class's line that assigned the
    variable, as written."""
    if not isinstance(owner, ast.ClassDef):
        return ""
    for node in ast.walk(owner):
        if isinstance(node, ast.Assign) and any(ast.unparse(t) == target for t in node.targets):
            return f" (made by `{ast.unparse(node)}`)"
    return ""


def _dims(text: str) -> tuple[int, ...] | None:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    return tuple(int(d) for d in value) if isinstance(value, tuple) else None


STATE_CONTRACTS: tuple[tuple[Any, ...], ...] = (
    (("assign_add", "assign_sub", "assign"), assigned_shape, (r"shape of the target variable",)),
    (("assign_add", "assign_sub", "assign"), assigned_dtype, (r"Tensor conversion requested",)),
)
