"""Two contracts of ``tf.distribute`` that custom training loops break.

- ``strategy.experimental_distribute_dataset(dataset)`` takes a ``tf.data.Dataset``; NumPy
  arrays or a tuple of them fail inside it ("'tuple' object has no attribute
  '_variant_tensor'") (S12).
- ``tf.nn.compute_average_loss(per_example_loss, global_batch_size)`` takes one loss per
  example; a Keras loss object with its default reduction already averaged the batch to a
  scalar ("Expected a tensor with at least rank 1 ... rank 0"), which is the replica-scaling
  mistake D01 names: build the loss with ``reduction="none"``.
"""

from __future__ import annotations

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation


def distribute_non_dataset(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: ``experimental_distribute_dataset`` given arrays instead of a dataset."""
    value = call.value("dataset")
    if value is UNREAD or "_variant_tensor" not in str(exc):
        return None
    kind = type(value).__name__
    if kind not in ("tuple", "list", "ndarray", "dict", "DataFrame"):
        return None
    text = call.text("dataset") or "dataset"
    parts = text.strip()
    return Violation(
        "S12",
        text,
        f"`{text}` is a {kind}, and experimental_distribute_dataset takes a tf.data.Dataset",
        f"make the dataset first and batch it with the global batch size: "
        f"`tf.data.Dataset.from_tensor_slices({parts}).batch(GLOBAL_BATCH)`",
    )


def scalar_average_loss(call: LiveCall, exc: BaseException) -> Violation | None:
    """D01: compute_average_loss given a loss a Keras loss object already reduced."""
    if "at least rank 1" not in str(exc):
        return None
    text = call.text("per_example_loss") or "per_example_loss"
    made = f"`{text.split('(', 1)[0].strip()}(...)`" if "(" in text else "the loss"
    return Violation(
        "D01",
        text,
        f"`{text}` is already one number for the replica's batch (a loss reduced to a scalar, "
        "e.g. a Keras loss object with its default reduction), so compute_average_loss cannot "
        "divide it by the global batch",
        f"give compute_average_loss one loss per example: build the loss with "
        f"`reduction='none'` (e.g. `keras.losses.SparseCategoricalCrossentropy(from_logits=True, "
        f"reduction='none')`), so {made} keeps the batch axis",
    )
