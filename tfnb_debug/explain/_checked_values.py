"""What a failed check in the user's own code compared, read from the live values.

A check (``assert``, ``tf.debugging.assert_*``, ``tf.ensure_shape``) is only the messenger:
its operands are in the user's namespace, and the statements above it say how they were
made.  This reader takes the failing check apart into one of four kinds and keeps plain facts
(nothing runs, no value is kept):

- ``range``: integer ids or labels against a bound (``assert_less(ids, n)``,
  ``assert y.max() < model.output_shape[-1]``, ``np.all(y < n)``): their lowest and highest
  value, the lookup layer that made them (its OOV and mask ids come first), and what the
  statements after the check feed them to (a model's ``fit`` as labels, a model whose first
  layer is an ``Embedding``);
- ``count``: the first-axis sizes of two arrays (``assert_equal(tf.shape(a)[0],
  tf.shape(b)[0])``, ``assert len(a) == len(b)``), with the expression that made each;
- ``shape``/``rank`` of a tensor made by an element-wise op of two tensors whose shapes
  broadcast, ``(B,)`` with ``(B, 1)`` into ``(B, B)``;
- ``rank`` of labels checked inside the user's traced step: the labels the step was called
  with (one-hot rows or not) and the loss the step gives them to.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._api import UNREAD, evaluate
from tfnb_debug.explain._layer_probe import loop_source
from tfnb_debug.explain._nonfinite_source import _assigned, failing_statement
from tfnb_debug.explain._operands import call_name, parsed_file
from tfnb_debug.explain._violation import is_a, shape_of
from tfnb_debug.ground.files import innermost_user_traceback

_RANGE = ("assert_less", "assert_less_equal", "assert_non_negative", "assert_greater_equal")
_SHAPE = ("assert_shapes", "assert_rank", "assert_rank_at_least", "assert_rank_in", "ensure_shape")
_BINARY = {"subtract": "-", "add": "+", "multiply": "*", "divide": "/"}
_RANK_MESSAGE = re.compile(r"Tensor (\w+)(?::\d+)? must have rank (\d+)\.\s+Received rank (\d+)")
_DEFINED = re.compile(r'File "([^"]+)", line (\d+), in (\w+)')
_LIMIT = 1_000_000  # values read for a range; larger arrays are left unread


@dataclass(frozen=True)
class Lookup:
    """The lookup layer that made checked ids: its ids run from 0 to ``size`` - 1."""

    variable: str
    kind: str  # StringLookup, IntegerLookup
    vocabulary: int  # tokens without the special ones
    size: int  # vocabulary_size(): with the OOV (and mask) ids
    oov: int
    mask: bool


@dataclass(frozen=True)
class Operand:
    """One array the check read."""

    name: str
    shape: tuple[int | None, ...]
    dtype: str
    low: float | None = None
    high: float | None = None
    distinct: int = 0
    whole: bool = False
    one_hot: bool = False  # 2-D rows of 0/1 with exactly one 1 each
    made: str = ""  # the expression last assigned to it above the check
    lookup: Lookup | None = None
    #: made by an element-wise op of two tensors: (left, its shape, op, right, its shape)
    combined: tuple[str, tuple[int | None, ...], str, str, tuple[int | None, ...]] | None = None


@dataclass(frozen=True)
class FailedCheck:
    """A failed check and the live facts behind it (plain values)."""

    kind: str  # range | count | shape
    filename: str
    lineno: int
    source: str
    operands: tuple[Operand, ...]
    bound: float | None = None
    bound_text: str = ""
    bound_is_output: bool = False  # the bound reads a model's output size
    #: what the statements after the check give each operand to: (name, "labels" | "embedding", model, detail)
    feeds: tuple[tuple[str, str, str, str], ...] = ()
    loss: str = ""  # the loss class a traced step gives the checked labels to
    function: str = ""  # the traced step that holds the check
    bound_layer: str = ""  # the output layer whose size the bound reads (``model.output_shape``)


def read_failed_check(exc: BaseException) -> FailedCheck | None:
    """The facts behind a failed check on the user's failing line (or in the user's traced
    step that line called), or None when the line is no check this reader knows."""
    failing = failing_statement(exc)
    if failing is None:
        return None
    spaces, before, statement = failing
    traced = _traced_rank(exc, spaces, statement, before)
    if traced is not None:
        return traced
    text = ast.unparse(statement)
    where = (getattr(statement, "lineno", 0), text)
    filename = _user_filename(exc)
    after = _after(filename, statement)
    count = _count_check(statement, spaces, before)
    if count is not None:
        return FailedCheck("count", filename, where[0], text, count)
    ranged = _range_check(statement, spaces, before, str(exc))
    if ranged is not None:
        operand, bound, bound_text, is_output = ranged
        feeds = _feeds(operand.name, after, spaces)
        owner = re.match(r"(\w+)\.output_shape", bound_text) if is_output else None
        model = evaluate(ast.Name(id=owner.group(1)), spaces) if owner else None
        layer = str(getattr((getattr(model, "layers", None) or [None])[-1], "name", "") or "")
        return FailedCheck(
            "range", filename, where[0], text, (operand,), bound, bound_text, is_output, feeds,
            bound_layer=layer,
        )  # fmt: skip
    shaped = _shape_check(statement, spaces, before)
    if shaped is not None:
        return FailedCheck("shape", filename, where[0], text, (shaped,))
    return None


def _user_filename(exc: BaseException) -> str:
    user = innermost_user_traceback(exc)
    return user.tb_frame.f_code.co_filename if user is not None else ""


def _checks(statement: ast.stmt) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(statement)
        if isinstance(n, ast.Call) and call_name(n.func) in (*_RANGE, *_SHAPE, "assert_equal")
    ]


# --- counts ------------------------------------------------------------------------------


def _count_check(
    statement: ast.stmt, spaces: tuple[Any, ...], before: list[str]
) -> tuple[Operand, ...] | None:
    """Two arrays whose first-axis sizes the check compared, and found different."""
    pair: list[ast.expr] = []
    if isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare):
        test = statement.test
        if len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq | ast.NotEq):
            pair = [test.left, test.comparators[0]]
    for check in _checks(statement):
        if call_name(check.func) == "assert_equal" and len(check.args) >= 2:
            pair = list(check.args[:2])
    names = [_counted(side) for side in pair]
    if len(names) != 2 or None in names or names[0] == names[1]:
        return None
    operands = []
    for name in names:
        value = evaluate(ast.Name(id=str(name)), spaces)
        shape = _shape_of(value)
        if not shape:
            return None
        operands.append(_operand(str(name), value, shape, before, spaces))
    if operands[0].shape[0] == operands[1].shape[0]:
        return None
    return tuple(operands)


def _counted(node: ast.expr) -> str | None:
    """``a`` for ``len(a)``, ``a.shape[0]``, ``tf.shape(a)[0]``, ``np.shape(a)[0]``."""
    if isinstance(node, ast.Call) and call_name(node.func) == "len" and len(node.args) == 1:
        inner = node.args[0]
        return inner.id if isinstance(inner, ast.Name) else None
    if not (isinstance(node, ast.Subscript) and _is_zero(node.slice)):
        return None
    base = node.value
    if isinstance(base, ast.Attribute) and base.attr == "shape":
        return base.value.id if isinstance(base.value, ast.Name) else None
    if isinstance(base, ast.Call) and call_name(base.func) == "shape" and len(base.args) == 1:
        inner = base.args[0]
        return inner.id if isinstance(inner, ast.Name) else None
    return None


def _is_zero(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


# --- ranges ------------------------------------------------------------------------------


def _range_check(
    statement: ast.stmt, spaces: tuple[Any, ...], before: list[str], message: str
) -> tuple[Operand, float | None, str, bool] | None:
    """The integer array a range check read, its bound, the bound's source, whether the bound
    is a model's output size."""
    ids_node: ast.expr | None = None
    bound_node: ast.expr | None = None
    for check in _checks(statement):
        name = call_name(check.func)
        if name in _RANGE and check.args:
            ids_node = check.args[0]
            bound_node = check.args[1] if len(check.args) > 1 else None
    if ids_node is None and isinstance(statement, ast.Assert):
        test = statement.test
        if isinstance(test, ast.Call) and call_name(test.func) == "all" and test.args:
            test = test.args[0]  # np.all(y < n)
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op = test.ops[0]
            if isinstance(op, ast.Lt | ast.LtE):
                ids_node, bound_node = test.left, test.comparators[0]
            elif isinstance(op, ast.Gt | ast.GtE):
                ids_node, bound_node = test.comparators[0], test.left
    if ids_node is None:
        return None
    array = _array_name(ids_node)
    if array is None:
        return None
    name = array
    value = evaluate(ast.Name(id=name), spaces)
    shape = _shape_of(value)
    if shape is None:
        return None
    operand = _operand(name, value, shape, before, spaces)
    if operand.low is None or not operand.whole:
        return None
    bound, text = _bound(bound_node, spaces, message)
    is_output = bool(re.search(r"output_shape|\.units\b|outputs?\[", text))
    return operand, bound, text, is_output


