"""Where the NaN/Inf a user's numeric check caught came from, read from the cell's own values.

``tf.debugging.check_numerics(x, msg)`` and ``assert_all_finite`` say only that ``x`` holds
NaN or Inf.  Run eagerly, the expression the check was given and every name it reads are
still live in the cell's frame, and the lines above hold how each was computed.  The
contracts of the ops that make NaN/Inf are documented: ``log`` needs positive values (0 gives
-Inf, a negative NaN, and ``0 * log 0`` NaN), ``sqrt`` non-negative ones, a division a
non-zero denominator, ``exp`` in float32 overflows above about 88.7.  This module walks the
checked expression (through the assignments of the names it reads, while their values are
themselves non-finite), finds those ops, reads their operands' values, and reports the one
whose operand breaks its contract, with the values that do.  ``log`` of a Keras model's or
layer's output whose last activation is linear is a probability loss on logits (M02).  When
no op made it, a NumPy array or tensor the expression reads that already holds NaN/Inf is
the data (N05).  Nothing runs: only names, attributes and subscripts are read.
"""

from __future__ import annotations

import ast
import functools
import linecache
import re
import textwrap
from typing import Any

from tfnb_debug.explain._api import UNREAD, evaluate
from tfnb_debug.explain._diverged_fit import nonfinite_weights
from tfnb_debug.explain._layer_probe import loop_source, probe_made
from tfnb_debug.explain._operands import call_name, innermost_node
from tfnb_debug.explain._traced_checks import (
    CHECKS,
    EXP_LIMIT,
    LOGS,
    SQRTS,
    NonfiniteSource,
    as_loss,
    checked_expression,
    traced_check_source_from,
)
from tfnb_debug.ground.files import innermost_user_traceback


def read_nonfinite_source(exc: BaseException) -> NonfiniteSource | None:
    """The source of the NaN/Inf of the innermost user frame's failed eager check."""
    user = innermost_user_traceback(exc)
    if user is None:
        return None
    frame = user.tb_frame
    lines = linecache.getlines(frame.f_code.co_filename)
    line = lines[user.tb_lineno - 1] if 0 < user.tb_lineno <= len(lines) else ""
    checked = checked_expression(line)
    spaces = (frame.f_locals, frame.f_globals)
    if checked is None:
        return _check_elsewhere(str(exc), lines, spaces) or _data_on_line(line, spaces)
    walk = _Walk(spaces, lines[: user.tb_lineno - 1])
    found = walk.source(checked)
    label = re.search(r"([\w .()-]{1,60}) : Tensor had", str(exc))
    named = ast.unparse(checked) + " " + (label.group(1) if label else "")
    return as_loss(found, named) if found is not None else None


