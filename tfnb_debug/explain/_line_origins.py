"""Where the values on the user's failing line came from, when the line is not a check.

:mod:`._checked_values` reads a failed check's operands.  A line that fails for another
reason can have an upstream cause of the same kinds, read here from the line's names, the
statements above that made them, and the objects they hold (nothing runs but a
``get_source`` and a checkpoint's list of names):

- a name made by an element-wise op of a (B,) and a (B, 1) tensor (``residuals = y - preds``);
- the list a model with several outputs returns, given to NumPy as one array;
- a user's function that calls a model with ``training=True`` (its Dropout active) on one side
  of a failed comparison of outputs;
- a ``tf.train.Checkpoint`` restoring under other names than the checkpoint holds;
- a float16/bfloat16 value a mixed-precision model's predict returned;
- a reduction over the axis the other operand of the line keeps (``argmax(probs, axis=0)``).
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from typing import Any

from tfnb_debug.explain._api import evaluate
from tfnb_debug.explain._checked_values import (
    FailedCheck,
    Operand,
    _combined,
    _shape_of,
    _user_filename,
    read_failed_check,
)
from tfnb_debug.explain._layer_probe import called_models
from tfnb_debug.explain._nonfinite_source import _assigned, _names, failing_statement
from tfnb_debug.explain._operands import call_name
from tfnb_debug.explain._violation import output_names

_RANDOM = ("Dropout", "SpatialDropout", "GaussianNoise", "GaussianDropout", "AlphaDropout")
_REDUCTIONS = ("argmax", "argmin", "reduce_max", "reduce_mean", "reduce_sum", "max", "mean")


def read_failed_line(exc: BaseException) -> FailedCheck | None:
    """A failed check's facts (:func:`read_failed_check`), else an upstream cause of the
    failing line's values."""
    found = read_failed_check(exc)
    if found is not None:
        return found
    failing = failing_statement(exc)
    if failing is None:
        return None
    spaces, before, statement = failing
    text = ast.unparse(statement)
    where = (getattr(statement, "lineno", 0), text)
    filename = _user_filename(exc)
    shaped = _broadcast_name(statement, spaces, before)
    if shaped is not None:
        return FailedCheck("shape", filename, where[0], text, (shaped,))
    if re.search(r"inhomogeneous|setting an array element with a sequence", str(exc)):
        return _several_outputs(statement, spaces, filename, where[0])
    if re.search(r"[Nn]ot equal to tolerance|allclose|Mismatch", str(exc)) or isinstance(
        statement, ast.Assert
    ):
        noisy = _training_in_function(statement, spaces, filename, where[0])
        if noisy is not None:
            return noisy
    if "not bound to checkpointed values" in str(exc):
        renamed = _checkpoint_names(spaces, before, filename, where[0])
        if renamed is not None:
            return renamed
    if "float16" in str(exc):
        half = _half_output(statement, spaces, before, filename, where[0])
        if half is not None:
            return half
    reduced = _reduced_axis(statement, spaces, before, str(exc))
    if reduced is not None:
        pair, axis, source = reduced
        return FailedCheck("axis", filename, where[0], text, pair, float(axis), source)
    return None


def _broadcast_name(
    statement: ast.stmt, spaces: tuple[Any, ...], before: list[str]
) -> Operand | None:
    """Any name the failing line reads (not only a checked one) that an element-wise op of a
    (B,) and a (B, 1) tensor made: ``residuals = y_test - preds`` given to a DataFrame."""
    for name in _names(statement):
        made = _assigned(name, before)
        combined = _combined(made, spaces) if made is not None else None
        shape = _shape_of(evaluate(ast.Name(id=name), spaces)) if combined else None
        if made is not None and combined is not None and shape is not None:
            return Operand(name, shape, "", made=ast.unparse(made), combined=combined)
    return None


def _several_outputs(
    statement: ast.stmt, spaces: tuple[Any, ...], filename: str, lineno: int
) -> FailedCheck | None:
    """NumPy given the list a model with several outputs returns (``np.argmax(model.predict(x))``):
    the call, and each output's name and shape as ``bound_text``."""
    for call, model in called_models(statement, spaces):
        try:
            outputs = list(model.outputs)
        except Exception:
            continue
        if len(outputs) < 2:
            continue
        names = output_names(model) or [f"output {i}" for i in range(len(outputs))]
        shown = ", ".join(f"'{n}' {tuple(o.shape)}" for n, o in zip(names, outputs, strict=False))
        return FailedCheck("outputs", filename, lineno, ast.unparse(call), (), bound_text=shown)
    return None