def _array_name(node: ast.expr) -> str | None:
    """``y`` of ``y``, ``y.max()``, ``np.max(y)``, ``tf.reduce_max(y)``."""
    if isinstance(node, ast.Name):
        return node.id
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and not node.args:
        return func.value.id if func.attr in ("max", "min") else None
    reductions = ("max", "amax", "reduce_max", "min", "amin", "reduce_min")
    if call_name(func) in reductions and node.args and isinstance(node.args[0], ast.Name):
        return node.args[0].id
    return None


def _bound(
    node: ast.expr | None, spaces: tuple[Any, ...], message: str
) -> tuple[float | None, str]:
    if node is None:
        return (0.0, "0") if "x >= 0" in message else (None, "")
    text = ast.unparse(node)
    if (
        isinstance(node, ast.Call)
        and node.args
        and call_name(node.func)
        in (
            "constant",
            "convert_to_tensor",
            "cast",
            "int",
        )
    ):
        node = node.args[0]
    value = evaluate(node, spaces)
    if value is UNREAD or isinstance(value, bool):
        shown = re.search(r"First 1 elements of y:\s*\[\s*(-?\d+)\s*\]", message)
        return (float(shown.group(1)), text) if shown else (None, text)
    try:
        return float(value), text
    except (TypeError, ValueError):
        return None, text


