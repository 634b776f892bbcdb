"""The report of a shape trace (``%tfshape``): :class:`ShapeReport`, plain values only.

Its own module so that the renderer (``render/shapes.py``) can name the type
without importing the tracing code in :mod:`tfnb_debug.features.shapes`, which lays the
report out through that renderer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tfnb_debug.diagnostics.shapes import ShapeThresholds
from tfnb_debug.ground.reports import Report
from tfnb_debug.records.shapes import LayerCall, MemoryEstimate, TraceCount, calls_frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ShapeReport"]


@dataclass(frozen=True, kw_only=True, repr=False)
class ShapeReport(Report):
    """Everything a shape trace saw, as plain values (no tensors, no layers).

    ``calls`` holds one :class:`~tfnb_debug.records.shapes.LayerCall` per layer
    call in call order; ``tables`` shows them one table per outermost call.
    ``failed`` is true when the traced call (or the recorded block) raised;
    the failing row has ``status == "failed"`` and its ancestors ``"aborted"``.
    ``explained`` is true when the findings already explain the failure (the
    diagnosis under the cell would repeat them).
    """

    calls: tuple[LayerCall, ...] = ()
    models: tuple[str, ...] = ()
    total_params: int | None = None
    trainable_params: int | None = None
    non_trainable_params: int | None = None
    memory: tuple[MemoryEstimate, ...] = ()
    traces: tuple[TraceCount, ...] = ()
    thresholds: ShapeThresholds = field(default_factory=ShapeThresholds)
    failed: bool = False
    error_type: str = ""
    error: str = ""
    repeated_calls: tuple[tuple[str, int], ...] = ()
    truncated: bool = False
    input_note: str = ""
    explained: bool = False
    #: (model, replicas, per_replica) for each traced model built under a tf.distribute
    #: strategy with more than one replica; per_replica: its rows were recorded inside a
    #: replica (one replica's share of the batch), else they hold the global batch
    replicas: tuple[tuple[str, int, bool], ...] = ()

    @property
    def failing_call(self) -> LayerCall | None:
        """The row of the layer that raised, if any."""
        return next((c for c in self.calls if c.status == "failed"), None)

    def rows_for(self, path: str) -> list[LayerCall]:
        """Every call of the layer at ``path``."""
        return [c for c in self.calls if c.path == path]

    def to_text(self, width: int = 140) -> str:
        """Text for terminals; the shape table is wide, so the default width is 140."""
        return super().to_text(width=width)

    def to_dataframe(self, name: str | None = None) -> pd.DataFrame:
        """One row per layer call with every column (shapes as tuples, statistics as floats).

        ``name`` selects one of the rendered tables instead.
        """
        if name is not None:
            return super().to_dataframe(name)
        return calls_frame(self.calls)
