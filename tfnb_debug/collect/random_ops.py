"""Which layer called which ``keras.random`` op during a block (for C01)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["random_op_calls"]

_RANDOM_OPS = (
    "normal",
    "uniform",
    "truncated_normal",
    "categorical",
    "randint",
    "dropout",
    "shuffle",
    "gamma",
    "binomial",
    "beta",
)


@contextlib.contextmanager
def random_op_calls(model: Any) -> Iterator[list[tuple[str, str, str, str]]]:
    """Record ``(layer path, class, op, kind)`` for every keras.random op a layer calls.

    The backend's random functions are wrapped for the block (restored on exit);
    the calling layer is the innermost ``call`` frame whose ``self`` is a layer.
    """
    import keras

    from tfnb_debug.collect._patching import patched
    from tfnb_debug.collect.keras_access import backend_random, layer_paths
    from tfnb_debug.collect.training_guard import is_augmentation

    module = backend_random
    paths = {id(layer): path for path, layer in layer_paths(model)}
    calls: list[tuple[str, str, str, str]] = []
    originals = {name: getattr(module, name) for name in _RANDOM_OPS if hasattr(module, name)}

    def wrap(name: str, original: Any) -> Any:
        def recorded(*args: Any, **kwargs: Any) -> Any:
            frame: FrameType | None = sys._getframe(1)
            while frame is not None:
                owner = frame.f_locals.get("self")
                if frame.f_code.co_name == "call" and isinstance(owner, keras.layers.Layer):
                    builtin = type(owner).__module__.startswith("keras.")
                    dropout = (
                        name == "dropout"
                        or builtin
                        or isinstance(owner, keras.layers.Dropout)
                        or is_augmentation(owner)
                    )
                    path = paths.get(id(owner), owner.name)
                    call = (path, type(owner).__name__, name, "dropout" if dropout else "sampler")
                    if call not in calls:
                        calls.append(call)
                    break
                frame = frame.f_back
            return original(*args, **kwargs)

        return recorded

    with patched(*((module, name, wrap(name, original)) for name, original in originals.items())):
        yield calls
