"""The user's traceback through tfnb_debug's instrumentation: the frames of its wrappers out.

:func:`hide_hook_frames` gives an exception raised under ``record_gradients`` (or
``%%tfgrad --mem``'s step wrapper) the traceback it would have without them: the user's own
frames and the frameworks' stay, in order, and where Keras' traceback filter left only our
wrappers, the frame that raised is put back, as Keras keeps it.
"""

from __future__ import annotations

import os
import types

__all__ = ["hide_hook_frames"]


_KERAS_FILTER = ("keras", "src", "utils", "traceback_utils.py")


def hide_hook_frames(err: BaseException, *, raised_at: types.TracebackType | None = None) -> None:
    """Give ``err`` the traceback it would have without the recording's wrappers.

    Takes the frames of tfnb_debug's instrumentation (this package: these
    wrappers, and ``%%tfgrad --mem``'s step wrapper) out; the user's own frames
    and the frameworks' stay, in order.  Keras filters its own frames out of a
    traceback and, when nothing else is left, keeps the frame that raised; when
    only our wrappers were left after Keras' filter, that frame (``raised_at``,
    noted as the error passed a wrapper) is put back, as Keras would have.
    """
    raised = raised_at
    entries: list[types.TracebackType] = []
    tb = err.__traceback__
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    ours = [_is_hook(e.tb_frame.f_code.co_filename) for e in entries]
    if not any(ours):
        return
    kept = [e for e, mine in zip(entries, ours, strict=True) if not mine]
    if (
        ours[-1]
        and raised is not None
        and kept
        and kept[-1].tb_frame.f_code.co_filename.endswith(os.path.join(*_KERAS_FILTER))
        and not _is_hook(raised.tb_frame.f_code.co_filename)
    ):
        kept.append(raised)
    rebuilt: types.TracebackType | None = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    err.__traceback__ = rebuilt


# tfnb_debug/collect/, as this module's frames name it
_HOOKS = os.path.dirname(hide_hook_frames.__code__.co_filename) + os.sep


def _is_hook(filename: str) -> bool:
    return filename.startswith(_HOOKS)
