"""Two readers of an RNN layer's call for its ``initial_state`` contract.

An RNN's call is ``(sequences, initial_state=None, mask=None, training=False)``: a flag
given by position lands in ``initial_state`` (:func:`flag_as_initial_state`), and a layer
inside a ``Bidirectional`` receives half of the states given to the wrapper
(:func:`wrapping_bidirectional` finds the wrapper in the user's models).
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.collect.keras_access import all_sublayers
from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._violation import Violation, is_a, models_in

__all__ = ["flag_as_initial_state", "wrapping_bidirectional"]

#: the names a training or mask flag goes by when it is not a bool value (a tensor, None)
_FLAG_NAMES = frozenset({"training", "train", "is_training", "mask"})


def flag_as_initial_state(call: LiveCall, layer: Any, states: Any) -> Violation | None:
    """A ``training`` (or ``mask``) flag given positionally: an RNN's call is
    ``(sequences, initial_state, mask, training)``, so the second positional argument is
    taken as the initial state."""
    text = call.text("initial_state")
    if "initial_state" in call.source or not text:
        return None
    flag = isinstance(states, bool) or getattr(getattr(states, "dtype", None), "name", "") == "bool"
    word = text.rpartition(".")[2].lower()
    if not flag and word not in _FLAG_NAMES:
        return None
    keyword = "mask" if "mask" in word else "training"
    kind = type(layer).__name__
    fixed = call.source.replace(f", {text})", f", {keyword}={text})")
    return Violation(
        "S12",
        call.source,
        f"`{text}` is passed to {kind} '{layer.name}' by position, and its second positional "
        f"argument is `initial_state` (the call is {kind}(sequences, initial_state, mask, "
        "training)): the flag is taken as a state",
        f"pass it by keyword: `{fixed}`"
        if fixed != call.source
        else f"pass `{keyword}=` by keyword",
        evidence=f"`{text}` as initial_state: {type(states).__name__}",
    )


def wrapping_bidirectional(call: LiveCall, layer: Any) -> Any:
    """The Bidirectional whose forward or backward layer ``layer`` is (found in the user's models)."""
    for _, model in models_in(call):
        for candidate in all_sublayers(model):
            if is_a(candidate, "Bidirectional") and layer in (
                getattr(candidate, "forward_layer", None),
                getattr(candidate, "backward_layer", None),
            ):
                return candidate
    return None
