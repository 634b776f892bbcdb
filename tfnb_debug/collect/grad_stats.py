"""The per-step gradient statistics, as TensorFlow ops whose cost follows the step's own.

For each gradient: the norm, mean and max |g|, exact NaN, Inf and zero counts, the
weight and update norms (STAT_COLUMNS), and a histogram of floor(log2|g|) over the
finite, non-zero entries in bins of two binary exponents (HIST_EDGES).

What a step pays (on a CPU each op costs a few microseconds whatever its size, and a
copy or a segment sum costs per value read: both were measured, see docs/performance.md):

* a gradient larger than :data:`STACKED` values gets reductions of its own, read in
  place: its sum of squares is one fused reduction (``l2_loss``, also for the weight
  and update norms), mean and max |g| read one ``abs``;
* smaller gradients are flattened into one vector (per group of :data:`STACK_ELEMENTS`)
  and reduced with sorted segment sums: one set of ops for all of them, where one set
  per variable made tracing a model of 80 variables take seconds;
* NaN and Inf are counted exactly, but only in a step where some gradient's sum of
  squares is not finite (one ``cond`` for all: a finite sum has neither);
* the histogram reads the float32 exponent field from the bits of ``|g|`` (a shift: no
  ``log``) and counts (variable, exponent field or zero) pairs with one ``bincount``,
  folded into the bins by a small matmul; its zeros column is the exact zero count (a
  bit test that TensorFlow's flushing of subnormals to zero does not touch).  A
  gradient above :data:`SAMPLE` values is counted on a strided sample (an odd stride,
  so it walks every column of a power-of-two-wide kernel) whose counts are scaled to
  its size, and counts its zeros from its bits in full (``min(bits, 1)`` summed).

Inside an XLA-compiled function (``jit_compile=True``, which Keras picks on a GPU)
every gradient gets ops of its own, XLA-safe: no ``SegmentSum``, no ``Bincount``
(a segment sum counts the exponents), no ``py_function``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

from tfnb_debug.records.gradients import (
    HIST_BINS,
    HIST_LOG2_LO,
    HIST_LOG2_WIDTH,
    HIST_SAMPLE,
    STAT_COLUMNS,
)

__all__ = ["SAMPLE", "STACK_ELEMENTS", "gradient_stats", "hist_sample", "in_xla", "norm"]

#: most values the histogram of one gradient reads (a larger gradient is sampled)
SAMPLE = HIST_SAMPLE

#: most values a gradient may have to be flattened with others (a larger one is reduced in
#: place: a copy into the shared vector and a segment sum cost more than its own ops)
STACKED = 1 << 12

#: most values flattened into one vector by :func:`gradient_stats` (16 MB of float32)
STACK_ELEMENTS = 1 << 22


def gradient_stats(
    grads: Sequence[tf.Tensor],
    w_old: Sequence[tf.Tensor | None] | None,
    w_new: Sequence[tf.Tensor | None] | None,
    norms: Sequence[tuple[tf.Tensor, tf.Tensor] | None] | None = None,
) -> tuple[tf.Tensor, tf.Tensor]:
    """The statistics rows ``(k, STAT_COLUMNS)`` and histograms ``(k, HIST_BINS)`` of ``k``
    gradients, as TensorFlow ops.

    ``w_old``/``w_new`` give the weight and update norms (NaN when not given,
    as in a dry probe).  ``norms[i]``, where given, is gradient ``i``'s (weight norm,
    update norm) measured elsewhere (:mod:`~tfnb_debug.collect.update_deltas`); its
    ``w_old[i]``/``w_new[i]`` are then not read.
    """
    k = len(grads)
    if k == 0:
        return tf.zeros([0, len(STAT_COLUMNS)]), tf.zeros([0, HIST_BINS])
    sizes = [g.shape.num_elements() for g in grads]
    known = {i for i in range(k) if norms is not None and norms[i] is not None}
    xla = not tf.executing_eagerly() and in_xla(tf.compat.v1.get_default_graph())
    # sorted segment sums drop an empty variable at the end, and need static sizes
    limit = min(STACKED, SAMPLE)
    small = (
        set()
        if xla
        else {i for i, n in enumerate(sizes) if n is not None and 0 < n <= limit and i not in known}
    )
    own = [i for i in range(k) if i not in small]
    groups: list[list[int]] = []
    total = 0
    for i in sorted(small):  # groups of at most STACK_ELEMENTS values: the copies stay small
        if not groups or total + int(sizes[i] or 0) > STACK_ELEMENTS:
            groups.append([])
            total = 0
        groups[-1].append(i)
        total += int(sizes[i] or 0)

    def pick(values: Sequence[Any] | None, indices: list[int]) -> list[Any] | None:
        return None if values is None else [values[i] for i in indices]

    parts = (
        [
            _own_stats(
                pick(grads, own) or [], pick(w_old, own), pick(w_new, own), xla, pick(norms, own)
            )
        ]
        if own
        else []
    )
    parts += [_stacked_stats(pick(grads, g) or [], pick(w_old, g), pick(w_new, g)) for g in groups]
    indices = ([own] if own else []) + groups

    def join(tensors: list[tf.Tensor]) -> tf.Tensor:
        return tf.concat(tensors, 0) if len(tensors) > 1 else tensors[0]

    rows, hists = join([p.rows for p in parts]), join([p.hists for p in parts])

    def with_nonfinite() -> tf.Tensor:
        # NaN and Inf counted exactly; max |g| is NaN where a value is NaN
        counts = join([p.count_nonfinite() for p in parts])
        max_abs = tf.where(counts[:, 0] > 0, tf.fill([k], np.nan), rows[:, 2])
        return tf.concat([rows[:, :2], max_abs[:, None], counts, rows[:, 5:]], axis=1)

    # a finite sum of squares has neither NaN nor Inf: the counts are made in no other step
    squares = join([p.squares for p in parts])
    rows = tf.cond(tf.reduce_all(tf.math.is_finite(squares)), lambda: rows, with_nonfinite)
    order = [i for part in indices for i in part]
    if order != list(range(k)):
        back = np.argsort(order)  # where each variable's row landed in the concatenation
        rows, hists = tf.gather(rows, back), tf.gather(hists, back)
    return rows, hists


@dataclass(frozen=True)
class _Part:
    """The statistics of some of the variables: rows (NaN and Inf counts 0, max |g| not yet
    NaN), histograms, sums of squares, and how to count their NaN and Inf entries."""

    rows: tf.Tensor
    hists: tf.Tensor
    squares: tf.Tensor
    count_nonfinite: Callable[[], tf.Tensor]


def norm(t: tf.Tensor) -> tf.Tensor:
    """sqrt(sum(t**2)) as one fused reduction (``l2_loss`` is sum(t**2) / 2)."""
    return tf.sqrt(2.0 * tf.nn.l2_loss(t))


def _float32(t: tf.Tensor) -> tf.Tensor:
    return t if t.dtype == tf.float32 else tf.cast(t, tf.float32)


def _flat(t: tf.Tensor) -> tf.Tensor:
    return tf.reshape(_float32(t), [-1])


def _own_stats(
    grads: Sequence[tf.Tensor],
    w_old: Sequence[tf.Tensor | None] | None,
    w_new: Sequence[tf.Tensor | None] | None,
    xla: bool,
    norms: Sequence[tuple[tf.Tensor, tf.Tensor] | None] | None = None,
) -> _Part:
    """Gradients with reductions of their own, each read in place (no copy): per gradient
    its sum of squares (``l2_loss``), sum and max of |g|; one histogram for all their
    (sampled) values, whose zeros column gives the exact zero count of a gradient read
    whole (a sampled one counts its zeros from its bits)."""
    m = len(grads)
    halves, abs_sums, maxes, samples, scales = [], [], [], [], []
    w_norms: list[tf.Tensor] = []
    u_norms: list[tf.Tensor] = []
    counts: list[Any] = []
    exact_zeros: dict[int, tf.Tensor] = {}  # the zero counts of the sampled gradients
    nan_value = tf.constant(np.nan, tf.float32)
    for i, grad in enumerate(grads):
        g = _float32(grad)
        n = g.shape.num_elements()  # static where known: fewer ops to trace
        counts.append(tf.size(g) if n is None else n)
        absg = tf.abs(g)  # a bit operation: subnormals stay non-zero
        halves.append(tf.nn.l2_loss(g))
        abs_sums.append(tf.reduce_sum(absg))
        maxes.append(tf.reduce_max(absg))
        flat_abs = tf.reshape(absg, [-1])
        sample, scale = hist_sample(flat_abs)
        samples.append(sample)
        scales.append(scale)
        if n is None or n > SAMPLE:
            bits = tf.bitcast(flat_abs, tf.int32)
            nonzero = tf.reduce_sum(tf.minimum(bits, 1))
            exact_zeros[i] = tf.cast(counts[-1] - nonzero, tf.float32)
        given = norms[i] if norms is not None else None
        old, new = (w_old[i] if w_old else None), (w_new[i] if w_new else None)
        if given is not None:  # as measured (not squared again: that could overflow)
            w_norms.append(tf.cast(given[0], tf.float32))
            u_norms.append(tf.cast(given[1], tf.float32))
        else:
            w_norms.append(nan_value if old is None else norm(_float32(old)))
            u_norms.append(
                nan_value if old is None or new is None else norm(_float32(new) - _float32(old))
            )
    static = all(isinstance(c, int) for c in counts)
    size = (
        tf.constant([float(max(c, 1)) for c in counts])
        if static
        else tf.maximum(tf.cast(tf.stack(counts), tf.float32), 1.0)
    )
    lengths = [s.shape.num_elements() for s in samples]
    repeats: Any = lengths if None not in lengths else tf.stack([tf.size(s) for s in samples])
    segment = tf.repeat(tf.range(m), repeats)
    hists, zeros = _histograms(
        tf.bitcast(tf.concat(samples, 0) if m > 1 else samples[0], tf.int32), segment, m, xla=xla
    )
    if exact_zeros:  # a sampled gradient's zeros column is a count of its sample
        zeros = tf.tensor_scatter_nd_update(
            zeros, [[i] for i in exact_zeros], tf.stack(list(exact_zeros.values()))
        )
    if any(not isinstance(s, float) or s != 1.0 for s in scales):
        hists = hists * tf.stack([tf.cast(s, tf.float32) for s in scales])[:, None]
    squares = 2.0 * tf.stack(halves)
    none = tf.zeros([m])
    rows = tf.stack(
        [
            tf.sqrt(squares),
            tf.stack(abs_sums) / size,
            tf.maximum(tf.stack(maxes), 0.0),  # 0 for an empty gradient
            none,
            none,
            zeros / size,
            tf.stack(w_norms),
            tf.stack(u_norms),
        ],
        axis=1,
    )

    def count_nonfinite() -> tf.Tensor:
        return tf.stack([_nonfinite_counts(g) for g in grads])

    return _Part(rows=rows, hists=hists, squares=squares, count_nonfinite=count_nonfinite)


def _nonfinite_counts(grad: tf.Tensor) -> tf.Tensor:
    g = _float32(grad)
    nan = tf.reduce_sum(tf.cast(tf.math.is_nan(g), tf.float32))
    inf = tf.reduce_sum(tf.cast(tf.math.is_inf(g), tf.float32))
    return tf.stack([nan, inf])


def hist_sample(g: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor | float]:
    """The values of the flat float32 ``g`` the histogram reads, and the factor that scales
    their counts to ``g``'s size: all of them up to :data:`SAMPLE`, else every
    ``stride``-th from the first, ``stride`` the smallest odd number that leaves at most
    :data:`SAMPLE`."""
    n = g.shape.num_elements()
    if n is not None:
        if n <= SAMPLE:
            return g, 1.0
        stride = -(-n // SAMPLE)
        stride += 1 - stride % 2
        taken = -(-n // stride)
        return g[::stride], n / taken
    size = tf.size(g)
    stride = tf.maximum((size + SAMPLE - 1) // SAMPLE, 1)
    stride += 1 - stride % 2
    sample = g[::stride]
    scale = tf.cast(size, tf.float32) / tf.maximum(tf.cast(tf.size(sample), tf.float32), 1.0)
    return sample, scale


#: columns of the exponent counts: the 256 values of the float32 exponent field, then zeros
_COLUMNS = 257


def _fold() -> np.ndarray:
    """(257, HIST_BINS): exponent field -> histogram bin.  floor(log2|g|) is the field - 127
    for normal values, in bins of ``HIST_LOG2_WIDTH`` from ``HIST_LOG2_LO``, the edge bins
    taking what lies outside (subnormals, field 0, the first); field 255 (NaN, Inf) and
    the zeros column count nowhere."""
    fold = np.zeros((_COLUMNS, HIST_BINS), np.float32)
    for field_value in range(255):
        offset = field_value - 127 - HIST_LOG2_LO
        fold[
            field_value, min(max(offset, 0), HIST_BINS * HIST_LOG2_WIDTH - 1) // HIST_LOG2_WIDTH
        ] = 1
    return fold


_FOLD = _fold()


def _histograms(
    abs_bits: tf.Tensor, segment: tf.Tensor, k: int, *, xla: bool
) -> tuple[tf.Tensor, tf.Tensor]:
    """(k, HIST_BINS) counts of finite non-zero values and (k,) counts of zeros, from the
    int32 bits of their absolute values (a sign-free float32 bit pattern: -0.0 is 0) and
    their segment ids in ``[0, k)``: one count per (segment, exponent field or zero) with
    integer ops, then folded into the bins."""
    column = tf.where(tf.equal(abs_bits, 0), _COLUMNS - 1, tf.bitwise.right_shift(abs_bits, 23))
    key = segment * _COLUMNS + column
    if xla:  # XLA wants bincount's size constant: a segment sum
        counts = tf.math.unsorted_segment_sum(tf.ones_like(key, tf.float32), key, k * _COLUMNS)
    else:
        counts = tf.cast(
            tf.math.bincount(key, minlength=k * _COLUMNS, maxlength=k * _COLUMNS), tf.float32
        )
    counts = tf.reshape(counts, [k, _COLUMNS])
    return tf.matmul(counts, tf.constant(_FOLD)), counts[:, _COLUMNS - 1]


def _stacked_stats(
    grads: Sequence[tf.Tensor],
    w_old: Sequence[tf.Tensor] | None,
    w_new: Sequence[tf.Tensor] | None,
) -> _Part:
    """Small variables with static, non-zero sizes, flattened into one vector and reduced
    with sorted segment sums (each histogram reads all its values, and counts the zeros)."""
    k = len(grads)

    def flat(tensors: Sequence[tf.Tensor]) -> tf.Tensor:
        parts = [_flat(t) for t in tensors]
        return tf.concat(parts, 0) if len(parts) > 1 else parts[0]

    sizes = [int(g.shape.num_elements()) for g in grads]
    g = flat(grads)
    segment = tf.constant(np.repeat(np.arange(k, dtype=np.int32), sizes))
    absg = tf.abs(g)  # a bit operation: subnormals stay non-zero
    hists, zeros = _histograms(tf.bitcast(absg, tf.int32), segment, k, xla=False)
    squares = tf.math.segment_sum(tf.square(g), segment)
    count = tf.constant([float(n) for n in sizes])
    missing = tf.fill([k], np.nan)
    w_norm = u_norm = missing
    if w_old is not None:
        w0 = flat(w_old)
        w_norm = tf.sqrt(tf.math.segment_sum(tf.square(w0), segment))
        if w_new is not None:
            u_norm = tf.sqrt(tf.math.segment_sum(tf.square(flat(w_new) - w0), segment))
    none = tf.zeros([k])
    rows = tf.stack(
        [
            tf.sqrt(squares),
            tf.math.segment_sum(absg, segment) / count,
            tf.math.segment_max(absg, segment),
            none,
            none,
            zeros / count,
            w_norm,
            u_norm,
        ],
        axis=1,
    )

    def count_nonfinite() -> tf.Tensor:
        flags = tf.stack([tf.math.is_nan(g), tf.math.is_inf(g)], axis=1)
        return tf.math.segment_sum(tf.cast(flags, tf.float32), segment)

    return _Part(rows=rows, hists=hists, squares=squares, count_nonfinite=count_nonfinite)


def in_xla(graph: Any) -> bool:
    """Whether ops built now land in an XLA-compiled function (TensorFlow's own test)."""
    from tensorflow.python.ops import control_flow_util

    return bool(control_flow_util.GraphOrParentsInXlaContext(graph))
