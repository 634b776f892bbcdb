"""The contracts a user's ``Layer``/``Model`` subclass makes with Keras in ``__init__`` and ``call``.

- **``super().__init__()`` first.**  ``keras.layers.Layer.__init__`` gives the object its name,
  weight tracking and state; a subclass whose ``__init__`` never calls it (or calls it after
  it used the object) leaves them missing, and Keras fails on the first of them it reads
  ("'Scale' object has no attribute 'name'").  The evidence is the object itself: a Layer
  without the attributes ``Layer.__init__`` sets, and its class's ``__init__`` source.
- **What Keras passes to ``call``.**  Keras calls ``call`` with the inputs as one argument and
  ``training``/``mask`` only when the caller gives them (not when it builds the model on an
  Input, nor in ``predict``).  A ``call(self, x, training)`` without a default, or a
  ``call(self, left, right)`` for a model fed ``[left, right]``, breaks that.  The evidence is
  the class's ``call`` signature and the parameter Python says is missing.
"""

from __future__ import annotations

import inspect
import re

from tfnb_debug.explain._api import LiveCall, is_library
from tfnb_debug.explain._violation import Violation, is_a

_MISSING = re.compile(r"missing a required argument: '(\w+)'")


def _user_layer(value: object) -> bool:
    """A Keras Layer (or Model) of a class the user wrote."""
    return is_a(value, "Layer") and not is_library(type(value))


def layer_without_init(call: LiveCall, exc: BaseException) -> Violation | None:
    """A user's Layer whose ``Layer.__init__`` never ran on it."""
    if not isinstance(exc, AttributeError):
        return None
    obj = getattr(exc, "obj", None)
    if obj is None or not _user_layer(obj) or "name" in vars(obj):
        return None
    cls = type(obj).__name__
    try:
        source = inspect.getsource(type(obj).__init__)
    except (OSError, TypeError):
        source = ""
    calls = "super().__init__" in source or "super(" in source
    problem = (
        f"`{cls}.__init__` uses the object before `super().__init__()` runs, so the Layer has "
        f"no `{exc.name}` yet"
        if calls
        else f"`{cls}.__init__` never calls `super().__init__()`, so the Layer has no "
        f"`{exc.name}` (nor its weight tracking)"
    )
    return Violation(
        "S01",
        cls,
        problem,
        f"make `super().__init__(**kwargs)` the first line of `{cls}.__init__` (take `**kwargs` "
        "and pass them on, for Keras' own arguments), then set your attributes",
        quote_call=True,
    )


def call_signature(call: LiveCall, exc: BaseException) -> Violation | None:
    """A user's ``call`` that needs an argument Keras does not pass."""
    found = _MISSING.search(str(exc)) if isinstance(exc, TypeError) else None
    layer = call.receiver
    if found is None or not _user_layer(layer):
        return None
    try:
        params = inspect.signature(type(layer).call).parameters
    except (TypeError, ValueError):
        return None
    name = found.group(1)
    param = params.get(name)
    if param is None or param.default is not inspect.Parameter.empty:
        return None
    cls = type(layer).__name__
    if name in ("training", "mask"):
        return Violation(
            "S01",
            f"{cls}.call",
            f"`{cls}.call` requires `{name}`, but Keras passes `{name}` only when the caller "
            "gives it (not while it builds the model on an Input, nor in predict)",
            f"give it a default: `def call(self, x, {name}=None)` (Keras fills it in fit and "
            "evaluate)",
            quote_call=True,
        )
    positional = [
        p.name
        for p in list(params.values())[1:]
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and p.default is inspect.Parameter.empty
    ]
    if len(positional) < 2 or name not in positional[1:]:
        return None
    shown = ", ".join(positional)
    return Violation(
        "S12",
        f"{cls}.call",
        f"`{cls}.call` takes the inputs as {len(positional)} arguments ({shown}), but Keras "
        "passes a model's (or layer's) inputs as one: the list or dict it was given",
        f"take them as one argument and unpack it: `def call(self, inputs): {shown} = inputs`",
        quote_call=True,
    )
