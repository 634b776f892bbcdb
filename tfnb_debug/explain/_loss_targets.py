"""Targets outside the range the compiled loss is defined on, behind a check of the loss.

Binary cross-entropy takes targets in [0, 1] (probabilities): with 0/255 masks read from
PNG files, or labels 1/2, the loss has no lower bound and goes negative while training
"works", and a user's own check of the loss (``assert loss >= 0``) is what fails.  After a
``fit`` in the failing cell, whose line reads the loss (``history``, ``loss``,
``evaluate``), the fit's labels are read and compared with the loss's range; the finding
(P12) is :func:`tfnb_debug.explain.targets.targets_outside_loss`.
"""

from __future__ import annotations

import linecache
from typing import Any

from tfnb_debug.explain._api import evaluate
from tfnb_debug.explain._batch_fixers import is_keras_model
from tfnb_debug.explain._diverged_fit import _fit_call
from tfnb_debug.ground.files import innermost_user_traceback

_BINARY = ("binary_crossentropy", "BinaryCrossentropy", "binary_focal_crossentropy")


def read_target_range(exc: BaseException) -> tuple[str, str, str, float, float] | None:
    """(model, loss, labels as written, lowest, highest) for a fit of the cell whose labels
    fall outside its binary cross-entropy's [0, 1], when the failing line reads the loss."""
    import ast

    import numpy as np

    user = innermost_user_traceback(exc)
    if user is None:
        return None
    frame = user.tb_frame
    line = linecache.getline(frame.f_code.co_filename, user.tb_lineno)
    if not any(word in line for word in ("loss", "history", "evaluate")):
        return None
    space = {**frame.f_globals, **frame.f_locals}
    source = "".join(linecache.getlines(frame.f_code.co_filename))
    for name, model in list(space.items())[:500]:
        if name.startswith("_") or not is_keras_model(model):
            continue
        call = _fit_call(name, source)
        loss = _loss_name(getattr(model, "loss", None))
        if call is None or call[1] is None or loss not in _BINARY:
            continue
        labels = evaluate(call[1], (space,))
        try:
            array = np.asarray(labels, dtype="float64")
        except (TypeError, ValueError):
            continue
        if not array.size or not np.isfinite(array).all():
            continue
        low, high = float(array.min()), float(array.max())
        if low < 0 or high > 1:
            return name, loss, ast.unparse(call[1]), low, high
    return None


def _loss_name(loss: Any) -> str:
    if isinstance(loss, str):
        return loss
    return type(loss).__name__ if loss is not None else ""
