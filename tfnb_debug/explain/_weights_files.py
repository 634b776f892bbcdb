"""Weights files against the model they are loaded into (C04, C05).

``load_weights`` reads a ``.weights.h5`` written by ``save_weights`` and matches its
layers to the model's by position; a whole model saved in the legacy H5 format (by
``model.save`` or a ``ModelCheckpoint`` without ``save_weights_only=True``) is not a
weights file, and ``load_model`` cannot read a weights file.  The checks open the
file given (h5py) and compare what it holds with the model."""

from __future__ import annotations

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import (
    Violation,
    fmt,
    is_a,
    name_in,
)


def model_file_to_load_weights(call: LiveCall, exc: BaseException) -> Violation | None:
    """``load_weights`` given a whole model saved in the legacy H5 format (``model.save`` or a
    ``ModelCheckpoint`` without ``save_weights_only=True`` on a ``.h5`` path)."""
    path = call.values.get("filepath", call.values.get("arg0", UNREAD))
    if not isinstance(path, str) or not path.endswith(".h5"):
        return None
    try:
        import h5py

        with h5py.File(path, "r") as handle:
            whole = "model_config" in handle.attrs
    except Exception:
        return None
    if not whole:
        return None
    return Violation(
        "C04",
        call.text("filepath"),
        f"`{path.rsplit('/', 1)[-1]}` holds a whole model in the legacy H5 format (its "
        "architecture and weights, as `model.save` or a ModelCheckpoint without "
        "save_weights_only=True writes it), not the weights file `load_weights` reads",
        "load it as a model: `keras.models.load_model(path)`; or have the ModelCheckpoint write "
        "weights: `ModelCheckpoint(path, save_weights_only=True)` with a path ending in "
        "'.weights.h5'",
        "the file's attributes name a model_config",
    )


def _natural(name: str) -> tuple[str, int]:
    """``dense_10`` after ``dense_2``: the saved names' creation order."""
    head, _, tail = name.rpartition("_")
    return (head, int(tail)) if tail.isdigit() and head else (name, -1)


def _saved_layer_shapes(path: str) -> list[tuple[str, list[tuple[int, ...]]]] | None:
    """(saved name, variable shapes) per layer of a Keras 3 ``.weights.h5`` file, in order."""
    import h5py

    with h5py.File(path, "r") as handle:
        if "model_config" in handle.attrs or "layers" not in handle:
            return None
        out = []
        for name in sorted(handle["layers"].keys(), key=_natural):
            group = handle["layers"][name]
            variables = group.get("vars")
            if variables is None:
                continue
            shapes = [tuple(variables[k].shape) for k in sorted(variables.keys(), key=int)]
            if shapes:
                out.append((str(name), shapes))
        return out


def weights_against_model(call: LiveCall, exc: BaseException) -> Violation | None:
    """``load_weights`` of a ``.weights.h5`` saved from another architecture: the first layer
    where the file's weights and the model's stop matching, each listed with its shapes."""
    path = call.values.get("filepath", call.values.get("arg0", UNREAD))
    model = call.receiver
    if not isinstance(path, str) or not path.endswith(".weights.h5") or not is_a(model, "Model"):
        return None
    if not getattr(model, "built", True):
        return None  # Keras says to build it first; an unbuilt model has no layers to compare
    try:
        saved = _saved_layer_shapes(path)
        layers = [
            (str(layer.name), [tuple(int(d) for d in w.shape) for w in layer.weights])
            for layer in model.layers
            if layer.weights
        ]
    except Exception:
        return None
    if not saved or [s for _, s in saved] == [s for _, s in layers]:
        return None
    index = next(
        (i for i, (a, b) in enumerate(zip(saved, layers, strict=False)) if a[1] != b[1]),
        min(len(saved), len(layers)),
    )

    def shown(items: list[tuple[str, list[tuple[int, ...]]]]) -> str:
        return ", ".join(f"{n} {fmt(s[0])}" for n, s in items[:6]) + (
            ", ..." if len(items) > 6 else ""
        )

    where = layers[index][0] if index < len(layers) else "the end"
    name = name_in(call, model) or "model"
    differ = (
        f" (saved {fmt(saved[index][1][0])}, here {fmt(layers[index][1][0])})"
        if index < len(saved) and index < len(layers)
        else ""
    )
    return Violation(
        "C04",
        call.text("filepath"),
        f"the weights file holds {len(saved)} layers with weights and `{name}` has "
        f"{len(layers)}; they stop matching at layer {index + 1} ('{where}'){differ}: the file "
        "was saved from another architecture, and load_weights matches layers by position",
        "load_weights needs the architecture the weights were saved from: recreate that model, "
        "load the file into it, then copy the layers that carry over "
        f"(`{name}.layers[i].set_weights(old.layers[i].get_weights())`), or save the weights "
        "again from the current architecture",
        f"file: {shown(saved)}; model: {shown(layers)}",
    )


def weights_file_to_load_model(call: LiveCall, exc: BaseException) -> Violation | None:
    path = call.values.get("filepath", call.values.get("arg0", UNREAD))
    if not isinstance(path, str) or not path.endswith(".weights.h5"):
        return None
    return Violation(
        "C05",
        call.text("filepath"),
        f"`{call.api}` got a weights file ({path}): it holds the weights but not the model's "
        "architecture",
        "build the model with the same code, then `model.load_weights(path)`; or save the whole "
        "model with `model.save('name.keras')` and load that",
    )
