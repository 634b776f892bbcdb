"""Gradient-health rules G01-G07 over a :class:`~tfnb_debug.records.gradients.GradientHistory`.

Each rule takes the history and the thresholds and returns its findings and
the layers it flags (for the per-layer table).  Pure NumPy: no TensorFlow.

This module runs them (:func:`check_gradients`, :func:`live_findings`,
:func:`check_losses`) and holds the rules on non-finite gradients and losses (G03,
G05), on variables that get no gradient (G04; also :func:`no_gradient_at_all` and
:func:`trainable_after_trace`, which other modules call on their own) and on a loss
that does not move (G07).  The rules read from the gradient and update norms (G01,
G02, G06) are in :mod:`~tfnb_debug.diagnostics.grad_norm_rules`; the thresholds every
rule reads, :class:`~tfnb_debug.diagnostics.grad_thresholds.GradThresholds`, in
:mod:`~tfnb_debug.diagnostics.grad_thresholds`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfnb_debug.diagnostics.grad_norm_rules import (
    _exploding,
    _finite,
    _nanmedian,
    _others,
    _update_ratio,
    _vanishing,
    converged,
)
from tfnb_debug.diagnostics.grad_thresholds import GradThresholds, _Out, _step_of
from tfnb_debug.ground.reports import Finding, Target, finding
from tfnb_debug.ground.text import loss_name
from tfnb_debug.records.gradients import INF, NAN, W_NORM, GradientHistory

__all__ = [
    "LIVE_RULES",
    "THROUGH_DEPTH",
    "GradThresholds",
    "RuleResult",
    "check_gradients",
    "check_losses",
    "collapse_hint",
    "live_findings",
    "loss_name",
    "no_gradient_at_all",
]


@dataclass(frozen=True)
class RuleResult:
    findings: tuple[Finding, ...] = ()
    flags: dict[str, tuple[str, ...]] = field(default_factory=dict)


def check_gradients(
    history: GradientHistory,
    thresholds: GradThresholds | None = None,
    *,
    label: Callable[[str], str] = str,
) -> RuleResult:
    """Run G01-G07; ``label`` turns a layer path into the name shown to the user."""
    th = thresholds or GradThresholds()
    findings: list[Finding] = []
    flags: dict[str, list[str]] = {}
    for rule in (
        _nonfinite_gradient,
        _nonfinite_loss,
        _no_gradient,
        _vanishing_or_collapsing,
        _exploding,
        _update_ratio,
        _stagnant_loss,
    ):
        found, flagged = rule(history, th, label)
        findings.extend(found)
        for layer, code in flagged:
            flags.setdefault(layer, [])
            if code not in flags[layer]:
                flags[layer].append(code)
    return RuleResult(tuple(findings), {k: tuple(v) for k, v in flags.items()})


#: the rules a live view runs while training (cheap, and what a user must see at once)
LIVE_RULES = ("G02", "G03", "G05")


def live_findings(
    history: GradientHistory,
    thresholds: GradThresholds | None = None,
    *,
    label: Callable[[str], str] = str,
    codes: Iterable[str] = LIVE_RULES,
) -> tuple[Finding, ...]:
    """G02, G03 and G05 (or the ``codes`` among them) over the records so far.

    The same rules as :func:`check_gradients`: on a window of the latest
    records (the live view passes what it has not seen yet, plus
    ``growth_window`` records before), they give what the report's rules give
    for those records.
    """
    th = thresholds or GradThresholds()
    rules = {"G03": _nonfinite_gradient, "G05": _nonfinite_loss, "G02": _exploding}
    found: list[Finding] = []
    for code, rule in rules.items():
        if code in codes:
            found.extend(rule(history, th, label)[0])
    return tuple(found)


def _nonfinite_gradient(
    h: GradientHistory, th: GradThresholds, label: Callable[[str], str]
) -> _Out:
    counts = h.stats[:, :, NAN] + h.stats[:, :, INF]
    bad = np.nan_to_num(counts) > 0
    if not bad.any():
        return [], []
    record = int(np.argmax(bad.any(axis=1)))
    var = int(np.argmax(bad[record]))
    meta = h.variables[var]
    step = _step_of(h, record)
    nans, infs = int(h.stats[record, var, NAN]), int(h.stats[record, var, INF])
    if h.loss_known[record]:
        loss = float(h.loss[record])
        before = (
            f"the forward pass was already non-finite (loss {loss})"
            if not np.isfinite(loss)
            else f"the loss was still finite ({loss:.4g}), so it arose in the backward pass"
        )
    else:
        before = "the loss was not recorded, so whether the forward pass was finite is unknown"
    weights = h.stats[record, :, W_NORM]  # NaN also means "not recorded": only Inf is evidence
    if not np.all(np.isfinite(weights[~np.isnan(weights)])):
        before += (
            "; the norm of some weights was already infinite before this step "
            "(weights holding Inf, or too large for float32)"
        )
    layers = [h.variables[i].layer for i in np.flatnonzero(bad.any(axis=0))]
    flagged = [(layer, "G03") for layer in dict.fromkeys(layers)]
    return [
        finding(
            "G03",
            f"gradient of {meta.path} holds {nans} NaN and {infs} Inf values at step {step} "
            f"(the first recorded non-finite gradient, first variable in forward order); {before}",
            place=f"variable '{meta.path}', step {step}",
            target=Target("variable", meta.path),
            evidence=f"{int(bad.any(axis=1).sum())} of {h.n_records} recorded steps non-finite",
            hint="lower the learning rate, clip gradients (clipnorm=1.0), check the inputs and "
            "labels for NaN, and add an epsilon to log/sqrt/division in custom losses",
        )
    ], flagged


def _nonfinite_loss(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
    return _loss_nonfinite(h.steps, h.loss, h.loss_known), []


def _loss_nonfinite(
    steps: np.ndarray, loss: np.ndarray, known: np.ndarray, name: str | None = None
) -> list[Finding]:
    """G05 over one loss series (``name``: its label when a step computes several)."""
    bad = known & ~np.isfinite(loss)
    if not bad.any():
        return []
    record = int(np.argmax(bad))
    step = int(steps[record])
    what = f"the loss '{name}'" if name else "the loss"
    return [
        finding(
            "G05",
            f"{what} became {float(loss[record])} at step {step} "
            "(the first recorded step with a non-finite loss)",
            place=f"step {step}",
            evidence=f"{int(bad.sum())} of {int(known.sum())} recorded "
            f"{'values of ' + repr(name) if name else 'losses'} non-finite",
            hint="look at the inputs and labels of that step, lower the learning rate, and use "
            "from_logits=True losses instead of log(softmax) by hand",
        )
    ]


def check_losses(
    series: Sequence[tuple[str, np.ndarray, np.ndarray]],
    thresholds: GradThresholds | None = None,
) -> list[Finding]:
    """G05 and G07 for each of several labelled losses (``(label, steps, values)``), as when a
    GAN's step computes a generator and a discriminator loss, each for its own optimizer:
    each finding names its loss."""
    th = thresholds or GradThresholds()
    found: list[Finding] = []
    for name, steps, values in series:
        steps, values = np.asarray(steps), np.asarray(values, dtype=float)
        known = np.ones(values.shape, dtype=bool)
        found += _loss_nonfinite(steps, values, known, name)
        found += _loss_stagnant(steps, values, known, th, name)
    return found


def _no_gradient(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
    if not h.no_gradient:
        return [], []
    by_layer: dict[str, list[str]] = {}
    for meta in h.variables:
        if meta.path in h.no_gradient:
            by_layer.setdefault(meta.layer, []).append(meta.name)
    findings = []
    for layer, names in by_layer.items():
        findings.append(
            finding(
                "G04",
                f"{', '.join(names)} of layer '{label(layer)}' received no gradient (None): "
                "the layer is disconnected from the loss",
                place=f"layer '{label(layer)}'",
                target=Target("layer", layer),
                evidence="tape.gradient returned None",
                hint="check that the layer's output reaches the model output used by the loss, "
                "or set layer.trainable = False if it is meant to be frozen",
            )
        )
    return findings, [(layer, "G04") for layer in by_layer]


def trainable_after_trace(stale: Any) -> Finding | None:
    """G04 for the variables a layer made trainable after the model's step was traced: the
    step Keras keeps trains the variables its optimizer was built for, so they get no gradient
    until ``compile()`` runs again (``stale``: a
    :class:`~tfnb_debug.collect.traced_trainable.StaleTrainable`)."""
    if not stale.unfrozen:
        return None
    layers = stale.unfrozen_layers
    shown = ", ".join(f"'{name}'" for name in layers[:4]) + (
        f" and {len(layers) - 4} more" if len(layers) > 4 else ""
    )
    variables = ", ".join(stale.unfrozen[:3]) + (
        f" and {len(stale.unfrozen) - 3} more" if len(stale.unfrozen) > 3 else ""
    )
    return finding(
        "G04",
        f"{len(stale.unfrozen)} trainable variable(s) of model '{stale.model}' received no "
        "gradient: "
        + (f"layer(s) {shown} were" if layers else "they were")
        + " made trainable after the model's training step was traced, and the step Keras "
        "keeps trains only the variables it was traced with, so they do not train",
        place=f"layer '{layers[0]}'" if layers else f"model '{stale.model}'",
        target=Target("layer", layers[0]) if layers else None,
        evidence=f"the kept train_function's {stale.optimizer} optimizer was built for "
        f"{stale.traced} variable(s); model.trainable_variables now holds {stale.now}; not "
        f"trained: {variables}",
        hint="call model.compile(...) again after changing `trainable` (with a new optimizer, "
        "often with a lower learning rate for fine-tuning), then fit: compile() drops the "
        "kept step, and the next fit traces it with the layers trainable now",
    )


def no_gradient_at_all(
    *,
    loss: str | None,
    model: str | None,
    variables: int | None,
    cuts: tuple[str, ...] | None = None,
) -> Finding:
    """G04 when NO trainable variable gets a gradient: the loss itself cannot be differentiated.

    ``cuts`` are the ops found in the loss's own code that cut a gradient
    (``tf.argmax``, a cast to int, ``.numpy()``); ``()`` means the code was read
    and none was found, ``None`` that it could not be read.
    """
    which = f"the loss '{loss}'" if loss else "the loss passed to tape.gradient"
    of_model = f" of model '{model}'" if model else ""
    evidence = 'Keras: "No gradients provided for any variable"'
    predicts = [c for c in cuts or () if c.endswith((".predict", ".predict_on_batch"))]
    ops = [c for c in cuts or () if c not in predicts]
    if cuts:
        evidence += f"; in the loss's code: {', '.join(cuts)}"
        parts = [
            f"`{c}(...)` runs the model outside the tape and returns NumPy arrays: call "
            f"`{c.rsplit('.', 1)[0]}(x, training=True)` inside the tape instead"
            for c in predicts
        ]
        stopped = [c for c in ops if "stop_gradient(" in c]  # with what it stops
        ops = [c for c in ops if c not in stopped]
        parts += [
            f"{c if '`' in c else f'`{c}`'} blocks the gradient through what the loss trains: "
            "keep stop_gradient on "
            "the target side only (the values the prediction is compared with)"
            for c in stopped
        ]
        if ops:
            parts.append(
                f"{', '.join(ops)} in the loss cut the gradient: compute the loss with "
                "differentiable ops on y_pred (e.g. a cross-entropy on the probabilities or "
                "logits) and keep these ops for metrics"
            )
        hint = "; ".join(parts)
    elif cuts is not None:  # the loss's code was read and holds no op that cuts a gradient
        hint = (
            "the loss's own code holds no op that cuts a gradient, so the break is in how the "
            "loss reaches the weights: the model whose variables go to tape.gradient must run "
            "inside the tape's block on this batch (not before it), and the variables given "
            "must be that model's (`model.trainable_variables`)"
        )
    else:
        hint = (
            "find where the chain from the weights to the loss breaks: a loss computed outside "
            "the tape, a model output converted with NumPy (`.numpy()`, np.*), a cast to int, or "
            "argmax/argsort/round in the loss each cut it; build the loss from differentiable "
            "ops on y_pred"
        )
    return finding(
        "G04",
        f"no trainable variable{of_model} received a gradient"
        + (f" (all {variables} are None)" if variables is not None else "")
        + ": "
        f"{which} is not differentiable with respect to the weights",
        place=f"loss '{loss}'" if loss else "the loss",
        evidence=evidence,
        hint=hint,
    )


def _vanishing_or_collapsing(
    h: GradientHistory, th: GradThresholds, label: Callable[[str], str]
) -> _Out:
    """G01: a norm far below the median layer norm (:func:`_vanishing`), or else one that
    collapses on its way back through the depth of a run that does not learn
    (:func:`_collapsing`)."""
    found = _vanishing(h, th, label)
    return found if found[0] else _collapsing(h, th, label)


def _collapsing(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
    """G01 for a gradient that shrinks layer after layer on its way back to the input, as
    through a deep stack of sigmoids (each passes at most a quarter of it): a layer's norm
    below ``vanishing_rel`` x the largest layer norm of its step on more than
    ``vanishing_share`` of the recorded steps, while the loss does not fall (G07's
    evidence).  The median layer norm of such a stack sits in its middle, so the first
    layers are far below the largest but not below the median; while the loss falls, a
    small gradient in the first layers is the network's shape, not a fault."""
    norms = _finite(h.layer_grad_norms())
    layers = h.layers()
    if norms.size == 0 or len(layers) < 3 or np.all(np.isnan(norms)):
        return [], []
    stalled = _stagnant_loss(h, th, label)[0]
    if not stalled:
        return [], []
    with np.errstate(invalid="ignore"):
        top = np.nanmax(np.where(np.isnan(norms), -np.inf, norms), axis=1, keepdims=True)
    low = (norms < th.vanishing_rel * top) & ~np.isnan(norms)
    valid = (~np.isnan(norms)).sum(axis=0)
    share = np.where(valid > 0, low.sum(axis=0) / np.maximum(valid, 1), 0.0)
    medians = _nanmedian(norms, axis=0)
    largest = int(np.nanargmax(np.where(np.isnan(medians), -np.inf, medians)))
    # the layers the gradient passes on its way back from the largest norm to the input
    hit = [j for j in range(largest) if valid[j] > 0 and share[j] > th.vanishing_share]
    if not hit:
        return [], []
    j = hit[0]
    ratio = float(medians[j] / medians[largest]) if medians[largest] > 0 else 0.0
    between = largest - j
    per_layer = ratio ** (1.0 / between) if between and ratio > 0 else 0.0
    shrink = (
        f"; it shrinks about {1 / per_layer:.3g}x per layer over the {between} layer(s) from "
        f"'{label(layers[largest])}' back to '{label(layers[j])}'"
        if per_layer > 0
        else ""
    )
    return [
        finding(
            "G01",
            f"the gradient of layer '{label(layers[j])}' is vanishing {THROUGH_DEPTH}: "
            f"its norm is below {th.vanishing_rel:g} x the largest layer norm "
            f"(layer '{label(layers[largest])}') on {share[j]:.0%} of the recorded steps, "
            f"while the loss does not fall{shrink} (first such layer in forward order)"
            + _others([label(layers[k]) for k in hit[1:]]),
            place=f"layer '{label(layers[j])}'",
            target=Target("layer", layers[j]),
            evidence=f"median norm {float(medians[j]):.3g} vs {float(medians[largest]):.3g} "
            f"at '{label(layers[largest])}' ({ratio:.2g} of it); {stalled[0].evidence}",
            hint=collapse_hint(None, None),
        )
    ], [(layers[k], "G01") for k in hit]