def _training_in_function(
    statement: ast.stmt, spaces: tuple[Any, ...], filename: str, lineno: int
) -> FailedCheck | None:
    """A comparison of outputs in which one side is the user's function calling a model with
    ``training=True``: its random layers (Dropout) run, so its outputs change from call to call
    (``source``: the function; ``bound_text``: the model's random layers)."""
    for call in (n for n in ast.walk(statement) if isinstance(n, ast.Call)):
        function = evaluate(call.func, spaces)
        if not inspect.isfunction(function) or function.__module__ not in ("__main__", None):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        except (OSError, TypeError, SyntaxError):
            continue
        for inner in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            training = next((k.value for k in inner.keywords if k.arg == "training"), None)
            if not (isinstance(training, ast.Constant) and training.value is True):
                continue
            model = evaluate(inner.func, (function.__globals__,))
            layers = getattr(model, "layers", None) or []
            noisy = [
                f"{type(x).__name__} '{x.name}'" for x in layers if type(x).__name__ in _RANDOM
            ]
            if noisy:
                return FailedCheck(
                    "training",
                    filename,
                    lineno,
                    f"{function.__name__}: {ast.unparse(inner)}",
                    (),
                    bound_text=", ".join(noisy),
                )
    return None


def _checkpoint_names(
    spaces: tuple[Any, ...], before: list[str], filename: str, lineno: int
) -> FailedCheck | None:
    """The names a ``tf.train.Checkpoint(...)`` restores into, against the names the
    checkpoint file holds (``source``: the restoring names; ``bound_text``: the saved ones)."""
    import tensorflow as tf

    try:
        tree = ast.parse(textwrap.dedent("".join(before)))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and call_name(node.func) == "restore" and node.args):
            continue
        built = node.func.value if isinstance(node.func, ast.Attribute) else None
        if isinstance(built, ast.Name):
            built = _assigned(built.id, before)
        if not (isinstance(built, ast.Call) and call_name(built.func) == "Checkpoint"):
            continue
        path = evaluate(node.args[0], spaces)
        try:
            saved = {n.split("/")[0] for n, _ in tf.train.list_variables(path)}
        except Exception:
            continue
        saved -= {"save_counter", "_CHECKPOINTABLE_OBJECT_GRAPH"}
        names = [k.arg for k in built.keywords if k.arg]
        if names and saved and not set(names) & saved:
            return FailedCheck(
                "ckpt", filename, lineno, ", ".join(names), (), bound_text=", ".join(sorted(saved))
            )
    return None


def _half_output(
    statement: ast.stmt, spaces: tuple[Any, ...], before: list[str], filename: str, lineno: int
) -> FailedCheck | None:
    """A float16/bfloat16 value on the failing line that a model's predict (or call) returned:
    the model's output layer computes in that dtype (``bound_text``: the layer; ``source``:
    the model's dtype policy)."""
    for name in _names(statement):
        value = evaluate(ast.Name(id=name), spaces)
        dtype = str(getattr(getattr(value, "dtype", None), "name", getattr(value, "dtype", "")))
        made = _assigned(name, before)
        numpy = type(value).__module__.split(".")[0] in ("numpy", "ml_dtypes")
        if dtype not in ("float16", "bfloat16") or made is None or not numpy:
            continue  # a NumPy result (predict's) handed to NumPy or pandas code
        for _, model in called_models(made, spaces):
            layers = getattr(model, "layers", None) or []
            policy = str(getattr(getattr(model, "dtype_policy", None), "name", ""))
            if layers:
                shape = _shape_of(value) or ()
                operand = Operand(name, shape, dtype, made=ast.unparse(made))
                return FailedCheck(
                    "half", filename, lineno, policy, (operand,), bound_text=layers[-1].name
                )
    return None


def _reduced_axis(
    statement: ast.stmt, spaces: tuple[Any, ...], before: list[str], message: str
) -> tuple[tuple[Operand, Operand], int, str] | None:
    """(the reduced operand, the other, the axis, the reduced array's name and shape) when a
    name on the failing line was made by a reduction over the axis whose size the other
    operand has: ``pred_ids = tf.argmax(probs, axis=0)`` against ``y_test``, one per example."""
    names = _names(statement)
    shapes = {n: _shape_of(evaluate(ast.Name(id=n), spaces)) for n in names}
    for name in names:
        made = _assigned(name, before)
        if not isinstance(made, ast.Call) or call_name(made.func) not in _REDUCTIONS:
            continue
        axis_node = next((k.value for k in made.keywords if k.arg == "axis"), None)
        if axis_node is None and len(made.args) > 1:
            axis_node = made.args[1]
        axis = evaluate(axis_node, spaces) if axis_node is not None else None
        source = made.args[0] if made.args else ast.Name(id="")
        full = _shape_of(evaluate(source, spaces)) if isinstance(source, ast.Name) else None
        if not isinstance(axis, int) or full is None or not -len(full) <= axis < len(full):
            continue
        for other, shape in shapes.items():
            if other == name or not shape or shapes[name] is None:
                continue
            mine_size = (shapes[name] or (None,))[0]
            # the error's own sizes are these two (``Incompatible shapes: [3] vs. [20]``): a
            # reduction on the line for another purpose (a feature mean) is not blamed
            pair = re.search(
                rf"\[{mine_size}\].*\[{shape[0]}\]|\[{shape[0]}\].*\[{mine_size}\]", message
            )
            if shape[0] == full[axis] and shape[0] != mine_size and pair is not None:
                mine = Operand(name, shapes[name] or (), "", made=ast.unparse(made))
                theirs = Operand(other, shape, "")
                return (mine, theirs), axis, f"{ast.unparse(source)} {full}"
    return None
