"""Where an image's size or channel count came from, when a layer of a model refuses it.

A layer's input check states the shape it was built for and the one it got.  For images
(``(batch, height, width, channels)``) the difference says which fix fits:

- one axis less, and the rest equal: one example without its batch axis (S12);
- the same height and width and another channel count: grayscale, RGB or RGBA images for a
  model built for another of them; a dataset made by
  ``keras.utils.image_dataset_from_directory`` decodes with ``color_mode="rgb"`` unless told,
  so for its images the fix is that argument where the dataset is made;
- the same channels and another height or width: images of another size (resize them, or
  build the model for theirs).

A channel hint is given only when the channels came from the data: the tensor reached the
layer from the model's Input or through layers that keep the last axis (``Rescaling``,
``Normalization``, augmentation, pooling, ...), and the model's Input declares the channel
count the layer was built for.  A width that a layer of the model made is another cause
(:func:`tfnb_debug.diagnostics.shape_hints.width_hint` names it).
"""

from __future__ import annotations

from tfnb_debug.diagnostics.shape_hints import SAME_LAST_AXIS
from tfnb_debug.explain._context import (
    ErrorContext,
    InputInfo,
    fmt_shape,
    parse_shape,
    same_shape,
)
from tfnb_debug.explain._layer_made import layer_sized_hint
from tfnb_debug.explain._traceback_objects import DatasetInfo

_COLOR_MODE = {1: "grayscale", 3: "rgb", 4: "rgba"}
_KIND = {1: "grayscale", 3: "RGB", 4: "RGBA"}


def directory_images(ctx: ErrorContext) -> DatasetInfo | None:
    """The dataset of the failing call that ``image_dataset_from_directory`` made, if any."""
    for ds in ctx.datasets:
        if any(stage.loader == "image_dataset_from_directory" for stage in ds.stages):
            return ds
    return None


def from_the_data(source: InputInfo | None) -> bool:
    """The tensor reached the layer from the model's Input or through layers that keep its
    last axis (so its channels are the data's)."""
    if source is None or source.producer in ("", "input"):
        return True
    return source.producer_class in ("InputLayer", *SAME_LAST_AXIS)


def _from_input(source: InputInfo | None) -> bool:
    return source is not None and source.producer_class == "InputLayer"


def channel_hint(
    ctx: ErrorContext,
    layer: str,
    built_for: int,
    received: tuple[int | None, ...],
    source: InputInfo | None,
) -> str:
    """The fix for image data with another channel count than ``layer`` was built for, or ""
    when the evidence does not show image channels that came from the data."""
    got = received[-1] if received else None
    if len(received) not in (4, 5) or built_for not in _KIND or got not in _KIND:
        return ""
    declared = ctx.model_inputs[0] if len(ctx.model_inputs) == 1 else None
    if not from_the_data(source) or declared is None or declared[-1] != built_for:
        return ""
    images = f"the images have {got} channel{'s' if got != 1 else ''} ({_KIND[got]})"
    built = f"'{layer}' was built for {built_for} ({_KIND[built_for]}), as the model's Input says"
    loader = directory_images(ctx)
    if loader is not None:
        what = f"`{loader.name}`" if loader.name else "the dataset"
        mode = "" if got != 3 else ' (it decodes with color_mode="rgb" unless told)'
        return (
            f"{images}, and {built}: {what} was made by image_dataset_from_directory{mode}; "
            f'pass `color_mode="{_COLOR_MODE[built_for]}"` where it is made'
        )
    if built_for == 3 and got == 1:
        convert = (
            "repeat the gray channel: `tf.image.grayscale_to_rgb(x)` (or `np.repeat(x, 3, "
            "axis=-1)`)"
        )
    elif built_for == 1 and got == 3:
        convert = "convert them: `tf.image.rgb_to_grayscale(x)`"
    elif built_for == 3 and got == 4:
        convert = "drop the alpha channel: `x[..., :3]`"
    else:
        convert = f"convert them to {_KIND[built_for]}"
    shape = fmt_shape((*declared[1:-1], got))
    return (
        f"{images}, and {built}: {convert}; or build the model for {got} channel"
        f"{'s' if got != 1 else ''} (`keras.Input(shape={shape})`; a keras.applications base "
        f"takes input_shape={shape} only with weights=None)"
    )


def full_shape(
    ctx: ErrorContext, layer: str, expected_text: str, received_text: str, index: int
) -> tuple[str, bool]:
    """(hint, whether the cause is the data's structure: S12) for input ``index`` of a layer
    built for the shape ``expected_text`` that got ``received_text`` (as the message writes
    them)."""
    expected, received = parse_shape(expected_text), parse_shape(received_text)
    made = layer_sized_hint(ctx.evidence.call, expected or (), received or ())
    if made is not None:
        return made, False
    read = (
        _read_shapes(ctx, layer, expected, received, ctx.input_source(layer, index))
        if expected and received
        else None
    )
    if read is None:
        return (
            "make the data match the shape the layer was built for, or rebuild the model for "
            "the new shape",
            False,
        )
    return read


def _read_shapes(
    ctx: ErrorContext,
    layer: str,
    expected: tuple[int | None, ...],
    received: tuple[int | None, ...],
    source: InputInfo | None,
) -> tuple[str, bool] | None:
    if len(received) == len(expected) - 1 and same_shape(received, expected[1:]):
        return (
            f"`{layer}` got one example of shape {fmt_shape(received)} without its batch axis "
            f"(it takes {fmt_shape(expected)}): pass a batch, `x[None, ...]` (or "
            "`np.expand_dims(x, 0)`), or `x[:1]` instead of `x[0]`",
            True,
        )
    if len(received) != len(expected) or len(received) < 3:
        return None
    inner = range(1, len(received) - 1)
    sizes = [i for i in inner if expected[i] is not None and received[i] != expected[i]]
    channels = expected[-1] is not None and received[-1] != expected[-1]
    if channels and not sizes and expected[-1] is not None:
        hint = channel_hint(ctx, layer, expected[-1], received, source)
        return (hint, False) if hint else None
    # the sizes are the data's only when no layer (pooling, resizing) came between
    direct = source is None or source.producer in ("", "input")
    if sizes and not channels and len(received) == 4 and (direct or _from_input(source)):
        size = tuple(expected[i] for i in inner)
        loader = directory_images(ctx)
        made = (
            f"`image_size={size}` where `{loader.name or 'the dataset'}` is made "
            "(image_dataset_from_directory resizes to image_size=(256, 256) unless given one), or "
            if loader is not None
            else ""
        )
        return (
            f"the images are {fmt_shape(received[1:-1])} and the model was built for {size}: "
            f"resize them to {size} ({made}`tf.image.resize(x, {size})`, "
            f"keras.layers.Resizing{size}), or build the model for "
            f"{fmt_shape(received[1:])}",
            False,
        )
    return None
