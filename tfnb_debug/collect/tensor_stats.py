"""Statistics of a layer's output tensors, reduced where the tensor lives.

:class:`~tfnb_debug.collect.shapes.ShapeCollector` asks for them on every eager
output (and for the NaN/Inf count of an eager input no recorded call made).  A
CPU tensor is reduced with NumPy on a view of its buffer (the host is that
device: :func:`host_stats`); an accelerator tensor with TensorFlow ops on its
own device (:func:`_device_stats`), whose scalars stay there until the
collector fetches them all in one transfer at the end of the trace
(:func:`_stats_from_vector` reads one row of that transfer).  Both give plain
:class:`~tfnb_debug.records.shapes.TensorStats`: zeros, NaN/Inf, the share of a
sigmoid/tanh output near its bounds, a ReLU's dead units.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

from tfnb_debug.records.shapes import TensorStats

_SATURATING = {"sigmoid": (0.0, 1.0), "tanh": (-1.0, 1.0), "hard_sigmoid": (0.0, 1.0)}
#: activations whose outputs get a count of dead units (zero for every example)
_RECTIFYING = frozenset({"relu", "relu6"})


#: values per piece of a large host array: a piece's passes read it from the cache
_PIECE = 1 << 18
#: a host array of at least this many values is read in pieces by several threads
_THREADED = 1 << 20
#: the pool's threads and the groups of pieces one array is split into
_WORKERS = max(1, min(4, os.cpu_count() or 1))
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """Threads for the pieces of large arrays (NumPy's reductions release the GIL): made
    on first use, as many as the machine's cores up to 4."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(
                max_workers=_WORKERS,
                thread_name_prefix="tfnb_debug-stats",
            )
        return _POOL


def stop_stats_threads() -> None:
    """End the statistics threads (``%unload_ext``); the next large array makes new ones."""
    global _POOL
    with _POOL_LOCK:
        pool, _POOL = _POOL, None
    if pool is not None:
        pool.shutdown(wait=True)


@dataclass
class _Sums:
    """What one piece of a flat array adds up to (the host statistics' single pass)."""

    zeros: int
    total: float
    squares: float
    low: float
    high: float
    near: int  # values within epsilon of a sigmoid/tanh's bounds
    alive: np.ndarray | None  # per ReLU unit: non-zero somewhere in the piece


def _piece_sums(piece: np.ndarray, units: int, bounds: tuple[float, float] | None) -> _Sums:
    zero = piece == 0
    near = 0
    if bounds is not None:
        near = int(np.count_nonzero(piece <= bounds[0])) + int(np.count_nonzero(piece >= bounds[1]))
    return _Sums(
        zeros=int(np.count_nonzero(zero)),  # 3x faster than counting non-zero floats
        total=float(piece.sum(dtype=np.float64)) if piece.size < 4096 else float(piece.sum()),
        squares=float(np.dot(piece, piece)),
        low=float(piece.min()),
        high=float(piece.max()),
        near=near,
        alive=~zero.reshape(-1, units).all(axis=0) if units else None,
    )


