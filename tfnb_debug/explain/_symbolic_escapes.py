"""Where a symbolic tensor met Python, read from the traceback (for T02).

- A Python conversion (``float(loss)``, ``int(n)``) of a graph tensor inside a function that
  Keras or ``tf.function`` traces: ``train_step``, a layer's ``call``, a metric.  The function
  is named, with the fix that fits where it runs (``tf.print``; ``run_eagerly=True`` for a
  model's step).
- A graph tensor used *outside* any traced function: no frame of the traceback traces, so
  the tensor escaped from a function traced earlier: appended to a Python list or stored on
  an object during tracing.  The container the failing line reads is named.
- The layer whose ``call`` raised, by its name, for a finding placed in its code.
"""

from __future__ import annotations

import ast
import re

from tfnb_debug.explain._context import ErrorContext

PY_CONVERT = re.compile(
    r"(float|int|bool|complex)\(\) argument must be a [^\n]*?, not '(SymbolicTensor|KerasTensor)'|"
    r"'(SymbolicTensor)' object cannot be interpreted as an integer"
)
_TRACING = ("func_graph", "polymorphic_function", "autograph", "/data/ops/")
_STEPS = ("train_step", "test_step", "predict_step")


def conversion(ctx: ErrorContext, match: re.Match[str]) -> tuple[str, str]:
    """(what happened, the fix) for ``float()``/``int()`` of a traced tensor."""
    builtin = match.group(1) or "int"
    function = _innermost_user_function(ctx)
    what = f"`{builtin}()` of a graph tensor" + (f" in `{function}`" if function else "")
    if function in _STEPS:
        hint = (
            f"Keras traces `{function}` into a graph, where a tensor has no value: print it "
            'with `tf.print("loss", loss)`, or return it in the logs dict; to debug with '
            "Python values, `model.compile(..., run_eagerly=True)`"
        )
    else:
        hint = (
            "a traced tensor has no value: keep it a tensor (tf.cast instead of float/int, "
            "tf.print to show it), or return it and convert it outside the traced function"
        )
    return what, hint


def escaped(ctx: ErrorContext, method: str) -> str:
    """The hint for a graph tensor used where nothing traces (it escaped from a traced
    function), naming the container the failing line reads; "" while something traces:
    a tracing frame in the traceback, or (Keras filters those frames out) the tensor asked
    for ``.method()`` is a parameter of the user's function, so the trace passed it in."""
    if any(any(t in f.filename.replace("\\", "/") for t in _TRACING) for f in ctx.frames):
        return ""
    line = ctx.user_code_line()
    source = line[3] if line else ""
    users = [f for f in ctx.frames if f.user]
    receivers = re.findall(rf"\b([A-Za-z_]\w*)\.{re.escape(method)}\s*\(", source)
    if users and any(name in users[-1].params for name in receivers):
        return ""
    container = _iterated_name(source)
    held = f"`{container}` holds" if container else "this holds"
    return (
        f"{held} tensors made while a tf.function was traced (appended to a Python list or "
        "stored on an object inside the function): they belong to that graph and have no "
        "value outside it; return the value from the function and keep it outside, e.g. "
        f"`{container or 'values'}.append(step(...).numpy())` around the call"
    )


def layer_place(ctx: ErrorContext) -> str:
    """``layer 'clip_if_large' (ClipIfLarge)`` when a user's layer's ``call`` raised."""
    line = ctx.user_code_line()
    function = line[2] if line else ""
    for layer in ctx.user_layers:
        if function.startswith(f"{layer.class_name}."):
            return f"layer '{layer.name}' ({layer.class_name})"
    return ""


def _innermost_user_function(ctx: ErrorContext) -> str:
    line = ctx.user_code_line()
    if not line:
        return ""
    return line[2].rsplit(".", 1)[-1].removesuffix("()")


def _iterated_name(source: str) -> str:
    """``loss_history`` in ``[l.numpy() for l in loss_history]`` or ``loss_history[-1].numpy()``."""
    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension | ast.For) and isinstance(node.iter, ast.Name):
            return node.iter.id
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return node.value.id
    return ""
