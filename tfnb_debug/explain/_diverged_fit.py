"""A fit earlier in the cell went non-finite, and the user's own check after it failed.

Users guard training with their own checks: ``assert len(history.history["loss"]) == 5``
after ``TerminateOnNaN`` stopped the run, ``tf.debugging.assert_all_finite(w, ...)`` on the
weights.  The exception is the check's; the cause is in the fit before it, and the fitted
model still holds the evidence: its ``history`` (the first epoch whose loss is NaN or Inf),
its weights (non-finite), and the data the cell gave ``fit`` (NaN or Inf values in it: N05)
or, with finite data, the optimizer's learning rate (G05).  :func:`read_diverged` reads that
from the cell's namespace without running user code.
"""

from __future__ import annotations

import ast
import linecache
import math
import re
from dataclasses import dataclass
from typing import Any

from tfnb_debug.collect.model_config import optimizer_defaults
from tfnb_debug.explain._api import evaluate
from tfnb_debug.explain._array_frames import is_frame
from tfnb_debug.explain._batch_fixers import is_keras_model
from tfnb_debug.explain._string_values import source_tensors
from tfnb_debug.ground.files import innermost_user_traceback


@dataclass(frozen=True)
class DivergedFit:
    """A model of the cell whose fit went non-finite."""

    model: str  # the user's variable
    epoch: int | None  # the first epoch (1-based) whose loss is NaN or Inf, None if none
    epochs: int  # epochs the history recorded
    weights_nonfinite: bool
    data: str  # the fit's x as written, "" when not found
    nonfinite_values: int  # NaN/Inf values in that x (0 when finite or not read)
    columns: tuple[int, ...]  # the columns (last axis) that hold them
    data_read: bool  # x is a NumPy array whose values were checked
    optimizer: str
    learning_rate: float | None
    labels: str = ""  # the fit's y as written
    label_nonfinite: int = 0  # NaN/Inf values in y
    label_rows: tuple[int, ...] = ()  # the first rows of y that hold them
    column_names: tuple[str, ...] = ()  # a DataFrame x's columns that hold NaN/Inf
    loss_function: str = ""  # the compiled loss when it is the user's own function
    loss_ops: tuple[str, ...] = ()  # ops in it that make NaN/Inf outside their domain
    default_rate: float | None = None  # the optimizer class's default learning rate
    input_max: float | None = None  # the largest |value| of a numeric x


def read_diverged(exc: BaseException) -> DivergedFit | None:
    """The first model of the failing cell's namespace with a non-finite fit, if any."""
    user = innermost_user_traceback(exc)
    if user is None:
        return None
    frame = user.tb_frame
    space = {**frame.f_globals, **frame.f_locals}
    source = "".join(linecache.getlines(frame.f_code.co_filename))
    for name, value in list(space.items())[:500]:
        if name.startswith("_") or not is_keras_model(value):
            continue
        found = _diverged(name, value, source, space)
        if found is not None:
            return found
    return None


def _diverged(name: str, model: Any, source: str, space: dict[str, Any]) -> DivergedFit | None:
    call = _fit_call(name, source)
    if call is None:
        return None  # not fitted in this cell
    history = getattr(getattr(model, "history", None), "history", None)
    losses = list(history.get("loss", [])) if isinstance(history, dict) else []
    epoch = next((i + 1 for i, v in enumerate(losses) if not _finite(v)), None)
    weights = _weights_nonfinite(model)
    if epoch is None and not weights:
        return None
    x_node, y_node = call
    data = ast.unparse(x_node) if x_node is not None else ""
    value = evaluate(x_node, (space,)) if x_node is not None else None
    count, columns = _nonfinite_in(value)
    if not count and hasattr(value, "element_spec"):
        count = _dataset_source_nonfinite(value)  # its from_tensor_slices arrays, not iterated
    names = _frame_columns(value)
    checked = type(value).__module__ == "numpy" and getattr(value, "dtype", None) is not None
    y = evaluate(y_node, (space,)) if y_node is not None else None
    label_count, _ = _nonfinite_in(y)
    optimizer = getattr(model, "optimizer", None)
    rate = getattr(optimizer, "learning_rate", None)
    try:
        learning_rate = float(rate) if rate is not None else None
    except (TypeError, ValueError):
        learning_rate = None
    loss_name, ops = _loss_ops(getattr(model, "loss", None))
    return DivergedFit(
        model=name,
        epoch=epoch,
        epochs=len(losses),
        weights_nonfinite=weights,
        data=data,
        nonfinite_values=count or sum(n for _, n in names),
        columns=columns,
        data_read=checked or bool(names) or is_frame(value),
        optimizer=type(optimizer).__name__ if optimizer is not None else "",
        learning_rate=learning_rate,
        labels=ast.unparse(y_node) if y_node is not None else "",
        label_nonfinite=label_count,
        label_rows=_bad_rows(y),
        column_names=tuple(c for c, _ in names),
        loss_function=loss_name,
        loss_ops=ops,
        default_rate=optimizer_defaults(model).get("learning_rate"),
        input_max=_largest(value),
    )


