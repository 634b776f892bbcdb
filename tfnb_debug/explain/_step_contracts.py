"""A model that overrides one of its steps and not the one the failing call runs (S12).

``fit(..., validation_data=...)`` runs ``test_step`` on the validation batches, ``evaluate``
runs ``test_step``, ``predict`` runs ``predict_step`` and gives it the batch of inputs alone
(no labels).  A model whose ``train_step`` reads its batches its own way (a dict of features
and target) but keeps Keras' default ``test_step`` fails on validation with the structure
error of the default step; a ``predict_step`` that unpacks ``x, _ = data`` iterates over the
one tensor it gets.  The evidence is the model's class (which steps it defines itself) and
the step the traceback runs.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._violation import Violation

_INPUT_ERROR = r"Missing data for input|expects \d+ input|incompatible with the layer|structure"
_UNPACKED = re.compile(r"^\s*(\w+)\s*,\s*[\w, ]+=\s*(\w+)\s*$")


def default_step(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: the failing step is Keras' default, and the model overrides its sibling."""
    model = call.receiver
    own = {
        name
        for klass in type(model).__mro__
        if not klass.__module__.startswith(("keras", "tensorflow"))
        for name in ("train_step", "test_step", "predict_step")
        if name in vars(klass)
    }
    running = _library_steps(exc) or _inferred_step(call, exc)
    if "train_step" not in own or not running:
        return None
    step = running[-1]
    if step in own:
        return None
    cls = type(model).__name__
    via = "the validation data" if call.method == "fit" else f"`{call.method}`"
    return Violation(
        "S12",
        call.text("validation_data") if call.method == "fit" else call.text("x"),
        f"{cls} overrides train_step (it reads its batches its own way), but not {step}: "
        f"{via} runs Keras' default {step}, which passes the batch to the model as (x, y)",
        f"override {step} in {cls} the way train_step reads the batch (the same unpacking, "
        "the loss and metrics without the gradient step)"
        + (", or drop validation_data" if call.method == "fit" else ""),
    )


def _library_steps(exc: BaseException) -> list[str]:
    """The names of Keras' own step functions the traceback runs, outermost first."""
    found = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        path = code.co_filename.replace("\\", "/")
        if code.co_name in ("test_step", "predict_step", "train_step") and "/keras/" in path:
            found.append(code.co_name)
        tb = tb.tb_next
    return found


def _inferred_step(call: LiveCall, exc: BaseException) -> list[str]:
    """Keras filters its own frames from the traceback: ``evaluate`` runs test_step, and a
    ``fit`` with validation data whose own train_step is not in the traceback failed there."""
    tb, user_steps = exc.__traceback__, set()
    while tb is not None:
        user_steps.add(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    if not re.search(_INPUT_ERROR, str(exc)):
        return []  # only the model's input check tells the default step's (x, y) from others
    if call.method == "evaluate":
        return ["test_step"]
    given = call.values.get("validation_data")
    if call.method == "fit" and given is not None and "train_step" not in user_steps:
        return ["test_step"]
    return []


def predict_step_unpacks(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: the user's predict_step unpacks (x, y) from the batch predict gives it (x alone)."""
    if "Iterating over a symbolic" not in str(exc) and "values to unpack" not in str(exc):
        return None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "predict_step" and "self" in frame.f_locals:
            import linecache

            line = linecache.getline(frame.f_code.co_filename, tb.tb_lineno)
            match = _UNPACKED.match(line)
            if match is not None:
                cls = type(frame.f_locals["self"]).__name__
                return Violation(
                    "S12",
                    line.strip(),
                    f"{cls}.predict_step unpacks `{line.strip()}`, but predict gives "
                    "predict_step the batch of inputs alone (predict takes no labels): the "
                    "unpacking iterates over that one tensor",
                    f"take the batch as it is, `{match.group(1)} = {match.group(2)}` (or "
                    f"`{match.group(1)}, _, _ = keras.utils.unpack_x_y_sample_weight("
                    f"{match.group(2)})`, which works for both)",
                )
        tb = tb.tb_next
    return None
