"""Instrumented train functions kept across cells: what they depend on, and the one store.

``%%tfgrad`` and ``%%tfcheck`` each build (and TensorFlow traces) an
instrumented train function for a model.  Tracing and the first call's graph
optimization cost as much as the user's own first ``fit``, so the function is
kept for the next cell on the same setup (:class:`Setup`) instead of being
traced again.  It is never left on the model between cells: each cell installs
it through :class:`~tfnb_debug.collect._patching.Patches` and the user's own
``train_function`` is back afterwards.

The store (:data:`tfnb_debug.ground.state.train_functions`, which survives
``%reload_ext``) is keyed by ``(id(model), kind)`` and holds the entries of at
most :data:`KEEP_MODELS` models: keeping a function for another model drops the
others (both kinds), and ``%unload_ext`` drops all.  An entry's function holds
its model, so this bound is what lets ``del model`` free the model's memory.
"""

from __future__ import annotations

import weakref
from typing import Any, Protocol

from tfnb_debug.ground import state as _state

__all__ = ["KEEP_MODELS", "Setup", "keep", "kept_for", "kept_function"]

#: models whose instrumented train functions are kept at most: one, the last recorded, so
#: that a model the user deletes to free (GPU) memory is held by tfnb_debug for as short
#: a time as possible (until another model is recorded, or ``%unload_ext``)
KEEP_MODELS = 1


class Setup:
    """What an instrumented train function depends on: equal setups may share one.

    Objects are compared by identity (the model's optimizers, the compile
    configuration Keras makes anew in every ``compile``, the trainable
    variables, the ``train_step``), settings by value (XLA, eager,
    ``steps_per_execution`` and the magic's own ``options``).  ``xla=False``
    leaves XLA out: for a function that always runs without it.
    """

    def __init__(self, model: Any, options: tuple[Any, ...], *, xla: bool = True) -> None:
        self.options = options
        self.xla = xla  # whether the model's XLA setting shapes the function (not when pinned)
        self.objects: tuple[Any, ...] = (
            getattr(model, "optimizer", None),
            getattr(model, "_compile_config", None),
            getattr(model, "_loss_tracker", None),
            getattr(model, "_distribution_strategy", None),
            getattr(type(model), "train_step", None),
            vars(model).get("train_step"),
            *list(getattr(model, "trainable_variables", []) or []),
            *_optimizer_attributes(model),
        )
        jit: Any = "-"
        if xla:
            try:
                jit = getattr(model, "jit_compile", None)
            except Exception:
                jit = "?"
        self.values: tuple[Any, ...] = (
            repr(jit),
            bool(getattr(model, "run_eagerly", False)),
            repr(getattr(model, "steps_per_execution", 1)),
            len(self.objects),
            options,
        )

    def of(self, model: Any) -> Setup:
        """``model``'s setup now, with these options."""
        return Setup(model, self.options, xla=self.xla)

    def same(self, other: Setup) -> bool:
        return self.values == other.values and all(
            a is b for a, b in zip(self.objects, other.objects, strict=True)
        )


def _optimizer_attributes(model: Any) -> list[Any]:
    """Optimizers the model holds besides ``model.optimizer`` (a GAN's ``d_optimizer`` and
    ``g_optimizer``, set by its own ``compile``): a custom ``train_step`` updates them."""
    from tfnb_debug.collect.keras_access import BaseOptimizer

    return [
        value
        for name, value in sorted(vars(model).items())
        if isinstance(value, BaseOptimizer) and name != "optimizer"
    ]


class Entry(Protocol):
    """What the store needs of a kept function: its model and the setup it was built for."""

    model: weakref.ref[Any]
    setup: Setup


def kept_for(model: Any, kind: str, setup: Setup) -> Any:
    """The ``kind`` entry kept for ``model`` if its setup is unchanged; a stale one is dropped."""
    key = (id(model), kind)
    entry = _state.train_functions.get(key)
    if entry is None:
        return None
    if entry.model() is not model or not entry.setup.same(setup):
        _state.train_functions.pop(key, None)
        return None
    _touch(model)
    return entry


def kept_function(model: Any, kind: str) -> Any:
    """The ``kind`` train function kept for ``model``, or None (dropped if the model's
    optimizer, compile configuration or trainable variables changed since)."""
    entry = _state.train_functions.get((id(model), kind))
    if entry is None or entry.model() is not model:
        return None
    kept = kept_for(model, kind, entry.setup.of(model))
    return kept.function if kept is not None else None


def keep(entry: Entry, model: Any, kind: str) -> None:
    """Keep ``entry`` as ``model``'s ``kind`` function; drop those of models used longest ago."""
    store = _state.train_functions
    store[(id(model), kind)] = entry
    _touch(model)
    models = list(dict.fromkeys(key[0] for key in store))  # least recently used first
    for old in models[: max(0, len(models) - KEEP_MODELS)]:
        for key in [k for k in store if k[0] == old]:
            store.pop(key)


def _touch(model: Any) -> None:
    """Make ``model``'s entries the most recently used."""
    store = _state.train_functions
    for key in [k for k in store if k[0] == id(model)]:
        store[key] = store.pop(key)