class _Walk:
    """The checked expression's ops, through the assignments of the non-finite names it reads."""

    def __init__(self, spaces: tuple[Any, ...], before: list[str]) -> None:
        self.spaces = spaces
        self.before = before
        self.data: list[tuple[str, Any]] = []  # non-finite values read that no op above made
        self.probe = False  # run the models the expression calls (a failure caused by NaN)

    def source(self, node: ast.expr, depth: int = 0) -> NonfiniteSource | None:
        if depth > 4:
            return None
        for call in _calls_innermost_first(node):
            found = self._op(call, node) or self._inside_user_function(call, depth)
            if found is not None:
                return found
        for sub in ast.walk(node):
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Div):
                found = self._division(sub)
                if found is not None:
                    return found
        for name in _names(node):
            value = evaluate(ast.Name(name, ast.Load()), self.spaces)
            bad = _nonfinite(value)
            if not bad:
                continue
            made = _assigned(name, self.before) or loop_source(name, self.before)
            if made is not None and not _is_literal_data(made):
                found = (
                    self.source(made, depth + 1)
                    or self._trained_into_nan(made)
                    or self._float16_overflow(made)
                    or probe_made(made, self.spaces)
                )
                if found is not None:
                    return found
            else:
                self.data.append(self._stored(name, value, made))
        if depth == 0 and self.data:
            return _data_source(*self.data[0])
        return probe_made(node, self.spaces) if depth == 0 and self.probe else None

    def _inside_user_function(self, call: ast.Call, depth: int) -> NonfiniteSource | None:
        """A call of the user's own function (``cross_entropy(y, probs)``): its body's ops,
        with each parameter read as the argument the call passed."""
        import inspect

        function = evaluate(call.func, self.spaces)
        module = getattr(function, "__module__", "") or ""
        if not inspect.isfunction(function) or module.split(".")[0] in _LIBRARY_ROOTS:
            return None
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        except (OSError, TypeError, SyntaxError):
            return None
        definition = tree.body[0] if tree.body else None
        if not isinstance(definition, ast.FunctionDef) or call.keywords:
            return None
        params = [a.arg for a in definition.args.args]
        bound = dict(zip(params, call.args, strict=False))
        for returned in (n.value for n in ast.walk(definition) if isinstance(n, ast.Return)):
            if returned is None:
                continue
            inlined = _Rename(bound).visit(returned)
            found = self.source(ast.fix_missing_locations(inlined), depth + 1)
            if found is not None:
                return found
        return None

    def _trained_into_nan(self, made: ast.expr) -> NonfiniteSource | None:
        """G03: the value is a model's output and the model's weights are NaN/Inf: a training
        step wrote them, from a gradient that was; the ops whose gradient is infinite at a
        point of their domain (sqrt, log, division) in the cell's code are named."""
        for call in _calls_innermost_first(made):
            owner = evaluate(call.func, self.spaces)
            weights = getattr(owner, "weights", None)
            if not isinstance(weights, list) or not nonfinite_weights(weights):
                continue
            name = ast.unparse(call.func)
            risky = [
                (i, line.strip())
                for i, line in enumerate(self.before, 1)
                if re.search(r"\b(sqrt|log|rsqrt)\(", line)
            ]
            where = f" (line {risky[0][0]}: `{risky[0][1]}`)" if risky else ""
            match = re.search(r"\b(sqrt|log|rsqrt)\(", risky[0][1]) if risky else None
            op = match.group(1) if match else ""
            return NonfiniteSource(
                "G03",
                f"`{name}`, whose weights are NaN/Inf: a training step applied a non-finite "
                "gradient" + (f"; the code takes tf.{op}{where}" if op else ""),
                f"{name}.weights hold NaN/Inf",
                (
                    f"the gradient of {op} is infinite where its input is 0 (a distance between "
                    f"identical points, for one): floor it, `tf.{op}(tf.maximum(x, 1e-12))`, or add an "
                    "epsilon inside"
                    if op
                    else "find the op whose gradient is infinite (sqrt, log or a division at 0) "
                    "with tf.debugging.check_numerics on the gradients, and clip gradients "
                    "(clipnorm=1.0)"
                ),
            )
        return None

    def _float16_overflow(self, made: ast.expr) -> NonfiniteSource | None:
        """N01: a model that computes in float16 (mixed_float16) called on data beyond
        float16's largest value, 65504: the first cast to float16 makes them Inf."""
        import numpy as np

        for call in _calls_innermost_first(made):
            owner = evaluate(call.func, self.spaces)
            model = getattr(owner, "__self__", owner)  # model.predict(x) or model(x)
            layers = getattr(model, "layers", None)
            if not isinstance(layers, list) or not call.args:
                continue
            half = [
                layer
                for layer in layers
                if getattr(layer, "weights", None)
                and str(getattr(layer, "compute_dtype", "")) == "float16"
            ]
            data = _values(evaluate(call.args[0], self.spaces))
            if not half or data is None or not data.size:
                continue
            peak = float(np.nanmax(np.abs(data)))
            if peak <= _FLOAT16_MAX:
                continue
            text = ast.unparse(call.args[0])
            policy = str(getattr(getattr(half[0], "dtype_policy", None), "name", "float16"))
            return NonfiniteSource(
                "N01",
                f"`{ast.unparse(call)}`: layer '{half[0].name}' computes in float16 "
                f"({policy}) and `{text}` holds values up to {peak:.4g}, above float16's "
                f"largest, {_FLOAT16_MAX:g}: the cast to float16 makes them Inf",
                _ranged(text, data),
                f"scale `{text}` before the model (a keras.layers.Normalization adapted on it, "
                "or divide each column by its scale) so it stays far below 65504, or keep the "
                f"first layers in float32 (dtype='float32' on '{half[0].name}')",
            )
        return None

    def _stored(self, name: str, value: Any, made: ast.expr | None) -> tuple[str, Any]:
        """The user's own array behind a conversion (``t = tf.constant(arr)``: ``arr``)."""
        if (
            isinstance(made, ast.Call)
            and len(made.args) == 1
            and isinstance(made.args[0], ast.Name)
            and _nonfinite(inner := evaluate(made.args[0], self.spaces))
        ):
            return made.args[0].id, inner
        return name, value

    def _op(self, call: ast.Call, whole: ast.expr) -> NonfiniteSource | None:
        name = call_name(call.func)
        if not call.args:
            return None
        operand = call.args[0]
        text = ast.unparse(operand)
        value = _values(evaluate(operand, self.spaces))
        if name in LOGS:
            if value is None:
                return _log_of_logits(operand, self.spaces, text)
            zeros, negative = int((value == 0).sum()), int((value < 0).sum())
            if not zeros and not negative:
                return None
            counted = _counted(zeros, "zero", negative, "negative", value)
            if negative:
                hint = (
                    f"log is NaN for negative values: find why `{text}` goes below 0, or take "
                    f"the log of a positive quantity (`tf.math.log(tf.maximum({text}, 1e-7))` "
                    "only if negatives are rounding)"
                )
            elif _times_itself(whole, operand):
                hint = (
                    f"0 * log 0 is NaN in TensorFlow: write `tf.math.xlogy({text}, {text})` "
                    f"(0 where `{text}` is 0), or clip, `tf.math.log(tf.maximum({text}, 1e-7))`"
                )
            else:
                hint = (
                    f"log(0) is -Inf: `tf.math.log1p({text})` for counts or features that "
                    f"start at 0, or `tf.math.log({text} + 1e-7)` for probabilities"
                )
            return NonfiniteSource(
                "N01", f"`{name}` of `{text}`, which holds {counted}", _ranged(text, value), hint
            )
        if name in SQRTS and value is not None:
            negative = int((value < 0).sum())
            zeros = int((value == 0).sum()) if name == "rsqrt" else 0
            if not negative and not zeros:
                return None
            return NonfiniteSource(
                "N01",
                f"`{name}` of `{text}`, which holds "
                f"{_counted(negative, 'negative', zeros, 'zero', value)}",
                _ranged(text, value),
                f"sqrt is NaN below 0: `tf.sqrt(tf.maximum({text}, 0.0))` (or find why `{text}` "
                "goes negative)"
                if negative
                else f"rsqrt(0) is Inf: `tf.math.rsqrt({text} + 1e-7)`",
            )
        if name == "exp" and value is not None and value.size and float(value.max()) > EXP_LIMIT:
            return NonfiniteSource(
                "N01",
                f"`exp` of `{text}`, which reaches {float(value.max()):.4g}: float32 exp "
                f"overflows to Inf above {EXP_LIMIT}",
                _ranged(text, value),
                f"for a softmax use `tf.nn.softmax({text})` (it subtracts the max first), for a "
                f"log of a sum of exps `tf.reduce_logsumexp({text})`; else subtract "
                f"`tf.reduce_max({text})` before exp",
            )
        return None

    def _division(self, node: ast.BinOp) -> NonfiniteSource | None:
        text = ast.unparse(node.right)
        value = _values(evaluate(node.right, self.spaces))
        if value is None:
            return None
        zeros = int((value == 0).sum())
        if not zeros:
            return None
        top = ast.unparse(node.left)
        return NonfiniteSource(
            "N01",
            f"a division by `{text}`, which holds {zeros} zero{'s' if zeros > 1 else ''}",
            _ranged(text, value),
            f"`tf.math.divide_no_nan({top}, {text})` (0 where `{text}` is 0), or divide by "
            f"`tf.maximum({text}, 1e-7)` if 0 means 'none yet'",
        )


