"""A numeric check inside traced code (a layer's ``call``, a loss, a ``Dataset.map``
function), where no value of the check is live: the checked expression's op and the kind of
value it made (Inf from ``log(0)``, NaN from ``sqrt`` of a negative) tell the cause, and a
``log(y_pred)`` in a loss of a model whose output has no activation is the log of logits
(M02).  A name the check reads is read through its assignment above in the same function
(``loss = ...`` then ``check_numerics(loss, ...)``), one level for what the finding quotes
and up to three to find an ``exp`` behind a division (``e = exp(s); w = e / sum(e)``: Inf /
Inf, not a zero denominator).  A non-finite value checked in a loss is G05.  The readers shared with :mod:`._nonfinite_source` (the check's expression on a
line, a call's name, the finding's record) live here too, so that the eager reader imports
this module and not the other way round.
"""

from __future__ import annotations

import ast
import copy
import linecache
import re
from dataclasses import dataclass

from tfnb_debug.explain._operands import call_name, enclosing_function

CHECKS = ("check_numerics", "assert_all_finite", "verify_tensor_all_finite")
LOGS = ("log", "log2", "log10")
SQRTS = ("sqrt", "rsqrt")
EXP_LIMIT = 88.72  # float32 exp overflows above this
#: matrix ops that give NaN for a matrix that is not positive definite or not invertible
_FACTORIZATIONS = ("cholesky", "inv", "matrix_inverse", "cholesky_solve", "logdet")


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
    assigned = _assigned_above(filename, lineno)
    shown = _through(checked, assigned, 1)  # what the finding quotes
    deep = _through(checked, assigned, 3)  # where the op behind it is found
    exps = _calls_of(deep, ("exp",))
    if exps and not _calls_of(deep, LOGS):
        return _exp_overflow(shown, exps[0], lineno)
    if linear_model:
        logits = _log_of_y_pred(shown, filename, lineno, linear_model)
        if logits is not None:
            return logits
    found = traced_check_source_from(shown, lineno, kind)
    if found is None and ast.dump(deep) != ast.dump(shown):
        found = traced_check_source_from(deep, lineno, kind)
    return found


def as_loss(source: NonfiniteSource, named: str) -> NonfiniteSource:
    """An op's NaN/Inf (N01) checked in a loss (``named``: the checked expression, its label
    or its graph node) is the catalog's NaN/Inf loss, G05."""
    if source.code == "N01" and LOSSY.search(named):
        return NonfiniteSource("G05", source.what, source.evidence, source.hint)
    return source


LOSSY = re.compile(r"loss|cross.?entropy|xent|nll", re.I)


def _assigned_above(filename: str, lineno: int) -> dict[str, ast.expr]:
    """Each name's last plain assignment above ``lineno`` in the function around it."""
    function = enclosing_function(filename, lineno)
    found: dict[str, ast.expr] = {}
    for node in ast.walk(function) if function is not None else ():
        if (
            isinstance(node, ast.Assign)
            and node.lineno < lineno
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and (node.targets[0].id not in found or node.lineno > found[node.targets[0].id].lineno)
        ):
            found[node.targets[0].id] = node.value
    return found


#: ops whose NaN/Inf the readers here explain, and ops that only pass one on: a checked
#: expression is read through the names it uses only while it holds nothing else (behind a
#: ``cholesky`` or a ``matmul`` the cause is that op, not a division feeding it)
_READ_THROUGH = frozenset(
    {
        *LOGS,
        *SQRTS,
        "exp",
        "pow",
        "norm",
        "divide",
        "truediv",
        "reduce_mean",
        "reduce_sum",
        "reduce_max",
        "reduce_min",
        "abs",
        "square",
        "cast",
        "identity",
        "maximum",
        "minimum",
        "add",
        "subtract",
        "multiply",
        "stop_gradient",
    }
)


def _through(node: ast.expr, assigned: dict[str, ast.expr], depth: int) -> ast.expr:
    """``node`` with each name assigned above replaced by its value, ``depth`` levels deep,
    while every op it holds is one of :data:`_READ_THROUGH`."""
    for _ in range(depth):
        calls = {call_name(c.func) for c in ast.walk(node) if isinstance(c, ast.Call)}
        if not calls <= _READ_THROUGH:
            break
        replaced = _Replace(assigned).visit(copy.deepcopy(node))
        if ast.dump(replaced) == ast.dump(node):
            break
        node = replaced
    return node


class _Replace(ast.NodeTransformer):
    def __init__(self, assigned: dict[str, ast.expr]) -> None:
        self.assigned = assigned

    def visit_Name(self, node: ast.Name) -> ast.expr:
        value = self.assigned.get(node.id)
        return copy.deepcopy(value) if value is not None else node


def _exp_overflow(shown: ast.expr, exp: ast.Call, lineno: int) -> NonfiniteSource:
    operand = ast.unparse(exp.args[0])
    return NonfiniteSource(
        "N01",
        f"`{ast.unparse(shown)}`, made from `{ast.unparse(exp)}`: exp overflows to Inf above "
        f"{EXP_LIMIT} in float32 and above 11.09 in float16 (a mixed_float16 layer), and "
        "Inf / Inf is NaN",
        f"the check at line {lineno} reads `{ast.unparse(exp)}` through the lines above it",
        f"let TensorFlow keep it finite: `tf.nn.softmax({operand})` (it subtracts the max "
        f"first) or `tf.math.reduce_logsumexp`, or subtract `tf.reduce_max({operand}, axis=-1, "
        "keepdims=True)` before the exp; under mixed precision compute it in float32",
    )


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
    factor = _calls_of(checked, _FACTORIZATIONS)
    if factor and not inf:
        operand = ast.unparse(factor[0].args[0])
        return NonfiniteSource(
            "N01",
            f"`{text}`: {call_name(factor[0].func)} needs a positive definite (invertible) "
            f"matrix, and `{operand}` is not: on the CPU it returns NaN instead of raising",
            f"the check's expression `{text}` at line {lineno}",
            f"add a small jitter to the diagonal, `{ast.unparse(factor[0].func)}({operand} + "
            f"1e-6 * tf.eye(tf.shape({operand})[-1]))`; a covariance of fewer samples than "
            "dimensions is singular (a larger batch, or shrink it toward the identity)",
        )
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
        differences = [
            n
            for n in ast.walk(roots[0].args[0])
            if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub)
        ]
        squared = _calls_of(roots[0].args[0], ("square", "abs", "pow", "norm"))
        fix = (
            f"the root is taken of differences that go negative (`{ast.unparse(differences[0])}`"
            f"): square them first, `tf.sqrt(tf.reduce_mean(tf.square("
            f"{ast.unparse(differences[0])})))`"
            if differences and not squared
            else f"`tf.sqrt(tf.maximum({operand}, 0.0))`, or find why `{operand}` goes negative"
        )
        return NonfiniteSource(
            "N01",
            f"`{text}`: sqrt is NaN where `{operand}` is negative",
            f"the check's expression `{text}` at line {lineno}",
            fix,
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
