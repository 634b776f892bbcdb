"""Gradient-health rules G01-G07 over a :class:`~tfnb_debug.records.gradients.GradientHistory`.

Each rule takes the history and the thresholds and returns its findings and
the layers it flags (for the per-layer table).  Pure NumPy: no TensorFlow.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfnb_debug.ground.reports import Finding, Target, finding
from tfnb_debug.ground.text import loss_name
from tfnb_debug.records.gradients import INF, NAN, W_NORM, GradientHistory

__all__ = [
    "LIVE_RULES",
    "GradThresholds",
    "RuleResult",
    "check_gradients",
    "check_losses",
    "live_findings",
    "loss_name",
    "no_gradient_at_all",
]


@dataclass(frozen=True)
class GradThresholds:
    """The defaults of the gradient rules; pass your own to override any of them.

    ``vanishing_*`` (G01): a layer's gradient norm below ``vanishing_abs`` or
    below ``vanishing_rel`` x the median layer norm of that step, on more than
    ``vanishing_share`` of the recorded steps.  G02: a layer's norm above
    ``exploding_abs``; or above ``exploding_rel`` x the median norm of the other
    layers while that median is itself healthy (above
    ``exploding_rel_min_median``); or a norm that grew to at least
    ``growth_factor`` x its smallest norm of the ``growth_window`` records
    before, reached more than ``growth_min_norm`` and was still climbing at the
    end of the recording (the last norm is the highest of the last
    ``growth_window`` records and not below the one that grew).  The two size
    criteria count only when the recorded loss does not show healthy training
    (while it falls, a large norm is the loss's scale, e.g. large regression
    targets); the growth criterion counts always.
    ``update_ratio_*`` (G06): median update/weight norm ratio of a layer above
    ``high`` or below ``low``, over the later half of the recorded steps (the
    first steps from a fresh initialisation move small weights by a large
    fraction), and only when that half holds at least ``update_ratio_min_steps``
    steps where the layer's weight norm is at least ``update_ratio_min_weight``
    (a zero-initialised layer's ratio says nothing).  "Too high" also judges every
    step before the recorded loss misbehaved (became non-finite, rose to
    ``update_ratio_loss_rise`` x its first value, or did not improve from the first
    half to the later half), so a diverging short run is caught; while the loss
    falls steadily (no step's loss above ``update_ratio_loss_spike`` x the first),
    a high ratio is fast training and is not reported.  ``stagnant_*``
    (G07): relative loss change (range over mean) under ``stagnant_rel`` over the
    first ``stagnant_steps`` recorded steps (at least ``stagnant_min_steps``), or
    over all the steps after them in a run of at least twice that many; or, for a
    model trained from initialization over at least twice ``stagnant_steps``
    steps, the last quarter's median loss is not ``stagnant_run_rel`` below the
    first quarter's.
    """

    vanishing_abs: float = 1e-7
    vanishing_rel: float = 1e-4
    vanishing_share: float = 0.5
    exploding_abs: float = 1e3
    exploding_rel: float = 1e3
    exploding_rel_min_median: float = 1e-4
    growth_factor: float = 10.0
    growth_window: int = 5
    growth_min_norm: float = 10.0
    update_ratio_high: float = 1e-1
    update_ratio_low: float = 1e-7
    update_ratio_min_steps: int = 5
    update_ratio_min_weight: float = 1e-3
    update_ratio_loss_rise: float = 10.0
    update_ratio_loss_spike: float = 1.5
    stagnant_rel: float = 1e-4
    stagnant_steps: int = 10
    stagnant_min_steps: int = 5
    stagnant_run_rel: float = 0.01

    def __post_init__(self) -> None:
        from tfnb_debug.ground.errors import TfnbDebugError

        windows = (
            "growth_window",
            "stagnant_steps",
            "stagnant_min_steps",
            "update_ratio_min_steps",
        )
        bad = [name for name in windows if getattr(self, name) < 1]
        bad += [
            name
            for name, value in vars(self).items()
            if name not in windows and not (isinstance(value, int | float) and value >= 0)
        ]
        if bad:
            raise TfnbDebugError(
                f"GradThresholds: {bad[0]}={getattr(self, bad[0])!r} is out of range; "
                "see help(tfnb_debug.GradThresholds) for the allowed values"
            )


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
        _vanishing,
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


_Out = tuple[list[Finding], list[tuple[str, str]]]


def _others(names: list[str], limit: int = 5) -> str:
    if not names:
        return ""
    shown = ", ".join(names[:limit])
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"; also {shown}{more}"


def _step_of(history: GradientHistory, record: int) -> int:
    return int(history.steps[record])


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
        if ops:
            parts.append(
                f"{', '.join(ops)} in the loss cut the gradient: compute the loss with "
                "differentiable ops on y_pred (e.g. a cross-entropy on the probabilities or "
                "logits) and keep these ops for metrics"
            )
        hint = "; ".join(parts)
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


def _nanmedian(values: np.ndarray, **kwargs: Any) -> np.ndarray:
    """``np.nanmedian`` without the all-NaN warning (an all-NaN slice is NaN, on purpose)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np.nanmedian(values, **kwargs))


def _finite(values: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(values), values, np.nan)


def _vanishing(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
    norms = _finite(h.layer_grad_norms())
    if norms.size == 0 or np.all(np.isnan(norms)):
        return [], []
    layers = h.layers()
    median = _nanmedian(norms, axis=1, keepdims=True)
    low_abs = norms < th.vanishing_abs
    low_rel = norms < th.vanishing_rel * median if len(layers) > 1 else np.zeros_like(low_abs)
    low = (low_abs | low_rel) & ~np.isnan(norms)
    valid = (~np.isnan(norms)).sum(axis=0)
    share = np.where(valid > 0, low.sum(axis=0) / np.maximum(valid, 1), 0.0)
    hit = [j for j in range(len(layers)) if valid[j] > 0 and share[j] > th.vanishing_share]
    if not hit:
        return [], []
    j = hit[0]
    layer = layers[j]
    own = float(np.nanmedian(norms[:, j]))
    overall = float(np.nanmedian(median))
    return [
        finding(
            "G01",
            f"the gradient of layer '{label(layer)}' is vanishing: its norm is below "
            f"{th.vanishing_abs:g} or {th.vanishing_rel:g} x the median layer norm on "
            f"{share[j]:.0%} of the recorded steps (first such layer in forward order)"
            + _others([label(layers[k]) for k in hit[1:]]),
            place=f"layer '{label(layer)}'",
            target=Target("layer", layer),
            evidence=f"median norm {own:.3g} vs median layer norm {overall:.3g}",
            hint="use ReLU-family activations with He initialisation, add BatchNormalization "
            "or residual connections, and check for saturated sigmoid/tanh layers",
        )
    ], [(layers[k], "G01") for k in hit]


def _exploding(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
    """G02.  A large norm alone is the scale of the loss (a regression on targets in the
    thousands has gradients in the thousands and trains fine): the size criteria count
    only while the recorded loss misbehaves (or was not recorded); a norm that keeps
    growing to the end of the run counts always."""
    norms = _finite(h.layer_grad_norms())
    layers = h.layers()
    if norms.size == 0 or np.all(np.isnan(norms)):
        return [], []
    medians = _median_of_others(norms)
    healthy = _loss_falls(h, th)
    reasons: dict[int, str] = {}
    for j in range(len(layers)):
        reason = (
            _keeps_growing(h, norms[:, j], th) if healthy else _explodes(h, norms, medians, j, th)
        )
        if reason is not None:
            reasons[j] = reason
    if not reasons:
        return [], []
    hit = sorted(reasons)
    j = hit[0]
    return [
        finding(
            "G02",
            f"the gradient of layer '{label(layers[j])}' is exploding (first such layer in "
            "forward order)" + _others([label(layers[k]) for k in hit[1:]]),
            place=f"layer '{label(layers[j])}'",
            target=Target("layer", layers[j]),
            evidence=reasons[j],
            hint="lower the learning rate, clip gradients (clipnorm=1.0 in the optimizer), "
            "normalise the inputs, and check the weight initialisation",
        )
    ], [(layers[k], "G02") for k in hit]


def _median_of_others(norms: np.ndarray) -> np.ndarray:
    """``[t, j]``: the median of record ``t``'s finite layer norms other than layer ``j``'s
    (0 when there is none), for all layers at once; NaN where ``norms[t, j]`` is NaN."""
    records, n_layers = norms.shape
    ordered = np.sort(norms, axis=1)  # NaN last
    finite = np.sum(~np.isnan(norms), axis=1)
    rank = np.argsort(np.argsort(norms, axis=1, kind="stable"), axis=1, kind="stable")
    left = (finite - 1)[:, None]  # values left once layer j's is taken out

    def nth_left(i: np.ndarray) -> np.ndarray:
        """The ``i``-th smallest of the values left (the sorted row without rank ``j``)."""
        i = np.broadcast_to(np.clip(i, 0, None), (records, n_layers))
        source = np.clip(np.where(i < rank, i, i + 1), 0, n_layers - 1)
        return np.take_along_axis(ordered, source, axis=1)

    middle = (nth_left(left // 2) + nth_left((left - 1) // 2)) / 2
    return np.where(np.isnan(norms), np.nan, np.where(left > 0, middle, 0.0))


def _explodes(
    h: GradientHistory, norms: np.ndarray, medians: np.ndarray, j: int, th: GradThresholds
) -> str | None:
    """Why layer ``j``'s gradient is exploding (the first recorded evidence), or None."""
    col = norms[:, j]
    median = medians[:, j]
    with np.errstate(invalid="ignore"):
        above = col > th.exploding_abs
        relative = (median > th.exploding_rel_min_median) & (col > th.exploding_rel * median)
    hits = np.flatnonzero(above | relative)
    if hits.size:
        t = int(hits[0])
        value = float(col[t])
        if above[t]:
            return f"norm {value:.3g} > {th.exploding_abs:g} at step {_step_of(h, t)}"
        return (
            f"norm {value:.3g} > {th.exploding_rel:g} x the median of the other layers "
            f"({float(median[t]):.3g}) at step {_step_of(h, t)}"
        )
    return _keeps_growing(h, col, th)


def _keeps_growing(h: GradientHistory, col: np.ndarray, th: GradThresholds) -> str | None:
    """A norm that grew ``growth_factor``x within ``growth_window`` records to above
    ``growth_min_norm`` and was still climbing when the recording ended."""
    kept = np.flatnonzero(~np.isnan(col))
    if len(kept) < 2:
        return None
    values = col[kept]
    last = float(values[-1])
    tail = values[-th.growth_window :]
    if last < float(tail.max()) or last <= float(tail.min()):
        return None  # flat or coming down at the end: a spike or a plateau, not a growing norm
    for k in range(1, len(values)):
        value = float(values[k])
        earlier = values[max(0, k - th.growth_window) : k]
        earlier = earlier[earlier > 0]
        if value <= th.growth_min_norm or value > last or not len(earlier):
            continue
        low = float(earlier.min())
        if value >= th.growth_factor * low:
            end = _step_of(h, int(kept[-1]))
            return (
                f"norm grew {value / low:.3g}x within {th.growth_window} recorded steps, to "
                f"{value:.3g} at step {_step_of(h, int(kept[k]))}, and was still climbing at "
                f"the end ({last:.3g} at step {end})"
            )
    return None


def _update_ratio(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
    """G06 on the later half of the recording: the first steps from a fresh initialisation
    routinely move small weights by a large fraction; the ratio is about steady training."""
    layers = h.layers()
    first = h.n_records // 2
    weights = h.layer_weight_norms()[first:]
    ratios = np.where(
        weights >= th.update_ratio_min_weight, h.layer_update_ratios()[first:], np.nan
    )
    ratios = _finite(ratios)
    if ratios.size == 0:
        return [], []
    counts = (~np.isnan(ratios)).sum(axis=0)
    medians = _nanmedian(ratios, axis=0)
    judged = [j for j in range(len(layers)) if counts[j] >= th.update_ratio_min_steps]
    # large steps while the loss falls steadily are fast training, not a learning rate that
    # is too high: "too high" needs the loss to misbehave (or to be unrecorded)
    healthy = _loss_falls(h, th)
    high = [j for j in judged if medians[j] > th.update_ratio_high and not healthy]
    low = [j for j in judged if medians[j] < th.update_ratio_low]
    window = _window(h, first)
    evidence = {
        j: f"median ratio {float(medians[j]):.3g} over {int(counts[j])} recorded steps "
        f"({window}; threshold {th.update_ratio_high:g})" + _loss_trend(h, first)
        for j in high
    }
    unstable = _loss_misbehaves(h, th)
    if unstable is not None:  # a loss that diverges or does not improve: judge every step
        end, how = unstable
        every = _finite(
            np.where(
                h.layer_weight_norms()[:end] >= th.update_ratio_min_weight,
                h.layer_update_ratios()[:end],
                np.nan,
            )
        )
        if every.size:
            all_medians = _nanmedian(every, axis=0)
            for j in range(len(layers)):
                if j not in evidence and all_medians[j] > th.update_ratio_high:
                    evidence[j] = (
                        f"median ratio {float(all_medians[j]):.3g} over "
                        f"{int((~np.isnan(every[:, j])).sum())} recorded steps "
                        f"(threshold {th.update_ratio_high:g}) while {how}"
                    )
            high = sorted(evidence)
    findings: list[Finding] = []
    flagged: list[tuple[str, str]] = []
    if high:
        j = high[0]
        cause, hint = (
            "the learning rate is too high for it",
            (
                "lower the learning rate (by 10x to start with), or add a warm-up and a decay schedule"
            ),
        )
        norms = _finite(h.layer_grad_norms())
        exploding = _explodes(h, norms, _median_of_others(norms), j, th)
        if exploding is not None:  # a step is the learning rate times the gradient: both fit
            cause = "the learning rate is too high for it, or its gradient explodes (G02)"
            hint = (
                "lower the learning rate and clip gradients (clipnorm=1.0); if the gradient "
                "still explodes, normalise the inputs and check the initialisation"
            )
            evidence[j] += f"; gradient {exploding}"
        findings.append(
            finding(
                "G06",
                f"the update/weight norm ratio of layer '{label(layers[j])}' is above "
                f"{th.update_ratio_high:g}: each step changes its weights by "
                f"more than {th.update_ratio_high:.0%}; {cause}"
                + _others([label(layers[k]) for k in high[1:]]),
                place=f"layer '{label(layers[j])}'",
                target=Target("layer", layers[j]),
                evidence=evidence[j],
                hint=hint,
            )
        )
        flagged.extend((layers[k], "G06") for k in high)
    if low:
        findings.append(_too_low(h, th, label, low, medians, counts, first, window))
        flagged.extend((layers[k], "G06") for k in low)
    return findings, flagged


def _loss_falls(h: GradientHistory, th: GradThresholds) -> bool:
    """Whether the recorded loss shows steady training: enough finite losses, none
    non-finite, no step's loss above ``update_ratio_loss_spike`` x the first one (a
    step that undoes the training so far), and :func:`_loss_misbehaves` finds neither a
    rise nor a run without improvement.  False when the loss was not recorded
    (nothing then says training is fine)."""
    known = np.flatnonzero(h.loss_known)
    if len(known) < 2 * th.update_ratio_min_steps:
        return False
    values = h.loss[known]
    if np.any(np.abs(values[1:]) > th.update_ratio_loss_spike * abs(float(values[0]))):
        return False
    return _loss_misbehaves(h, th) is None


def _loss_misbehaves(h: GradientHistory, th: GradThresholds) -> tuple[int, str] | None:
    """(records to judge, what the loss did) when the recorded loss diverged or did not
    improve: it became non-finite, rose to ``update_ratio_loss_rise`` x its first value, or
    (with at least twice ``update_ratio_min_steps`` losses, and one optimizer) its later
    half's median is not below its first half's."""
    known = np.flatnonzero(h.loss_known)
    if len(known) < 2:
        return None
    values = h.loss[known]
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        record = int(known[bad[0]])
        return record, f"the loss became {float(values[bad[0]])} at step {_step_of(h, record)}"
    start = float(values[0])
    rise = np.flatnonzero(np.abs(values) >= th.update_ratio_loss_rise * abs(start))
    if start != 0 and rise.size:
        record = int(known[rise[0]])
        return record + 1, (
            f"the loss rose from {start:.4g} to {float(values[rise[0]]):.4g} "
            f"at step {_step_of(h, record)}"
        )
    if len(values) < 2 * th.update_ratio_min_steps:
        return None  # a few mini-batch losses vary too much to tell
    if len({meta.optimizer for meta in h.variables}) > 1:
        return None  # several optimizers (a GAN's): one adversary's loss need not fall
    half = len(values) // 2
    before, after = float(np.median(values[:half])), float(np.median(values[half:]))
    if after < before:
        return None
    return h.n_records, (
        f"the loss did not improve (median {before:.4g} over the first half of the recorded "
        f"steps, {after:.4g} over the later half)"
    )


def _window(h: GradientHistory, first: int) -> str:
    if h.n_records == 0:
        return "no steps"
    return f"the later half of the run, steps {_step_of(h, first)}-{_step_of(h, h.n_records - 1)}"


def _loss_trend(h: GradientHistory, first: int) -> str:
    """What the loss did over the judged half, when it was recorded (context for the ratio)."""
    known = h.loss_known[first:] & np.isfinite(h.loss[first:])
    if known.sum() < 2:
        return "; the loss was not recorded"
    values = h.loss[first:][known]
    return f"; loss over those steps from {float(values[0]):.4g} to {float(values[-1]):.4g}"


def _too_low(
    h: GradientHistory,
    th: GradThresholds,
    label: Callable[[str], str],
    low: list[int],
    medians: np.ndarray,
    counts: np.ndarray,
    first: int,
    window: str,
) -> Finding:
    """The weights barely move: either the gradient reaching the layer is ~0 (the cause is
    upstream, G01) or the learning rate turns a normal gradient into a tiny step."""
    layers = h.layers()
    j = low[0]
    grad = float(_nanmedian(_finite(h.layer_grad_norms()[first:, j])))
    if grad < th.vanishing_abs:
        cause = f"its gradient is itself ~0 (median norm {grad:.3g}), not the learning rate"
        hint = (
            "the gradient does not reach this layer: look at G01 (vanishing gradient), dead "
            "ReLUs or saturated activations before it, and at what the loss depends on"
        )
    else:
        cause = (
            f"its gradient is not small (median norm {grad:.3g}), so the learning rate is "
            "too low (or the optimizer scales the step down, e.g. a schedule that decayed to ~0)"
        )
        hint = "raise the learning rate, and check the schedule's value at these steps"
    return finding(
        "G06",
        f"the update/weight norm ratio of layer '{label(layers[j])}' is below "
        f"{th.update_ratio_low:g} over {window}: its weights barely move; {cause}"
        + _others([label(layers[k]) for k in low[1:]]),
        place=f"layer '{label(layers[j])}'",
        target=Target("layer", layers[j]),
        evidence=f"median ratio {float(medians[j]):.3g} over {int(counts[j])} recorded steps "
        f"({window}; threshold {th.update_ratio_low:g})",
        hint=hint,
    )


def _stagnant_loss(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
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
