"""Which preprocessing layer made an array the failing call was given, and which of its
settings sized each axis: ``model.fit(vec(texts), y)`` or ``x = vec(texts)`` above the
failing line, with ``vec`` a ``TextVectorization(output_sequence_length=20)``.

The sizes come from the layers' documented outputs: ``TextVectorization`` in ``int``
mode pads or cuts each text to ``output_sequence_length`` tokens (axis 1; without it,
to the longest text of the call), and in ``multi_hot``/``count``/``tf_idf`` mode gives
one column per vocabulary entry; ``StringLookup``/``IntegerLookup`` with a one-hot or
multi-hot ``output_mode`` give one column per vocabulary entry (OOV and mask included);
``CategoryEncoding`` gives ``num_tokens`` columns, ``Hashing`` ``num_bins``, and
``Discretization`` one column per bin.  Plain text and live objects: no layer is called.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from tfnb_debug.explain._assignments import assigned_before

__all__ = ["MadeBy", "layer_sized_hint", "made_by_layer"]

_ENCODED = ("one_hot", "multi_hot", "count", "tf_idf")


class MadeBy(NamedTuple):
    """The layer that made an array (``TextVectorization 'vec'``) and, per axis it sized
    (an index, -1 for the last), the setting that sized it (``output_sequence_length=20``)
    and the size (None: it varies with the data)."""

    layer: str
    axes: tuple[tuple[int, str, int | None], ...]


def made_by_layer(
    node: ast.expr, spaces: tuple[Mapping[str, Any], ...], where: tuple[str, int]
) -> MadeBy | None:
    """The preprocessing layer whose call is ``node`` (``vec(texts)``), or whose call was
    assigned to the name ``node`` above the failing line; None otherwise."""
    if isinstance(node, ast.Name) and where[0]:
        text = assigned_before(node.id, *where)
        try:
            node = ast.parse(text, mode="eval").body if text else node
        except SyntaxError:
            return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    layer = next((s[node.func.id] for s in spaces if node.func.id in s), None)
    return _sized_axes(layer) if layer is not None else None


def _sized_axes(layer: Any) -> MadeBy | None:
    kind = next(
        (
            k.__name__
            for k in type(layer).__mro__
            if k.__name__
            in (
                "TextVectorization",
                "StringLookup",
                "IntegerLookup",
                "CategoryEncoding",
                "Hashing",
                "Discretization",
            )
        ),
        "",
    )
    if not kind:
        return None
    try:
        config = dict(layer.get_config())  # TextVectorization keeps no output_mode attribute
    except Exception:
        return None
    mode = str(config.get("output_mode", "int"))
    axes: list[tuple[int, str, int | None]] = []
    if kind == "TextVectorization" and mode == "int":
        length = config.get("output_sequence_length")
        if length is None:
            axes.append((1, "output_sequence_length=None (the longest text of each call)", None))
        else:
            axes.append((1, f"output_sequence_length={length}", int(length)))
    elif kind in ("TextVectorization", "StringLookup", "IntegerLookup") and mode in _ENCODED:
        size = _vocabulary_size(layer)
        cap = config.get("max_tokens")
        bound = f"; max_tokens={cap} is only an upper bound" if cap and cap != size else ""
        axes.append((-1, f"its adapted vocabulary ({size} entries with OOV/mask{bound})", size))
    elif kind == "CategoryEncoding":
        tokens = config.get("num_tokens")
        axes.append((-1, f"num_tokens={tokens}", tokens))
    elif kind == "Hashing" and mode in _ENCODED:
        bins = config.get("num_bins")
        axes.append((-1, f"num_bins={bins}", bins))
    elif kind == "Discretization" and mode in _ENCODED:
        boundaries = config.get("bin_boundaries")
        bins = len(boundaries) + 1 if boundaries is not None else config.get("num_bins")
        axes.append((-1, f"its {bins} bins", bins))
    if not axes:
        return None
    return MadeBy(f"{kind} '{getattr(layer, 'name', kind)}'", tuple(axes))


def _vocabulary_size(layer: Any) -> int | None:
    try:
        return int(layer.vocabulary_size())
    except Exception:
        return None


def layer_sized_hint(
    call: Any, expected: tuple[int | None, ...], received: tuple[int | None, ...]
) -> str | None:
    """The hint for data of shape ``received`` where ``expected`` was declared, when the
    call's first argument was made by a preprocessing layer whose setting sized the axis
    that differs: that setting, or the declared shape, is what to change."""
    x = call.arg(0, "x") if call is not None else None
    made = getattr(x, "made_by", None)
    if x is None or made is None or len(expected) != len(received):
        return None
    for axis, setting, size in made.axes:
        at = axis % len(received)
        if at == 0 or expected[at] is None or received[at] == expected[at]:
            continue
        if size is not None and size != received[at]:
            continue  # the axis does not hold what the setting says: another cause
        want, got = tuple(expected[1:]), tuple(received[1:])
        named = re.match(r"(\w+)=", setting)  # a layer argument, not a derived size
        name = named.group(1) if named else ""
        declare = f"declare the Input for the data, `keras.Input(shape={got})`"
        if not name:  # a vocabulary's or the bins' size: the model follows the layer
            change = declare
        elif size is None:  # each call's longest text: no size to declare
            change = f"set {name}={expected[at]} on {made.layer}"
        else:
            change = f"set {name}={expected[at]} on {made.layer}, or {declare}"
        return (
            f"axis {at} of `{x.text}` is {received[at]} because {made.layer} made it with "
            f"{setting}, and the model takes {expected[at]} there (shape={want}): "
            f"{change}"
        )
    return None