def _fit_call(name: str, source: str) -> tuple[ast.expr | None, ast.expr | None] | None:
    """(x, y) of the last ``name.fit(...)`` in the cell's source, None when it has none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    found = None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "fit"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
        ):
            keywords = {k.arg: k.value for k in node.keywords}
            x = node.args[0] if node.args else keywords.get("x")
            y = node.args[1] if len(node.args) > 1 else keywords.get("y")
            found = (x, y)
    return found


def _loss_ops(loss: Any) -> tuple[str, tuple[str, ...]]:
    """(name, ops) of a compiled loss that is the user's own function and computes exp, log,
    sqrt or a division itself (the ops that leave their domain and give NaN/Inf)."""
    import inspect

    module = getattr(loss, "__module__", "") or ""
    if not callable(loss) or module.split(".")[0] in ("keras", "tensorflow", "tf_keras"):
        return "", ()
    try:
        code = inspect.getsource(loss)
    except (OSError, TypeError):
        return "", ()
    ops = [
        op
        for op, pattern in (
            ("exp", r"\bexp\("),
            ("log", r"\blog\("),
            ("sqrt", r"\bsqrt\("),
            ("division", r"[^/]/[^/]"),
        )
        if re.search(pattern, code)
    ]
    return getattr(loss, "__name__", "the loss"), tuple(ops)


def _dataset_source_nonfinite(ds: Any) -> int:
    """NaN/Inf values in the tensors a dataset pipeline starts from (``from_tensor_slices``),
    read without iterating the dataset (a second pass moves a reshuffling order on)."""
    import numpy as np

    total = 0
    for tensor in source_tensors(ds):
        try:
            array = np.asarray(tensor.numpy())
        except Exception:
            continue
        if array.dtype.kind == "f":
            total += int((~np.isfinite(array)).sum())
    return total


def _frame_columns(value: Any) -> list[tuple[str, int]]:
    """(column, NaN/Inf count) of a DataFrame's numeric columns that hold any."""
    if not is_frame(value):
        return []
    import numpy as np

    found = []
    for column in list(value.columns)[:200]:
        series = value[column]
        if series.dtype.kind == "f":
            bad = int((~np.isfinite(series.to_numpy())).sum())
            if bad:
                found.append((str(column), bad))
    return found


def _bad_rows(value: Any) -> tuple[int, ...]:
    import numpy as np

    if not isinstance(value, np.ndarray) or value.dtype.kind != "f":
        return ()
    bad = ~np.isfinite(value.reshape(len(value), -1)).all(axis=1) if value.ndim else ()
    return tuple(int(i) for i in np.nonzero(bad)[0][:6])


def _largest(value: Any) -> float | None:
    import numpy as np

    if not isinstance(value, np.ndarray) or value.dtype.kind not in "fiu" or not value.size:
        return None
    finite = value[np.isfinite(value)] if value.dtype.kind == "f" else value
    return float(np.abs(finite).max()) if finite.size else None


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return True


def _weights_nonfinite(model: Any) -> bool:
    return nonfinite_weights(getattr(model, "weights", None))


def nonfinite_weights(weights: Any) -> bool:
    """Any of ``weights`` (the first 200) holds NaN or Inf; False when they cannot be read."""
    import numpy as np

    try:
        return any(not np.isfinite(np.asarray(w)).all() for w in weights[:200])
    except Exception:
        return False


def _nonfinite_in(data: Any) -> tuple[int, tuple[int, ...]]:
    """How many NaN/Inf values a NumPy array holds, and in which columns (last axis)."""
    import numpy as np

    if not isinstance(data, np.ndarray) or data.dtype.kind != "f":
        return 0, ()
    bad = ~np.isfinite(data)
    count = int(bad.sum())
    if not count or data.ndim < 2:
        return count, ()
    columns = np.nonzero(bad.reshape(-1, data.shape[-1]).any(axis=0))[0]
    return count, tuple(int(c) for c in columns[:8])
