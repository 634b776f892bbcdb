"""Which operand of the user's failing line is the odd one, and what the line's function takes.

A dtype clash names the op (``Mul``, ``Sub``, ``truediv``) and the two dtypes, not the
operands; the user's line shows them.  :func:`odd_operand` finds the one binary operation of
that kind in the line and returns the name on the side of the odd dtype (``w`` in
``w * tf.square(y_true - y_pred)`` when ``w`` is the float64 one).
:func:`enclosing_parameters` reads the parameters of the ``def`` around the line, so a rule
can tell the function's inputs (a loss's ``y_true``/``y_pred``) from a value made elsewhere.
"""

from __future__ import annotations

import ast
import linecache
from typing import Any

_BINOPS: dict[str, type[ast.operator]] = {
    "Sub": ast.Sub,
    "truediv": ast.Div,
    "RealDiv": ast.Div,
    "Mul": ast.Mult,
    "AddV2": ast.Add,
    "MatMul": ast.MatMult,
}


def odd_operand(source: str, op: str, have: str, want: str) -> str:
    """The name on the odd side of the line's one ``op`` (the integer operand of an int/float
    clash, the float64 one of a float64/float32 clash), or "" when it is not a plain name."""
    kind = _BINOPS.get(op)
    if not source or (kind is None and op not in _CALLED):
        return ""
    try:
        tree = ast.parse(source.strip().removeprefix("return ").rstrip(":"))
    except SyntaxError:
        return ""
    # the message names the second operand ('y', input #1) as the odd one: ``have`` is the right
    wanted = "int" if {have, want} & {"float64"} == set() else "float64"
    found = [
        n
        for n in ast.walk(tree)
        if kind is not None and isinstance(n, ast.BinOp) and isinstance(n.op, kind)
    ]
    if len(found) == 1:
        side = found[0].right if wanted in have else found[0].left
        return side.id if isinstance(side, ast.Name) else ""
    # the op written as a call, ``tf.pow(0.5, step // every)``: its x or y argument, or the
    # one plain name inside that argument (``step``)
    calls = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and call_name(n.func) == _CALLED.get(op) and len(n.args) == 2
    ]
    if len(calls) != 1:
        return ""
    side = calls[0].args[1] if wanted in have else calls[0].args[0]
    names = {n.id for n in ast.walk(side) if isinstance(n, ast.Name) and n.id not in _NOT_OPERANDS}
    return names.pop() if len(names) == 1 else ""


# ops that are written as calls, by the function's name
_CALLED = {"Pow": "pow", "Maximum": "maximum", "Minimum": "minimum", "FloorMod": "mod"}
_NOT_OPERANDS = frozenset({"self", "tf", "np", "numpy", "keras", "ops", "math"})


def call_name(func: ast.expr) -> str:
    """The name a call is made by: ``log`` for ``tf.math.log(...)``, ``f`` for ``f(...)``,
    "" for any other callee (a subscript, a call's result)."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def item_texts(text: str, count: int) -> list[str]:
    """The items of a list or tuple written in a call (``[cats, dogs]``) when it has ``count``
    of them, else ``text[0]``, ``text[1]``..."""
    try:
        node: ast.expr | None = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.List | ast.Tuple) and len(node.elts) == count:
        return [ast.unparse(e) for e in node.elts]
    return [f"{text}[{i}]" for i in range(count)]


def listed_operand(source: str, index: int) -> str:
    """Item ``index`` of the one list literal the line passes to a call (``tf.stack([a, b])``,
    input #1 is ``b``), "" when the line has not exactly one such list or the item is not a name."""
    try:
        tree = ast.parse(source.strip().removeprefix("return ").rstrip(":"))
    except SyntaxError:
        return ""
    lists = [
        arg
        for call in ast.walk(tree)
        if isinstance(call, ast.Call)
        for arg in call.args
        if isinstance(arg, ast.List | ast.Tuple)
    ]
    if len(lists) != 1 or not 0 <= index < len(lists[0].elts):
        return ""
    item = lists[0].elts[index]
    return item.id if isinstance(item, ast.Name) else ""


def enclosing_parameters(filename: str, lineno: int) -> tuple[str, ...] | None:
    """The parameter names of the innermost ``def`` of ``filename`` around line ``lineno``;
    None when the source cannot be read or the line is in no function."""
    best = enclosing_function(filename, lineno)
    if best is None:
        return None
    args = best.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return tuple(a.arg for a in every)


def enclosing_function(filename: str, lineno: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost ``def`` of ``filename`` around line ``lineno``, or None."""
    found = innermost_node(parsed_file(filename), lineno, (ast.FunctionDef, ast.AsyncFunctionDef))
    return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None


def enclosing_class(filename: str, lineno: int) -> str:
    """The name of the innermost ``class`` of ``filename`` around line ``lineno``, or ""."""
    found = innermost_node(parsed_file(filename), lineno, (ast.ClassDef,))
    return found.name if isinstance(found, ast.ClassDef) else ""


def innermost_node(
    tree: ast.AST | None, lineno: int, kinds: tuple[type[ast.AST], ...]
) -> ast.AST | None:
    """The innermost node of one of ``kinds`` in ``tree`` that spans line ``lineno``."""
    best: ast.AST | None = None
    best_start = -1
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, kinds):
            continue
        start = getattr(node, "lineno", 0)
        end = getattr(node, "end_lineno", None) or start
        if start <= lineno <= end and start >= best_start:
            best, best_start = node, start
    return best


def parsed_file(filename: str) -> ast.Module | None:
    """The cell (file) ``filename`` parsed, None when it has no source or does not parse."""
    source = "".join(linecache.getlines(filename))
    if not source:
        return None
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def cell_text(frames: list[Any]) -> str:
    """The source of the cell (file) the innermost of ``frames`` runs in, "" when none: what
    the cell wrote, for the readers that look for a name or an argument in it."""
    return "".join(linecache.getlines(frames[-1].filename)) if frames else ""
