"""A custom layer whose ``get_config`` leaves out a constructor argument (C05).

``load_model`` rebuilds each layer with ``cls.from_config(config)``, that is
``cls(**get_config())``: an argument the config leaves out takes its default when it has one,
and the reloaded layer is another layer (``units=32`` where 64 was saved).  Its weights then
do not fit, and the error is a shape error inside ``load_model``.  The evidence is the user's
class (its ``__init__`` parameters) and an instance of it in the user's models (its
``get_config()`` keys, its attribute of that name): only ``get_config`` runs, which saving
already ran.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._violation import Violation, is_a

# what a layer rebuilt with other arguments raises: its weights or its input do not fit
_REBUILT = r"[Ss]hape|incompatible|expected axis|missing \d+ required|could not be deserialized"


def config_drops_argument(call: LiveCall, exc: BaseException) -> Violation | None:
    """C05: a user layer's get_config lacks a constructor argument that has a default (the
    layer reloads with the default, silently, until its weights do not fit)."""
    if not call.api.endswith("load_model") or not re.search(_REBUILT, str(exc)):
        return None
    for layer in _user_layers(call.namespaces):
        try:
            parameters = inspect.signature(type(layer).__init__).parameters
            config = layer.get_config()
        except Exception:
            continue
        missing = [
            p
            for name, p in parameters.items()
            if name != "self"
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.default is not p.empty  # a required one fails with its own TypeError
            and name not in config
        ]
        if not missing:
            continue
        cls = type(layer).__name__
        shown = ", ".join(
            f"{p.name}={getattr(layer, p.name, '?')!r} (default {p.default!r})" for p in missing
        )
        update = ", ".join(f"'{p.name}': self.{p.name}" for p in missing)
        return Violation(
            "C05",
            call.text(next(iter(call.values), "filepath")),
            f"{cls}.get_config() leaves out {', '.join(p.name for p in missing)}: load_model "
            f"rebuilds '{layer.name}' as {cls}(**config), so it gets the default, not what was "
            f"saved ({shown})",
            f"return every constructor argument from get_config: `config.update({{{update}}})`, "
            "then save the model again",
        )
    return None


def _user_layers(namespaces: Any) -> list[Any]:
    """Instances of the user's own Layer classes inside the models of the namespaces."""
    found: list[Any] = []
    for names in namespaces[:2]:
        for value in list(names.values()):
            if not is_a(value, "Model"):
                continue
            try:
                layers = value._flatten_layers(include_self=False, recursive=True)
            except Exception:
                continue
            for layer in layers:
                module = type(layer).__module__
                if (
                    not module.startswith(("keras", "tensorflow", "tf_keras"))
                    and layer not in found
                ):
                    found.append(layer)
    return found[:16]


def integer_layer_dtype(call: LiveCall, exc: BaseException) -> Violation | None:
    """S11: a weighted layer given an integer ``dtype=``: its weights would be integers, which
    its initializer cannot fill (and no gradient could train)."""
    layers = call.values.get("layers")
    candidates = list(layers) if isinstance(layers, list | tuple) else []
    candidates += list(getattr(call.receiver, "layers", []) or [])
    for layer in candidates:
        policy = getattr(layer, "dtype_policy", None)
        dtype = str(getattr(policy, "variable_dtype", "") or "")
        if not dtype.startswith(("int", "uint")) or not hasattr(layer, "kernel_initializer"):
            continue
        name, cls = getattr(layer, "name", "?"), type(layer).__name__
        return Violation(
            "S11",
            f"{cls}(..., dtype='{dtype}')",
            f"{cls} '{name}' was given dtype='{dtype}': its weights would be {dtype}, which its "
            "initializer cannot fill and no gradient could train (dtype= sets the layer's own "
            "computation, not what it accepts)",
            f"drop dtype='{dtype}' from '{name}': integer data is declared on the Input "
            f"(keras.Input(..., dtype='{dtype}')), and the layer casts what it gets to its "
            "float32 compute dtype",
        )
    return None


#: this module's contracts, as ``Contract`` arguments (apis, check, explains)
CONFIG_CONTRACTS: tuple[tuple[Any, ...], ...] = (
    (("load_model",), config_drops_argument, ()),
    (("Sequential", "Model.fit", "Model.build"), integer_layer_dtype, (r"minval < maxval",)),
)