#: how G01 through the depth (:func:`_collapsing`) says where the gradient vanishes
THROUGH_DEPTH = "on its way back through the network"


def collapse_hint(saturating: list[str] | None, initializers: list[str] | None) -> str:
    """The hint of G01 through the depth: with the model read (``saturating``: its hidden
    sigmoid/tanh layers from the vanishing one on, ``initializers``: its layers whose
    initializer is too small or constant), only the causes it has; without the model,
    both usual causes."""
    if saturating is None or initializers is None:
        return (
            "each layer between passes on only a fraction of the gradient: a saturating "
            "activation (sigmoid passes at most 0.25 of it, tanh at most 1) or weights too "
            "small for their fan-in; use ReLU-family activations with He initialisation, or "
            "add BatchNormalization or residual connections"
        )
    causes = []
    if saturating:
        causes.append(
            f"saturating activations in {_shown(saturating)} (sigmoid passes at most 0.25 of "
            "the gradient, tanh at most 1): use activation='relu' with "
            "kernel_initializer='he_normal' there, or BatchNormalization before them"
        )
    if initializers:
        causes.append(
            f"initializers that keep the layers from learning: {_shown(initializers)}; use "
            "Keras' default kernel_initializer='glorot_uniform' ('he_normal' under ReLU)"
        )
    if not causes:
        return (
            "no hidden layer on the way uses a saturating activation and no initializer is too "
            "small for its fan-in, so neither usual cause is in this model: add "
            "BatchNormalization between the layers, or residual connections that give the "
            "gradient a short path back"
        )
    return ("two causes fit: " if len(causes) > 1 else "") + "; and ".join(causes)


