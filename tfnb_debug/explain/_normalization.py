"""A ``Normalization`` layer's adapted statistics against the input it gets.

``Normalization(axis=-1)`` keeps one mean and variance per index of the kept axes of
the data ``adapt`` saw; at call time they broadcast against the input.  Statistics of
another shape either fail (an axis of another size) or, worse, broadcast the input
wider (a (1, 100) mean on a (None, 1) input gives (None, 100)), so the error surfaces
in the next layer.  The checks read the layer's ``mean`` and ``axis``, the input the
model gives it, and the data the user's cell passed to ``adapt``."""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.collect.keras_access import all_sublayers
from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import (
    Violation,
    fmt,
    is_a,
    shape_of,
)


def normalization_statistics(call: LiveCall, exc: BaseException) -> Violation | None:
    """A Normalization layer whose adapted mean does not fit its input (adapted on another axis)."""
    layer = call.receiver
    if not is_a(layer, "Normalization"):
        return None
    inputs = call.values.get("inputs", UNREAD)
    have, mean = shape_of(inputs), shape_of(getattr(layer, "mean", None))
    if have is None or mean is None or len(have) != len(mean):
        return None
    clash = [
        i
        for i, (a, b) in enumerate(zip(have, mean, strict=True))
        if a is not None and b not in (1, a)
    ]
    if not clash:
        return None
    i = clash[0]
    name = getattr(layer, "name", "normalization")
    return Violation(
        "S01",
        name,
        f"Normalization '{name}' holds statistics of shape {fmt(mean)} (from adapt(), axis="
        f"{getattr(layer, 'axis', None)}) that do not fit its input {fmt(have)} on axis {i} "
        f"({mean[i]} vs {have[i]})",
        _normalization_fix(call, layer, have, mean, i),
    )


def given_statistics(call: LiveCall, exc: BaseException) -> Violation | None:
    """A Normalization given ``mean=``/``variance=`` with one value per channel of other data
    (ImageNet's three for grayscale images): they must have the input's size on ``axis``."""
    import numpy as np

    layer = call.receiver
    if not is_a(layer, "Normalization"):
        return None
    given = getattr(layer, "input_mean", None)
    if given is None:
        return None
    have = shape_of(call.values.get("inputs", UNREAD))
    if have is None:
        shape = call.values.get("input_shape", UNREAD)
        have = tuple(shape) if isinstance(shape, tuple | list) else None
    axis = getattr(layer, "axis", (-1,))
    axis = axis[0] if isinstance(axis, tuple | list) and len(axis) == 1 else axis
    if have is None or not isinstance(axis, int) or not -len(have) <= axis < len(have):
        return None
    values = int(np.size(given))
    size = have[axis]
    if size is None or values in (1, size):
        return None
    name = getattr(layer, "name", "normalization")
    return Violation(
        "S01",
        name,
        f"Normalization '{name}' was given a mean (and variance) of {values} values, one per "
        f"channel on axis {axis}, but its input {fmt(have)} has {size} there",
        f"give one mean and variance per channel of this input ({size} value"
        f"{'s' if size != 1 else ''}, e.g. the statistics of your own data from adapt()), or "
        f"feed it data with {values} channels (statistics such as ImageNet's belong to RGB "
        "images)",
        f"mean {np.asarray(given).ravel().round(3).tolist()[:6]}",
    )


