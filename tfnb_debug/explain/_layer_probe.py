"""Which layer of a model made the NaN/Inf its output holds, found by running it once more.

A model's output that holds NaN/Inf, from finite data and finite weights, was made by one of
its layers.  The model is run again on at most ``ROWS`` rows of the same data, in inference
mode, through its own graph (Keras' ``_run_through_graph``, each layer called as the model
calls it), and the first layer whose output is non-finite while its inputs are finite is the
one (N01).  Its ``call`` source is read for the ops that make NaN/Inf (``exp`` past
float32's range, ``log``, ``sqrt``, a division), and its compute dtype for float16's range
(a constant past 65504 becomes Inf).  Inference changes no weight and no optimizer state; a
model without a graph (subclassed) is not run.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from typing import Any

from tfnb_debug.explain._api import evaluate
from tfnb_debug.explain._traced_checks import NonfiniteSource
from tfnb_debug.explain._violation import is_a

ROWS = 64
_FLOAT16_MAX = 65504.0
_RISKY = re.compile(r"\b(?:tf\.|ops\.|keras\.ops\.|math\.)*(exp|log|sqrt|rsqrt)\s*\(")
# a division by something that can be 0 (not by a number written in the code, not //)
_DIVISION = re.compile(r"(?<!/)/(?![/=])(?!\s*[\d.]+\b(?!\s*[*/]))")
_LITERAL = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?e\+?(\d+)\b|(?<![\w.])-?(\d{6,})(?:\.\d*)?\b")


def called_models(node: ast.AST, spaces: tuple[Any, ...]) -> list[tuple[ast.Call, Any]]:
    """Each call in ``node`` of a Keras model (``model(x)``, ``model.predict(x)``), with the
    model, read from the user's namespaces (nothing runs)."""
    found = []
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        owner = evaluate(call.func, spaces)
        model = getattr(owner, "__self__", owner)  # model.predict -> the model
        if is_a(model, "Model"):
            found.append((call, model))
    return found


def probe_made(made: ast.expr, spaces: tuple[Any, ...]) -> NonfiniteSource | None:
    """N01 for ``model.predict(x)`` / ``model(x)`` in ``made``: the first layer that makes
    NaN/Inf from finite inputs when the model runs on ``x`` again."""
    for call, model in called_models(made, spaces):
        if not call.args:
            continue
        data = evaluate(call.args[0], spaces)
        found = first_bad_layer(model, data, ast.unparse(call))
        if found is not None:
            return found
    return None


def first_bad_layer(model: Any, data: Any, text: str) -> NonfiniteSource | None:
    """The first layer of ``model``'s graph whose output holds NaN/Inf from finite inputs."""
    import numpy as np

    arrays = list(data) if isinstance(data, list | tuple) else [data]
    if not arrays or not all(hasattr(a, "shape") and len(a.shape) for a in arrays):
        return None
    sample = [np.asarray(a)[:ROWS] for a in arrays]
    if any(a.dtype.kind == "f" and not np.isfinite(a).all() for a in sample):
        return None  # the data itself: not a layer's
    if any(not _finite(w) for w in getattr(model, "weights", [])):
        return None  # weights a training step made NaN: not this layer's own op
    graph = getattr(model, "_functional", None) or model
    if not hasattr(graph, "_run_through_graph") or not hasattr(graph, "_standardize_inputs"):
        return None
    records: list[tuple[Any, tuple[Any, ...], Any]] = []
    try:
        from keras.src.models.functional import operation_fn

        def wrap(operation: Any) -> Any:
            run = operation_fn(operation, training=False)

            def call(*args: Any, **kwargs: Any) -> Any:
                out = run(*args, **kwargs)
                records.append((operation, args, out))
                return out

            return call

        inputs = sample[0] if len(sample) == 1 else sample
        graph._run_through_graph(graph._standardize_inputs(inputs), operation_fn=wrap)
    except Exception:
        return None
    for operation, args, out in records:
        if _finite(out) or not all(_finite(a) for a in args):
            continue
        return _layer_source(operation, args, text)
    return None


