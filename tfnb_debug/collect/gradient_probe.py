"""The gradient statistics of one batch with no optimizer step, for ``%tfgrad MODEL X Y``.

:func:`probe_batch` (called by :func:`tfnb_debug.probe_gradients`) runs the model on
one ``(x, y)`` batch with ``training=True`` under a ``tf.GradientTape``, with its
compiled loss or one given as a name, a function or a ``keras.losses.Loss``, and
computes for each trainable variable the statistics a recorded step holds
(:func:`~tfnb_debug.collect.grad_stats.gradient_stats`, eagerly, with no device
buffers and nothing patched).  Every variable of the model, its metrics and its
optimizer is restored afterwards (:func:`~tfnb_debug.collect._patching.preserved`).
The result is a one-record :class:`~tfnb_debug.collect.gradient_recorder.CaptureData`,
read by the same rules as a recording made by :mod:`tfnb_debug.collect.gradients`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tfnb_debug.collect._patching import preserved
from tfnb_debug.collect.grad_stats import gradient_stats
from tfnb_debug.collect.gradient_recorder import CaptureData, _read, _variable_meta
from tfnb_debug.collect.keras_access import build_from_data
from tfnb_debug.ground.text import first_line, loss_name
from tfnb_debug.records.gradients import HIST_BINS, STAT_COLUMNS

__all__ = ["probe_batch"]


def probe_batch(model: Any, x: Any, y: Any, *, loss: Any = None) -> tuple[CaptureData, str]:
    """One ``training=True`` forward and backward pass; nothing changes in the model.

    Returns the statistics of one record (no update norm: no step is taken)
    and a description of the loss used.
    """
    import keras

    from tfnb_debug.ground.errors import TfnbDebugError

    if loss is None:
        if getattr(model, "loss", None) is None:
            raise TfnbDebugError(
                f"model '{getattr(model, 'name', '?')}' is not compiled with a loss: compile it "
                "or pass one (`%tfgrad MODEL X Y --loss sparse_categorical_crossentropy`)"
            )
        loss_fn = None
        described = f"the compiled loss ({_loss_name(model.loss)})"
    else:
        try:
            loss_fn = keras.losses.get(loss) if isinstance(loss, str) else loss
        except ValueError:
            raise TfnbDebugError(
                f"unknown loss {loss!r}: give a Keras loss name such as "
                "'sparse_categorical_crossentropy', a function or a keras.losses.Loss"
            ) from None
        if not callable(loss_fn):
            raise TfnbDebugError(
                f"the loss must be a Keras loss name, a function or a keras.losses.Loss, "
                f"got {type(loss).__name__}: e.g. --loss sparse_categorical_crossentropy"
            )
        described = _loss_name(loss)
    build_from_data(model, x)  # a model without an Input, as its first fit would build it
    variables = list(model.trainable_variables)
    if not variables:
        raise TfnbDebugError(f"model '{getattr(model, 'name', '?')}' has no trainable variables")
    with preserved(model, rng=False):
        try:
            with tf.GradientTape() as tape:
                y_pred = model(x, training=True)
                if loss_fn is None:
                    value = model.compute_loss(x=x, y=y, y_pred=y_pred, training=True)
                else:
                    value = tf.reduce_mean(loss_fn(y, y_pred))
                    if model.losses:
                        value = value + tf.add_n([tf.cast(v, value.dtype) for v in model.losses])
        except TfnbDebugError:
            raise
        except Exception as err:
            first = first_line(err)
            raise TfnbDebugError(
                f"the forward pass of model '{getattr(model, 'name', '?')}' on X/Y failed: "
                f"{type(err).__name__}: {first}"
            ) from None
        grads = tape.gradient(value, variables)
        opt_name = str(getattr(getattr(model, "optimizer", None), "name", "-"))
        meta = tuple(_variable_meta(v, opt_name) for v in variables)
        n = len(variables)
        stats = np.full((1, n, len(STAT_COLUMNS)), np.nan, dtype=np.float32)
        hist = np.zeros((1, n, HIST_BINS), dtype=np.float32)
        present = [i for i, g in enumerate(grads) if g is not None]
        none = [meta[i].path for i, g in enumerate(grads) if g is None]
        rows, counts = gradient_stats(
            [tf.convert_to_tensor(grads[i]) for i in present],
            [_read(variables[i]) for i in present],
            None,
        )
        stats[0, present] = rows.numpy()
        hist[0, present] = counts.numpy()
        loss_value = float(tf.cast(value, tf.float32).numpy())
    data = CaptureData(
        variables=meta,
        steps=np.zeros(1, dtype=np.int64),
        loss=np.array([loss_value]),
        loss_known=np.array([True]),
        stats=stats,
        hist=hist,
        no_gradient=tuple(none),
        total_steps=0,
        replicas=1,
        loss_scaled_by=(),
    )
    return data, described


def _loss_name(loss: Any) -> str:
    return loss_name(loss)
