"""Contracts of sparse and ragged values, and of the layers that take one value per example.

- A ``tf.SparseTensor`` is not a dense tensor: dense ops refuse it ("Attempt to convert a
  value (SparseTensor(...)) with an unsupported type"); ``tf.sparse`` has the counterparts
  (``sparse_dense_matmul``, ``reduce_sum``, ``add``, ``concat``, ``reshape``), or
  ``tf.sparse.to_dense`` first.  A ``tf.RaggedTensor`` likewise needs ``.to_tensor()``.
- Its ``indices`` must lie inside ``dense_shape`` (an id equal to the vocabulary size is
  one past the end) and, for the ops and for Keras' batching by rows, be in row-major order
  (``tf.sparse.reorder``).
- ``RaggedTensor.from_row_lengths``/``from_row_splits``/``from_value_rowids`` partition
  ``values``: the lengths add up to ``len(values)``, the splits start at 0 and end there,
  the row ids do not decrease.
- ``CategoryEncoding`` counts ids ``0 .. num_tokens - 1``: a ``-1`` used as padding has no
  slot.  ``HashedCrossing`` crosses one value per example of each input, not one-hot rows.

Each check reads the live values the call got and names the entry that breaks the contract.
``SPARSE_RAGGED`` is this module's table, added to ``CONTRACTS`` in order.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._violation import Violation, is_a

_SPARSE_OPS = {
    "matmul": "tf.sparse.sparse_dense_matmul({a}, {b})",
    "reduce_sum": "tf.sparse.reduce_sum({a}, axis=...)",
    "reduce_max": "tf.sparse.reduce_max({a}, axis=...)",
    "add": "tf.sparse.add({a}, {b})",
    "concat": "tf.sparse.concat(axis, [...])",
    "reshape": "tf.sparse.reshape({a}, shape)",
    "transpose": "tf.sparse.transpose({a})",
    "expand_dims": "tf.sparse.expand_dims({a}, axis)",
}


def sparse_into_dense_op(call: LiveCall, exc: BaseException) -> Violation | None:
    """S11: a dense op given a SparseTensor (its tf.sparse counterpart), or a RaggedTensor."""
    if not re.search(r"unsupported type|Failed to convert", str(exc)):
        return None
    names = list(call.values)
    for position, name in enumerate(names):
        value = call.value(name)
        text = call.text(name)
        if is_a(value, "SparseTensor"):
            op = call.api.rsplit(".", 1)[-1]
            other = call.text(names[1 - position]) if len(names) > 1 and position < 2 else "b"
            if op == "matmul" and position == 1:
                fix = (
                    f"`tf.transpose(tf.sparse.sparse_dense_matmul({text}, {other}, "
                    "adjoint_a=True, adjoint_b=True))` (the sparse operand goes first)"
                )
            elif op in _SPARSE_OPS:
                fix = f"`{_SPARSE_OPS[op].format(a=text, b=other)}`"
            else:
                fix = f"`tf.sparse.to_dense({text})` first (dense ops take dense tensors)"
            return Violation(
                "S11",
                text,
                f"`{text}` is a tf.SparseTensor, and `{call.api}` takes dense tensors only",
                f"use the sparse op, {fix}"
                if op in _SPARSE_OPS
                else f"convert it with {fix}, or use the tf.sparse op that does the same",
            )
        if is_a(value, "RaggedTensor") and "RaggedTensor" in str(exc):
            return Violation(
                "S11",
                text,
                f"`{text}` is a tf.RaggedTensor (rows of different lengths), and `{call.api}` "
                "takes a dense tensor",
                f"pad it to one length first, `{text}.to_tensor()` (0 fills the short rows), or "
                "use the op on its values, `tf.ragged.map_flat_values(op, "
                f"{text})`",
            )
    return None


def sparse_index_bounds(call: LiveCall, exc: BaseException) -> Violation | None:
    """S09: a SparseTensor index on or past its dense_shape on some axis."""
    if "out of bounds" not in str(exc):
        return None
    for name, value in call.values.items():
        if not is_a(value, "SparseTensor"):
            continue
        indices, shape = _numpy(value.indices), _numpy(value.dense_shape)
        if indices is None or shape is None or not indices.size:
            continue
        for axis, size in enumerate(shape.tolist()):
            top = int(indices[:, axis].max())
            if top >= size:
                text = call.text(name)
                count = int((indices[:, axis] >= size).sum())
                return Violation(
                    "S09",
                    text,
                    f"`{text}` holds index {top} on axis {axis} ({count} "
                    f"entr{'ies' if count > 1 else 'y'} at or past {size}), but its dense_shape "
                    f"is {shape.tolist()}: indices on that axis run 0..{size - 1}",
                    f"if {top} is a real id, the size on axis {axis} must be {top + 1} (the "
                    f"largest id + 1: `dense_shape=[..., {top + 1}]`, a vocabulary size of "
                    f"{top + 1}); if it is not, drop the entries with ids >= {size}",
                )
    return None


def sparse_row_order(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: a SparseTensor whose indices are not in row-major order."""
    if not re.search(r"RowPartition|out of order", str(exc)) or "reorder" in str(exc):
        return None  # TensorFlow's own message names tf.sparse.reorder where it checks the order
    for name, value in call.values.items():
        if not is_a(value, "SparseTensor"):
            continue
        indices = _numpy(value.indices)
        if indices is None or len(indices) < 2:
            continue
        rows = [tuple(r) for r in indices.tolist()]
        at = next((i for i in range(1, len(rows)) if rows[i] < rows[i - 1]), None)
        if at is None:
            continue
        text = call.text(name)
        return Violation(
            "S12",
            text,
            f"`{text}`'s indices are not in row-major order: entry {at} {list(rows[at])} comes "
            f"after {list(rows[at - 1])}; `{call.api}` splits a SparseTensor by rows, which "
            "needs them sorted",
            f"sort them first, `{text} = tf.sparse.reorder({text})`",
        )
    return None


