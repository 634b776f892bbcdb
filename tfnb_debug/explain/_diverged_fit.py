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

import linecache
import math
import re
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._batch_fixers import is_keras_model
from tfnb_debug.ground.files import is_user_file


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


def read_diverged(exc: BaseException) -> DivergedFit | None:
    """The first model of the failing cell's namespace with a non-finite fit, if any."""
    tb, user = exc.__traceback__, None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            user = tb
        tb = tb.tb_next
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
    fit = re.search(rf"\b{re.escape(name)}\.fit\(\s*([A-Za-z_][\w.\[\]'\"]*)", source)
    if fit is None:
        return None  # not fitted in this cell
    history = getattr(getattr(model, "history", None), "history", None)
    losses = list(history.get("loss", [])) if isinstance(history, dict) else []
    epoch = next((i + 1 for i, v in enumerate(losses) if not _finite(v)), None)
    weights = _weights_nonfinite(model)
    if epoch is None and not weights:
        return None
    data = fit.group(1)
    value = space.get(data)
    count, columns = _nonfinite_in(value)
    checked = type(value).__module__ == "numpy" and getattr(value, "dtype", None) is not None
    optimizer = getattr(model, "optimizer", None)
    rate = getattr(optimizer, "learning_rate", None)
    try:
        learning_rate = float(rate) if rate is not None else None
    except (TypeError, ValueError):
        learning_rate = None
    return DivergedFit(
        model=name,
        epoch=epoch,
        epochs=len(losses),
        weights_nonfinite=weights,
        data=data,
        nonfinite_values=count,
        columns=columns,
        data_read=checked,
        optimizer=type(optimizer).__name__ if optimizer is not None else "",
        learning_rate=learning_rate,
    )


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return True


def _weights_nonfinite(model: Any) -> bool:
    import numpy as np

    try:
        return any(not np.isfinite(np.asarray(w)).all() for w in model.weights[:200])
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
