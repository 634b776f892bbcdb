"""What the user's traceback shows when their code fails under a magic: their frames, not ours.

IPython leaves out of a printed traceback every frame that sets
``__tracebackhide__``, except the innermost one.  Two things can still put a
tfnb_debug frame in front of the user:

* Keras and TensorFlow filter their own frames out of a traceback (their
  ``error_handler`` re-raises it without them).  The innermost frame left can
  then be a tfnb_debug hook the user's model was called through;
  :func:`cut_hidden_tail` cuts it, so the traceback ends where it would without
  tfnb_debug.
* TensorFlow errors list Python frames in their message: a ``tf.function``
  failing while it is traced, the frames it was traced through ("in user
  code:"); an op failing when it runs, where it was created ("Detected at
  node ... defined at").  While the user's code runs, TensorFlow leaves
  tfnb_debug's frames out of both lists, as it does its own: its traceback
  filter and the stack it records for each new op skip them.

Neither happens when ``%xmode --show`` asks IPython to show hidden frames.
Imported only when a magic runs.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Iterator
from typing import Any

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # tfnb_debug/


@contextlib.contextmanager
def hidden_hook_frames(shell: Any) -> Iterator[None]:
    """Run the user's code: an exception goes through unchanged, without tfnb_debug frames."""
    __tracebackhide__ = True
    hide = bool(getattr(getattr(shell, "InteractiveTB", None), "skip_hidden", True))
    try:
        with _left_out_by_tensorflow(enabled=hide):
            yield
    except BaseException as err:
        if hide:
            cut_hidden_tail(err)
        raise


def cut_hidden_tail(err: BaseException) -> None:
    """Cut the hidden tfnb_debug frames off the inner end of a traceback that Keras or
    TensorFlow filtered (only there can they end it without having raised themselves).

    The traceback entries are unlinked in place: the exception object, its
    message and every frame before the cut stay as they were.
    """
    entries = []
    tb = err.__traceback__
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    keep = len(entries)
    while keep > 1 and _hidden_hook(entries[keep - 1].tb_frame):
        keep -= 1
    filtered = any(_traceback_filter(entry.tb_frame) for entry in entries[:keep])
    if keep < len(entries) and filtered:
        entries[keep - 1].tb_next = None


@contextlib.contextmanager
def _left_out_by_tensorflow(*, enabled: bool) -> Iterator[None]:
    """tfnb_debug among the paths TensorFlow's and Keras' traceback filters leave out, for
    the block (a filter that keeps no frame keeps the innermost, where the error was raised,
    as it does without tfnb_debug's hooks in the call chain)."""
    if not enabled or "tensorflow" not in sys.modules:  # never imports TensorFlow itself
        yield
        return
    from tfnb_debug.collect._patching import patched
    from tfnb_debug.collect.keras_access import private

    changes = []
    for name in ("tf_traceback_utils", "keras_traceback_utils"):
        if name.startswith("keras") and "keras" not in sys.modules:
            continue  # nor Keras
        try:
            module = private(name)
        except (ImportError, AttributeError):
            continue
        paths = getattr(module, "_EXCLUDED_PATHS", None)
        if isinstance(paths, tuple) and _PACKAGE not in paths:  # not moved, not nested
            changes.append((module, "_EXCLUDED_PATHS", (*paths, _PACKAGE)))
    if not changes:
        yield
        return
    with patched(*changes), _op_stack_filter():
        yield


def _op_stack_filter() -> Any:
    """A ``tf_stack.StackTraceFilter`` that leaves tfnb_debug's files out of the stack
    TensorFlow records for each op created in this thread (a no-op if TF moved it)."""
    from tfnb_debug.collect.keras_access import private

    try:
        base = private("tf_stack").StackTraceFilter
    except (ImportError, AttributeError):
        return contextlib.nullcontext()
    files = _package_files()

    class LeaveOutTfnbDebug(base):  # type: ignore[misc, valid-type]
        def get_filtered_filenames(self) -> frozenset[str]:
            return files | frozenset(self.parent.get_filtered_filenames())

    return LeaveOutTfnbDebug()


@functools.cache
def _package_files() -> frozenset[str]:
    """Every Python file of tfnb_debug, as a frame names it."""
    return frozenset(
        os.path.join(folder, name)
        for folder, _, names in os.walk(_PACKAGE)
        for name in names
        if name.endswith(".py")
    )


def _hidden_hook(frame: Any) -> bool:
    return frame.f_code.co_filename.startswith(_PACKAGE) and bool(
        frame.f_locals.get("__tracebackhide__")
    )


def _traceback_filter(frame: Any) -> bool:
    """Keras' and TensorFlow's ``filter_traceback`` wrapper, which drops their own frames."""
    code = frame.f_code
    return code.co_name == "error_handler" and code.co_filename.endswith("traceback_utils.py")
