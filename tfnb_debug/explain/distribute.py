"""Distributed training that fails (D05, D07): objects built outside the strategy's scope, and
Keras 3's ``fit`` under ``MultiWorkerMirroredStrategy``."""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_NEED_SCOPE = re.compile(r'Need to be inside "with strategy\.scope\(\)" for <[\w.]*?(\w+) object')
_MIXING = re.compile(
    r"Mixing different tf\.distribute\.Strategy objects: <[\w.]*?(\w+) object[^>]*> is not "
    r"<[\w.]*?(\w+) object"
)
_UPDATE_STEP = "_distributed_tf_update_step"
_COLOCATE = re.compile(
    r"`colocate_vars_with` must only be passed a variable created in this "
    r"tf\.distribute\.Strategy\.scope\(\)"
)
_PER_REPLICA = re.compile(r"Attempt to convert a value \(PerReplica:")
_MULTI_WORKER = ("MultiWorkerMirroredStrategy", "CollectiveAllReduceStrategy")


def outside_scope(ctx: ErrorContext) -> Explained | None:
    """D05: a model or optimizer used under a strategy was created outside its scope."""
    text = ctx.text
    need, mixing = _NEED_SCOPE.search(text), _MIXING.search(text)
    assertion = ctx.is_a("AssertionError") and _UPDATE_STEP in text
    info = ctx.distribution
    colocate = _COLOCATE.search(text)
    if colocate and info is not None and info.outside:
        return _built_outside(info)
    if not (need or mixing or assertion) or info is None:
        return None
    strategy = (need.group(1) if need else mixing.group(1) if mixing else "") or (
        info.strategies[0] if info.strategies else "the strategy"
    )
    if not info.outside:
        if not (need or mixing):
            return None  # an assertion in the update step with nothing built outside: say nothing
        what, named, verb = "a model, optimizer or variable", "", "was"
    else:
        what = ", ".join(info.outside)
        named = f"; built inside: {', '.join(info.inside)}" if info.inside else ""
        verb = "were" if len(info.outside) > 1 else "was"
    said = (
        f'Keras: "{need.group(0)}..."'
        if need
        else f'TensorFlow: "Mixing different tf.distribute.Strategy objects: {mixing.group(1)} '
        f'is not {mixing.group(2)}"'
        if mixing
        else f"AssertionError in the optimizer's {_UPDATE_STEP} under {strategy}"
    )
    return (
        finding(
            "D05",
            f"{what} {verb} created outside `strategy.scope()` but used under {strategy}: "
            "their variables are ordinary, not mirrored across the replicas",
            place=what,
            evidence=f"{said}{named}",
            hint="create the model, its optimizer and every variable inside the scope: "
            "`with strategy.scope(): model = build_model(); model.compile(optimizer=...)` "
            "(an optimizer object made before the scope counts too); then call fit or "
            "strategy.run as before",
        ),
        (),
    )


def _built_outside(info: Any) -> Explained:
    """D05 for the optimizer refusing a model's variables (``colocate_vars_with``): the model's
    variables are ordinary ones.  A model created in the scope but first called (built)
    outside it gets that cause and its fix; one created outside gets the plain one."""
    strategy = info.strategies[0] if info.strategies else "the strategy"
    said = (
        'TensorFlow: "`colocate_vars_with` must only be passed a variable created in this '
        'tf.distribute.Strategy.scope()"'
    )
    if info.built_outside:
        what = ", ".join(info.built_outside)
        return (
            finding(
                "D05",
                f"{what} was created inside `strategy.scope()` but built outside it: its "
                "variables were made by its first call (or build), outside the scope, so they "
                f"are ordinary variables that {strategy}'s optimizer cannot place",
                place=what,
                evidence=f"{said}; the model's strategy is {strategy}, its variables are not "
                "mirrored",
                hint="recreate the model and build it inside `with strategy.scope():` (its "
                "first call, `model(x[:1])` or `model.build(...)`, there; a Sequential can "
                "start with `keras.Input(shape=...)` so it is built when created)",
            ),
            (),
        )
    what = ", ".join(info.outside)
    return (
        finding(
            "D05",
            f"{what} {'were' if len(info.outside) > 1 else 'was'} created outside "
            f"`strategy.scope()` but used under {strategy}: their variables are ordinary, not "
            "mirrored across the replicas",
            place=what,
            evidence=said,
            hint="create the model, its optimizer and every variable inside the scope: "
            "`with strategy.scope(): model = build_model(); model.compile(optimizer=...)`",
        ),
        (),
    )


def unsupported_distribution(ctx: ErrorContext) -> Explained | None:
    """D07: Keras 3's fit/evaluate under MultiWorkerMirroredStrategy cannot convert PerReplica."""
    info = ctx.distribution
    if _PER_REPLICA.search(ctx.text) is None or info is None:
        return None
    # TensorFlow's MultiWorkerMirroredStrategy is an alias of CollectiveAllReduceStrategy
    multi = ["MultiWorkerMirroredStrategy" for s in info.strategies if s in _MULTI_WORKER]
    if not multi:
        return None
    import keras

    return (
        finding(
            "D07",
            f"Keras {keras.__version__}'s fit/evaluate/predict do not run under {multi[0]}: "
            "the per-replica batch reaches an op as a PerReplica value it cannot convert",
            place=f"{multi[0]} with Keras {keras.__version__}",
            evidence='TensorFlow: "Attempt to convert a value (PerReplica:...) with an '
            'unsupported type"; known Keras issue keras-team/keras#20585',
            hint="train with a custom loop instead: `dist_ds = strategy."
            "experimental_distribute_dataset(ds)` and, per batch, `strategy.run(train_step, "
            "args=(batch,))` with the loss reduced by `tf.nn.compute_average_loss(per_example, "
            "global_batch_size=...)`; on one machine MirroredStrategy runs fit as is",
        ),
        (),
    )
