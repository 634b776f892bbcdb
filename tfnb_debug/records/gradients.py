"""Recorded gradient statistics as plain host data (NumPy only, no TensorFlow).

The collector (:mod:`tfnb_debug.collect.gradients`) fills a
:class:`GradientHistory`; the rules (:mod:`tfnb_debug.diagnostics.gradients`),
the report (:mod:`tfnb_debug.features.gradients`) and the plots
(:mod:`tfnb_debug.render.gradients`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "HIST_BINS",
    "HIST_BIN_NOTE",
    "HIST_EDGES",
    "HIST_HI",
    "HIST_LO",
    "HIST_LOG2_LO",
    "HIST_LOG2_WIDTH",
    "HIST_SAMPLE",
    "STAT_COLUMNS",
    "GradientHistory",
    "LayerGradients",
    "VariableMeta",
]

# Columns of the per-variable statistics, in buffer order.
STAT_COLUMNS = (
    "grad_norm",
    "mean_abs",
    "max_abs",
    "nan_count",
    "inf_count",
    "zero_fraction",
    "weight_norm",
    "update_norm",
)
NORM, MEAN_ABS, MAX_ABS, NAN, INF, ZERO, W_NORM, U_NORM = range(len(STAT_COLUMNS))
# Histogram of |g| over finite non-zero entries, by the float32 exponent floor(log2|g|):
# 28 bins of two binary exponents (a factor of 4 each) from 2**-42 (2.3e-13) to 2**14
# (16384); values outside fall into the edge bins (subnormals into the first).
HIST_LOG2_LO, HIST_LOG2_WIDTH, HIST_BINS = -42, 2, 28
#: the bin edges as log10|g| (what the plots' axes show): log10(2) * (-42, -40, ..., 14)
HIST_EDGES = tuple(
    float(np.log10(2.0) * (HIST_LOG2_LO + HIST_LOG2_WIDTH * i)) for i in range(HIST_BINS + 1)
)
HIST_LO, HIST_HI = HIST_EDGES[0], HIST_EDGES[-1]
#: most values of one variable a histogram counts: a larger gradient's histogram is
#: counted on a strided sample of about this many values and scaled to its size
HIST_SAMPLE = 1 << 14
#: what the bins are, for the report's titles
HIST_BIN_NOTE = f"bins of a factor 4; above {HIST_SAMPLE:,} values per variable, from a sample"


@dataclass(frozen=True)
class VariableMeta:
    """One trainable variable as recorded: plain values only."""

    path: str
    layer: str
    name: str
    shape: tuple[int, ...]
    dtype: str
    optimizer: str


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class GradientHistory:
    """Per recorded step and variable: the statistics in :data:`STAT_COLUMNS` and a histogram.

    ``stats``: (steps, variables, 8); ``hist``: (steps, variables, bins);
    ``steps``: the optimizer step (0-based, counted in the recording) of each
    record; ``loss`` is NaN where ``loss_known`` is False.  ``no_gradient``
    lists variables that received ``None``.  ``fresh``: the optimizers that stepped
    had taken no step before the recording (training from initialization), when known.
    """

    variables: tuple[VariableMeta, ...]
    steps: np.ndarray
    loss: np.ndarray
    loss_known: np.ndarray
    stats: np.ndarray
    hist: np.ndarray
    no_gradient: tuple[str, ...] = ()
    total_steps: int = 0
    fresh: bool | None = None

    def __post_init__(self) -> None:
        for name in ("steps", "loss", "loss_known", "stats", "hist"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    @property
    def n_records(self) -> int:
        return int(self.stats.shape[0])

    def column(self, name: str) -> np.ndarray:
        """(steps, variables) array of one statistic."""
        return self.stats[:, :, STAT_COLUMNS.index(name)]

    def layers(self) -> tuple[str, ...]:
        """Layer paths in forward (variable) order, each once."""
        seen: dict[str, None] = {}
        for meta in self.variables:
            seen.setdefault(meta.layer, None)
        return tuple(seen)

    def layer_index(self) -> dict[str, list[int]]:
        index: dict[str, list[int]] = {}
        for i, meta in enumerate(self.variables):
            index.setdefault(meta.layer, []).append(i)
        return index

    def _layer_combine(self, column: int) -> np.ndarray:
        """(steps, layers) root-sum-of-squares of a norm column over each layer's variables.

        Variables without a gradient (all NaN) are left out; a layer with none
        left is NaN.
        """
        out = np.full((self.n_records, len(self.layers())), np.nan)
        no_grad = set(self.no_gradient)
        for j, (_layer, idx) in enumerate(self.layer_index().items()):
            idx = [i for i in idx if self.variables[i].path not in no_grad]
            if not idx:
                continue
            values = self.stats[:, idx, column].astype(np.float64)
            out[:, j] = np.sqrt(np.sum(np.square(values), axis=1))
        return out

    def layer_grad_norms(self) -> np.ndarray:
        return self._layer_combine(NORM)

    def layer_weight_norms(self) -> np.ndarray:
        return self._layer_combine(W_NORM)

    def layer_update_norms(self) -> np.ndarray:
        return self._layer_combine(U_NORM)

    def layer_update_ratios(self) -> np.ndarray:
        weights = self.layer_weight_norms()
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = self.layer_update_norms() / weights
        return np.where(weights > 0, ratio, np.nan)

    def layer_nonfinite(self) -> np.ndarray:
        """(steps, layers) count of NaN + Inf gradient entries."""
        counts = self.stats[:, :, NAN] + self.stats[:, :, INF]
        out = np.zeros((self.n_records, len(self.layers())))
        for j, idx in enumerate(self.layer_index().values()):
            out[:, j] = np.nansum(counts[:, idx], axis=1)
        return out

    def layer_hist(self, layer: str, record: int = -1) -> np.ndarray:
        idx = self.layer_index()[layer]
        return np.asarray(self.hist[record, idx, :].sum(axis=0))


@dataclass(frozen=True, eq=False)
class LayerGradients:
    """One layer's gradient statistics across the recorded steps (for a layer inspector)."""

    layer: str
    model_name: str | None
    variables: tuple[str, ...]
    steps: np.ndarray
    grad_norm: np.ndarray
    update_ratio: np.ndarray
    nonfinite: np.ndarray
    histogram: np.ndarray
    hist_edges: tuple[float, ...]
    codes: tuple[str, ...]