def widened_by_normalization(call: LiveCall, exc: BaseException) -> Violation | None:
    """A layer after a Normalization gets a wider input than the model declares: the adapted
    statistics broadcast the input (a (1, 100) mean on a (None, 1) input gives (None, 100))."""
    model = call.receiver
    if not is_a(model, "Model"):
        return None
    for layer in all_sublayers(model):
        if not is_a(layer, "Normalization"):
            continue
        try:
            have = shape_of(layer.input)
        except Exception:
            continue
        mean = shape_of(getattr(layer, "mean", None))
        if have is None or mean is None or len(mean) > len(have):
            continue
        # NumPy broadcasting: the statistics line up with the input's last axes
        aligned = (1,) * (len(have) - len(mean)) + tuple(mean)
        wider = [
            i
            for i, (a, b) in enumerate(zip(have, aligned, strict=True))
            if i > 0 and a == 1 and b is not None and b > 1
        ]
        if not wider:
            continue
        i = wider[0]
        mean = aligned
        name = getattr(layer, "name", "normalization")
        out = tuple(
            b if i2 in wider else a for i2, (a, b) in enumerate(zip(have, mean, strict=True))
        )
        return Violation(
            "S01",
            name,
            f"Normalization '{name}' holds statistics of shape {fmt(mean)} for its input "
            f"{fmt(have)}: they broadcast it to {fmt(out)}, so the layers after it get {mean[i]} "
            f"where the model declares {have[i]} on axis {i}",
            _normalization_fix(call, layer, have, mean, i),
            evidence=f"axis={getattr(layer, 'axis', None)}",
        )
    return None


def _adapted_on(call: LiveCall, layer: Any) -> tuple[str, Any]:
    """The source and value of the data ``layer.adapt(...)`` was given in the user's cell."""
    import ast
    import linecache

    from tfnb_debug.explain._api import evaluate

    pattern = re.compile(r"\b(\w+)\.adapt\((.+)\)\s*$")
    found: tuple[str, Any] = ("", UNREAD)
    for line in linecache.getlines(call.filename):
        match = pattern.search(line.strip())
        if match is None:
            continue
        if not any(space.get(match.group(1)) is layer for space in call.namespaces):
            continue
        text = match.group(2).split(",")[0].strip()
        try:
            value = evaluate(ast.parse(text, mode="eval").body, call.namespaces)
        except SyntaxError:
            value = UNREAD
        found = (text, value)
    return found


def _normalization_fix(
    call: LiveCall, layer: Any, have: tuple[int | None, ...], mean: tuple[int | None, ...], i: int
) -> str:
    """Why the statistics have this shape, read from ``axis`` and the data ``adapt`` was given."""
    axis = getattr(layer, "axis", None)
    axes = axis if isinstance(axis, tuple | list) else (axis,)
    text, data = _adapted_on(call, layer)
    data_shape = shape_of(data) if data is not UNREAD else None
    given = f"adapt({text}) saw {fmt(data_shape)}; " if data_shape is not None else ""
    if 0 in axes:
        return (
            f"axis={axis} includes the batch axis, so adapt() learned one mean per example "
            f"position ({mean[0]} of them) instead of per feature: use the default axis=-1 "
            "(the feature axis) and adapt again"
        )
    if data_shape is not None and len(data_shape) == 1 and axes in ((-1,), (0,)):
        return (
            f"{given}a 1-D array is read as one example with {data_shape[0]} features, so the "
            f"layer keeps {mean[i]} means where the model feeds {have[i]} feature(s): adapt it "
            f"on `{text}[:, None]` (one value per example), or use Normalization(axis=None) for "
            "one mean and variance over all values"
        )
    if (
        data_shape is not None
        and len(data_shape) == len(have) - 1
        and have[-1] == 1
        and tuple(data_shape[1:]) == tuple(have[1:-1])
    ):
        return (
            f"{given}the layer was adapted before the channel axis was added, so axis=-1 took "
            f"the last image axis ({data_shape[-1]}) as the features: adapt it on `{text}[..., "
            "None]`, shaped as the model's input"
        )
    per = ", ".join(f"axis {a}" for a in axes)
    if len(have) >= 3 and axes not in ((-1,), (len(have) - 1,)):
        return (
            f"{given}axis={axis} keeps one statistic per index of {per} ({mean[i]} of them); "
            f"the input has {have[i]} there"
            + (" (a layer before it resizes)" if call.receiver is not layer else "")
            + f": for per-channel statistics of channels-last data use axis=-1 ({have[-1]} "
            "channels), or adapt on data of the size the model feeds"
        )
    return (
        f"{given}it was adapted on data with {mean[i]} on axis {i}, where the model feeds "
        f"{have[i]}: adapt it on data shaped like the model's input (one row per example)"
    )
