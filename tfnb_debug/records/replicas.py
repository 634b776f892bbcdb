"""What each replica computed in the recorded steps, as plain host data (NumPy only).

Filled by :mod:`tfnb_debug.collect.replicas` inside the instrumented step of
a ``tf.distribute`` strategy with more than one replica; read by the D01 rule
(:mod:`tfnb_debug.diagnostics.distribute`) and the report's "replicas"
section.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["REPLICA_COLUMNS", "MirroredDifference", "ReplicaHistory"]

#: the columns before the per-variable gradient norms, in buffer order: examples the replica's
#: loss reduced over (NaN: not found), the replica's own loss, and the total weight its loss
#: gives those examples (the sum of d loss / d per-example loss: 1 for a mean over the
#: replica's own batch, examples / global batch for a loss averaged over the global batch)
REPLICA_COLUMNS = ("examples", "loss", "weight")
EXAMPLES, LOSS, WEIGHT = range(len(REPLICA_COLUMNS))


@dataclass(frozen=True, eq=False)
class ReplicaHistory:
    """Per recorded step and replica: :data:`REPLICA_COLUMNS`, then each variable's gradient
    norm on that replica before the all-reduce (``norms``, NaN where no gradient).

    ``values``: (records, replicas, 3 + variables); ``paths``: the variables, in the order of
    the gradient history they belong to.
    """

    values: np.ndarray
    paths: tuple[str, ...]
    #: the reductions over the examples found in the replicas' losses (``Mean op 'Mean'``)
    reductions: tuple[str, ...] = ()

    @property
    def replicas(self) -> int:
        return int(self.values.shape[1])

    @property
    def n_records(self) -> int:
        return int(self.values.shape[0])

    def column(self, name: str) -> np.ndarray:
        """(records, replicas) array of one of :data:`REPLICA_COLUMNS`."""
        return self.values[:, :, REPLICA_COLUMNS.index(name)]

    @property
    def norms(self) -> np.ndarray:
        """(records, replicas, variables) gradient norms before the all-reduce."""
        return self.values[:, :, len(REPLICA_COLUMNS) :]

    def layer_norms(self, layers: dict[str, list[int]]) -> np.ndarray:
        """(records, replicas, layers) norms of each layer's gradients (the root of the sum of
        its variables' squared norms), layers in the order of ``layers`` (name -> indices)."""
        norms = self.norms
        out = np.full((*norms.shape[:2], len(layers)), np.nan)
        for j, index in enumerate(layers.values()):
            part = norms[:, :, index]
            with np.errstate(invalid="ignore"):
                total = np.sqrt(np.nansum(part**2, axis=2))
            out[:, :, j] = np.where(np.isnan(part).all(axis=2), np.nan, total)
        return out


@dataclass(frozen=True)
class MirroredDifference:
    """One mirrored variable whose per-device components differ after the recorded cell."""

    path: str
    difference: float  # largest |component - primary component|
    scale: float  # largest |primary component|
    devices: int
    aggregation: str
    layer_class: str | None  # the Keras layer class that owns it, when known
