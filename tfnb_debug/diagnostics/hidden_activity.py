"""N03 after a fit: hidden sigmoid/tanh units the trained model keeps pinned at their bounds.

:func:`saturated_after_fit` reads a
:class:`~tfnb_debug.collect.hidden_activity.HiddenSaturation` (the hidden sigmoid/tanh
layers' outputs on the fit's own training inputs, after the fit) and gives one N03 for the
layers whose outputs sit near their bounds past ``saturated_fraction``: after training,
not on one probe batch of a fresh model, so units that saturate for a step and recover are
not reported.  The hint names the cause the evidence shows, in this order: an initializer
of the layer or of a weighted layer before it with a spread that pins the units (a large
``stddev``, a constant, a large bias); inputs on a large scale reaching the first weighted
layer with no scaling layer in the model; and, when neither shows, both usual remedies
(BatchNormalization before the activation, or ReLU with He initialization).  The fix trial
(:mod:`tfnb_debug.diagnostics.trials`) then says whether the change helped on a copy.
Output layers are never judged (a confident sigmoid output is what training is for).
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.diagnostics.shapes import ShapeThresholds
from tfnb_debug.ground.reports import Finding, Target, finding

__all__ = ["saturated_after_fit"]

#: inputs whose std reaches this, with no scaling layer, are on a scale that pins sigmoid/tanh
INPUT_STD = 3.0


def saturated_after_fit(reading: Any, thresholds: ShapeThresholds | None = None) -> list[Finding]:
    """One N03 for the hidden sigmoid/tanh layers of ``reading`` saturated after the fit."""
    th = thresholds or ShapeThresholds()
    hit = [s for s in reading.layers if s.share > th.saturated_fraction]
    if not hit:
        return []
    first = hit[0]
    others = ", ".join(f"'{s.layer}' ({s.share:.0%})" for s in hit[1:4]) + (
        f" and {len(hit) - 4} more" if len(hit) > 4 else ""
    )
    inits: list[str] = []
    for s in hit:
        inits += [i for i in s.initializers if i not in inits]
    large_inputs = (
        reading.scaling is None
        and reading.input_std is not None
        and reading.input_std >= INPUT_STD
        and reading.first_weighted is not None
    )
    causes = []
    if inits:
        shown = ", ".join(inits[:3]) + (f" and {len(inits) - 3} more" if len(inits) > 3 else "")
        causes.append(
            f"an initializer that pins the units from the start: {shown}; use Keras' default "
            "kernel_initializer='glorot_uniform' (or 'he_normal' under ReLU) and "
            "bias_initializer='zeros' there"
        )
    if large_inputs:
        causes.append(
            f"inputs on a large scale reach the first weighted layer '{reading.first_weighted}' "
            f"(std {reading.input_std:.3g}, values up to {reading.input_peak:.3g}) and nothing "
            "in the model scales them: scale them (x / x.max(), standardize, or a "
            "Normalization layer adapted to the training data)"
        )
    if not causes:
        causes.append(
            "the pre-activations are too large for the activation: put BatchNormalization "
            "before the activation, or use activation='relu' with "
            "kernel_initializer='he_normal'"
        )
    return [
        finding(
            "N03",
            f"after fit, {first.share:.1%} of the outputs of {first.activation} layer "
            f"'{first.layer}' sit within {th.saturation_epsilon:g} of its bounds on "
            f"{reading.source} (threshold {th.saturated_fraction:.0%}): its units stay pinned "
            "and pass almost no gradient" + (f"; also {others}" if others else ""),
            place=f"layer '{first.layer}'",
            target=Target("layer", first.layer),
            evidence="share of outputs at the bounds after fit: "
            + ", ".join(f"'{s.layer}' {s.share:.1%}" for s in reading.layers)
            + (
                f"; inputs: std {reading.input_std:.3g}, |max| {reading.input_peak:.3g}"
                if reading.input_std is not None and reading.input_peak is not None
                else ""
            ),
            hint="; or ".join(causes),
        )
    ]