def _layer_source(layer: Any, args: tuple[Any, ...], text: str) -> NonfiniteSource:
    import numpy as np

    name, kind = str(getattr(layer, "name", "?")), type(layer).__name__
    dtype = str(getattr(layer, "compute_dtype", ""))
    values = [np.asarray(a) for a in args if hasattr(a, "shape")]
    low = min((float(v.min()) for v in values if v.size and v.dtype.kind == "f"), default=None)
    high = max((float(v.max()) for v in values if v.size and v.dtype.kind == "f"), default=None)
    seen = (
        f"its inputs are finite ({low:.4g}..{high:.4g})"
        if low is not None
        else "its inputs are finite"
    )
    lines = _call_lines(layer)
    risky = [line for line in lines if _RISKY.search(line)] or [
        line for line in lines if _DIVISION.search(line.split("#")[0])
    ]
    big = [line for line in lines if _past_float16(line)] if dtype == "float16" else []
    what = f"layer '{name}' ({kind}), whose output is the first to hold NaN/Inf when `{text}` runs again"
    if big:
        return NonfiniteSource(
            "N01",
            what + f": it computes in float16, and `{big[0]}` holds a constant past float16's "
            f"largest value, {_FLOAT16_MAX:g}, which becomes Inf (and 0 * Inf NaN)",
            f"{seen}; compute dtype float16",
            "use a constant float16 can hold (-1e4 for a mask, or "
            "`tf.float16.min`/`x.dtype.min`), or keep the layer in float32 "
            f"(`dtype='float32'` on '{name}')",
        )
    if risky:
        op = _RISKY.search(risky[0])
        which = op.group(1) if op and op.group(1) else "/"
        hint = {
            "exp": "exp overflows float32 above 88.7: subtract the max before exp "
            "(`tf.nn.softmax` / `keras.ops.softmax` does), or keep its input small (a "
            "temperature that divides by a small number multiplies the logits)",
            "log": "log is -Inf at 0 and NaN below: clip its input, "
            "`tf.math.log(tf.maximum(x, 1e-7))`",
            "sqrt": "sqrt is NaN below 0: `tf.sqrt(tf.maximum(x, 0.0))`",
            "rsqrt": "rsqrt is Inf at 0: add an epsilon",
            "/": "a division by 0 (an empty count, a zero norm): `tf.math.divide_no_nan(a, b)` "
            "or divide by `tf.maximum(b, 1e-7)`",
        }.get(which, "")
        return NonfiniteSource(
            "N01",
            what + f": its call computes `{risky[0]}`" + (f" ({which})" if which != "/" else ""),
            f"{seen}; compute dtype {dtype}",
            hint,
        )
    return NonfiniteSource(
        "N01",
        what,
        f"{seen}; compute dtype {dtype}",
        f"look at the ops of '{name}' for log/sqrt of non-positive values, a division by 0 or "
        "exp overflow, and clip or add an epsilon there",
    )


_FOR = re.compile(r"^\s*for\s+(.+?)\s+in\s+(.+?):\s*(#.*)?$")


def loop_source(name: str, before: list[str]) -> ast.expr | None:
    """What the loop variable ``name`` iterates over, from the last ``for`` line above that
    binds it: ``scores`` for ``s`` in ``for review, s in zip(reviews, scores):``."""
    for line in reversed(before):
        match = _FOR.match(line)
        if match is None:
            continue
        try:
            target = ast.parse(match.group(1), mode="eval").body
            iterated = ast.parse(match.group(2), mode="eval").body
        except SyntaxError:
            continue
        if isinstance(target, ast.Name):
            if target.id == name:
                return iterated
            continue
        names = [e.id if isinstance(e, ast.Name) else "" for e in getattr(target, "elts", [])]
        if name not in names:
            continue
        if (
            isinstance(iterated, ast.Call)
            and getattr(iterated.func, "id", "") == "zip"
            and len(iterated.args) == len(names)
        ):
            return iterated.args[names.index(name)]
        return None
    return None


def _call_lines(layer: Any) -> list[str]:
    """The stripped lines of the layer class's own ``call`` (a user's layer); [] for Keras'."""
    method = getattr(type(layer), "call", None)
    module = getattr(method, "__module__", "") or ""
    if method is None or module.split(".")[0] in ("keras", "tensorflow", "tf_keras"):
        return []
    try:
        source = textwrap.dedent(inspect.getsource(method))
    except (OSError, TypeError):
        return []
    return [line.strip() for line in source.splitlines()[1:] if line.strip()]


def _past_float16(line: str) -> bool:
    for match in _LITERAL.finditer(line):
        try:
            value = abs(float(match.group(0)))
        except ValueError:
            continue
        if value > _FLOAT16_MAX:
            return True
    return False


def _finite(value: Any) -> bool:
    import numpy as np

    try:
        array = np.asarray(value)
    except Exception:
        return True
    return array.dtype.kind not in "fc" or bool(np.isfinite(array).all())
