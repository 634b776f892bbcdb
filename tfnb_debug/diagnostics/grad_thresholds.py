"""The thresholds of the gradient-health rules G01-G07, and what each rule module shares.

:class:`GradThresholds` holds every number the rules compare with (its docstring says
which rule reads which), checked when it is made; ``tfnb_debug.GradThresholds`` is this
class (:mod:`tfnb_debug.diagnostics.gradients` exports it too).  ``_Out`` is what a
rule returns (its findings, and the (layer, code) pairs it flags for the per-layer
table) and :func:`_step_of` the step number of a record: the rules of
:mod:`tfnb_debug.diagnostics.gradients` and :mod:`tfnb_debug.diagnostics.grad_norm_rules`
use both.  No TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass

from tfnb_debug.ground.reports import Finding
from tfnb_debug.records.gradients import GradientHistory

__all__ = ["GradThresholds"]


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


_Out = tuple[list[Finding], list[tuple[str, str]]]


def _step_of(history: GradientHistory, record: int) -> int:
    return int(history.steps[record])
