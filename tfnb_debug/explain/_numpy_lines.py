"""NumPy errors on the user's own line, while the data for a model is prepared: what each
array on the line is and where the odd dimension or dtype came from.

- ``x /= 255`` on an integer array (the float result cannot be written back: S11);
- ``reshape`` to a shape whose size is not the array's (a count copied from another array,
  S07);
- ``concatenate`` of parts with different row counts (a shifted slice: S12), ``stack`` of
  items of different shapes (S13);
- ``astype(int)`` of text (S11); ``np.eye(n)[ids]`` with ids past n (1-based ids: P12);
- a broadcast of an array with a statistic reduced over other axes than meant (S07).

Read from the innermost user frame: the statement (parsed), its names' live values, and the
cell's assignments of those names.  Nothing the user wrote is run.
"""

from __future__ import annotations

import ast
import linecache
import re
from typing import Any, NamedTuple

from tfnb_debug.explain._api import UNREAD, evaluate
from tfnb_debug.explain._assignments import assigned_from
from tfnb_debug.explain._operands import innermost_node, parsed_file
from tfnb_debug.ground.files import innermost_user_traceback

_CAST = re.compile(r"Cannot cast ufunc '(\w+)' output from dtype\('(\w+)'\) to dtype\('(\w+)'\)")
_RESHAPE = re.compile(r"cannot reshape array of size (\d+) into shape \(([^)]*)\)")
_CONCAT = re.compile(
    r"along dimension (\d+), the array at index (\d+) has size (\d+) and the array at index "
    r"(\d+) has size (\d+)"
)
_STACK = "all input arrays must have the same shape"
_LITERAL = re.compile(r"invalid literal for int\(\) with base 10: (?:np\.str_\()?'([^']*)'")
_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for axis 0 with size (\d+)")
_BROADCAST = re.compile(
    r"operands could not be broadcast together with shapes \(([^)]*)\) \(([^)]*)\)"
)


class NumpyFault(NamedTuple):
    code: str
    problem: str
    hint: str
    evidence: str
    filename: str
    lineno: int


class _Line(NamedTuple):
    statement: ast.stmt
    spaces: tuple[Any, ...]
    before: list[str]


def numpy_fault(exc: BaseException) -> NumpyFault | None:
    """The array and dimension behind a NumPy error on the user's line, or None."""
    user = innermost_user_traceback(exc)
    if user is None:
        return None
    filename, lineno = user.tb_frame.f_code.co_filename, user.tb_lineno
    statement = innermost_node(parsed_file(filename), lineno, (ast.stmt,))
    if not isinstance(statement, ast.stmt):
        return None
    frame = user.tb_frame
    line = _Line(
        statement,
        (frame.f_locals, frame.f_globals),
        linecache.getlines(filename)[: max(lineno - 1, 0)],
    )
    text = str(exc)
    for pattern, read in (
        (_CAST, _in_place),
        (_RESHAPE, _reshape),
        (_CONCAT, _concatenate),
        (_LITERAL, _text_to_int),
        (_BOUNDS, _one_based),
        (_BROADCAST, _broadcast),
    ):
        found = pattern.search(text)
        if found is not None:
            parts = read(found, line)
            return NumpyFault(*parts, filename, lineno) if parts else None
    if _STACK in text:
        parts = _stack(line)
        return NumpyFault(*parts, filename, lineno) if parts else None
    return None


Parts = tuple[str, str, str, str] | None


def _in_place(found: re.Match[str], line: _Line) -> Parts:
    node = line.statement
    if not isinstance(node, ast.AugAssign):
        return None
    name, op = ast.unparse(node.target), ast.unparse(node.value)
    sign = {ast.Div: "/", ast.Mult: "*", ast.Sub: "-", ast.Add: "+"}.get(type(node.op), "/")
    return (
        "S11",
        f"`{name}` is {found.group(3)}, and `{name} {sign}= {op}` writes the {found.group(2)} "
        f"result back into it, which {found.group(3)} cannot hold",
        f"make a float array first: `{name} = {name}.astype('float32') {sign} {op}`",
        f"`{name}`: dtype {found.group(3)}; the {found.group(1)} gives {found.group(2)}",
    )