def _shown(names: list[str], limit: int = 3) -> str:
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _stagnant_loss(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
    if converged(h):
        return [], []  # fell to ~0 and stays: learned, not stalled
    found = _loss_stagnant(h.steps, h.loss, h.loss_known, th)
    if not found and h.fresh:
        found = _no_improvement(h, th)
    return found, []


def _no_improvement(h: GradientHistory, th: GradThresholds) -> list[Finding]:
    """G07 for a run that trains from initialization and ends where it began: the median
    loss of its last quarter is not ``stagnant_run_rel`` below that of its first quarter.
    Mini-batch losses vary from batch to batch, so their range says little; a fresh model
    whose loss keeps its level over the whole run has learned nothing (a converged model
    fell from its start first)."""
    known = h.loss_known & np.isfinite(h.loss)
    values, steps = h.loss[known], h.steps[known]
    if len(values) < 2 * th.stagnant_steps:
        return []
    quarter = len(values) // 4
    start, end = float(np.median(values[:quarter])), float(np.median(values[-quarter:]))
    if start <= 0 or end < (1.0 - th.stagnant_run_rel) * start:
        return []
    return [
        finding(
            "G07",
            f"the loss does not fall over the {len(values)} recorded steps of a model trained "
            f"from initialization (steps {int(steps[0])}-{int(steps[-1])}): median {start:.4g} "
            f"over the first quarter, {end:.4g} over the last (less than "
            f"{th.stagnant_run_rel:.0%} lower)",
            place=f"steps {int(steps[0])}-{int(steps[-1])}",
            evidence=f"loss from {float(values[0]):.6g} to {float(values[-1]):.6g}",
            hint="check the learning rate (zero or tiny?), frozen layers, the loss/output "
            "pairing (M01-M05), and that the labels are not constant",
        )
    ]


def _loss_stagnant(
    steps: np.ndarray,
    loss: np.ndarray,
    known_mask: np.ndarray,
    th: GradThresholds,
    name: str | None = None,
) -> list[Finding]:
    """G07 over one loss series (``name``: its label when a step computes several)."""
    values = loss[known_mask]
    steps = steps[known_mask]
    keep = np.isfinite(values)
    values, steps = values[keep], steps[keep]
    n = th.stagnant_steps
    first, at = values[:n], steps[:n]
    if len(first) >= th.stagnant_min_steps:
        change = _relative_range(first)
        if change < th.stagnant_rel:
            return [_stagnant(first, at, change, th, name, f"the first {len(first)}")]
    # a loss that moves in its first steps and then stops for the rest of a longer run is
    # as stuck: the longest flat tail, when it holds half the run or more
    if len(values) < 2 * n:
        return []
    tail = _flat_tail(values, th.stagnant_rel)
    if tail < max(th.stagnant_min_steps, len(values) // 2):
        return []
    part, at = values[-tail:], steps[-tail:]
    return [_stagnant(part, at, _relative_range(part), th, name, f"the last {tail}")]


def _relative_range(values: np.ndarray) -> float:
    return float(values.max() - values.min()) / max(float(np.abs(values).mean()), 1e-12)


def _flat_tail(values: np.ndarray, rel: float) -> int:
    """How many of the last values have a relative range (range over mean |value|) under
    ``rel``."""
    low = high = float(values[-1])
    total = 0.0
    for k in range(len(values) - 1, -1, -1):
        v = float(values[k])
        low, high, total = min(low, v), max(high, v), total + abs(v)
        if (high - low) / max(total / (len(values) - k), 1e-12) >= rel:
            return len(values) - 1 - k
    return len(values)


def _stagnant(
    known: np.ndarray,
    steps: np.ndarray,
    change: float,
    th: GradThresholds,
    name: str | None,
    which: str,
) -> Finding:
    what = f"the loss '{name}'" if name else "the loss"
    return finding(
        "G07",
        f"{what} barely moves over {which} recorded steps "
        f"(steps {int(steps[0])}-{int(steps[-1])}): relative change {change:.2g} "
        f"< {th.stagnant_rel:g}",
        place=f"steps {int(steps[0])}-{int(steps[-1])}",
        evidence=f"{name or 'loss'} from {float(known[0]):.6g} to {float(known[-1]):.6g}",
        hint="check the learning rate (zero or tiny?), frozen layers, the loss/output "
        "pairing (M01-M05), and that the labels are not constant",
    )
