"""The plain records of the inspector's details pane: what one layer's details are.

Frozen dataclasses of plain values (NumPy arrays at most); no TensorFlow.
:mod:`tfnb_debug.widgets.details` fills them, :mod:`tfnb_debug.widgets.render`
draws them; neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfnb_debug.ground.reports import Finding
from tfnb_debug.widgets.params import ParamArithmetic

__all__ = ["ActivationInfo", "GradientInfo", "LayerDetails", "ValueSummary", "WeightInfo"]


@dataclass(frozen=True)
class ValueSummary:
    """Statistics of a tensor's values; the histogram covers the finite values."""

    count: int
    mean: float
    std: float
    min: float
    max: float
    zeros: float  # fraction of exact zeros
    nonfinite: int  # count of NaN and Inf
    hist_counts: tuple[int, ...]
    hist_edges: tuple[float, ...]


@dataclass(frozen=True)
class WeightInfo:
    name: str
    shape: tuple[int, ...]
    dtype: str
    trainable: bool
    stats: ValueSummary | None


@dataclass(frozen=True)
class ActivationInfo:
    """The selected call's output: statistics over the whole batch, maps of example 0."""

    call_index: int  # which call of this layer (0 = first) in the forward pass
    shape: tuple[int, ...]
    dtype: str
    stats: ValueSummary | None
    feature_maps: np.ndarray | None = field(default=None, repr=False)  # (H, W, k)
    channels: int = 0  # channels the output has in total
    output_index: int = 0  # which output of a multi-output layer


@dataclass(frozen=True)
class GradientInfo:
    """This layer's gradients as a ``%tfgrad`` report recorded them (plain values).

    ``norms`` is the layer's gradient norm per recorded step; ``hist_counts``
    and ``hist_edges`` the histogram of log10|g| at the last recorded step.
    """

    source: str
    variables: tuple[str, ...]
    rows: tuple[tuple[str, Any], ...]
    steps: tuple[int, ...]
    norms: tuple[float, ...]
    hist_counts: tuple[float, ...]
    hist_edges: tuple[float, ...]
    codes: tuple[str, ...]


@dataclass(frozen=True)
class LayerDetails:
    """Everything the details pane shows for one row of the layer table."""

    row_index: int
    path: str
    class_name: str
    row: tuple[tuple[str, Any], ...]  # the table row as (column, value)
    config: tuple[tuple[str, str], ...]
    weights: tuple[WeightInfo, ...]
    arithmetic: ParamArithmetic | None
    activation: ActivationInfo | None
    activation_note: str
    gradients: GradientInfo | None  # from a %tfgrad report of the same model
    gradient_note: str
    findings: tuple[Finding, ...]
    weights_note: str = ""  # e.g. a nested model's weights belong to its sublayers

    def to_text(self) -> str:
        from tfnb_debug.widgets.render import details_text

        return details_text(self)

    def _repr_html_(self) -> str:
        from tfnb_debug.widgets.render import details_html

        return details_html(self)
