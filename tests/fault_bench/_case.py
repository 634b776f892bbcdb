"""The benchmark's case format and the checks that say what a plain run of a version did.

A :class:`Case` is one program in two versions: ``setup`` + ``train`` (buggy) and
``fixed_setup`` + ``fixed_train`` (correct; ``None`` means "as in the buggy
version").  ``setup`` is a plain notebook cell that makes the data and builds and
compiles ``model``; ``train`` is the training cell, ``history = model.fit(...)``.

``bug`` and ``learns`` are checks of a *plain* run (no tfnb_debug): ``bug`` says the
buggy version fails the way the report describes (NaN loss, a loss that does not
fall, accuracy at chance, one predicted class, a reported metric that is not the
model's), ``learns`` says the correct version really learns.  They validate the
benchmark itself (``tests/test_fault_bench.py``) and never look at what the tool says.

``codes``, ``symptom_codes``, ``places`` and ``fixes`` are the scoring expectations
(see ``tests/fault_bench/__init__.py``), written from the documented fault and the
catalog (``DIAGNOSTICS.md``), not from the tool's output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "Accuracy",
    "AllOf",
    "Case",
    "Check",
    "ConstantOutput",
    "LossFalls",
    "LossNonFinite",
    "LossStays",
    "Metric",
    "MetricGap",
    "MinorityRecall",
    "Mse",
    "OneClass",
    "Outcome",
    "OutsideRange",
    "run_plain",
]


@dataclass
class Outcome:
    """What a plain run of one version left: ``fit``'s history, the model, the namespace."""

    history: dict[str, list[float]]
    model: Any
    ns: dict[str, Any]

    def arrays(self, x: str, y: str | None = None) -> tuple[Any, Any]:
        return self.ns[x], (self.ns[y] if y is not None else None)

    def predict(self, x: str) -> np.ndarray:
        return np.asarray(self.model.predict(self.ns[x], verbose=0, batch_size=256))