def ragged_partition(call: LiveCall, exc: BaseException) -> Violation | None:
    """S07: row lengths / splits / row ids that do not partition the values."""
    if "valid RaggedTensor" not in str(exc):
        return None
    values = _numpy(call.value("values"))
    if values is None:
        return None
    count = len(values)
    lengths = _numpy(call.value("row_lengths"))
    splits = _numpy(call.value("row_splits"))
    rowids = _numpy(call.value("value_rowids"))
    if lengths is not None and int(lengths.sum()) != count:
        total = int(lengths.sum())
        return Violation(
            "S07",
            call.text("row_lengths"),
            f"the row_lengths {lengths.tolist()} add up to {total}, but `{call.text('values')}` "
            f"holds {count} values",
            f"make the lengths add up to {count} ({'shorten' if total > count else 'lengthen'} "
            f"a row by {abs(total - count)}), or give the values that are "
            f"{'missing' if total > count else 'left over'}",
        )
    if splits is not None and len(splits) and (int(splits[0]) != 0 or int(splits[-1]) != count):
        return Violation(
            "S07",
            call.text("row_splits"),
            f"the row_splits {splits.tolist()} must start at 0 and end at {count} (the number "
            f"of values in `{call.text('values')}`)",
            f"row_splits are cumulative: [0, len(row 0), len(row 0) + len(row 1), ..., {count}]",
        )
    if rowids is not None and len(rowids) > 1 and (rowids[1:] < rowids[:-1]).any():
        return Violation(
            "S07",
            call.text("value_rowids"),
            f"the value_rowids {rowids.tolist()[:10]} decrease: each value's row id must be "
            "at least the one before it",
            "sort the values by row (the ids and the values together), e.g. with "
            "`order = np.argsort(rowids, kind='stable')`",
        )
    return None


def category_encoding_negative(call: LiveCall, exc: BaseException) -> Violation | None:
    """S09: CategoryEncoding given negative ids (a -1 used as padding)."""
    if "non-negative" not in str(exc):
        return None
    inputs = _numpy(call.value("inputs"))
    layer = call.receiver
    tokens = getattr(layer, "num_tokens", None)
    if inputs is None or tokens is None or not (inputs < 0).any():
        return None
    negative = sorted({int(v) for v in inputs[inputs < 0].tolist()})
    count = int((inputs < 0).sum())
    return Violation(
        "S09",
        call.text("inputs"),
        f"the ids hold {count} negative value{'s' if count > 1 else ''} ({negative}), and "
        f"CategoryEncoding(num_tokens={tokens}) counts ids 0..{tokens - 1} only: a "
        f"{negative[0]} used as padding has no slot",
        f"shift every id by 1 (`ids + 1`, num_tokens={tokens + 1}: slot 0 then counts the "
        "padding, and can be dropped), or remove the padding ids before encoding (a ragged "
        "input, `tf.ragged.boolean_mask(ids, ids >= 0)`)",
    )


def crossing_of_vectors(call: LiveCall, exc: BaseException) -> Violation | None:
    """S01: HashedCrossing given one-hot (or other vector) rows instead of one value each."""
    if "HashedCrossing" not in str(exc):
        return None
    inputs = call.value("inputs")
    items = list(inputs) if isinstance(inputs, tuple | list) else []
    arrays = [_numpy(item) for item in items]
    wide = [a for a in arrays if a is not None and a.ndim == 2 and a.shape[1] > 1]
    if not wide:
        return None
    one_hot = all(((a == 0) | (a == 1)).all() and (a.sum(axis=1) == 1).all() for a in wide)
    shapes = ", ".join(str(tuple(a.shape)) for a in arrays if a is not None)
    return Violation(
        "S01",
        call.text("inputs"),
        f"HashedCrossing crosses one value per example from each input, but got shapes "
        f"{shapes}" + (": one-hot rows" if one_hot else ": several values per example"),
        (
            "cross the raw values, or lookups with output_mode='int' (one id each), then "
            "one-hot the crossed ids: `keras.layers.HashedCrossing(num_bins, "
            "output_mode='one_hot')`"
            if one_hot
            else "give it one value per example from each feature (shape (batch,) or "
            "(batch, 1)): the raw value or its integer id"
        ),
    )


def _numpy(value: Any) -> Any:
    import numpy as np

    if value is None:
        return None
    try:
        array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    except Exception:
        return None
    return array if array.dtype.kind in "iuf" else None


# (APIs matched by suffix, check, raise-site messages it explains[, layer]) for ``Contract``
SPARSE_RAGGED: tuple[tuple[Any, ...], ...] = (
    (
        ("*",),
        sparse_into_dense_op,
        (r"unsupported type \(<class '[\w.]*(?:Sparse|Ragged)Tensor'>\)",),
    ),
    (("*",), sparse_index_bounds, (r"is out of bounds: need 0 <= index <",)),
    (("*",), sparse_row_order, (r"do not form a valid RowPartition", r"is out of order")),
    (
        ("from_row_lengths", "from_row_splits", "from_value_rowids"),
        ragged_partition,
        (r"do not form a valid RaggedTensor",),
    ),
    (
        ("CategoryEncoding",),
        category_encoding_negative,
        (r"must be non-negative! Negative input value found",),
        True,
    ),
    (("HashedCrossing",), crossing_of_vectors, (r"All `HashedCrossing` inputs should have",), True),
)