def _reshape(found: re.Match[str], line: _Line) -> Parts:
    size = int(found.group(1))
    try:
        target = [int(d) for d in found.group(2).replace(" ", "").split(",") if d]
    except ValueError:
        return None
    call = _call(line.statement, "reshape")
    if call is None or not isinstance(call.func, ast.Attribute):
        return None
    name = ast.unparse(call.func.value)
    value = evaluate(call.func.value, line.spaces)
    shape = tuple(getattr(value, "shape", ()) or ())
    rest = 1
    for d in target[1:]:
        rest *= d
    if not rest or size % rest:
        return (
            "S07",
            f"`{name}` {shape} holds {size} values, which do not split into rows of {rest}",
            f"reshape to a size that divides {size}, e.g. `{name}.reshape(-1, ...)` with the "
            "other axes of one example",
            f"{size} values; asked {tuple(target)}",
        )
    rows = size // rest
    peers = [n for n, v in _arrays(line.spaces) if v.shape[:1] == (target[0],) and n != name]
    origin = f"; {target[0]} is the sample count of `{peers[0]}`" if peers else ""
    dims = ", ".join(str(d) for d in target[1:])
    return (
        "S07",
        f"`{name}` {shape} holds {rows} examples of {rest} values ({size} in all), and the "
        f"reshape asks for {target[0]} rows{origin}",
        f"let NumPy count the rows: `{name}.reshape(-1, {dims})` (or `len({name})`)",
        f"`{name}`: {size} values; reshape to {tuple(target)}",
    )


def _concatenate(found: re.Match[str], line: _Line) -> Parts:
    call = _call(line.statement, "concatenate") or _call(line.statement, "hstack")
    if call is None or not call.args or not isinstance(call.args[0], ast.List | ast.Tuple):
        return None
    items = call.args[0].elts
    axis, i, a, j, b = (int(g) for g in found.groups())
    if max(i, j) >= len(items):
        return None
    first, second = ast.unparse(items[i]), ast.unparse(items[j])
    shifted = [t for t in (first, second) if re.search(r"\[\s*-?\d*\s*:\s*-?\d*", t)]
    why = f" (the slice in `{shifted[0]}` drops rows)" if shifted and axis == 0 else ""
    return (
        "S12" if axis == 0 else "S07",
        f"`{first}` has {a} {'rows' if axis == 0 else f'on axis {axis}'} and `{second}` {b}"
        f"{why}: the parts joined side by side need the same size there",
        f"cut the parts to the same {'rows' if axis == 0 else 'size'} before joining them (the "
        "same slice on each part, so row i of every part is the same example)",
        f"dimension {axis}: {a} vs {b}",
    )


def _stack(line: _Line) -> Parts:
    call = _call(line.statement, "stack") or _call(line.statement, "array")
    if call is None or not call.args:
        return None
    value = evaluate(call.args[0], line.spaces)
    if value is UNREAD or not isinstance(value, list | tuple):
        return None
    shapes: dict[tuple[int, ...], list[int]] = {}
    for k, item in enumerate(value[:10000]):
        shapes.setdefault(tuple(getattr(item, "shape", ()) or ()), []).append(k)
    if len(shapes) < 2:
        return None
    common = max(shapes, key=lambda s: len(shapes[s]))
    name = ast.unparse(call.args[0])
    odd = [(s, ks) for s, ks in shapes.items() if s != common]
    listed = "; ".join(f"{len(ks)} are {s} (items {', '.join(map(str, ks[:4]))})" for s, ks in odd)
    return (
        "S13",
        f"the items of `{name}` have different shapes: {len(shapes[common])} are {common}, "
        f"{listed}",
        f"resize (or crop) every item to {common} before stacking (tf.image.resize or "
        "keras.layers.Resizing for images), or drop the odd ones",
        f"shapes of the items of `{name}`: "
        + ", ".join(f"{s} x{len(ks)}" for s, ks in shapes.items()),
    )


