"""The contracts of Keras' preprocessing layers: what ``adapt`` reads and what each lookup maps.

The preprocessing guide states them: ``adapt(data)`` computes the layer's state
(a vocabulary, a mean and variance, bin boundaries) from the *inputs* the layer
will see, so a dataset of ``(inputs, labels)`` pairs must be mapped to its
inputs first; ``StringLookup`` and ``TextVectorization`` map strings,
``IntegerLookup`` maps integers, and each refuses (or cannot cast) the other
kind.  These checks read the live arguments of the failing call
(:class:`~tfnb_debug.explain._api.LiveCall`): the dataset's ``element_spec``,
the dtype of what a lookup was given.
"""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation, fmt, shape_of

_STRING_LAYERS = ("StringLookup", "TextVectorization")


def _dtype(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    name = getattr(dtype, "name", None) or str(dtype or "")
    if name.startswith(("<U", "<S", "|S", "object", "str", "bytes")) or name in ("O", "U", "S"):
        return "string"
    return name


def _kind(layer: Any) -> str:
    for klass in type(layer).__mro__:
        if klass.__name__ in (*_STRING_LAYERS, "IntegerLookup"):
            return klass.__name__
    return ""


def adapt_pairs(call: LiveCall, exc: BaseException) -> Violation | None:
    """``layer.adapt(ds)`` where ``ds`` yields (inputs, labels) pairs: adapt reads inputs only."""
    data = call.values.get("data", call.values.get("arg0", UNREAD))
    spec = getattr(data, "element_spec", None)
    if spec is None or not isinstance(spec, tuple | dict) or len(spec) < 2:
        return None
    text = call.text("data")
    parts = list(spec) if isinstance(spec, dict) else [f"component {i}" for i in range(len(spec))]
    items = list(spec.values()) if isinstance(spec, dict) else list(spec)
    shown = ", ".join(
        f"{p}: {getattr(getattr(s, 'dtype', None), 'name', '?')} {fmt(shape_of(s))}"
        for p, s in zip(parts, items, strict=True)
    )
    layer = type(call.receiver).__name__
    pick = "lambda x, y: x" if len(items) == 2 and isinstance(spec, tuple) else "lambda *e: e[0]"
    return Violation(
        "S12",
        text,
        f"`{layer}.adapt` reads the inputs the layer will see, but `{text}` yields "
        f"{len(items)} components per element (inputs and labels): it tries to adapt to all "
        "of them",
        f"adapt on the inputs alone: `adapt({text}.map({pick}))`",
        f"element_spec: {shown}",
    )


def lookup_dtype(call: LiveCall, exc: BaseException) -> Violation | None:
    """A string lookup given integers, or an integer lookup given strings."""
    layer = call.receiver
    kind = _kind(layer)
    inputs = call.values.get("inputs", UNREAD)
    if not kind or inputs is UNREAD:
        return None
    dtype = _dtype(inputs)
    text = call.text("inputs")
    name = getattr(layer, "name", kind)
    if kind in _STRING_LAYERS and dtype.startswith(("int", "uint")):
        if kind == "StringLookup":
            hint = (
                "for integer category codes use keras.layers.IntegerLookup (same vocabulary "
                "and output_mode, with the integer codes as its vocabulary), or map the codes "
                "to their strings before the StringLookup"
            )
        else:
            hint = (
                "TextVectorization splits and looks up raw text: give it the strings; token ids "
                "that are already integers go straight to an Embedding"
            )
        return Violation(
            "S11",
            text,
            f"{kind} '{name}' maps strings, but `{text}` holds {dtype} values {fmt(shape_of(inputs))}",
            hint,
        )
    if kind == "IntegerLookup" and dtype == "string":
        return Violation(
            "S11",
            text,
            f"IntegerLookup '{name}' maps integers, but `{text}` holds strings",
            "use keras.layers.StringLookup for string categories, or convert the strings to "
            "integers first",
        )
    return None