def _classes(pred: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    pred = np.asarray(pred)
    if pred.ndim == 1 or pred.shape[-1] == 1:
        return (pred.reshape(len(pred)) > threshold).astype(int)
    return pred.argmax(axis=-1)


def _labels(y: Any) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[-1] > 1:
        return y.argmax(axis=-1)
    return y.reshape(len(y)).astype(int)


class Check:
    """A predicate on an :class:`Outcome` that also says what it saw."""

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        raise NotImplementedError


@dataclass(frozen=True)
class LossNonFinite(Check):
    """The training loss became NaN or Inf (or overflowed past ``limit``)."""

    limit: float = 1e30

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        loss = out.history["loss"]
        bad = [v for v in loss if not math.isfinite(v) or abs(v) > self.limit]
        return bool(bad), f"loss {loss[:3]} ... {loss[-2:]}"


@dataclass(frozen=True)
class LossFalls(Check):
    """The last epoch's loss is at most ``factor`` x the first epoch's, and finite."""

    factor: float
    key: str = "loss"

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        loss = out.history[self.key]
        ok = all(math.isfinite(v) for v in loss) and loss[-1] <= self.factor * loss[0]
        return ok, f"{self.key} {loss[0]:.4g} -> {loss[-1]:.4g} (want <= {self.factor} x first)"


@dataclass(frozen=True)
class LossStays(Check):
    """The loss does not fall: finite, and the last epoch's is at least ``factor`` x the first's."""

    factor: float
    key: str = "loss"

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        loss = out.history[self.key]
        ok = all(math.isfinite(v) for v in loss) and loss[-1] >= self.factor * loss[0]
        return ok, f"{self.key} {loss[0]:.4g} -> {loss[-1]:.4g} (want >= {self.factor} x first)"


@dataclass(frozen=True)
class Metric(Check):
    """The last (or every) epoch's value of a history key lies in ``[low, high]``."""

    key: str
    low: float = -math.inf
    high: float = math.inf
    every: bool = False

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        values = out.history[self.key]
        seen = values if self.every else values[-1:]
        ok = all(self.low <= v <= self.high for v in seen)
        return (
            ok,
            f"{self.key} {values[0]:.4g} ... {values[-1]:.4g} (want [{self.low}, {self.high}])",
        )


@dataclass(frozen=True)
class Accuracy(Check):
    """The model's own accuracy on ``x``/``y`` (argmax, or ``> threshold`` for one unit)."""

    low: float = 0.0
    high: float = 1.0
    x: str = "x"
    y: str = "y"
    threshold: float = 0.5

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        pred = _classes(out.predict(self.x), self.threshold)
        acc = float((pred == _labels(out.ns[self.y])).mean())
        return (
            self.low <= acc <= self.high,
            f"accuracy on {self.x} {acc:.3f} (want [{self.low}, {self.high}])",
        )


@dataclass(frozen=True)
class MetricGap(Check):
    """A reported history metric differs from the model's own accuracy by at least ``gap``
    (``at_most=True``: by at most ``gap``)."""

    key: str
    gap: float
    at_most: bool = False
    x: str = "x"
    y: str = "y"

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        acc = float((_classes(out.predict(self.x)) == _labels(out.ns[self.y])).mean())
        reported = out.history[self.key][-1]
        diff = abs(reported - acc)
        ok = diff <= self.gap if self.at_most else diff >= self.gap
        want = f"{'<=' if self.at_most else '>='} {self.gap}"
        return ok, f"reported {self.key} {reported:.3f}, own accuracy {acc:.3f} (gap {want})"


@dataclass(frozen=True)
class OneClass(Check):
    """(Nearly) every prediction on ``x`` is one class."""

    share: float = 0.97
    x: str = "x"
    threshold: float = 0.5

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        pred = _classes(out.predict(self.x), self.threshold)
        top = float(np.bincount(pred).max() / len(pred))
        return top >= self.share, f"largest predicted class share {top:.3f} (want >= {self.share})"


@dataclass(frozen=True)
class MinorityRecall(Check):
    """The recall of class ``cls`` on ``x``/``y`` lies in ``[low, high]``."""

    low: float = 0.0
    high: float = 1.0
    cls: int = 1
    x: str = "x"
    y: str = "y"

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        pred = _classes(out.predict(self.x))
        labels = _labels(out.ns[self.y])
        recall = float((pred[labels == self.cls] == self.cls).mean())
        return self.low <= recall <= self.high, (
            f"recall of class {self.cls} {recall:.3f} (want [{self.low}, {self.high}])"
        )


@dataclass(frozen=True)
class Mse(Check):
    """The model's mean squared error on ``x``/``y``, relative to the variance of ``y``,
    lies in ``[low, high]`` (1.0 is what predicting the mean scores)."""

    low: float = 0.0
    high: float = math.inf
    x: str = "x"
    y: str = "y"

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        y = np.asarray(out.ns[self.y], dtype="float64").reshape(len(out.ns[self.y]), -1)
        pred = out.predict(self.x).astype("float64").reshape(y.shape)
        rel = float(((pred - y) ** 2).mean() / y.var())
        return (
            self.low <= rel <= self.high,
            f"MSE / var(y) {rel:.4g} (want [{self.low}, {self.high}])",
        )


@dataclass(frozen=True)
class ConstantOutput(Check):
    """The model gives (nearly) the same output for every example of ``x``."""

    x: str = "x"
    tol: float = 1e-4

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        pred = out.predict(self.x)
        spread = float(pred.std(axis=0).max())
        return spread <= self.tol, f"output std across examples {spread:.3g} (want <= {self.tol})"


@dataclass(frozen=True)
class OutsideRange(Check):
    """At least ``share`` of the model's outputs on ``x`` fall outside ``[low, high]``."""

    low: float = 0.0
    high: float = 1.0
    share: float = 0.3
    x: str = "x"

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        pred = out.predict(self.x)
        outside = float(((pred < self.low) | (pred > self.high)).mean())
        return outside >= self.share, (
            f"{outside:.3f} of the outputs outside [{self.low}, {self.high}] (want >= {self.share})"
        )


@dataclass(frozen=True)
class AllOf(Check):
    """Every one of ``checks`` holds."""

    checks: tuple[Check, ...]

    def __call__(self, out: Outcome) -> tuple[bool, str]:
        results = [c(out) for c in self.checks]
        return all(ok for ok, _ in results), "; ".join(text for _, text in results)


@dataclass(frozen=True)
class Case:
    """One program of the benchmark, buggy and correct (see the module docstring)."""

    name: str
    family: str
    bug_summary: str
    source: str
    setup: str
    train: str
    codes: frozenset[str]
    symptom_codes: frozenset[str]
    places: tuple[str, ...]
    fixes: tuple[str, ...]
    bug: Check
    learns: Check
    fixed_setup: str | None = None
    fixed_train: str | None = None
    #: the name of the model and of the (x, y) data `%tflint --data` gets
    lint_data: str = "(x, y)"

    @property
    def correct_setup(self) -> str:
        return self.setup if self.fixed_setup is None else self.fixed_setup

    @property
    def correct_train(self) -> str:
        return self.train if self.fixed_train is None else self.fixed_train

    def version(self, buggy: bool) -> tuple[str, str]:
        """``(setup, train)`` of the buggy (``True``) or the correct version."""
        return (self.setup, self.train) if buggy else (self.correct_setup, self.correct_train)


def run_plain(case: Case, buggy: bool, seed: int = 0) -> Outcome:
    """Run one version plainly (no tfnb_debug), in a fresh namespace, with fixed seeds."""
    import keras

    keras.backend.clear_session()
    keras.utils.set_random_seed(seed)
    setup, train = case.version(buggy)
    ns: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(setup, f"<{case.name} setup>", "exec"), ns)
    exec(compile(train, f"<{case.name} train>", "exec"), ns)
    history = {k: [float(v) for v in vs] for k, vs in ns["history"].history.items()}
    return Outcome(history, ns["model"], ns)