# --- shapes of a combined tensor ------------------------------------------------------------


def _shape_check(statement: ast.stmt, spaces: tuple[Any, ...], before: list[str]) -> Operand | None:
    """The tensor a shape or rank check read, when two tensors that broadcast made it."""
    nodes: list[ast.expr] = []
    for check in _checks(statement):
        if call_name(check.func) not in _SHAPE or not check.args:
            continue
        first = check.args[0]
        if isinstance(first, ast.List | ast.Tuple):  # assert_shapes([(t, ("B",)), ...])
            nodes += [e.elts[0] for e in first.elts if isinstance(e, ast.Tuple) and e.elts]
        else:
            nodes.append(first)
    if isinstance(statement, ast.Assert):
        nodes += [
            n.value
            for n in ast.walk(statement.test)
            if isinstance(n, ast.Attribute) and n.attr in ("shape", "ndim")
        ]
    for node in nodes:
        if not isinstance(node, ast.Name):
            continue
        value = evaluate(node, spaces)
        shape = _shape_of(value)
        if shape is None:
            continue
        operand = _operand(node.id, value, shape, before, spaces)
        if operand.combined is not None:
            return operand
    return None


def _combined(
    made: ast.expr | None, spaces: tuple[Any, ...]
) -> tuple[str, tuple[int | None, ...], str, str, tuple[int | None, ...]] | None:
    """(a, a's shape, op, b, b's shape) when ``made`` is ``a op b`` (or ``tf.subtract(a, b)``)
    of two tensors whose shapes broadcast one against the other: ``(B,)`` with ``(B, 1)``."""
    pair: tuple[ast.expr, str, ast.expr] | None = None
    if isinstance(made, ast.BinOp) and isinstance(made.op, ast.Sub | ast.Add | ast.Mult | ast.Div):
        op = {ast.Sub: "-", ast.Add: "+", ast.Mult: "*", ast.Div: "/"}[type(made.op)]
        pair = (made.left, op, made.right)
    elif isinstance(made, ast.Call) and call_name(made.func) in _BINARY and len(made.args) == 2:
        pair = (made.args[0], _BINARY[call_name(made.func)], made.args[1])
    if pair is None:
        return None
    left, op, right = pair
    if not (isinstance(left, ast.Name) and isinstance(right, ast.Name)):
        return None
    a, b = _shape_of(evaluate(left, spaces)), _shape_of(evaluate(right, spaces))
    if a is None or b is None or not _broadcast_pair(a, b):
        return None
    return left.id, a, op, right.id, b


