"""From a recorded training fault to the fixes its evidence supports, and back with the trial.

:func:`planned_changes` reads the gradient findings of a run (G01-G07) and the model's
configuration (its learning rate, its hidden sigmoid/tanh layers) and picks the one or
two changes each fault's evidence points at: a learning rate 10x lower for a loss or
gradient that blew up (G02, G03, G05, G06 "too high"), 10x higher for a loss that does
not move or weights that barely do while their gradient is not small (G07, G06 "too
low"), clipping for an exploding gradient, ReLU with He initialization for a vanishing
gradient in a stack of saturating activations (G01, G07, G06 "too low"), standardized
targets for an MSE/MAE regression on targets in the hundreds or more, Keras' default
initializers where a layer's own cannot start learning (G01, G07, G06 "too low"), an
optimizer setting other than the learning rate back to its class's default where its value
is far outside what it is for (:func:`unusual_settings`: a running average over 30 times
more or fewer steps than the default's, an epsilon a thousand times the default or a
thousandth of it, a clip far below the recorded gradients, a weight decay that takes 0.1%
of every weight a step, a loss scale under NaN gradients), also for an output that
ignores its input (P16).  The changes are tried on a
copy (:mod:`tfnb_debug.collect.fix_trial`); :func:`with_trial` then gives each finding
the answer: the change that made the loss fall (named as the cause, with the curves'
numbers), or that none of them did, or why none was tried.  Pure Python.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from tfnb_debug.ground.reports import Finding, Table
from tfnb_debug.records.gradients import MAX_ABS, NORM, GradientHistory
from tfnb_debug.records.trials import Change, Schedule, Setting, Trial

__all__ = ["TRAINING_FAULTS", "planned_changes", "trial_table", "unusual_settings", "with_trial"]

#: the codes whose fix a trial can test
TRAINING_FAULTS = frozenset({"G01", "G02", "G03", "G05", "G06", "G07", "N03"})


def _too_high(f: Finding) -> bool:
    return f.code in {"G02", "G03", "G05"} or (f.code == "G06" and "is above" in f.message)


def _too_low(f: Finding) -> bool:
    return f.code == "G07" or (f.code == "G06" and "raise the learning rate" in f.hint)


def _stuck(f: Finding) -> bool:
    """A fault of a layer that does not learn: its gradient vanishes (G01), its units stay
    pinned at their bounds after the fit (N03), the loss does not fall (G07), or its weights
    barely move (G06 "below", whatever its reading)."""
    return f.code in {"G01", "G07", "N03"} or (f.code == "G06" and "barely move" in f.message)


def _ignores_input(f: Finding) -> bool:
    """P16: after ``fit`` the model's output does not depend on its input (it learned
    nothing from it); an optimizer setting that keeps the weights from moving is one cause
    a trial can test, whatever the loss curve looked like."""
    return f.code == "P16"


#: regression losses whose value scales with a power of the targets' std (MSE: 2, MAE: 1)
_TARGET_POWER = {
    "mse": 2,
    "mean_squared_error": 2,
    "meansquarederror": 2,
    "mae": 1,
    "mean_absolute_error": 1,
    "meanabsoluteerror": 1,
}
#: targets whose mean or std exceeds this are on a scale worth standardizing
TARGET_SCALE = 100.0


def planned_changes(
    findings: Sequence[Finding],
    learning_rate: float | None,
    saturating: Sequence[str],
    default_rate: float | None = None,
    targets: tuple[str, float] | None = None,
    initializers: Sequence[str] = (),
    settings: Sequence[Setting] = (),
    gradients: GradientHistory | None = None,
    schedule: Schedule | None = None,
) -> tuple[Change, ...]:
    """The changes the findings' evidence supports, in the order they are tried.

    ``learning_rate``: the optimizer's (None for a schedule: no learning-rate change is
    planned); ``default_rate``: its class's default learning rate, also tried when it is
    more than 10x away in the direction the evidence points; ``saturating``: the names of
    the model's hidden sigmoid/tanh layers; ``targets``: the regression loss's name and
    the targets' scale (the larger of |mean| and std), when the fit had numeric targets;
    ``initializers``: ``'layer' (what)`` for the layers whose initializer cannot start
    learning (a constant kernel, an extreme spread, a large bias); ``settings``: the
    optimizer's other numeric settings, judged by :func:`unusual_settings` against the
    recorded ``gradients``; ``schedule``: the learning-rate schedule over the recorded
    steps, whose rate at the end of the run is tried from its start when it decayed
    :data:`SCHEDULE_DECAY` times or more and the loss stalled."""
    if any(f.code == "N05" for f in findings):
        return ()  # NaN in the data: no training change cures it, and N05 says so
    faults = [f for f in findings if f.code in TRAINING_FAULTS]
    changes: list[Change] = []
    high = any(_too_high(f) for f in faults)
    if learning_rate is not None and learning_rate > 0:
        rate = learning_rate
        if high:
            factors = [0.1]
            if default_rate is not None and default_rate < rate / 10:
                factors.append(default_rate / rate)
            cause = f"the learning rate ({rate:g}) is too high"
        elif any(_too_low(f) for f in faults):
            factors = [10.0]
            if default_rate is not None and default_rate > rate * 10:
                factors.append(default_rate / rate)
            cause = f"the learning rate ({rate:g}) is too low"
        else:
            factors = []
        verb = "lower" if high else "raise"
        changes += [
            Change(
                "learning_rate",
                f"{verb} the learning rate to {rate * k:g} (was {rate:g})",
                k,
                cause=cause,
            )
            for k in factors
        ]
    if schedule is not None and any(_too_low(f) or _stuck(f) for f in faults):
        changes += _schedule_change(schedule)
    if any(f.code in {"G02", "G03"} for f in faults):
        changes.append(
            Change("clipnorm", "clipnorm=1.0 in the optimizer", 1.0, cause="the gradient explodes")
        )
    power = _TARGET_POWER.get(targets[0].lower()) if targets is not None else None
    large = power and targets is not None and targets[1] > TARGET_SCALE
    if large and any(f.code in {"G02", "G07"} or _too_low(f) or _too_high(f) for f in faults):
        assert targets is not None
        changes.append(
            Change(
                "targets",
                "standardized targets: y = (y - y.mean()) / y.std() (and back after predict)",
                float(power or 2),
                cause=f"the scale of the targets (about {targets[1]:.3g})",
            )
        )
    if initializers and any(_stuck(f) for f in faults):
        shown = ", ".join(initializers[:3]) + (
            f" and {len(initializers) - 3} more" if len(initializers) > 3 else ""
        )
        changes.append(
            Change(
                "init",
                "Keras' default initializers (kernel_initializer='he_normal' under ReLU, else "
                f"'glorot_uniform'; bias_initializer='zeros') in {shown}",
                cause=f"the initialization of {shown}",
            )
        )
    if any(_too_high(f) or _too_low(f) or _stuck(f) for f in faults) or any(
        _ignores_input(f) for f in findings
    ):
        changes += unusual_settings(settings, learning_rate, gradients)[:2]
    if saturating and any(_stuck(f) for f in faults):
        names = _names(saturating)
        changes.append(
            Change(
                "relu",
                f"activation='relu' with kernel_initializer='he_normal' in {names}",
                cause=f"the saturating activations of {names}",
            )
        )
    return tuple(changes)


#: a schedule whose rate fell by this factor over the recorded steps has all but stopped them
SCHEDULE_DECAY = 100.0


def _schedule_change(s: Schedule) -> list[Change]:
    """The schedule held at its highest rate, when its rate fell :data:`SCHEDULE_DECAY` times
    from there by the end of the run; the arguments that set its pace are named (they count
    optimizer steps, one per batch, not epochs)."""
    if not (s.first > 0 and s.last >= 0 and s.last * SCHEDULE_DECAY <= s.first):
        return []
    written = ", ".join(f"{key}={value}" for key, value in s.step_arguments)
    names = " and ".join(key for key, _ in s.step_arguments)
    pace = (
        f"; its {written} count{'s' if len(s.step_arguments) == 1 else ''} optimizer steps (batches), not epochs"
        if written
        else ""
    )
    return [
        Change(
            "schedule",
            f"a constant learning rate of {s.first:g} instead of the {s.name} schedule"
            + (f" (then set {names} in batches: steps per epoch x epochs)" if written else ""),
            cause=f"the {s.name} schedule, which decays the learning rate from {s.first:.3g} to "
            f"{s.last:.3g} over the {s.steps} recorded steps{pace}",
            value=s.first,
        )
    ]


#: settings that are decay rates of a running average: it spans about 1 / (1 - value) steps
DECAY_RATES = frozenset({"momentum", "beta_1", "beta_2", "rho"})
#: settings added to a denominator of the step (``sqrt(v) + epsilon``, the accumulator's start)
OFFSETS = frozenset({"epsilon", "initial_accumulator_value"})
#: how many times longer or shorter than the default's a running average must span, and how
#: many times its default an offset must be, to be worth a trial
SPAN_RATIO = 30.0
OFFSET_RATIO = 1000.0
#: a clip this many times below what the recorded gradients reach binds at every step
CLIP_RATIO = 10.0
#: a weight decay that takes this share of every weight at each step (``learning_rate x
#: weight_decay``: Keras decays the weights apart from the gradient)
DECAY_PER_STEP = 1e-3


def _span(rate: float) -> float:
    return math.inf if rate >= 1 else 1.0 / (1.0 - rate)


def unusual_settings(
    settings: Sequence[Setting],
    learning_rate: float | None,
    gradients: GradientHistory | None = None,
) -> list[Change]:
    """The optimizer settings (not the learning rate) far outside what they are for, each as
    the change that sets it back to its class's default (a clip or an accumulation is
    removed), the farthest first.  What is read, per kind of setting:

    * a decay rate (``momentum``, ``beta_1``, ``beta_2``, ``rho``): the steps its running
      average spans, ``1 / (1 - value)``, against the default's, :data:`SPAN_RATIO` times
      longer or shorter, or a rate of 1 or more (the average never forgets);
    * an offset in the step's denominator (``epsilon``, ``initial_accumulator_value``):
      :data:`OFFSET_RATIO` times its default or more, or as many times less (Adadelta's
      step starts from ``sqrt(epsilon)``);
    * ``loss_scale_factor`` (the loss is multiplied by it, the gradients divided) when a
      recorded gradient or loss was NaN/Inf;
    * a clip (``clipnorm``, ``global_clipnorm``, ``clipvalue``): :data:`CLIP_RATIO` times below
      the recorded gradients' median (each variable's norm, their global norm, the largest
      element), so it binds at every step; without a recording, a clip of 1e-3 or less;
    * ``weight_decay``: ``learning_rate x weight_decay`` of :data:`DECAY_PER_STEP` or more;
    * ``gradient_accumulation_steps``: more than half the recorded steps (one update or none).
    """
    scored: list[tuple[float, Change]] = []
    for s in settings:
        found = _unusual(s, learning_rate, gradients)
        if found is not None:
            scored.append(found)
    return [change for _, change in sorted(scored, key=lambda pair: -pair[0])]


def _unusual(
    s: Setting, learning_rate: float | None, gradients: GradientHistory | None
) -> tuple[float, Change] | None:
    back = f"{s.name}={s.default or 0:g} ({s.optimizer}'s default; was {s.value:g})"
    if s.name in DECAY_RATES and s.default is not None and s.value != s.default:
        span, usual = _span(s.value), _span(s.default)
        ratio = span / usual if span >= usual else usual / span
        if ratio < SPAN_RATIO:
            return None
        if math.isinf(span):
            why = "an average that never forgets"
        else:
            why = f"an average over about {span:.3g} steps, against {usual:.3g} by default"
        return ratio, _setting_change(s, back, s.default, why)
    if s.name in OFFSETS and s.default and s.value > 0:
        ratio = s.value / s.default
        if max(ratio, 1 / ratio) < OFFSET_RATIO:
            return None
        times = f"{ratio:.3g} times" if ratio > 1 else f"1/{1 / ratio:.3g} of"
        why = f"{times} the default in the step's denominator"
        return max(ratio, 1 / ratio), _setting_change(s, back, s.default, why)
    if s.name == "loss_scale_factor" and s.value != 1 and _non_finite(gradients):
        why = "the loss is multiplied by it before the gradients, which became NaN/Inf"
        label = f"no loss_scale_factor (was {s.value:g})"
        return 1e3, _setting_change(s, label, None, why)
    if s.name in {"clipnorm", "global_clipnorm", "clipvalue"} and s.value > 0:
        reach = _gradient_reach(s.name, gradients)
        if reach is None:
            if s.value > 1e-3:
                return None
            why = "a clip so small that it binds at every step"
            return 1e3, _setting_change(s, f"no {s.name} (was {s.value:g})", None, why)
        if reach < CLIP_RATIO * s.value:
            return None
        why = f"the recorded gradients reach {reach:.3g}, {reach / s.value:.3g} times the clip"
        return reach / s.value, _setting_change(s, f"no {s.name} (was {s.value:g})", None, why)
    if s.name == "weight_decay" and learning_rate and s.value * learning_rate >= DECAY_PER_STEP:
        share = s.value * learning_rate
        default = s.default if s.default is not None else 0.0
        label = f"weight_decay={default:g} ({s.optimizer}'s default; was {s.value:g})"
        why = f"{share:.2%} of every weight taken at each step"
        return share / DECAY_PER_STEP, _setting_change(s, label, default or None, why)
    if s.name == "gradient_accumulation_steps" and gradients is not None:
        steps = gradients.total_steps
        if steps and s.value > steps / 2:
            why = f"{steps} steps recorded, {int(steps // s.value)} update(s) applied"
            label = f"no gradient_accumulation_steps (was {s.value:g})"
            return s.value / steps, _setting_change(s, label, None, why)
    return None


def _setting_change(s: Setting, label: str, value: float | None, why: str) -> Change:
    return Change(
        "optimizer",
        label,
        cause=f"the optimizer's {s.name} ({s.value:g}: {why})",
        setting=s.name,
        value=value,
    )


def _non_finite(gradients: GradientHistory | None) -> bool:
    """Whether a recorded gradient or loss was NaN/Inf."""
    if gradients is None or not gradients.n_records:
        return False
    loss = gradients.loss[gradients.loss_known]
    return bool(gradients.layer_nonfinite().sum() > 0 or not np.all(np.isfinite(loss)))


def _gradient_reach(name: str, gradients: GradientHistory | None) -> float | None:
    """What the recorded gradients reach, in the clip's own measure: the median over steps of
    the largest variable norm (``clipnorm``), of the global norm (``global_clipnorm``), of
    the largest element (``clipvalue``)."""
    if gradients is None or not gradients.n_records:
        return None
    if name == "clipvalue":
        per_step = np.nanmax(gradients.stats[:, :, MAX_ABS], axis=1)
    elif name == "global_clipnorm":
        per_step = np.sqrt(np.nansum(gradients.stats[:, :, NORM] ** 2, axis=1))
    else:
        per_step = np.nanmax(gradients.stats[:, :, NORM], axis=1)
    finite = per_step[np.isfinite(per_step)]
    return float(np.median(finite)) if finite.size else None


def _names(layers: Sequence[str]) -> str:
    shown = ", ".join(f"'{name}'" for name in layers[:3])
    more = f" and {len(layers) - 3} more" if len(layers) > 3 else ""
    return f"layer{'s' if len(layers) > 1 else ''} {shown}{more}"


def _relevant(f: Finding, changes: Sequence[Change]) -> list[Change]:
    """The planned changes that address ``f``'s fault."""
    out = []
    for change in changes:
        if change.kind == "learning_rate":
            fits = _too_high(f) if change.factor < 1 else _too_low(f)
        elif change.kind == "clipnorm":
            fits = f.code in {"G02", "G03", "G05"}
        elif change.kind == "targets":
            fits = f.code in {"G02", "G07"} or _too_low(f) or _too_high(f)
        elif change.kind == "schedule":
            fits = _too_low(f) or _stuck(f)
        elif change.kind == "optimizer":
            fits = _too_high(f) or _too_low(f) or _stuck(f) or _ignores_input(f)
        else:  # relu, init
            fits = _stuck(f)
        if fits:
            out.append(change)
    return out


