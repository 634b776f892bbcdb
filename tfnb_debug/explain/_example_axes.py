"""Which axis the data lacks when a model got a tensor of one rank too few: its batch axis or
its channel axis.

Keras reads the first axis of whatever ``fit``/``evaluate``/``predict`` is given as the batch
axis.  One image passed on its own, ``(64, 64, 3)``, is therefore cut into batches of rows,
``(32, 64, 3)``, and a stack of grayscale images ``(10, 28, 28)`` arrives as ``(None, 28,
28)``: both are "one axis too few", with opposite fixes (``x[None]`` against ``x[...,
None]``).  The data's own shape, read against the model's declared ``Input``, tells them
apart:

- the data has the declared per-example shape (or that shape without its trailing channel
  of 1): one example without its batch axis (S12);
- the data has every declared axis but a trailing 1: images without their channel axis.

Without a declared ``Input`` (a Sequential built by its first call) the shape alone decides
only for image layers, and only where one cause fits: a last axis of 1, 3 or 4 is a channel
axis (one image), any other last axis a spatial size (images without their channel axis),
and two axes missing is one grayscale image.  Otherwise nothing is said
here and the plain rank hint names both causes.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext, fmt_shape, same_shape
from tfnb_debug.explain._data_origin import _DATA_METHODS, DataOrigin

_CHANNELS = (1, 3, 4)  # grayscale, RGB, RGBA


def example_axes(
    ctx: ErrorContext,
    received: tuple[int | None, ...],
    expected_ndim: int,
    declared: tuple[int | None, ...] | None = None,
) -> DataOrigin | None:
    """(evidence, hint, code) when the data the call was given shows which axis it lacks."""
    call = ctx.evidence.call
    x = call.arg(0, "x") if call is not None and call.method in _DATA_METHODS else None
    if x is None or not x.shape or x.kind not in ("array", "tensor"):
        return None
    shape = x.shape
    if len(shape) >= expected_ndim or (received and not same_shape(shape[1:], received[1:])):
        return None  # not the tensor that failed (a layer of the model made it)
    if declared is None and len(ctx.model_inputs) == 1:
        declared = ctx.model_inputs[0]
    name = x.text if re.fullmatch(r"[\w.]+(?:\[[^\]]*\])*", x.text) else f"({x.text})"
    if declared is not None and len(declared) == expected_ndim:
        return _against_input(name, shape, declared)
    # no Input declared, or one a Sequential built from this very data (its rank too low)
    if expected_ndim in (4, 5):
        return _image_shape(name, shape, expected_ndim)
    return None


def _against_input(
    name: str, shape: tuple[int | None, ...], declared: tuple[int | None, ...]
) -> DataOrigin | None:
    example = declared[1:]
    given = f"`{name}` has shape {fmt_shape(shape)}"
    if same_shape(shape, example):
        return DataOrigin(
            f"{given}, the shape of one example of the model's Input {fmt_shape(declared)}: "
            f"Keras took its first axis ({shape[0]}) as the batch axis",
            f"`{name}` is one example without its batch axis: add it, `{name}[None]` (or "
            f"`np.expand_dims({name}, 0)`), a batch of one of shape {fmt_shape((1, *shape))}",
            "S12",
        )
    if example[-1] == 1 and same_shape(shape, example[:-1]):
        return DataOrigin(
            f"{given}: one example of the model's Input {fmt_shape(declared)} without its "
            "channel axis of 1",
            f"`{name}` is one example without its batch axis and its channel axis: add both, "
            f"`{name}[None, ..., None]`, a batch of one of shape {fmt_shape((1, *example))}",
            "S12",
        )
    if example[-1] == 1 and len(shape) == len(declared) - 1 and same_shape(shape[1:], example[:-1]):
        return DataOrigin(
            f"{given}: {shape[0]} examples of the model's Input {fmt_shape(declared)} without "
            "their channel axis of 1",
            f"add the channel axis to the data, `{name}[..., None]` (or "
            f"`np.expand_dims({name}, -1)`)",
        )
    return None


def _image_shape(name: str, shape: tuple[int | None, ...], expected_ndim: int) -> DataOrigin | None:
    given = f"`{name}` has shape {fmt_shape(shape)}"
    if len(shape) == expected_ndim - 1 and shape[-1] in _CHANNELS:
        return DataOrigin(
            f"{given}: its last axis ({shape[-1]}) is a channel axis, so it is one image, and "
            f"Keras took its first axis ({shape[0]}) as the batch axis",
            f"`{name}` is one image without its batch axis: add it, `{name}[None]` (or "
            f"`np.expand_dims({name}, 0)`), a batch of one of shape {fmt_shape((1, *shape))}",
            "S12",
        )
    if len(shape) == expected_ndim - 1:
        return DataOrigin(
            f"{given}: {shape[0]} images whose last axis ({shape[-1]}) is a spatial size, "
            "without their channel axis",
            f"add the channel axis to the data, `{name}[..., None]` (or "
            f"`np.expand_dims({name}, -1)`)",
        )
    if len(shape) == expected_ndim - 2 and shape[-1] not in _CHANNELS:
        return DataOrigin(
            f"{given}: {expected_ndim - len(shape)} axes fewer than the layer reads (batch, "
            "..., channels): one grayscale image",
            f"`{name}` is one image without its batch and channel axes: add both, "
            f"`{name}[None, ..., None]`",
            "S12",
        )
    return None