def _broadcast_pair(a: tuple[int | None, ...], b: tuple[int | None, ...]) -> bool:
    """(B,) against (B, 1) (either order), B > 1: every value meets every other."""
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return len(short) == 1 and long_ == (short[0], 1) and (short[0] or 0) > 1


# --- labels checked inside a traced step ---------------------------------------------------


def _traced_rank(
    exc: BaseException, spaces: tuple[Any, ...], statement: ast.stmt, before: list[str]
) -> FailedCheck | None:
    """A rank check of labels inside the user's ``tf.function`` step failed while it traced:
    the labels the step was called with, and the loss the step gives them to."""
    message = str(exc)
    rank = _RANK_MESSAGE.search(message)
    defined = _DEFINED.findall(message)
    if rank is None or not defined:
        return None
    param, function = rank.group(1), defined[-1][2]
    calls = [
        n
        for n in ast.walk(statement)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == function
    ]
    step = evaluate(ast.Name(id=function), spaces)
    python = getattr(step, "python_function", step)
    if not calls or not inspect.isfunction(python):
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(python)))
        parameters = list(inspect.signature(python).parameters)
    except (OSError, TypeError, ValueError, SyntaxError):
        return None
    if param not in parameters or parameters.index(param) >= len(calls[0].args):
        return None
    given = calls[0].args[parameters.index(param)]
    value = evaluate(given, spaces)
    shape = _shape_of(value)
    if shape is None or not isinstance(given, ast.Name):
        return None
    made = _assigned(given.id, before) or loop_source(given.id, before)
    operand = _operand(given.id, value, shape, before, spaces, made)
    loss = ""
    namespace = getattr(python, "__globals__", {})
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        if not any(isinstance(a, ast.Name) and a.id == param for a in node.args[:2]):
            continue
        callee = evaluate(node.func, (namespace,))
        kind = type(callee).__name__ if callee is not UNREAD else ""
        if kind.endswith("Crossentropy") or kind.endswith("CrossEntropy"):
            loss = kind
    if not loss:
        return None
    return FailedCheck(
        "rank",
        defined[-1][0],
        int(defined[-1][1]),
        "",
        (operand,),
        bound=float(rank.group(2)),
        loss=loss,
        function=function,
    )


# --- shared ---------------------------------------------------------------------------------


def _shape_of(value: Any) -> tuple[int | None, ...] | None:
    if value is UNREAD or value is None:
        return None
    if type(value).__module__.split(".")[0] not in ("numpy", "tensorflow", "pandas"):
        return None  # arrays, tensors and tables only (no user object's shape attribute)
    return shape_of(value)


