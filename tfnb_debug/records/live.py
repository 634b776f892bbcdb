"""What the live view shows, as plain values (see :mod:`tfnb_debug.features.live`): no display code,
so that :mod:`tfnb_debug.render.live` can draw it without importing the view."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tfnb_debug.ground.reports import Finding

__all__ = ["STOP_CODES", "LivePart", "LiveState", "StopRequest", "merge_parts"]

#: ``--stop-on`` kinds and the findings that stop training
STOP_CODES: dict[str, frozenset[str]] = {
    "nan": frozenset({"G03", "G05"}),
    "explode": frozenset({"G02", "G03", "G05"}),
}


@dataclass(frozen=True)
class StopRequest:
    """Why training was stopped: the finding and the step it names."""

    kind: str
    finding: Finding
    step: int | None

    def describe(self) -> str:
        at = f" at step {self.step}" if self.step is not None else ""
        return (
            f"--stop-on {self.kind} stopped training{at}: {self.finding.code} {self.finding.slug}"
        )


@dataclass(frozen=True)
class LivePart:
    """What one recording contributes to an update (plain host values)."""

    step: int | None = None  # training steps known so far (recorded or counted)
    loss: float | None = None
    losses: tuple[float, ...] = ()  # the recent known losses, oldest first
    layers: tuple[str, ...] = ()
    norms: np.ndarray | None = None  # (layers, recent records) gradient norms
    memory: tuple[tuple[str, int, int | None], ...] = ()  # (series, current, peak) bytes
    findings: tuple[Finding, ...] = ()
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class LiveState:
    """One update of the live view: what it shows (``_repr_html_`` and a text line)."""

    title: str
    elapsed: float
    updates: int
    interval: float
    part: LivePart
    stopped: StopRequest | None = None
    final: bool = False


def merge_parts(parts: Sequence[LivePart]) -> LivePart:
    """One part from several sources (gradients, memory, checks): the first value of each."""
    merged = LivePart()
    for part in parts:
        merged = LivePart(
            step=max((s for s in (merged.step, part.step) if s is not None), default=None),
            loss=merged.loss if merged.loss is not None else part.loss,
            losses=merged.losses or part.losses,
            layers=merged.layers or part.layers,
            norms=merged.norms if merged.norms is not None else part.norms,
            memory=merged.memory + part.memory,
            findings=merged.findings + part.findings,
            lines=merged.lines + part.lines,
        )
    return merged
