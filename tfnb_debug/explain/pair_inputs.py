"""A user's layer whose ``build`` or ``call`` unpacks its input into several parts (``q, kv
= inputs``), called on one tensor (S12).  Read from the traceback: the user's layer frame and
its unpacking line, the cell's call of the layer, and the Inputs of the cell that the call
left out."""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.files import is_user_file
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_UNPACK = re.compile(r"too many values to unpack \(expected (\d+)")


def one_tensor_for_pair(ctx: ErrorContext) -> Explained | None:
    """S12: a layer that unpacks its input into N parts got one tensor."""
    found = _UNPACK.search(ctx.text)
    if found is None:
        return None
    facts = ctx.read(_unpacking_layer)
    if facts is None:
        return None
    layer, cls, method, line, given, others = facts
    count = int(found.group(1))
    listed = ", ".join([given, *others[: count - 1]])
    return (
        finding(
            "S12",
            f"layer '{layer}' ({cls}) unpacks its input into {count} parts in `{method}` "
            f"(`{line}`), so it takes a list of {count} tensors, and it was called on one "
            f"tensor, `{given}`",
            place=f"layer '{layer}'",
            evidence=f"`{line}` in {cls}.{method}; called on `{given}`"
            + (f"; other Inputs of the cell: {', '.join(others)}" if others else ""),
            hint=f"call it on the list: `{cls}(...)([{listed}])`"
            if len(others) >= count - 1
            else f"call it on a list of {count} tensors",
        ),
        (),
    )


def _unpacking_layer(exc: BaseException) -> tuple[str, str, str, str, str, list[str]] | None:
    tb, outer, inner = exc.__traceback__, None, None
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            owner = frame.f_locals.get("self")
            if owner is not None and frame.f_code.co_name in ("build", "call"):
                inner = (tb, owner)
            elif inner is None:
                outer = tb
        tb = tb.tb_next
    if inner is None or outer is None:
        return None
    tb, owner = inner
    import linecache

    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).strip()
    if not re.match(r"[\w\s,]+=\s*(input_shape|inputs)\b", line):
        return None
    source = linecache.getline(outer.tb_frame.f_code.co_filename, outer.tb_lineno)
    called = re.search(r"\)\(\s*(\w+)\s*\)", source)
    if called is None:
        return None
    given = called.group(1)
    spaces = (outer.tb_frame.f_locals, outer.tb_frame.f_globals)
    cell = "".join(linecache.getlines(outer.tb_frame.f_code.co_filename))
    others = [n for n in _inputs(spaces) if n != given and re.search(rf"\b{n}\s*=", cell)]
    return (
        str(getattr(owner, "name", "")),
        type(owner).__name__,
        tb.tb_frame.f_code.co_name,
        line,
        given,
        others,
    )


def _inputs(spaces: tuple[Any, ...], limit: int = 400) -> list[str]:
    """The names bound to Keras Input tensors in the cell (what a layer could be called on)."""
    found: list[str] = []
    for space in spaces:
        for key, value in list(space.items())[:limit]:
            history = getattr(value, "_keras_history", None)
            operation = getattr(history, "operation", None)
            if (
                type(operation).__name__ == "InputLayer"
                and key not in found
                and not key.startswith("_")
            ):
                found.append(key)
    return found
