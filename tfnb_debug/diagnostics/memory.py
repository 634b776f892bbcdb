"""Memory rules: R01 memory-growth, R02 near-capacity, R03 out-of-memory, M06 memory-budget.

Pure functions of plain numbers (no TensorFlow).  Every threshold lives in
:class:`MemoryThresholds`, a frozen dataclass passed as ``thresholds=``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tfnb_debug.ground.reports import Finding, finding
from tfnb_debug.ground.values import format_bytes

__all__ = [
    "MemoryThresholds",
    "Trend",
    "budget_findings",
    "capacity_findings",
    "fit_trend",
    "growth_finding",
    "oom_finding",
]

MiB = 1024**2


@dataclass(frozen=True)
class MemoryThresholds:
    """The documented defaults of the memory rules; pass your own to override.

    R01 memory-growth fires for a series when, over the per-step readings (or
    the readings over time when fewer than ``growth_min_points`` steps were
    seen: from the end of the first step on, when there was one, so that a
    fresh process's start-up and first trace are left out) left after
    skipping the first ``growth_warmup_fraction`` of them (at least one):

    * there are at least ``growth_min_points`` readings;
    * a least-squares line rises by at least ``growth_min_bytes`` across them;
    * the line explains the data: R^2 >= ``growth_min_r2``;
    * the rise is spread out: split into ``growth_windows`` consecutive
      windows, each one rises by at least ``growth_min_window_share`` of an
      even share (total rise / windows).  A one-off allocation rises in one
      window only, so it is not a leak.

    R02 near-capacity fires when a series' peak reaches
    ``near_capacity_fraction`` of its capacity.  M06 memory-budget fires when a
    model's estimate exceeds ``budget_fraction`` of the device's memory.
    """

    growth_min_points: int = 8
    growth_warmup_fraction: float = 0.1
    growth_min_bytes: int = 16 * MiB
    growth_min_r2: float = 0.8
    growth_windows: int = 4
    growth_min_window_share: float = 0.25
    near_capacity_fraction: float = 0.9
    budget_fraction: float = 1.0

    def __post_init__(self) -> None:
        from tfnb_debug.ground.errors import TfnbDebugError

        checks = {
            "growth_min_points": self.growth_min_points >= 3,
            "growth_warmup_fraction": 0 <= self.growth_warmup_fraction < 1,
            "growth_min_bytes": self.growth_min_bytes >= 0,
            "growth_min_r2": 0 <= self.growth_min_r2 <= 1,
            "growth_windows": self.growth_windows >= 1,
            "growth_min_window_share": self.growth_min_window_share >= 0,
            "near_capacity_fraction": self.near_capacity_fraction > 0,
            "budget_fraction": self.budget_fraction > 0,
        }
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            raise TfnbDebugError(
                f"MemoryThresholds: {bad[0]}={getattr(self, bad[0])!r} is out of range; "
                "see help(tfnb_debug.MemoryThresholds) for the allowed values"
            )


@dataclass(frozen=True)
class Trend:
    """A least-squares line through memory readings and how steady the rise is."""

    points: int
    first_x: float
    last_x: float
    slope: float  # bytes per step (or per second)
    r2: float
    rise: float  # slope x (last_x - first_x)
    window_rises: tuple[float, ...]

    def steady(self, thresholds: MemoryThresholds) -> bool:
        if self.points < thresholds.growth_min_points or self.rise < thresholds.growth_min_bytes:
            return False
        if self.r2 < thresholds.growth_min_r2:
            return False
        share = thresholds.growth_min_window_share * self.rise / len(self.window_rises)
        return all(r >= share for r in self.window_rises)


def fit_trend(
    xs: Sequence[float], ys: Sequence[float], thresholds: MemoryThresholds
) -> Trend | None:
    """Fit a line to the readings after the warm-up; None when there are too few."""
    import numpy as np

    skip = max(1, int(len(xs) * thresholds.growth_warmup_fraction))
    x = np.asarray(xs[skip:], dtype=float)
    y = np.asarray(ys[skip:], dtype=float)
    if len(x) < max(3, thresholds.growth_windows + 1) or float(np.ptp(x)) == 0.0:
        return None
    slope, intercept = np.polyfit(x, y, 1)
    residual = float(np.sum((y - (slope * x + intercept)) ** 2))
    total = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - residual / total if total > 0 else 0.0
    edges = np.linspace(0, len(x) - 1, thresholds.growth_windows + 1).round().astype(int)
    windows = tuple(float(y[b] - y[a]) for a, b in zip(edges[:-1], edges[1:], strict=True))
    return Trend(
        points=len(x),
        first_x=float(x[0]),
        last_x=float(x[-1]),
        slope=float(slope),
        r2=r2,
        rise=float(slope * (x[-1] - x[0])),
        window_rises=windows,
    )


def growth_finding(
    series: str,
    trend: Trend | None,
    *,
    per_step: bool,
    thresholds: MemoryThresholds,
    steps_seen: int = 0,
) -> Finding | None:
    """R01 when ``trend`` shows a steady climb by the thresholds' standards.

    ``steps_seen``: for a trend over time, the training steps seen (fewer than
    ``growth_min_points``; the readings then start at the end of the first one).
    """
    if trend is None or not trend.steady(thresholds):
        return None
    if per_step:
        span = f"steps {int(trend.first_x)}-{int(trend.last_x)}"
        rate = f"{format_bytes(trend.slope)} per step"
        what = f"across {trend.points} training steps"
    else:
        span = f"{trend.first_x:.1f}-{trend.last_x:.1f} s"
        rate = f"{format_bytes(trend.slope)} per second"
        what = "over the cell's run (no training steps were seen, so the trend is over time)"
        if steps_seen:
            what = (
                f"over time after the first training step ({steps_seen} step(s) seen, fewer "
                f"than {thresholds.growth_min_points}: the trend is over time)"
            )
    return finding(
        "R01",
        f"{series} climbed steadily {what}: {rate}, {format_bytes(trend.rise)} in all",
        place=f"{series}, {span}",
        evidence=f"linear fit slope {rate}, R^2 {trend.r2:.2f}, rise in each of "
        f"{len(trend.window_rises)} windows: "
        + ", ".join(format_bytes(r) for r in trend.window_rises),
        hint="look for objects kept across steps: tensors appended to a Python list "
        "(append float(loss) or .numpy() summaries instead), growing caches or "
        "dictionaries, histories of model outputs; `del` them or keep a bounded window",
    )


def capacity_findings(
    series: str, peak: int, capacity: int | None, thresholds: MemoryThresholds
) -> list[Finding]:
    """R02 when the peak of a series reaches the thresholds' fraction of its capacity."""
    if not capacity or peak < thresholds.near_capacity_fraction * capacity:
        return []
    return [
        finding(
            "R02",
            f"{series} peaked at {peak / capacity:.0%} of its capacity: the next larger "
            "batch or model will likely run out of memory",
            place=series,
            evidence=f"peak {format_bytes(peak)} of {format_bytes(capacity)}; threshold "
            f"{thresholds.near_capacity_fraction:.0%}",
            hint="reduce the batch size, use mixed precision "
            "(keras.mixed_precision.set_global_policy('mixed_float16')), or free objects "
            "you no longer need",
        )
    ]


_OOM_DETAIL = re.compile(r"OOM when allocating tensor[^\n\[]*(\[[^\]]*\])?[^\n]*")


def oom_finding(error_type: str, message: str) -> Finding | None:
    """R03 when the cell died of ``ResourceExhaustedError`` (or Python's ``MemoryError``)."""
    if error_type not in {"ResourceExhaustedError", "MemoryError"}:
        return None
    match = _OOM_DETAIL.search(message)
    detail = match.group(0).strip() if match else (message.strip().splitlines() or [""])[0]
    return finding(
        "R03",
        f"the cell ran out of memory ({error_type})",
        place="the allocation that failed",
        evidence=detail[:300],
        hint="in order of cost: a smaller batch size; mixed precision "
        "(keras.mixed_precision.set_global_policy('mixed_float16')); gradient accumulation "
        "over smaller batches; a lower input resolution",
    )


def budget_findings(
    model_name: str,
    total_bytes: int,
    capacity: int | None,
    device: str,
    breakdown: str,
    thresholds: MemoryThresholds,
) -> list[Finding]:
    """M06 when a model's memory estimate exceeds the device's memory."""
    fraction = thresholds.budget_fraction
    if not capacity or total_bytes <= fraction * capacity:
        return []
    budget = (
        f"more than {device} has ({format_bytes(capacity)})"
        if fraction == 1.0
        else f"more than {fraction:.0%} of what {device} has ({format_bytes(fraction * capacity)}"
        f" of {format_bytes(capacity)})"
    )
    return [
        finding(
            "M06",
            f"training model {model_name!r} needs at least {format_bytes(total_bytes)}, {budget}",
            place=f"model {model_name!r} on {device}",
            evidence=breakdown,
            hint="reduce the batch size, use mixed precision, use an optimizer with less "
            "state (SGD with momentum: 12 B per parameter, Adam: 16 B), or a smaller model",
        )
    ]
