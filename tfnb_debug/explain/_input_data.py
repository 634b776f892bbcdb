"""Inputs whose shape the cell copied from an array: ``keras.Input(shape=x.shape[1:])``.

A model built that way takes the array's layout as it is: a series without its feature axis
gives ``Input((128,))``, channels-first images give ``Input((3, 32, 32))``.  The fix is then
in the array (``x[..., None]``, a transpose) and the ``Input`` follows it; advice to change
the ``Input`` alone would be undone by the copy.  This reader finds each ``Input`` /
``InputLayer`` call of the failing cell whose shape argument reads ``NAME.shape``, and the
array's shape and values from the user's namespace.  Nothing runs.
"""

from __future__ import annotations

import ast
import linecache
from dataclasses import dataclass

from tfnb_debug.explain._api import UNREAD, evaluate
from tfnb_debug.explain._nonfinite_source import failing_statement
from tfnb_debug.explain._operands import call_name
from tfnb_debug.ground.files import innermost_user_traceback


@dataclass(frozen=True)
class InputData:
    """One ``Input(shape=<array>.shape...)`` of the cell."""

    name: str  # the array
    expression: str  # the shape argument as written
    shape: tuple[int, ...]  # the array's shape now
    fractional: bool  # the array holds values that are not whole numbers


def read_input_data(exc: BaseException) -> tuple[InputData, ...]:
    """Each Input of the failing cell whose shape is read from an array (at most 4)."""
    failing = failing_statement(exc)
    user = innermost_user_traceback(exc)
    if failing is None or user is None:
        return ()
    spaces = failing[0]
    source = "".join(linecache.getlines(user.tb_frame.f_code.co_filename))
    if ".shape" not in source or "Input" not in source:
        return ()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    found: list[InputData] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or call_name(node.func) not in ("Input", "InputLayer"):
            continue
        argument = next(
            (k.value for k in node.keywords if k.arg in ("shape", "input_shape")),
            node.args[0] if node.args else None,
        )
        if argument is None:
            continue
        for sub in ast.walk(argument):
            if (
                isinstance(sub, ast.Attribute)
                and sub.attr == "shape"
                and isinstance(sub.value, ast.Name)
            ):
                item = _array(sub.value.id, ast.unparse(argument), spaces)
                if item is not None and item not in found:
                    found.append(item)
                break
    return tuple(found[:4])


def _array(name: str, expression: str, spaces: tuple[object, ...]) -> InputData | None:
    import numpy as np

    value = evaluate(ast.Name(id=name), spaces)  # type: ignore[arg-type]
    shape = getattr(value, "shape", None)
    if value is UNREAD or shape is None:
        return None
    try:
        dims = tuple(int(d) for d in shape)
        sample = np.asarray(value).reshape(-1)[:10000]
        fractional = bool(sample.dtype.kind == "f" and np.any(sample != np.round(sample)))
    except Exception:
        return None
    return InputData(name, expression, dims, fractional)
