"""Which Keras model an optimizer step trains: the model whose trainable variables are the
variables the step updates, found by identity among the models the calling code can see.

Variable paths cannot tell it: in Keras 3 a Functional model's variables are named
after their layers only ("hidden/kernel"), so the first part of a path may be a layer.
"""

from __future__ import annotations

import types
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["model_names", "models_training", "trained_model_objects", "trained_models"]

#: how deep sub-models (a GAN's generator inside the GAN) are searched
_DEPTH = 3


def _models_in(value: Any, model_class: type, depth: int) -> Iterator[Any]:
    if not isinstance(value, model_class):
        return
    yield value
    if depth <= 0:
        return
    try:
        layers = list(getattr(value, "layers", ()))
    except Exception:
        return
    for layer in layers:
        yield from _models_in(layer, model_class, depth - 1)


def trained_models(variables: Sequence[Any], frame: types.FrameType | None) -> tuple[str, ...]:
    """The names of the Keras models (in ``frame``'s locals and globals, and the models
    nested in them) whose trainable variables are exactly ``variables``; each name once."""
    names: list[str] = []
    for model in trained_model_objects(variables, frame):
        name = str(getattr(model, "name", "") or "")
        if name and name not in names:
            names.append(name)
    return tuple(names)


def trained_model_objects(variables: Sequence[Any], frame: types.FrameType | None) -> list[Any]:
    """The Keras models (in ``frame``'s locals and globals, and the models nested in them)
    whose trainable variables are exactly ``variables``; each model once."""
    found: list[Any] = []
    for _, model in models_training(variables, frame):
        if all(model is not m for m in found):
            found.append(model)
    return found


def model_names(variables: Sequence[Any], frame: types.FrameType | None) -> list[str]:
    """The variables of ``frame`` (locals, then globals) bound to a Keras model whose
    trainable variables are exactly ``variables``; each name once."""
    names: list[str] = []
    for name, _ in models_training(variables, frame):
        if name is not None and not name.startswith("_") and name not in names:
            names.append(name)
    return names


def models_training(
    variables: Sequence[Any], frame: types.FrameType | None
) -> list[tuple[str | None, Any]]:
    """``(name, model)`` for each Keras model ``frame`` can see (its locals, then its globals,
    and the models nested in them) whose trainable variables are exactly ``variables``: the
    frame's variable bound to it, or None for a nested model.  The one scan of a frame for the
    models a step trains."""
    if frame is None or not variables:
        return []
    import keras

    wanted = {id(v) for v in variables}
    verdicts: dict[int, bool] = {}
    found: list[tuple[str | None, Any]] = []
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in list(scope.items()):
            for model in _models_in(value, keras.Model, _DEPTH):
                if id(model) not in verdicts:
                    try:
                        verdicts[id(model)] = {id(v) for v in model.trainable_variables} == wanted
                    except Exception:
                        verdicts[id(model)] = False
                if verdicts[id(model)]:
                    found.append((name if model is value else None, model))
    return found