def _sums(flat: np.ndarray, units: int, bounds: tuple[float, float] | None) -> _Sums:
    """The sums of ``flat``, read in pieces of whole rows of ``units`` values (several
    threads for a large array), and combined."""
    count = int(flat.size)
    if count < _THREADED:
        return _piece_sums(flat, units, bounds)
    step = max(units, (_PIECE // units) * units) if units else _PIECE
    pieces = [flat[i : i + step] for i in range(0, count, step)]
    share = -(-len(pieces) // _WORKERS)

    def run(group: list[np.ndarray]) -> list[_Sums]:
        return [_piece_sums(piece, units, bounds) for piece in group]

    groups = [pieces[i : i + share] for i in range(0, len(pieces), share)]
    futures = [_pool().submit(run, group) for group in groups[1:]]
    parts = run(groups[0]) + [part for future in futures for part in future.result()]
    alive = None
    if units:
        alive = np.zeros(units, bool)
        for part in parts:
            alive |= part.alive
    return _Sums(
        zeros=sum(p.zeros for p in parts),
        total=math.fsum(p.total for p in parts),
        squares=math.fsum(p.squares for p in parts),
        low=min(p.low for p in parts),
        high=max(p.high for p in parts),
        near=sum(p.near for p in parts),
        alive=alive,
    )


def host_stats(
    array: np.ndarray, saturating: str | None = None, epsilon: float = 1e-3
) -> TensorStats | None:
    """Statistics of a host array (a zero-copy view of a CPU tensor).

    One read of each piece (zeros, sum, dot, min, max, and the bounds or the dead units),
    pieces of a large array on several threads; the NaN/Inf count is taken only when the
    sums say there is one.
    ``saturating`` names a sigmoid/tanh (the share near its bounds is counted) or
    is ``"relu"`` (the units of the last axis that are zero throughout are counted).
    """
    if array.dtype.kind not in "fiubV" and "float" not in str(array.dtype):
        return None
    flat = np.asarray(array).reshape(-1)
    if flat.dtype != np.float32 and flat.dtype != np.float64:
        flat = flat.astype(np.float32)
    count = int(flat.size)
    if count == 0:
        return TensorStats(0, None, None, None, None, 0.0, 0)
    units = 0
    if saturating == "relu" and array.ndim >= 2 and array.shape[-1]:
        units = int(array.shape[-1])
    bounds = None
    if saturating in _SATURATING:
        low, high = _SATURATING[saturating]
        bounds = (low + epsilon, high - epsilon)
    sums = _sums(flat, units, bounds)
    zeros, total, squares = sums.zeros, sums.total, sums.squares
    low_value, high_value = sums.low, sums.high
    nonfinite = 0
    n = count
    if not (math.isfinite(total) and math.isfinite(squares)):
        finite = np.isfinite(flat)
        nonfinite = count - int(np.count_nonzero(finite))
        if nonfinite:
            values = flat[finite]
            n = int(values.size)
            total = float(values.sum(dtype=np.float64))
            squares = float(np.dot(values.astype(np.float64), values.astype(np.float64)))
            if n:
                low_value, high_value = float(values.min()), float(values.max())
    saturated = float(sums.near) / count if bounds is not None else None
    dead = None
    if units and sums.alive is not None:
        dead = units - int(np.count_nonzero(sums.alive))
    if n == 0:
        return TensorStats(
            count, None, None, None, None, zeros / count, nonfinite, saturated, dead, units or None
        )
    mean = total / n
    variance = max(squares / n - mean * mean, 0.0)
    return TensorStats(
        count=count,
        mean=mean,
        std=math.sqrt(variance),
        min=low_value,
        max=high_value,
        zero_fraction=zeros / count,
        nonfinite=nonfinite,
        saturated_fraction=saturated,
        dead_units=dead,
        units=units or None,
    )


def _device_stats(t: Any, saturating: str | None, epsilon: float) -> Any:
    """Ten float32 scalars reduced on the tensor's own device (no host transfer here)."""
    with tf.device(t.device):
        dead = units = tf.constant(-1.0)
        if saturating == "relu" and t.shape.rank is not None and t.shape.rank >= 2:
            columns = tf.reshape(tf.cast(t, tf.float32), [-1, tf.shape(t)[-1]])
            alive = tf.reduce_any(tf.not_equal(columns, 0.0), axis=0)
            units = tf.cast(tf.size(alive), tf.float32)
            dead = units - tf.reduce_sum(tf.cast(alive, tf.float32))
        x = tf.reshape(tf.cast(t, tf.float32), [-1])
        n = tf.cast(tf.size(x), tf.float32)
        finite = tf.math.is_finite(x)
        nf = tf.cast(finite, tf.float32)
        count_finite = tf.reduce_sum(nf)
        safe = tf.where(finite, x, tf.zeros_like(x))
        mean = tf.math.divide_no_nan(tf.reduce_sum(safe), count_finite)
        var = tf.math.divide_no_nan(tf.reduce_sum(tf.square(safe - mean) * nf), count_finite)
        big = tf.constant(np.finfo(np.float32).max, tf.float32)
        low = tf.reduce_min(tf.where(finite, x, big))
        high = tf.reduce_max(tf.where(finite, x, -big))
        zeros = tf.reduce_sum(tf.cast(tf.equal(x, 0.0), tf.float32))
        if saturating in _SATURATING:
            lo, hi = _SATURATING[saturating]
            near = (x <= lo + epsilon) | (x >= hi - epsilon)
            sat = tf.reduce_sum(tf.cast(near, tf.float32))
        else:
            sat = tf.constant(-1.0)
        return tf.stack(
            [n, mean, tf.sqrt(var), low, high, zeros, n - count_finite, sat, dead, units]
        )


def _stats_from_vector(row: np.ndarray, saturating: str | None) -> TensorStats:
    n = int(row[0])
    nonfinite = int(row[6])
    has_values = n - nonfinite > 0
    return TensorStats(
        count=n,
        mean=float(row[1]) if has_values else None,
        std=float(row[2]) if has_values else None,
        min=float(row[3]) if has_values else None,
        max=float(row[4]) if has_values else None,
        zero_fraction=float(row[5]) / n if n else 0.0,
        nonfinite=nonfinite,
        saturated_fraction=(
            (float(row[7]) / n if n else 0.0) if saturating in _SATURATING else None
        ),
        dead_units=int(row[8]) if row[9] > 0 else None,
        units=int(row[9]) if row[9] > 0 else None,
    )


def _count_nonfinite(t: Any) -> int | None:
    try:
        if isinstance(t, np.ndarray):
            array = t
        elif _on_accelerator(t):
            return int(tf.size(t)) - int(tf.math.count_nonzero(tf.math.is_finite(t)))
        else:
            array = t.numpy()
        if array.dtype.kind not in "fc" and "float" not in str(array.dtype):
            return 0
        flat = np.asarray(array, dtype=np.float32) if array.dtype.itemsize < 4 else array
        return int(flat.size - np.count_nonzero(np.isfinite(flat)))
    except Exception:
        return None


def _on_accelerator(t: Any) -> bool:
    device = getattr(t, "device", "") or ""
    return "CPU" not in device.upper()
