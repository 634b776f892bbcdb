"""What a failing cell shows about ``tf.distribute``: the strategy in use and the objects
(models, optimizers) whose variables were created outside its scope.

Read from the live objects in the traceback's frames and in the user's
namespace, only when the error's text speaks of distribution; no TensorFlow
import (a distribution error implies TensorFlow and Keras are loaded).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

_MENTIONS = re.compile(
    r"strategy|PerReplica|_distributed_tf_update_step|distribution|MirroredVariable", re.I
)
_STRATEGY_NAMES = (
    "MirroredStrategy",
    "MultiWorkerMirroredStrategy",
    "CollectiveAllReduceStrategy",
    "TPUStrategy",
    "ParameterServerStrategy",
    "OneDeviceStrategy",
    "CentralStorageStrategy",
)


@dataclass(frozen=True)
class DistributionInfo:
    """The strategies seen (class names), replicas, and objects built outside their scope."""

    strategies: tuple[str, ...]
    replicas: int | None
    outside: tuple[str, ...]  # "model 'net' (`model`)", "optimizer Adam (`opt`)"
    inside: tuple[str, ...]  # the same for objects built inside a strategy's scope
    #: of ``outside``, the models created inside a strategy's scope whose variables were made
    #: outside it (the first call, or ``build``, ran outside the scope)
    built_outside: tuple[str, ...] = ()


def read_distribution(
    exc: BaseException, text: str, is_user_file: Callable[[str], bool]
) -> DistributionInfo | None:
    """The distribution facts of a failing cell, or None when its error is not about one."""
    if not _MENTIONS.search(text) or "keras" not in sys.modules:
        return None
    try:
        import keras

        model_cls, optimizer_cls = keras.Model, keras.optimizers.Optimizer
    except Exception:
        return None
    import linecache

    namespaces: list[Mapping[str, Any]] = []
    words: set[str] = set()
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if is_user_file(filename):
            namespaces.extend((tb.tb_frame.f_locals, tb.tb_frame.f_globals))
            # only the objects the failing cell (or file) names, not the whole notebook's
            words.update(re.findall(r"[A-Za-z_]\w*", "".join(linecache.getlines(filename))))
        tb = tb.tb_next
    strategies: dict[int, Any] = {}
    objects: dict[int, tuple[str, Any]] = {}
    for names in namespaces:
        for key, value in list(names.items()):
            if key.startswith("_"):
                continue
            if type(value).__name__ in _STRATEGY_NAMES:
                strategies.setdefault(id(value), value)
            elif isinstance(value, model_cls | optimizer_cls) and key in words:
                objects.setdefault(id(value), (key, value))
    for _, value in list(objects.values()):
        owner = getattr(value, "_distribute_strategy", None)
        if owner is not None and type(owner).__name__ in _STRATEGY_NAMES:
            strategies.setdefault(id(owner), owner)
    outside: list[str] = []
    inside: list[str] = []
    built_outside: list[str] = []
    for key, value in objects.values():
        placed = _distributed(value)
        if placed is None:
            continue
        described = _describe(key, value, model_cls)
        (inside if placed else outside).append(described)
        if not placed and getattr(value, "_distribute_strategy", None) is not None:
            built_outside.append(described)
    replicas = None
    for strategy in strategies.values():
        replicas = getattr(strategy, "num_replicas_in_sync", None)
        break
    return DistributionInfo(
        tuple(sorted({type(s).__name__ for s in strategies.values()})),
        replicas if isinstance(replicas, int) else None,
        tuple(outside),
        tuple(inside),
        tuple(built_outside),
    )


def _variables(obj: Any) -> list[Any]:
    try:
        if hasattr(obj, "iterations") and not hasattr(obj, "layers"):
            return [obj.iterations]
        return list(obj.weights)[:4]
    except Exception:
        return []


def _distributed(obj: Any) -> bool | None:
    """Whether the object's variables are distributed (None: it has none yet)."""
    found = _variables(obj)
    if not found:
        return None
    kinds = {type(getattr(v, "value", v)).__name__ for v in found}
    return any(k.startswith(("Mirrored", "SyncOnRead", "Distributed", "TPU")) for k in kinds)


def _describe(key: str, obj: Any, model_cls: type) -> str:
    if isinstance(obj, model_cls):
        return f"model '{getattr(obj, 'name', key)}' (`{key}`)"
    return f"optimizer {type(obj).__name__} (`{key}`)"