def with_trial(
    findings: Sequence[Finding], changes: Sequence[Change], trial: Trial
) -> list[Finding]:
    """The findings, each training fault with what the trial showed for its fixes."""
    out = []
    for f in findings:
        relevant = _relevant(f, changes)
        if not relevant:
            out.append(f)
            continue
        confirmed = [
            c for c in relevant if (run := trial.run_of(c)) is not None and trial.confirmed(run)
        ]
        if confirmed:
            best = min(confirmed, key=lambda c: _last(trial, c))
            rest = [trial.verdict(c) for c in relevant if c is not best]
            hint = trial.verdict(best) + "".join(f"; {v}" for v in rest)
            # the rule's own reading named the learning rate; a trial can point elsewhere
            instead = (
                best.kind not in ("learning_rate", "schedule") and "learning rate" in f.message
            )
            message = f"{f.message}; a trial on a copy points at {best.cause}" + (
                " instead" if instead else ""
            )
            out.append(dataclasses.replace(f, message=message, hint=hint))
            continue
        verdicts = "; ".join(trial.verdict(c) for c in relevant)
        if trial.ran and not trial.not_run:
            verdicts = f"none of the changes tried made the loss fall ({verdicts})"
        out.append(dataclasses.replace(f, hint=f"{f.hint}; {verdicts}" if f.hint else verdicts))
    return out


def _last(trial: Trial, change: Change) -> float:
    run = trial.run_of(change)
    return run.last if run is not None else float("inf")


def trial_table(trial: Trial) -> Table | None:
    """The loss of every run (evaluated on the trial's training rows) before training and
    at each checkpoint: the curves, as numbers; None when the trial did not run."""
    if not trial.ran or trial.baseline is None:
        return None
    columns = (
        "change",
        "loss before",
        *(f"after {k} steps" for k in trial.checkpoints),
        "result",
    )
    rows = [("unchanged", *trial.baseline.losses, "")]
    for run in trial.runs:
        verdict = "confirmed" if trial.confirmed(run) else "did not help"
        rows.append((run.label, *run.losses, verdict))
    return Table("fix trials", columns, tuple(rows))
