"""Contracts of the callbacks ``fit`` runs: what a callback reads from the logs, and what the
user's functions it calls must return.

- A callback reads the logs ``fit`` hands it: ``loss`` and each compiled metric by its
  Keras 3 name (``accuracy``, not Keras 2's ``acc``), the same with ``val_`` when
  ``validation_data``/``validation_split`` is given, and only at an epoch's end (a batch's
  logs hold no ``val_`` keys).  ``ModelCheckpoint`` formats its ``filepath`` with them
  (``{val_loss:.3f}``); a custom callback indexes them (``logs["val_acc"]``).
- ``LearningRateScheduler(schedule)`` calls ``schedule(epoch, lr)`` and takes a Python
  float back (a ``tf.Tensor`` from ``tf.math.exp`` is refused).

Each check reads the frame of the callback that raised (its ``logs``), the callbacks given
to ``fit`` and the source of the user's schedule (never calling it), and returns a
:class:`~tfnb_debug.explain._violation.Violation` naming the key or value, what the logs or
the callback hold, and the fix that fits.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation

_REASON = re.compile(r"Reason: '([^']+)'")
# Keras 2 names of log keys and their Keras 3 names
_KERAS2_KEYS = {"acc": "accuracy", "lr": "learning_rate"}


def logs_key(call: LiveCall, exc: BaseException) -> Violation | None:
    """A callback asked the logs for a key that this ``fit`` does not log (at that point)."""
    if not isinstance(exc, KeyError) or not exc.args:
        return None
    reason = _REASON.search(str(exc.args[0]))
    key = reason.group(1) if reason else exc.args[0]
    frame = _frame_with_logs(exc)
    if not isinstance(key, str) or frame is None:
        return None
    logs = frame.f_locals["logs"]
    if key in logs:
        return None
    owner = frame.f_locals.get("self")
    where = (
        f"`{type(owner).__name__}.{frame.f_code.co_name}`"
        if owner is not None
        else f"`{frame.f_code.co_name}`"
    )
    keys = sorted(str(k) for k in logs)
    evidence = f"the logs at {where} hold {keys}"
    validated = _given(call, "validation_data") or _given(call, "validation_split")
    base = key.removeprefix("val_")
    renamed = _KERAS2_KEYS.get(base)
    if renamed is not None and key.replace(base, renamed) in logs:
        new = key.replace(base, renamed)
        problem = f"`{key}` is the Keras 2 name of a log key: Keras 3 logs it as `{new}`"
        hint = f"read `{new}` (`logs[{new!r}]`, or `{{{new}}}` in a filepath / monitor='{new}')"
    elif key.startswith("val_") and not any(k.startswith("val_") for k in keys):
        freq = call.value("validation_freq")
        at_epoch_end = frame.f_code.co_name == "on_epoch_end"
        if validated and at_epoch_end and freq not in (UNREAD, None, 1):
            problem = (
                f"`{key}` is logged only at the end of the epochs that validate, and "
                f"validation_freq={freq!r} makes fit validate only on some: the other epochs' "
                "logs hold no `val_` keys"
            )
            hint = (
                f"read it with `logs.get({key!r})` and skip None in {where}, or set "
                "validation_freq=1"
            )
        elif validated:
            problem = (
                f"`{key}` is logged only at an epoch's end, after validation; {where} reads the "
                "logs of a batch, which hold no `val_` keys"
            )
            hint = "read it at the epoch's end (`save_freq='epoch'`, `on_epoch_end`)"
        else:
            problem = (
                f"`{key}` is a validation metric, but `{call.api.rpartition('.')[2]}` was given no "
                "validation data, so the logs hold no `val_` keys"
            )
            alternative = f", or use `{base}`" if base in logs else ""
            hint = (
                "pass `validation_data=(x_val, y_val)` (or `validation_split=0.2`) to fit"
                + alternative
            )
    else:
        near = difflib.get_close_matches(key, keys, n=1, cutoff=0.5)
        problem = f"the logs hold no `{key}`" + (
            f"; the nearest key is `{near[0]}`" if near else ""
        )
        hint = (
            f"use a key the logs hold: {keys}" if not near else f"read `{near[0]}` instead"
        ) + " (each compiled metric is logged by its name, with `val_` for validation)"
    return Violation("S12", key, problem, hint, evidence)


def _frame_with_logs(exc: BaseException) -> Any:
    """The innermost frame of the traceback that holds a ``logs`` dict (the callback's)."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        logs = tb.tb_frame.f_locals.get("logs")
        if isinstance(logs, dict):
            found = tb.tb_frame
        tb = tb.tb_next
    return found


def _given(call: LiveCall, name: str) -> bool:
    value = call.value(name)
    return value is not UNREAD and value is not None and value != 0.0


_SCHEDULE = "The output of the `schedule` function should be a float"


def schedule_return(call: LiveCall, exc: BaseException) -> Violation | None:
    """``LearningRateScheduler``'s schedule returned something other than a Python float: read
    from the callback given to ``fit`` and the source of its schedule (never called here)."""
    if _SCHEDULE not in str(exc):
        return None
    callbacks = call.value("callbacks")
    if not isinstance(callbacks, list | tuple):
        return None
    scheduler = next((c for c in callbacks if type(c).__name__ == "LearningRateScheduler"), None)
    schedule = getattr(scheduler, "schedule", None)
    if schedule is None:
        return None
    name = getattr(schedule, "__name__", "schedule")
    got = str(exc).partition("Got:")[2].strip()
    returned = _returned_calls(schedule)
    problem = (
        f"the schedule `{name}` given to LearningRateScheduler returned {got or 'a value'}, "
        "which is not a Python float"
    )
    hint = f"return a Python float from `{name}`: `return float(...)`"
    if returned:
        problem += f": it returns the result of `{returned[0]}`, a tensor"
        hint += f", or compute with `math` instead of `{returned[0].partition('(')[0]}`"
    return Violation("S11", name, problem, hint, quote_call=False)


def _returned_calls(function: Any) -> list[str]:
    """The TensorFlow / Keras ops called in the ``return`` lines of ``function``'s source (NumPy's
    float64 scalars are floats to the callback)."""
    import inspect

    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return []
    found = []
    for line in source.splitlines():
        text = line.strip()
        if text.startswith("return "):
            found += re.findall(r"\b(?:tf|keras\.ops)(?:\.\w+)+\([^()]*\)", text)
    return found