def _text_to_int(found: re.Match[str], line: _Line) -> Parts:
    call = _call(line.statement, "astype")
    if call is None or not isinstance(call.func, ast.Attribute):
        return None
    name = ast.unparse(call.func.value)
    return (
        "S11",
        f"`{name}` holds text ('{found.group(1)}'), which `astype` cannot turn into integers",
        f"map the names to class ids: `classes, ids = np.unique({name}, return_inverse=True)` "
        "(or pd.factorize), and keep `classes` to read predictions back",
        f"`{name}` value '{found.group(1)}'",
    )


def _one_based(found: re.Match[str], line: _Line) -> Parts:
    index, size = int(found.group(1)), int(found.group(2))
    for node in ast.walk(line.statement):
        if not isinstance(node, ast.Subscript) or isinstance(node.slice, ast.Slice):
            continue
        ids = evaluate(node.slice, line.spaces)
        low, high = _range(ids)
        if low is None or high is None or high != index:
            continue
        name = ast.unparse(node.slice)
        if low >= 1 and high == size:
            return (
                "P12",
                f"`{name}` runs from {low} to {high}, and `{ast.unparse(node.value)}` has "
                f"rows 0..{size - 1}: the ids start at 1",
                f"shift them to start at 0: `{ast.unparse(node.value)}[{name} - 1]`",
                f"`{name}`: {low}..{high}; {size} rows",
            )
        return (
            "P12",
            f"`{name}` reaches {high}, and `{ast.unparse(node.value)}` has rows 0..{size - 1}",
            f"size it for max id + 1 = {high + 1} rows, or re-index the ids to 0..{size - 1}",
            f"`{name}`: {low}..{high}; {size} rows",
        )
    return None


def _broadcast(found: re.Match[str], line: _Line) -> Parts:
    a, b = (tuple(int(d) for d in g.replace(" ", "").split(",") if d) for g in found.groups())
    names = [n.id for n in ast.walk(line.statement) if isinstance(n, ast.Name)]
    stats = [
        (name, made, stat)
        for name in dict.fromkeys(names)
        if (made := assigned_from(name, line.before))
        and (stat := re.match(r"(\w+)\.(mean|std|sum|max|min|var)\(axis=\(?([\d, ]+)\)?\)", made))
    ]
    if not stats:
        return None
    name, made, stat = stats[0]
    also = "; ".join(f"`{n}` = `{m}`" for n, m, _ in stats[1:3])
    reduced = tuple(int(d) for d in stat.group(3).replace(" ", "").split(",") if d)
    data = a if len(a) > len(b) else b
    kept = tuple(i for i in range(len(data)) if i not in reduced)
    want = tuple(range(len(data) - 1))
    if kept == (len(data) - 1,) or not kept:
        return None  # one value per channel already: another operand is at fault
    return (
        "S07",
        f"`{name}` = `{made}` reduces axes {reduced} of {data} and keeps axis "
        f"{kept[0] if len(kept) == 1 else kept} (size {', '.join(str(data[i]) for i in kept)}), "
        f"which does not broadcast against `{stat.group(1)}` {data}"
        + (f" (nor does {also})" if also else ""),
        f"for one value per channel or feature (the last axis) reduce over axis={want}: "
        f"`{stat.group(1)}.{stat.group(2)}(axis={want})` gives ({data[-1]},)",
        f"shapes {a} and {b}",
    )


def _call(statement: ast.AST, name: str) -> ast.Call | None:
    for node in ast.walk(statement):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called == name:
                return node
    return None


def _arrays(spaces: tuple[Any, ...], limit: int = 400) -> list[tuple[str, Any]]:
    found = []
    for space in spaces:
        for key, value in list(space.items())[:limit]:
            if not key.startswith("_") and type(value).__name__ == "ndarray" and value.ndim:
                found.append((key, value))
    return found


def _range(value: Any) -> tuple[int | None, int | None]:
    try:
        import numpy as np

        array = np.asarray(value)
        if array.dtype.kind not in "iu" or array.size == 0:
            return None, None
        return int(array.min()), int(array.max())
    except Exception:
        return None, None