def consequence_source(exc: BaseException, probe_calls: bool) -> NonfiniteSource | None:
    """Where the NaN/Inf came from that made a line of the user's own code fail outside
    TensorFlow (a NaN probability for np.random.choice, int(nan), an assert on a loss, a
    tolerance check): the line's expression walked as a checked one; with ``probe_calls``
    (the error speaks of NaN/Inf) its model calls are run again when nothing else explains
    the value."""
    failing = failing_statement(exc)
    if failing is None:
        return None
    spaces, before, node = failing
    expr = node.test if isinstance(node, ast.Assert) else getattr(node, "value", None)
    if not isinstance(expr, ast.expr):
        return None
    walk = _Walk(spaces, before)
    walk.probe = probe_calls
    return walk.source(expr)


def failing_statement(
    exc: BaseException,
) -> tuple[tuple[Any, Any], list[str], ast.stmt] | None:
    """(the innermost user frame's namespaces, the lines above the statement that failed
    there, that whole statement) for the readers of the user's own failing line."""
    user = innermost_user_traceback(exc)
    if user is None:
        return None
    frame = user.tb_frame
    lines = linecache.getlines(frame.f_code.co_filename)
    node = _statement_at(lines, user.tb_lineno)
    if node is None:
        return None
    return (frame.f_locals, frame.f_globals), lines[: node.lineno - 1], node


