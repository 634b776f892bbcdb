"""The gradient-health rules read from the layers' gradient and update norms: G01, G02, G06.

* G01 (:func:`_vanishing`): a layer's gradient norm below an absolute floor, or far
  below the median layer norm of its step, on more than a share of the recorded steps;
* G02 (:func:`_exploding`): a norm above an absolute or a relative bound while the
  recorded loss does not show healthy training, or one that keeps growing to the end
  of the recording;
* G06 (:func:`_update_ratio`): a layer's update/weight norm ratio too high (the
  learning rate, or an exploding gradient) or too low (a tiny learning rate, or a
  gradient that never arrives), judged over the later half of the recording.

G02 and G06 both ask what the recorded loss did (:func:`_loss_falls`,
:func:`_loss_misbehaves`): a large norm or step is the loss's scale or fast training
while the loss falls.  :func:`~tfnb_debug.diagnostics.gradients.check_gradients` runs
them with the other rules, on a :class:`~tfnb_debug.records.gradients.GradientHistory`
and a :class:`~tfnb_debug.diagnostics.grad_thresholds.GradThresholds`.  Pure NumPy: no
TensorFlow.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from tfnb_debug.diagnostics.grad_thresholds import GradThresholds, _Out, _step_of
from tfnb_debug.ground.reports import Finding, Target, finding
from tfnb_debug.records.gradients import GradientHistory


def _others(names: list[str], limit: int = 5) -> str:
    if not names:
        return ""
    shown = ", ".join(names[:limit])
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return f"; also {shown}{more}"


def _nanmedian(values: np.ndarray, **kwargs: Any) -> np.ndarray:
    """``np.nanmedian`` without the all-NaN warning (an all-NaN slice is NaN, on purpose)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np.nanmedian(values, **kwargs))


def _finite(values: np.ndarray) -> np.ndarray:
    return np.where(np.isfinite(values), values, np.nan)


#: a loss that fell to this share of its first value (or to 0) has been learned, not stalled
CONVERGED_SHARE = 1e-6


def converged(h: GradientHistory) -> bool:
    """Whether the recorded loss fell from a real first value to (about) zero and stays
    there: the model fits its training batches exactly, so gradients and steps of ~0 and a
    loss that no longer moves are the end of training, not a fault (a loss that is 0 from
    the first step, such as cross-entropy over one unit, is not converged)."""
    known = h.loss_known & np.isfinite(h.loss)
    values = np.abs(h.loss[known])
    if len(values) < 4 or values[0] <= 1e-3:
        return False
    tail = values[len(values) // 2 :]
    return bool(np.median(tail) <= CONVERGED_SHARE * values[0])


def _vanishing(h: GradientHistory, th: GradThresholds, label: Callable[[str], str]) -> _Out:
    if converged(h):
        return [], []
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
    low = [j for j in judged if medians[j] < th.update_ratio_low and not converged(h)]
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
