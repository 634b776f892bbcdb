"""The rank of the tensors a Python condition tested, read from the failing user line.

Python asks a tensor for one bool in an ``if``/``elif``/``while``/``assert``, a conditional
expression (``x if x > 0 else -x``), ``and``/``or``/``not``, a comprehension's ``if`` and
``bool(...)``.  Inside a traced function that is T02, and the fix depends on the condition's
rank: one value (a scalar) branches with ``tf.cond``; one value per element picks with
``tf.where``.  :func:`condition_rank` finds those conditions in the innermost user line and
reads the static rank of the tensors they compare from the frame's locals (a name or an
attribute chain on one); a whole-tensor reduction without an axis (``tf.reduce_max(x)``) is a
scalar.  None when the line tests nothing or no rank could be read.
"""

from __future__ import annotations

import ast
import linecache
import re
import textwrap
from collections.abc import Iterator, Mapping
from typing import Any

from tfnb_debug.ground.files import innermost_user_traceback

_REDUCTIONS = re.compile(
    r"^(reduce_(sum|mean|max|min|prod|all|any)|sum|mean|max|min|prod|all|any|norm)$"
)
_HEADER = re.compile(r"(if|elif|while)\b")


def condition_rank(exc: BaseException) -> int | None:
    """The highest static rank among the tensors the innermost user line's conditions test."""
    user = innermost_user_traceback(exc)
    if user is None:
        return None
    line = linecache.getline(user.tb_frame.f_code.co_filename, user.tb_lineno).strip()
    tree = _parse(line)
    if tree is None:
        return None
    local = user.tb_frame.f_locals
    ranks = []
    for condition in _conditions(tree):
        for node in _operands(condition):
            rank = _rank_of(node, local)
            if rank is not None:
                ranks.append(rank)
    return max(ranks) if ranks else None


def _rank_of(node: ast.expr, local: Mapping[str, Any], depth: int = 0) -> int | None:
    """The static rank of an expression of the condition, read without running it: a name or
    attribute (its value's rank), an index into one (minus the integer indices), a reduction
    (0 without an axis, one less with an integer axis), an element-wise op or call (the
    highest rank of its operands); None when unknown."""
    if depth > 8:
        return None
    if _whole_reduction(node):
        return 0
    if isinstance(node, ast.Name | ast.Attribute):
        return _static_rank(_attribute_value(node, local))
    if isinstance(node, ast.Subscript):
        base = _rank_of(node.value, local, depth + 1)
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if base is None or any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts):
            return None
        dropped = sum(1 for p in parts if not isinstance(p, ast.Slice) and not _is_none(p))
        added = sum(1 for p in parts if _is_none(p))
        return base - dropped + added if base - dropped + added >= 0 else None
    if isinstance(node, ast.BinOp):
        sides = [_rank_of(node.left, local, depth + 1), _rank_of(node.right, local, depth + 1)]
        known = [r for r in sides if r is not None]
        return max(known) if known else None
    if isinstance(node, ast.UnaryOp):
        return _rank_of(node.operand, local, depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        first = _rank_of(node.args[0], local, depth + 1)
        if _REDUCTIONS.match(node.func.attr):
            axis = next((k.value for k in node.keywords if k.arg == "axis"), None)
            axis = axis if axis is not None else (node.args[1] if len(node.args) > 1 else None)
            if isinstance(axis, ast.Constant) and isinstance(axis.value, int) and first:
                return first - 1
            return None  # a tensor's own method, or a tuple of axes
        if node.func.attr not in _ELEMENTWISE:
            return None  # a reshape, a matmul, an argmax: the rank changes
        ranks = [_rank_of(a, local, depth + 1) for a in node.args]
        known = [r for r in ranks if r is not None]
        return max(known) if known else None
    return None


# element-wise ops (tf.*, tf.math.*, keras.ops.*): the result has the operands' broadcast rank
_ELEMENTWISE = frozenset(
    [
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "equal",
        "not_equal",
        "logical_and",
        "logical_or",
        "logical_not",
        "abs",
        "sign",
        "square",
        "sqrt",
        "exp",
        "log",
        "sigmoid",
        "tanh",
        "cast",
        "minimum",
        "maximum",
        "is_nan",
        "is_inf",
        "is_finite",
        "isnan",
        "isinf",
        "isfinite",
        "round",
        "floor",
        "ceil",
    ]
)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _parse(line: str) -> ast.AST | None:
    """The line as a tree; a compound statement's header (``elif x > 0:``) with an empty body."""
    text = textwrap.dedent(line).rstrip()
    if _HEADER.match(text) and text.endswith(":"):
        text = re.sub(r"^elif\b", "if", text) + " pass"
    try:
        return ast.parse(text)
    except SyntaxError:
        return None


def _conditions(tree: ast.AST) -> Iterator[ast.expr]:
    """Every expression of the line that Python turns into one bool."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.Assert, ast.IfExp)):
            yield node.test
        elif isinstance(node, ast.BoolOp):
            yield from node.values
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node.operand
        elif isinstance(node, ast.comprehension):
            yield from node.ifs
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "bool"
            and len(node.args) == 1
        ):
            yield node.args[0]


def _operands(node: ast.expr) -> list[ast.expr]:
    """The values a condition compares or combines (not what a call reduces)."""
    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.BoolOp):
        return [o for v in node.values for o in _operands(v)]
    if isinstance(node, ast.UnaryOp):
        return _operands(node.operand)
    return [node]


def _static_rank(value: Any) -> int | None:
    if value is None:
        return None
    shape = getattr(value, "shape", None)
    rank = getattr(shape, "rank", None)
    if rank is None and isinstance(shape, tuple):
        rank = len(shape)
    return rank if isinstance(rank, int) else None


def _whole_reduction(node: Any) -> bool:
    """``tf.reduce_max(x)`` / ``keras.ops.mean(x)`` / ``tf.norm(x)`` without an axis: a scalar."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    if not _REDUCTIONS.match(node.func.attr) or len(node.args) != 1:
        return False
    root = node.func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root.id not in ("tf", "ops", "keras", "K"):
        return False  # np.max and a tensor's own methods are another story
    return not any(k.arg in ("axis", "axes") for k in node.keywords)


def _attribute_value(node: Any, local: Mapping[str, Any]) -> Any:
    """The value of a name or an attribute chain on a local (``x``, ``self.mask``), read with
    plain getattr on instance data (no properties run: a property may compute); else None."""
    chain: list[str] = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in local:
        return None
    value = local[node.id]
    for attr in reversed(chain):
        namespace = getattr(value, "__dict__", None)
        if not isinstance(namespace, dict) or attr not in namespace:
            return None
        value = namespace[attr]
    return value