def _statement_at(lines: list[str], lineno: int) -> ast.stmt | None:
    """The innermost statement of the source that spans line ``lineno`` (a call written over
    several lines is one statement)."""
    return _statement_in("".join(lines), lineno)


@functools.lru_cache(maxsize=16)
def _statement_in(source: str, lineno: int) -> ast.stmt | None:
    """Cached: the readers of one failing line each ask for it (the node is shared: read it,
    do not change it)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found = innermost_node(tree, lineno, (ast.stmt,))
    return found if isinstance(found, ast.stmt) else None


def _log_of_logits(operand: ast.expr, spaces: tuple[Any, ...], text: str) -> NonfiniteSource | None:
    """``log(model(x))`` where the model's last layer has no activation: log of logits."""
    if not isinstance(operand, ast.Call):
        return None
    owner = evaluate(operand.func, spaces)
    layers = getattr(owner, "layers", None)
    last = layers[-1] if isinstance(layers, list) and layers else owner
    activation = getattr(getattr(last, "activation", None), "__name__", "")
    if activation not in ("linear",):
        return None
    name = getattr(last, "name", "")
    return NonfiniteSource(
        "M02",
        f"`log` of `{text}`, the raw output of '{name}' (no activation: logits, which go negative)",
        f"'{name}' activation=linear",
        f"give '{name}' activation='softmax' (or 'sigmoid' for independent labels), or compute "
        "the loss from the logits: `keras.losses.CategoricalCrossentropy(from_logits=True)` / "
        "`tf.nn.softmax_cross_entropy_with_logits`",
    )


def _data_source(name: str, value: Any) -> NonfiniteSource | None:
    array = _values(value)
    if array is None:
        return None
    bad = ~_finite(array)
    rows = sorted({int(i) for i in (bad.nonzero()[0] if array.ndim else [])})[:5]
    nan = int(_isnan(array).sum())
    where = f", rows {rows}" if rows and array.ndim > 1 else ""
    return NonfiniteSource(
        "N05",
        f"`{name}`, which already holds {int(bad.sum())} non-finite value"
        f"{'s' if bad.sum() > 1 else ''} ({nan} NaN{where}) before any op",
        _ranged(name, array),
        (
            f"clean the data: drop those rows (`{name}[np.isfinite({name}).all(axis=1)]`) or "
            f"fill them (`np.nan_to_num({name})`, a column mean)"
            if array.ndim == 2
            else f"clean the data: drop or fill the non-finite values (`np.nan_to_num({name})`)"
        ),
    )


def _calls_innermost_first(node: ast.expr) -> list[ast.Call]:
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    return calls[::-1]


def _names(node: ast.AST) -> list[str]:
    called = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
    seen: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and id(sub) not in called and sub.id not in seen:
            seen.append(sub.id)
    return seen


def _assigned(name: str, before: list[str]) -> ast.expr | None:
    """The expression last assigned to ``name`` in ``before``; for ``a, b = f(x), g(x)`` the
    item of ``name``, for ``a, b = f(x)`` the whole call."""
    try:
        tree = ast.parse(textwrap.dedent("".join(before)))
    except SyntaxError:
        tree = None
    if tree is not None:
        found: ast.expr | None = None
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    found = node.value
                elif isinstance(target, ast.Tuple | ast.List):
                    names = [e.id if isinstance(e, ast.Name) else "" for e in target.elts]
                    if name in names:
                        value = node.value
                        same = isinstance(value, ast.Tuple) and len(value.elts) == len(names)
                        found = (
                            value.elts[names.index(name)]
                            if isinstance(value, ast.Tuple) and same
                            else value
                        )
        return found
    pattern = re.compile(rf"(?:^|;)\s*{re.escape(name)}\s*=(?!=)\s*([^;\n]+)")
    text = None
    for line in before:
        for match in pattern.finditer(line):
            text = match.group(1).strip()
    if text is None:
        return None
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None


def _is_literal_data(node: ast.expr) -> bool:
    """An array written or loaded, not computed: ``np.array([...])``, ``tf.constant(x)``, ``load``."""
    if isinstance(node, ast.Call):
        return call_name(node.func) in (
            "array",
            "asarray",
            "constant",
            "convert_to_tensor",
            "load",
            "loadtxt",
            "genfromtxt",
            "read_csv",
        )
    if isinstance(node, ast.Subscript):  # rows of stored data, not of a call's result
        return isinstance(node.value, ast.Name | ast.Attribute) or _is_literal_data(node.value)
    return isinstance(node, ast.List)


