"""A user layer's own rank check (``tf.debugging.assert_rank``) refused its input (S01).

A custom layer that states the rank it takes (``assert_rank(x, 3, "expects (batch, time,
features)")``) fails while Keras infers its output, with the user's message and "must have
rank 3. Received rank 2, shape (None, 16)".  The tensor the layer was called on shows which
layer made that rank (its Keras history): an RNN without ``return_sequences``, a global
pooling or Flatten that removed the axes, or the data itself.  The fix is at that layer.
"""

from __future__ import annotations

import linecache
import re

from tfnb_debug.diagnostics.shape_hints import producer_rank_hint
from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._violation import Violation
from tfnb_debug.ground.files import is_user_file

_RANK = re.compile(r"must have rank (\d+)\.\s+Received rank (\d+), shape \(([^)]*)\)")


def rank_assert(call: LiveCall, exc: BaseException) -> Violation | None:
    """S01: the layer's rank check failed on a tensor another layer gave that rank."""
    match = _RANK.search(str(exc))
    if match is None:
        return None
    needed = int(match.group(1))
    received = tuple(
        None if d.strip() == "None" else int(d) for d in match.group(3).split(",") if d.strip()
    )
    found = _checking_layer(exc, received)
    if found is None:
        return None
    owner, value = found
    history = getattr(value, "_keras_history", None)
    operation = getattr(history, "operation", None)
    if operation is None:
        return None
    layer = str(getattr(owner, "name", "") or type(owner).__name__)
    hint = producer_rank_hint(
        layer, needed, received, str(operation.name), type(operation).__name__
    )
    if not hint:
        return None
    return Violation(
        "S01",
        call.text("x") or "x",
        f"{type(owner).__name__} '{layer}' checks for rank {needed} (its own assert_rank) and "
        f"got rank {match.group(2)}, shape ({match.group(3)}), from "
        f"{type(operation).__name__} '{operation.name}'",
        hint,
    )


def _checking_layer(
    exc: BaseException, received: tuple[int | None, ...]
) -> tuple[object, object] | None:
    """(layer, the tensor it was called on): the layer is ``self`` of the user frame running
    ``call``; the tensor, a KerasTensor of the received shape named on a user line that called
    it (Keras filters its own frames out of the traceback it re-raises)."""
    owner, tensor = None, None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            if frame.f_code.co_name == "call" and hasattr(frame.f_locals.get("self"), "built"):
                owner = frame.f_locals["self"]
            line = linecache.getline(frame.f_code.co_filename, tb.tb_lineno)
            for name in re.findall(r"\(\s*([A-Za-z_]\w*)\s*\)", line):
                value = frame.f_locals.get(name, frame.f_globals.get(name))
                shape = getattr(value, "shape", None)
                if hasattr(value, "_keras_history") and tuple(shape or ()) == received:
                    tensor = value
        tb = tb.tb_next
    return (owner, tensor) if owner is not None and tensor is not None else None