def _operand(
    name: str,
    value: Any,
    shape: tuple[int | None, ...],
    before: list[str],
    spaces: tuple[Any, ...],
    made: ast.expr | None = None,
) -> Operand:
    import numpy as np

    made = made if made is not None else _assigned(name, before)
    low = high = None
    whole = one_hot = False
    distinct = 0
    size = int(np.prod([d or 0 for d in shape])) if shape else 1
    if 0 < size <= _LIMIT:
        try:
            array = np.asarray(value)
            if array.dtype.kind in "iuf" and array.size:
                low, high = float(array.min()), float(array.max())
                whole = bool(np.all(np.isfinite(array)) and np.all(array == np.round(array)))
                distinct = int(np.unique(array).size) if whole else 0
                one_hot = bool(
                    array.ndim == 2
                    and array.shape[1] > 1
                    and np.isin(array, (0, 1)).all()
                    and (array.sum(axis=1) == 1).all()
                )
        except Exception:
            pass
    return Operand(
        name=name,
        shape=shape,
        dtype=str(getattr(value, "dtype", "")).replace("<dtype: '", "").rstrip("'>"),
        low=low,
        high=high,
        distinct=distinct,
        whole=whole,
        one_hot=one_hot,
        made=ast.unparse(made) if made is not None else "",
        lookup=_lookup(made, spaces),
        combined=_combined(made, spaces),
    )


def _lookup(made: ast.expr | None, spaces: tuple[Any, ...]) -> Lookup | None:
    """The StringLookup/IntegerLookup whose call made the value (``ids = lookup(words)``)."""
    if not isinstance(made, ast.Call):
        return None
    layer = evaluate(made.func, spaces)
    kind = type(layer).__name__
    if kind not in ("StringLookup", "IntegerLookup") or getattr(layer, "invert", False):
        return None
    try:
        size = int(layer.vocabulary_size())
        vocabulary = len(layer.get_vocabulary(include_special_tokens=False))
    except Exception:
        return None
    oov = int(getattr(layer, "num_oov_indices", 0) or 0)
    mask = getattr(layer, "mask_token", None) is not None
    return Lookup(ast.unparse(made.func), kind, vocabulary, size, oov, mask)


def _after(filename: str, statement: ast.stmt) -> list[ast.stmt]:
    """The statements of the cell after the check, at any depth (read, never run)."""
    tree = parsed_file(filename)
    if tree is None:
        return []
    end = statement.end_lineno or statement.lineno
    return [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and getattr(n, "lineno", 0) > end]


def _feeds(
    name: str, after: list[ast.stmt], spaces: tuple[Any, ...]
) -> tuple[tuple[str, str, str, str], ...]:
    """What the statements after the check give ``name`` to: a model's ``fit``/``evaluate``/
    ``train_on_batch`` as labels (with the model's output units), a model whose first layer is
    an ``Embedding`` (with its ``input_dim``)."""
    found: list[tuple[str, str, str, str]] = []
    for statement in after:
        for call in (n for n in ast.walk(statement) if isinstance(n, ast.Call)):
            callee = evaluate(call.func, spaces)
            model = getattr(callee, "__self__", callee)
            if callee is UNREAD or not is_a(model, "Model"):
                continue
            method = getattr(callee, "__name__", "__call__") if callee is not model else "__call__"
            args = list(call.args) + [k.value for k in call.keywords if k.arg in ("x", "y")]
            keys = [None] * len(call.args) + [k.arg for k in call.keywords if k.arg in ("x", "y")]
            for position, (arg, key) in enumerate(zip(args, keys, strict=True)):
                if not (isinstance(arg, ast.Name) and arg.id == name):
                    continue
                role = key or ("x" if position == 0 else "y" if position == 1 else "")
                model_name = getattr(model, "name", "model")
                if role == "y" and method in ("fit", "evaluate", "train_on_batch", "test_on_batch"):
                    units = _output_units(model)
                    found.append((name, "labels", model_name, str(units or "")))
                elif role == "x":
                    embedding = _first_embedding(model)
                    if embedding is not None:
                        found.append((name, "embedding", model_name, embedding))
    return tuple(dict.fromkeys(found))


def _output_units(model: Any) -> int | None:
    try:
        shape = model.output_shape
    except Exception:
        return None
    last = shape[-1] if isinstance(shape, tuple) and shape else None
    return last if isinstance(last, int) else None


def _first_embedding(model: Any) -> str | None:
    """``"'name' input_dim=N"`` of the model's first layer when it is an Embedding."""
    for layer in getattr(model, "layers", [])[:2]:
        if type(layer).__name__ == "Embedding":
            return f"'{layer.name}' input_dim={layer.input_dim}"
        if getattr(layer, "weights", None):
            return None
    return None
