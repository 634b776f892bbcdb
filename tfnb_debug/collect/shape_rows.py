"""Freeze what a :class:`~tfnb_debug.collect.shapes.ShapeCollector` saw into ``LayerCall`` rows.

:func:`rows_of` is the end of a recording: it drops a pending Sequential build
that succeeded, fetches the statistics computed on accelerators in one
transfer, and turns each call in progress into a frozen
:class:`~tfnb_debug.records.shapes.LayerCall`, with the parameters a layer owns
itself (:func:`own_params`, on its first call only), its dtype policy and, for
an RNN layer, its time steps.
"""

from __future__ import annotations

from typing import Any

import keras

from tfnb_debug.collect.keras_access import all_sublayers
from tfnb_debug.collect.shapes import ShapeCollector, _Open
from tfnb_debug.records.shapes import LayerCall, TensorInfo


def _policy_name(layer: Any) -> str:
    policy = getattr(layer, "dtype_policy", None)
    return str(getattr(policy, "name", "") or "")


def own_params(layer: Any, recorded: set[int] | None = None) -> tuple[int, int]:
    """(trainable, non-trainable) parameters of ``layer``'s weights that no recorded sublayer owns.

    ``recorded`` holds the ids of the layers that have rows of their own;
    a sublayer without one (the layer inside ``TimeDistributed``, which calls
    its ``call`` directly) is counted here, in its wrapper's row, so the
    column still sums to ``model.count_params()``.  Without ``recorded``
    every sublayer counts as recorded.
    """
    sub_ids: set[int] = set()
    for sub in all_sublayers(layer):
        if recorded is None or id(sub) in recorded:
            sub_ids.update(id(v) for v in getattr(sub, "weights", ()))
    trainable = sum(_size(v) for v in _weights(layer, "trainable_weights") if id(v) not in sub_ids)
    frozen = sum(_size(v) for v in _weights(layer, "non_trainable_weights") if id(v) not in sub_ids)
    return trainable, frozen


def _weights(layer: Any, attr: str) -> list[Any]:
    try:
        return list(getattr(layer, attr))
    except Exception:
        return []


def _size(variable: Any) -> int:
    n = 1
    for d in variable.shape:
        n *= int(d)
    return n


def rows_of(collector: ShapeCollector) -> tuple[LayerCall, ...]:
    """Turn what the collector saw into frozen rows (parameters on each layer's first call)."""
    collector.finish()
    device = collector.finish_device_stats()
    seen: set[int] = set()
    recorded = {id(frame.layer) for frame in collector.calls}
    rows = []
    for frame in collector.calls:
        lid = id(frame.layer)
        trainable: int | None = None
        frozen: int | None = None
        if lid not in seen:
            seen.add(lid)
            trainable, frozen = own_params(frame.layer, recorded)
        outputs = frame.outputs
        if device:
            outputs = tuple(
                TensorInfo(
                    shape=o.shape,
                    dtype=o.dtype,
                    stats=device.get((frame.index, i), o.stats),
                )
                for i, o in enumerate(outputs)
            )
        rows.append(
            LayerCall(
                index=frame.index,
                path=frame.path,
                name=str(frame.layer.name),
                class_name=type(frame.layer).__name__,
                depth=frame.depth,
                parent=frame.parent,
                root=frame.root,
                call=frame.call,
                mode=frame.mode,
                inputs=frame.inputs,
                outputs=outputs,
                trainable_params=trainable,
                non_trainable_params=frozen,
                status="ok" if frame.status == "ok" else frame.status,  # type: ignore[arg-type]
                finished=frame.finished,
                activation=frame.activation,
                error=frame.error,
                error_type=frame.error_type,
                is_model=isinstance(frame.layer, keras.Model),
                has_children=frame.has_children,
                steps=_time_steps(frame),
                policy=_policy_name(frame.layer),
                compute_dtype=str(getattr(frame.layer, "compute_dtype", "") or ""),
            )
        )
    return tuple(rows)


def _time_steps(frame: _Open) -> int:
    """An RNN row's time steps: the input's time axis (Keras calls the cell once more than
    that, to build it), else the number of cell calls seen; 0 for any other layer."""
    if not frame.steps:
        return 0
    shape = frame.inputs[0].shape if frame.inputs else None
    axis = 0 if getattr(frame.layer, "time_major", False) else 1
    length = shape[axis] if shape is not None and len(shape) >= 3 else None
    return length if isinstance(length, int) else frame.steps
