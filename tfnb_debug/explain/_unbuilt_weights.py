"""``load_weights`` into a Sequential that was built without an ``Input`` (S04).

A weights file (``.weights.h5``) stores each layer's variables, not the model's input shape,
so ``load_weights`` needs a model that is already built.  Keras says "Try building the model
first by calling it on some data or by using `build()`", which is all a subclassed model can
do; a Sequential can instead declare its ``Input``, and the file shows which: the kernel that
the file stores for the model's first Dense layer has one row per input feature.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation
from tfnb_debug.explain._weights_files import _saved_layer_shapes


def load_weights_unbuilt(call: LiveCall, exc: BaseException) -> Violation | None:
    """S04: ``load_weights`` on a Sequential without an Input (subclassed models: Keras'
    message names the fix, ``build()``)."""
    model = call.receiver
    if "has not yet been built" not in str(exc):
        return None
    if type(model).__name__ != "Sequential" or getattr(model, "built", True):
        return None
    source = call.source
    var = source.split(".load_weights")[0] if ".load_weights" in source else "model"
    layers = list(getattr(model, "layers", []) or [])
    first = layers[0] if layers else None
    rows = _kernel_rows(call.value("filepath"), first)
    if rows is not None and first is not None:
        shape = f"keras.Input(({rows},))"
        why = (
            f"the file's kernel of '{first.name}' ({type(first).__name__}) has {rows} rows, "
            f"one per input feature"
        )
    else:
        shape, why = "keras.Input(shape=...)", "a weights file does not store the input shape"
    return Violation(
        "S04",
        call.text("filepath") or "filepath",
        f"Sequential `{var}` has no Input, so it is not built and has no variables for the "
        "weights file to fill",
        f"start `{var}` with `{shape}` as its first layer (the Input the saved model had: "
        f"{why}), or call `{var}.build((None, ...))` before `load_weights`",
    )


def _kernel_rows(path: Any, layer: Any) -> int | None:
    """The first axis of the first kernel a ``.weights.h5`` file stores, when the model's
    first layer is a Dense (its kernel has one row per input feature)."""
    if path is UNREAD or not isinstance(path, str) or not path.endswith(".weights.h5"):
        return None
    if layer is None or type(layer).__name__ != "Dense":
        return None
    try:
        saved = _saved_layer_shapes(path)
    except Exception:  # an unreadable or foreign file: no evidence
        return None
    # the first layer the file stores (names differ between the saving and the loading model)
    shapes = saved[0][1] if saved else None
    return int(shapes[0][0]) if shapes and len(shapes[0]) == 2 else None
