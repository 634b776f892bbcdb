"""The plain records of a shape trace: one :class:`LayerCall` per Keras layer call.

No TensorFlow here: collectors fill these, rules and renderers read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LayerCall", "MemoryEstimate", "TensorInfo", "TensorStats", "TraceCount", "calls_frame"]

Mode = Literal["eager", "graph", "symbolic"]
Status = Literal["ok", "failed", "aborted"]
Shape = tuple[int | None, ...]


@dataclass(frozen=True)
class TensorStats:
    """Statistics of one eager output, reduced where the tensor lives; only these scalars reach the host.

    ``mean``/``std``/``min``/``max`` are over the finite values (``None`` when
    there is none); ``saturated_fraction`` is set for sigmoid/tanh outputs only.
    ``dead_units``/``units`` (ReLU-family outputs of rank 2 or more only): how many
    of the last axis' units (features, channels) are exactly zero for every example
    and position of the batch, of how many.
    """

    count: int
    mean: float | None
    std: float | None
    min: float | None
    max: float | None
    zero_fraction: float
    nonfinite: int
    saturated_fraction: float | None = None
    dead_units: int | None = None
    units: int | None = None


@dataclass(frozen=True)
class TensorInfo:
    """What one input or output of a layer call looked like.

    ``producer`` (of an input) is the path of the layer call that produced this
    tensor, ``"input"`` for the data given to the traced model, or ``None`` when
    it came from other code (e.g. an op between two layers of a subclassed
    model).  ``producer_index`` is that call's row index.  An output of a call
    with sublayers (a model, a block) has the inner call that returned it as its
    producer, when one did (the model's output layer).  ``nonfinite`` counts
    NaN/Inf in an eager input whose producer is not a recorded call.
    """

    shape: Shape | None
    dtype: str
    producer: str | None = None
    producer_index: int | None = None
    stats: TensorStats | None = None
    nonfinite: int | None = None

    @property
    def nbytes(self) -> int | None:
        """Bytes of the tensor when its shape is fully known."""
        if self.shape is None or any(d is None for d in self.shape):
            return None
        size = _DTYPE_BYTES.get(self.dtype)
        if size is None:
            return None
        n = 1
        for d in self.shape:
            n *= int(d or 0)
        return n * size


@dataclass(frozen=True)
class LayerCall:
    """One row of the shape table: one call of one Keras layer, in call order.

    ``path`` is ``root/child/grandchild``: the names of the layers from the
    outermost traced layer down to this one (``name#2`` where two direct
    children of one layer share a name).  It is stable and unique per layer
    object, and :func:`tfnb_debug.layer_for_path` maps it back to the layer.
    ``call`` counts earlier calls of the same layer in this trace (shared
    layers get one row per call).  ``index`` is the order in which calls
    started, ``finished`` the order in which they returned (or raised).
    Parameters are the layer's *own* weights (not those of its sublayers), on
    the first call of each layer only (``None`` on repeated calls), so the
    column sums to the model's total.  An RNN layer's cell gets no rows: its
    parameters are the RNN's, and ``steps`` says how many time steps it ran.
    """

    index: int
    path: str
    name: str
    class_name: str
    depth: int
    parent: int | None
    root: int
    call: int
    mode: Mode
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    trainable_params: int | None
    non_trainable_params: int | None
    status: Status
    finished: int
    activation: str | None = None
    error: str = ""
    error_type: str = ""
    is_model: bool = False
    has_children: bool = False
    policy: str = ""
    compute_dtype: str = ""
    steps: int = 0  # an RNN layer: the time steps its cell ran (folded into this row)

    @property
    def output_bytes(self) -> int | None:
        sizes = [t.nbytes for t in self.outputs]
        if not sizes or any(s is None for s in sizes):
            return None
        return sum(s for s in sizes if s is not None)

    @property
    def stats(self) -> TensorStats | None:
        """The statistics of the first output (``None`` outside eager mode)."""
        return self.outputs[0].stats if self.outputs else None

    @property
    def params(self) -> int | None:
        if self.trainable_params is None or self.non_trainable_params is None:
            return None
        return self.trainable_params + self.non_trainable_params


@dataclass(frozen=True)
class TraceCount:
    """How often one ``tf.function`` was traced, and the signatures that caused it."""

    name: str
    traces: int
    signatures: tuple[str, ...]


@dataclass(frozen=True)
class MemoryEstimate:
    """A training-memory estimate for one model: weights, gradients, optimizer state, activations.

    ``bytes_per_param`` is ``None`` when the optimizer is unknown (model not
    compiled, or an optimizer tfnb_debug has no rule for); ``total_bytes`` is
    then ``None`` too and ``note`` says why.
    """

    model: str
    params: int
    trainable_params: int
    optimizer: str
    bytes_per_param: int | None
    param_bytes: int | None
    activation_bytes: int | None
    batch_size: int | None
    note: str = ""

    @property
    def total_bytes(self) -> int | None:
        if self.param_bytes is None or self.activation_bytes is None:
            return None
        return self.param_bytes + self.activation_bytes


_DTYPE_BYTES = {
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "bool": 1,
    "complex64": 8,
    "complex128": 16,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
}


def dtype_bytes(dtype: str) -> int | None:
    return _DTYPE_BYTES.get(dtype)


def calls_frame(calls: Sequence[LayerCall]) -> pd.DataFrame:
    """Every row with every column, for ``ShapeReport.to_dataframe()``."""
    import pandas as pd

    records = []
    for r in calls:
        s = r.stats
        records.append(
            {
                "index": r.index,
                "path": r.path,
                "class": r.class_name,
                "depth": r.depth,
                "call": r.call,
                "mode": r.mode,
                "status": r.status,
                "input_shapes": tuple(t.shape for t in r.inputs),
                "input_dtypes": tuple(t.dtype for t in r.inputs),
                "input_producers": tuple(t.producer for t in r.inputs),
                "output_shapes": tuple(t.shape for t in r.outputs),
                "output_dtypes": tuple(t.dtype for t in r.outputs),
                "trainable_params": r.trainable_params,
                "non_trainable_params": r.non_trainable_params,
                "output_bytes": r.output_bytes,
                "mean": s.mean if s else None,
                "std": s.std if s else None,
                "min": s.min if s else None,
                "max": s.max if s else None,
                "zero_fraction": s.zero_fraction if s else None,
                "nonfinite": s.nonfinite if s else None,
                "error": r.error,
            }
        )
    return pd.DataFrame.from_records(records)
