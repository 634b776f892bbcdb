"""From a recorded training fault to the fixes its evidence supports, and back with the trial.

:func:`planned_changes` reads the gradient findings of a run (G01-G07) and the model's
configuration (its learning rate, its hidden sigmoid/tanh layers) and picks the one or
two changes each fault's evidence points at: a learning rate 10x lower for a loss or
gradient that blew up (G02, G03, G05, G06 "too high"), 10x higher for a loss that does
not move or weights that barely do while their gradient is not small (G07, G06 "too
low"), clipping for an exploding gradient, ReLU with He initialization for a vanishing
gradient in a stack of saturating activations (G01, G07, G06 "too low"), standardized
targets for an MSE/MAE regression on targets in the hundreds or more, Keras' default
initializers where a layer's own cannot start learning (G01, G07, G06 "too low").  The changes are tried on a
copy (:mod:`tfnb_debug.collect.fix_trial`); :func:`with_trial` then gives each finding
the answer: the change that made the loss fall (named as the cause, with the curves'
numbers), or that none of them did, or why none was tried.  Pure Python.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from tfnb_debug.ground.reports import Finding, Table
from tfnb_debug.records.trials import Change, Trial

__all__ = ["TRAINING_FAULTS", "planned_changes", "trial_table", "with_trial"]

#: the codes whose fix a trial can test
TRAINING_FAULTS = frozenset({"G01", "G02", "G03", "G05", "G06", "G07"})


def _too_high(f: Finding) -> bool:
    return f.code in {"G02", "G03", "G05"} or (f.code == "G06" and "is above" in f.message)


def _too_low(f: Finding) -> bool:
    return f.code == "G07" or (f.code == "G06" and "raise the learning rate" in f.hint)


def _stuck(f: Finding) -> bool:
    """A fault of a layer that does not learn: its gradient vanishes (G01), the loss does
    not fall (G07), or its weights barely move (G06 "below", whatever its reading)."""
    return f.code in {"G01", "G07"} or (f.code == "G06" and "barely move" in f.message)


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
) -> tuple[Change, ...]:
    """The changes the findings' evidence supports, in the order they are tried.

    ``learning_rate``: the optimizer's (None for a schedule: no learning-rate change is
    planned); ``default_rate``: its class's default learning rate, also tried when it is
    more than 10x away in the direction the evidence points; ``saturating``: the names of
    the model's hidden sigmoid/tanh layers; ``targets``: the regression loss's name and
    the targets' scale (the larger of |mean| and std), when the fit had numeric targets;
    ``initializers``: ``'layer' (what)`` for the layers whose initializer cannot start
    learning (a constant kernel, an extreme spread, a large bias)."""
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
            instead = best.kind != "learning_rate" and "learning rate" in f.message
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
