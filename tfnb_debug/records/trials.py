"""Plain records of a fix trial (:mod:`tfnb_debug.collect.fix_trial`): the changes
tried on copies of a model, the loss of each run, and what they showed.  No TensorFlow."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["CONFIRM_RATIO", "Change", "Schedule", "Setting", "Trial", "TrialRun"]

#: a change is confirmed when its final loss is below this share of the unchanged run's
CONFIRM_RATIO = 0.7


@dataclass(frozen=True)
class Change:
    """One change to try: ``kind`` is ``"learning_rate"`` (x ``factor``), ``"clipnorm"``
    (``factor`` is the norm), ``"optimizer"`` (the optimizer's ``setting`` set to ``value``,
    or removed when ``value`` is None), ``"schedule"`` (the learning-rate schedule replaced by
    the constant ``value``, its first rate), ``"relu"`` (hidden sigmoid/tanh layers -> ReLU with He
    initialization), ``"init"`` (Keras' default initializers in the layers whose own
    cannot start learning) or ``"targets"`` (standardized targets; ``factor`` is the power of
    the targets' std the loss scales with: 2 for MSE, 1 for MAE); ``label`` says it the way the user would write it, ``cause`` what
    it says was wrong when it helps."""

    kind: str
    label: str
    factor: float = 1.0
    cause: str = ""
    setting: str = ""
    value: float | None = None


@dataclass(frozen=True)
class Schedule:
    """A learning-rate schedule as the recorded run used it: its class, its highest rate over
    the recorded steps (``first``: after a warm-up that is not the rate at step 0) and its
    rate at the last one, and the arguments that count steps (``decay_steps``,
    ``first_decay_steps``, ``warmup_steps``, ``boundaries``: name and value as written)."""

    name: str
    first: float
    last: float
    steps: int
    step_arguments: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Setting:
    """One numeric setting of a model's optimizer other than its learning rate (``momentum``,
    ``beta_2``, ``epsilon``, ``clipnorm``, ...): its value and the default of the optimizer's
    class (None when the class has none: a clip is off unless set)."""

    optimizer: str
    name: str
    value: float
    default: float | None


@dataclass(frozen=True)
class TrialRun:
    """The evaluated loss of one run: before training, then at each checkpoint."""

    label: str
    losses: tuple[float, ...]

    @property
    def first(self) -> float:
        return self.losses[0]

    @property
    def last(self) -> float:
        return self.losses[-1]


@dataclass(frozen=True)
class Trial:
    """What a trial did; ``ran`` False with ``reason`` when it could not run."""

    ran: bool
    reason: str = ""
    baseline: TrialRun | None = None
    runs: tuple[TrialRun, ...] = ()
    not_run: tuple[tuple[str, str], ...] = ()  # (change label, why)
    rows: int = 0
    steps: int = 0
    batch_size: int = 0
    seconds: float = 0.0
    checkpoints: tuple[int, ...] = field(default=())

    def run_of(self, change: Change) -> TrialRun | None:
        return next((r for r in self.runs if r.label == change.label), None)

    def confirmed(self, run: TrialRun) -> bool:
        """Whether ``run``'s change made the loss fall: its final loss is finite and below its
        first, and the unchanged run's is not finite, or is higher by a clear margin (the
        change's is below :data:`CONFIRM_RATIO` x it, or below 0.9 x it after a fall at
        least twice the unchanged run's)."""
        base = self.baseline
        if base is None or not math.isfinite(run.last) or not run.last < run.first:
            return False
        if not math.isfinite(base.last) or run.last < CONFIRM_RATIO * base.last:
            return True
        fell, base_fell = run.first - run.last, max(base.first - base.last, 0.0)
        return run.last < 0.9 * base.last and fell >= 2 * base_fell

    def verdict(self, change: Change) -> str:
        """``change``'s label and what the trial showed for it, or why it was not tried."""
        if not self.ran:
            return f"{change.label}: not tried on a copy ({self.reason})"
        why = dict(self.not_run).get(change.label)
        run, base = self.run_of(change), self.baseline
        if why is not None or run is None or base is None:
            return f"{change.label}: not tried on a copy ({why or 'no run'})"
        result = "confirmed" if self.confirmed(run) else "did not help"
        return (
            f"{change.label}: {result} on a copy ({self.steps} steps on {self.rows} training "
            f"rows: loss {_num(run.first)} -> {_num(run.last)}, unchanged {_num(base.last)})"
        )


def _num(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else str(value)
