"""``trainable`` changed after a model's training step was traced: what the kept step trains.

Keras traces ``fit``'s step once and keeps it on the model (``model.train_function``) until
``compile()`` is called again; the step trains the variables that were trainable when it
was traced, which are the variables its optimizer was built for.  A layer set
``trainable = True`` afterwards (fine-tuning a frozen base without recompiling) is not
trained by the next ``fit``, and one set ``trainable = False`` keeps training.  A cell magic
that traces its own instrumented step would trace it with the flags as they are now: the
optimizer then refuses the variables it does not know (``Unknown variable``), or the run
trains what Keras' kept step does not.

:func:`stale_trainable` reads the evidence (the model's kept step, its optimizer's own
variable list against ``model.trainable_variables`` now) and, when every layer holding a
differing variable differs as a whole, the flags that make the trainable set the traced
one again; :func:`as_traced` sets them for a block and puts the user's back afterwards, so
the instrumented step reproduces what the kept step does.  The finding that says so is
:func:`tfnb_debug.diagnostics.gradients.trainable_after_trace`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["StaleTrainable", "as_traced", "enter_as_traced", "stale_trainable"]


@dataclass(frozen=True)
class StaleTrainable:
    """A model whose kept training step trains another set of variables than it would now."""

    model: str
    optimizer: str
    traced: int  # variables the kept step trains (its optimizer's)
    now: int  # len(model.trainable_variables) now
    unfrozen: tuple[str, ...]  # trainable now, not trained by the kept step
    frozen: tuple[str, ...]  # trained by the kept step, not trainable now
    unfrozen_layers: tuple[str, ...]
    frozen_layers: tuple[str, ...]
    #: (layer, flag) that make the trainable set the traced one; empty when no flags can
    flips: tuple[tuple[Any, bool], ...] = ()


def _path(variable: Any) -> str:
    return str(getattr(variable, "path", None) or getattr(variable, "name", "?"))


def stale_trainable(model: Any) -> StaleTrainable | None:
    """The evidence when ``model`` keeps a traced step whose variables differ from its
    trainable variables now; None when it keeps none, its optimizer is not built, or they
    agree."""
    if vars(model).get("train_function") is None:
        return None  # no kept step: the next fit traces with the flags as they are
    optimizer = getattr(model, "optimizer", None)
    inner = getattr(optimizer, "inner_optimizer", optimizer)  # a LossScaleOptimizer's
    if inner is None or not getattr(inner, "built", False):
        return None
    known = list(getattr(inner, "_trainable_variables", None) or [])
    try:
        now = list(model.trainable_variables)
        every = list(model.variables)
    except Exception:
        return None
    if not known:
        return None
    known_ids = {id(v) for v in known}
    now_ids = {id(v) for v in now}
    mine = {id(v) for v in every}
    if not known_ids <= mine:
        return None  # an optimizer built for other variables too (shared): not this story
    unfrozen = [v for v in now if id(v) not in known_ids]
    frozen = [v for v in known if id(v) not in now_ids]
    if not unfrozen and not frozen:
        return None
    unfrozen_ids = {id(v) for v in unfrozen}
    frozen_ids = {id(v) for v in frozen}
    flips: list[tuple[Any, bool]] = []
    unfrozen_layers: list[str] = []
    frozen_layers: list[str] = []
    reproducible = True
    for layer in _leaf_layers(model):
        own = [v for v in layer.weights if getattr(v, "trainable", True) or id(v) in frozen_ids]
        ids = {id(v) for v in own}
        if not ids & (unfrozen_ids | frozen_ids):
            continue
        name = str(getattr(layer, "path", None) or layer.name)
        if ids <= unfrozen_ids:
            flips.append((layer, False))
            unfrozen_layers.append(name)
        elif ids <= frozen_ids:
            flips.append((layer, True))
            frozen_layers.append(name)
        else:
            reproducible = False  # part of one layer's variables: no flag gives the set
    return StaleTrainable(
        model=str(getattr(model, "name", "model")),
        optimizer=type(inner).__name__,
        traced=len(known),
        now=len(now),
        unfrozen=tuple(_path(v) for v in unfrozen),
        frozen=tuple(_path(v) for v in frozen),
        unfrozen_layers=tuple(unfrozen_layers),
        frozen_layers=tuple(frozen_layers),
        flips=tuple(flips) if reproducible else (),
    )


def _leaf_layers(model: Any) -> list[Any]:
    """The layers holding variables themselves (no sublayers), in the model's order."""
    from tfnb_debug.collect.keras_access import all_sublayers

    return [
        layer
        for layer in all_sublayers(model)
        if not getattr(layer, "_layers", None) and layer.weights
    ]


def enter_as_traced(stack: contextlib.ExitStack[Any], model: Any) -> StaleTrainable | None:
    """:func:`stale_trainable` for ``model``; when flags can reproduce its kept step, they are
    set in ``stack`` (put back when it closes).  What a magic that traces its own step for a
    model calls before the trace."""
    stale = stale_trainable(model)
    if stale is not None and stale.flips:
        stack.enter_context(as_traced(stale))
    return stale


@contextlib.contextmanager
def as_traced(stale: StaleTrainable) -> Iterator[None]:
    """The layers' ``trainable`` flags as the kept step was traced with, for the block."""
    before = [(layer, bool(layer.trainable)) for layer, _ in stale.flips]
    try:
        for layer, flag in stale.flips:
            layer.trainable = flag
        yield
    finally:
        for layer, flag in reversed(before):
            layer.trainable = flag
