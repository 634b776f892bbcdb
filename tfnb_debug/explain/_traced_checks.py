"""A numeric check inside traced code (a layer's ``call``, a loss, a ``Dataset.map``
function), where no value of the check is live: the checked expression's op and the kind of
value it made (Inf from ``log(0)``, NaN from ``sqrt`` of a negative) tell the cause, and a
``log(y_pred)`` in a loss of a model whose output has no activation is the log of logits
(M02).  The readers shared with :mod:`._nonfinite_source` (the check's expression on a
line, a call's name, the finding's record) live here too, so that the eager reader imports
this module and not the other way round.
"""

from __future__ import annotations

import ast
import linecache
from dataclasses import dataclass

from tfnb_debug.explain._operands import call_name

CHECKS = ("check_numerics", "assert_all_finite", "verify_tensor_all_finite")
LOGS = ("log", "log2", "log10")
SQRTS = ("sqrt", "rsqrt")
EXP_LIMIT = 88.72  # float32 exp overflows above this


@dataclass(frozen=True)
class NonfiniteSource:
    """The op (or data) that made the value a check found non-finite."""

    code: str  # N01 (an op broke its contract), M02 (log of logits), N05 (the data)
    what: str
    evidence: str
    hint: str


def checked_expression(line: str) -> ast.expr | None:
    """The first argument of the numeric check called on ``line``."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and call_name(node.func) in CHECKS:
            return node.args[0]
    return None


def traced_check_source(
    filename: str, lineno: int, kind: str, linear_model: str = ""
) -> NonfiniteSource | None:
    """A check inside traced code (a layer's ``call``, a ``Dataset.map`` function): no value is
    live, but the checked expression's op and the kind of value it made tell the cause."""
    lines = linecache.getlines(filename)
    checked = checked_expression(lines[lineno - 1]) if 0 < lineno <= len(lines) else None
    if checked is None:
        return None
    if linear_model:
        logits = _log_of_y_pred(checked, filename, lineno, linear_model)
        if logits is not None:
            return logits
    return traced_check_source_from(checked, lineno, kind)


def _log_of_y_pred(
    checked: ast.expr, filename: str, lineno: int, model: str
) -> NonfiniteSource | None:
    """M02: ``log(y_pred)`` in a loss function (its second parameter) of a model whose output
    layer has no activation: the log of logits."""
    from tfnb_debug.explain._operands import enclosing_parameters

    params = enclosing_parameters(filename, lineno) or ()
    logs = _calls_of(checked, LOGS)
    if len(params) < 2 or not logs or not isinstance(logs[0].args[0], ast.Name):
        return None
    if logs[0].args[0].id != params[1]:
        return None
    name = params[1]
    return NonfiniteSource(
        "M02",
        f"`log` of `{name}`, the output of model '{model}', whose last layer has no activation "
        "(logits, which go negative)",
        f"the loss's `{ast.unparse(checked)}` at line {lineno}; '{model}' output activation linear",
        "give the output layer activation='softmax' (or 'sigmoid' for independent labels), or "
        "keep the logits and use a loss that takes them: "
        "`keras.losses.CategoricalCrossentropy(from_logits=True)`",
    )


def traced_check_source_from(checked: ast.expr, lineno: int, kind: str) -> NonfiniteSource | None:
    """The cause a checked expression's op and the kind of value it made tell."""
    text = ast.unparse(checked)
    ops = {call_name(c.func) for c in ast.walk(checked) if isinstance(c, ast.Call)}
    divides = [
        n for n in ast.walk(checked) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)
    ]
    logs = _calls_of(checked, LOGS)
    roots = _calls_of(checked, SQRTS)
    inf = "Inf" in kind and "NaN" not in kind
    if logs and not divides and not ops & {"exp", *SQRTS}:
        operand = ast.unparse(logs[0].args[0])
        return NonfiniteSource(
            "N01",
            f"`{text}`: log is -Inf where `{operand}` is 0"
            + ("" if inf else " and NaN where it is negative"),
            f"the check's expression `{text}` at line {lineno}",
            (
                f"`tf.math.log1p({operand})` for counts or features that start at 0, or an "
                f"epsilon, `tf.math.log({operand} + 1e-7)`"
                if inf
                else f"keep the log's input positive: find why `{operand}` goes to 0 or below, "
                f"or floor it at an epsilon, `tf.math.log(tf.maximum({operand}, 1e-7))`"
            ),
        )
    if roots and not inf and not divides and not logs:
        operand = ast.unparse(roots[0].args[0])
        return NonfiniteSource(
            "N01",
            f"`{text}`: sqrt is NaN where `{operand}` is negative",
            f"the check's expression `{text}` at line {lineno}",
            f"`tf.sqrt(tf.maximum({operand}, 0.0))`, or find why `{operand}` goes negative",
        )
    if divides and not logs and not ops & {"exp", *SQRTS}:
        top, bottom = ast.unparse(divides[0].left), ast.unparse(divides[0].right)
        return NonfiniteSource(
            "N01",
            f"`{text}`: a division by `{bottom}`, which is 0 for some values",
            f"the check's expression `{text}` at line {lineno}",
            f"`tf.math.divide_no_nan({top}, {bottom})`, or divide by `{bottom} + 1e-7`",
        )
    return None


def _calls_of(node: ast.expr, names: tuple[str, ...]) -> list[ast.Call]:
    return [
        c
        for c in ast.walk(node)
        if isinstance(c, ast.Call) and call_name(c.func) in names and c.args
    ]
