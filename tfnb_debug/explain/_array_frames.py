"""The pandas DataFrame an array was made from: ``x = df.values``, ``df.to_numpy()``,
``np.asarray(df[["a", "b"]])``, ``df.values.astype(object)``.

An array made from a table has lost the table's column names and dtypes: an object array
says "column 2 holds strings", a datetime column becomes ``Timestamp`` objects.  The
expression (or the assignment in the cell that made the name) is read back to the frame,
which is looked up in the user's namespace (a name, or a name with constant column keys:
nothing is called), so a finding can name the column as the user knows it.
"""

from __future__ import annotations

import ast
import linecache
from collections.abc import Mapping, Sequence
from typing import Any

from tfnb_debug.explain._assignments import assigned_from

__all__ = ["column_names", "frame_behind", "is_frame"]

_TO_ARRAY = frozenset({"to_numpy", "astype", "copy", "squeeze"})
_NUMPY = frozenset({"np", "numpy"})


def frame_behind(
    text: str,
    namespaces: Sequence[Mapping[str, Any]],
    filename: str = "",
    lineno: int = 0,
    depth: int = 3,
) -> tuple[str, Any] | None:
    """``(the frame's expression, the DataFrame)`` that the array written as ``text`` was made
    from, following up to ``depth`` assignments above ``lineno`` in ``filename``; None when
    the array does not come from a DataFrame that can be read."""
    try:
        node: ast.expr = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    before = linecache.getlines(filename)[: max(lineno - 1, 0)] if filename else []
    for _ in range(depth):
        while isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            node = node.value  # a slice of its rows (x[:-6], x[10:]) keeps the columns
        base = _array_base(node)
        target = base if base is not None else node
        value = _lookup(target, namespaces)
        if is_frame(value):
            return ast.unparse(target), value
        if not isinstance(target, ast.Name):
            return None
        rhs = assigned_from(target.id, before)
        if not rhs:
            return None
        try:
            node = ast.parse(rhs, mode="eval").body
        except SyntaxError:
            return None
    return None


def column_names(frame: Any, width: int) -> list[str] | None:
    """The frame's column names when it has ``width`` columns (the array's), else None."""
    columns = [str(c) for c in getattr(frame, "columns", [])]
    return columns if len(columns) == width else None


def _array_base(node: ast.expr) -> ast.expr | None:
    """What an array expression converts: ``B`` of ``B.values``, ``B.to_numpy(...)``,
    ``np.asarray(B)``, ``np.array(B)`` (through ``.astype(...)``/``.copy()``), or None."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("astype", "copy", "squeeze")
    ):
        node = node.func.value
    if isinstance(node, ast.Attribute) and node.attr == "values":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        func = node.func
        if func.attr in _TO_ARRAY:
            return func.value
        if (
            func.attr in ("asarray", "array")
            and isinstance(func.value, ast.Name)
            and func.value.id in _NUMPY
            and node.args
        ):
            return node.args[0]
    return None


def _lookup(node: ast.expr, namespaces: Sequence[Mapping[str, Any]]) -> Any:
    """A name's value, or a name's columns selected by constant keys (``df[["a", "b"]]``,
    ``df["a"]``); None for anything else (nothing is evaluated)."""
    if isinstance(node, ast.Name):
        for space in namespaces:
            if node.id in space:
                return space[node.id]
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _dropped(node, _lookup(node.func.value, namespaces))
    if isinstance(node, ast.Subscript):
        base = _lookup(node.value, namespaces)
        if not is_frame(base):
            return None
        key = node.slice
        try:
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return base[[key.value]]
            if isinstance(key, ast.List) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in key.elts
            ):
                return base[[e.value for e in key.elts]]  # type: ignore[attr-defined]
        except Exception:
            return None
    return None


def _dropped(node: ast.Call, base: Any) -> Any:
    """``base.drop(columns=[...])`` or ``base.drop([...], axis=1)`` with constant names: the
    frame without those columns (a new frame; ``base`` is not changed), else None."""
    if not is_frame(base) or getattr(node.func, "attr", "") != "drop":
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    axis = keywords.get("axis")
    names = keywords.get("columns")
    if (
        names is None
        and node.args
        and isinstance(axis, ast.Constant)
        and axis.value in (1, "columns")
    ):
        names = node.args[0]
    try:
        columns = ast.literal_eval(names) if names is not None else None
    except ValueError:
        return None
    if isinstance(columns, str):
        columns = [columns]
    if not isinstance(columns, list | tuple) or not all(c in base.columns for c in columns):
        return None
    return base.drop(columns=list(columns))


def is_frame(value: Any) -> bool:
    """A pandas DataFrame (read by its type's name and module: pandas is not imported)."""
    return type(value).__name__ == "DataFrame" and type(value).__module__.startswith("pandas")