def _values(value: Any) -> Any:
    import numpy as np

    if value is UNREAD or value is None:
        return None
    if type(value).__name__ == "EagerTensor":
        value = np.asarray(value.numpy())
    if isinstance(value, np.generic | float) and not isinstance(value, bool):
        value = np.asarray(value)  # one number (a NumPy scalar, a float): a 0-d array
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiub":
        return None
    return value


def _finite(array: Any) -> Any:
    import numpy as np

    return np.isfinite(array) if array.dtype.kind == "f" else np.ones(array.shape, bool)


def _isnan(array: Any) -> Any:
    import numpy as np

    return np.isnan(array) if array.dtype.kind == "f" else np.zeros(array.shape, bool)


def _nonfinite(value: Any) -> bool:
    array = _values(value)
    return array is not None and not bool(_finite(array).all())


def _times_itself(whole: ast.expr, operand: ast.expr) -> bool:
    """``p * log(p)`` in the checked expression: the entropy form."""
    text = ast.unparse(operand)
    return any(
        isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Mult)
        and text in (ast.unparse(n.left), ast.unparse(n.right))
        for n in ast.walk(whole)
    )


def _counted(first: int, first_word: str, second: int, second_word: str, value: Any) -> str:
    parts = [
        f"{n} {w} value{'s' if n > 1 else ''}"
        for n, w in ((first, first_word), (second, second_word))
        if n
    ]
    return " and ".join(parts) + f" of {value.size}"


def _ranged(text: str, value: Any) -> str:
    finite = value[_finite(value)] if value.size else value
    if not finite.size:
        return f"`{text}` shape {tuple(value.shape)}, no finite value"
    return f"`{text}` shape {tuple(value.shape)}, min {float(finite.min()):.4g}, max {float(finite.max()):.4g}"


_LIBRARY_ROOTS = ("tensorflow", "keras", "numpy", "tf_keras", "builtins")
_FLOAT16_MAX = 65504.0


class _Rename(ast.NodeTransformer):
    """A function body's parameters replaced by the expressions the call passed."""

    def __init__(self, bound: dict[str, ast.expr]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return self.bound.get(node.id, node)


def _data_on_line(line: str, spaces: tuple[Any, ...]) -> NonfiniteSource | None:
    """The one array or tensor named on the failing line (``model.fit(readings, y)`` under
    ``enable_check_numerics``, whose check fires inside the fit) that already holds NaN/Inf:
    the data, before any op."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return None
    names = dict.fromkeys(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    held = [
        (name, value)
        for name in names
        for value in [next((s[name] for s in spaces if name in s), None)]
        if value is not None and _nonfinite(value)
    ]
    return _data_source(*held[0]) if len(held) == 1 else None


def _check_elsewhere(
    message: str, lines: list[str], spaces: tuple[Any, ...]
) -> NonfiniteSource | None:
    """A check in a function the cell traced (a ``Dataset.map`` lambda), found by its label.

    An op in the checked expression tells the cause as in :func:`traced_check_source`; a
    checked value that only passes the function's argument on held NaN/Inf when it came in:
    the one array of the cell's namespace, named in its source, that holds NaN/Inf is its data.
    """
    label = re.search(r"(?:^|: |\n)([\w .-]{1,60}) : Tensor had (NaN|Inf|-Inf|\+Inf)", message)
    if label is None:
        return None
    quoted = (f'"{label.group(1)}"', f"'{label.group(1)}'")
    found = [
        (i, checked_expression(line))
        for i, line in enumerate(lines, 1)
        if any(q in line for q in quoted) and any(c in line for c in CHECKS)
    ]
    if len(found) != 1 or found[0][1] is None:
        return None
    lineno, checked = found[0]
    assert checked is not None
    if any(isinstance(n, ast.Call | ast.BinOp) for n in ast.walk(checked)):
        return traced_check_source_from(checked, lineno, label.group(2))
    source = "".join(lines)
    held = [
        (name, value)
        for names in spaces
        for name, value in list(names.items())[:500]
        if not name.startswith("_")
        and re.search(rf"\b{re.escape(name)}\b", source)
        and _nonfinite(value)
    ]
    unique = {name: value for name, value in held}
    if len(unique) != 1:
        return None
    return _data_source(*next(iter(unique.items())))
