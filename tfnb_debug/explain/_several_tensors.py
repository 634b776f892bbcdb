"""What a layer that takes one tensor was meant to do with the several it was given (S12).

``Dense(1)([a, b])``, ``LSTM(8)([seq, mask])``, ``Flatten()([c1, c2])``: Keras refuses the
list, and the list alone does not say which of several intents it stands for.  Each has its
own evidence in the items themselves, read here in this order:

- a boolean item one axis shorter than another is that tensor's **mask**, which the layer
  takes by keyword (``layer(seq, mask=m)``) where its ``call`` has a ``mask`` argument;
- an item named as labels (``y``, ``ys``, ``labels``, ``targets``) beside the inputs is the
  ``(x, y)`` pair of a training example: the layer takes the inputs only;
- an item computed from another of the same shape (``h = f(x)``) is a block's output beside
  its input: a **residual** sum, ``Add()([x, h])``;
- items whose shapes differ before the last axis cannot be joined along it as they are:
  each is flattened or pooled first;
- items of one shape, neither made from the other, fit two intents: one layer shared by
  both (called on each) or one input made of both (merged first); both are named;
- items of one rank whose last axes differ are features of one example: ``Concatenate``.
"""

from __future__ import annotations

import inspect
import linecache
import re

from tfnb_debug.explain._call import Arg
from tfnb_debug.explain._context import fmt_shape

_LABEL_NAME = re.compile(r"^(y|ys|y_\w+|\w+_y|labels?|\w*_labels?|targets?|\w*_targets?)$")


def several_tensors_hint(
    cls: str, layer: str, items: tuple[Arg, ...], callee: str, filename: str, lineno: int
) -> str:
    """The fix for ``cls`` called on ``items`` where it takes one tensor, from the items' evidence."""
    texts = [item.text for item in items]
    merged = f"[{', '.join(texts)}]"
    on = callee if 0 < len(callee) <= 40 else f"'{layer}'"
    masked = _mask_pair(items, cls)
    if masked is not None:
        data, mask = masked
        return (
            f"`{mask.text}` ({mask.dtype}, shape {fmt_shape(mask.shape or ())}) is the mask of "
            f"`{data.text}` (shape {fmt_shape(data.shape or ())}), and {cls} takes a mask by "
            f"keyword, not in the list: `{on}({data.text}, mask={mask.text})`"
        )
    labels = [item for item in items if _LABEL_NAME.match(item.text)]
    inputs = [item for item in items if item not in labels]
    if len(labels) == 1 and len(inputs) == 1:
        return (
            f"`{labels[0].text}` reads as the labels beside the inputs `{inputs[0].text}` "
            f"(a training pair): {cls} takes the inputs only, `{on}({inputs[0].text})`; the "
            "labels go to the loss (or to fit as y)"
        )
    returned = _layer_tuple(texts, filename, lineno)
    if returned is not None:
        return returned
    shapes = [item.shape for item in items]
    known = all(s is not None for s in shapes)
    same = known and len(set(shapes)) == 1
    made = _made_from(items, filename, lineno) if same or not known else None
    if made is not None:
        block, source = made
        shape = f" and has its shape {fmt_shape(shapes[0] or ())}" if same else ""
        return (
            f"`{block}` is computed from `{source}`{shape}: a residual connection adds them "
            f"first, `keras.layers.Add()([{source}, {block}])`, and {cls} is called on the sum"
            + ("" if same else " (a Dense projection first if their last axes differ)")
        )
    if known and _differ_before_last(shapes):
        differ = " vs ".join(fmt_shape(s or ()) for s in shapes)
        if cls == "Flatten":
            return (
                f"their shapes differ before the last axis ({differ}), so they cannot be "
                f"joined as they are: flatten each one (`keras.layers.Flatten()(t)` per "
                f"tensor) and join the flat results, `keras.layers.Concatenate()([...])`"
            )
        return (
            f"their shapes differ before the last axis ({differ}), so they cannot be joined "
            "along it as they are: flatten or pool each one first (Flatten / "
            f"GlobalAveragePooling), then `keras.layers.Concatenate()`, and call {cls} on "
            "the result; or call it on each one separately"
        )
    both = "both" if len(items) == 2 else f"all {len(items)}"
    if known and len({len(sh or ()) for sh in shapes}) > 1:
        ranks = " vs ".join(fmt_shape(sh or ()) for sh in shapes)
        return (
            f"the tensors differ in rank ({ranks}), so they are not parts of one input: call "
            f"{cls} on the one it is meant for"
        )
    if same:
        each = ", ".join(f"`{on}({t})`" for t in texts)
        return (
            f"the {len(items)} tensors have one shape {fmt_shape(shapes[0] or ())}, which fits "
            f"two intents: to apply one {cls} to each (shared weights), call it on each, "
            f"{each}; to make one input of {both}, merge them first, "
            f"`keras.layers.Concatenate()({merged})` (or `Add` for a sum)"
        )
    return (
        f"{cls} takes one tensor: to use {both}, merge them first, "
        f"`keras.layers.Concatenate()({merged})`, and call '{layer}' on the result (or call it "
        "on each one separately)"
    )


_MADE_TUPLE = (
    ("return_attention_scores=True", "MultiHeadAttention with return_attention_scores=True "
     "returns (output, scores)", "out, scores"),
    ("return_state=True", "a recurrent layer with return_state=True returns (output, *states)",
     "out, *states"),
)  # fmt: skip


def _layer_tuple(texts: list[str], filename: str, lineno: int) -> str | None:
    """The items are the parts of one name (``x[0]``, ``x[1]``): the tuple a layer returned,
    named by the argument that makes the layer return several tensors when the cell shows it."""
    from tfnb_debug.explain._assignments import assigned_before

    bases = {m.group(1) for t in texts if (m := re.fullmatch(r"(\w+)\[\d+\]", t))}
    if len(bases) != 1 or not all(re.fullmatch(r"\w+\[\d+\]", t) for t in texts):
        return None
    base = bases.pop()
    made = assigned_before(base, filename, lineno) if filename else ""
    for flag, returns, unpack in _MADE_TUPLE:
        if flag in made:
            return (
                f"`{base}` is a tuple: `{made}` — {returns}; unpack it, "
                f"`{unpack} = ...`, and pass the output alone on"
            )
    return None


def _mask_pair(items: tuple[Arg, ...], cls: str) -> tuple[Arg, Arg] | None:
    """(data, mask): a boolean item one axis shorter than another, for a layer taking ``mask``."""
    if len(items) != 2 or not _takes_mask(cls):
        return None
    for mask, data in (items, items[::-1]):
        if (
            (mask.dtype == "bool" or "mask" in mask.text.lower())
            and mask.shape is not None
            and data.shape is not None
            and len(mask.shape) == len(data.shape) - 1
            and _fits(mask.shape, data.shape[:-1])
        ):
            return data, mask
    return None


def _takes_mask(cls: str) -> bool:
    import keras

    layer = getattr(keras.layers, cls, None)
    call = getattr(layer, "call", None)
    if call is None:
        return False
    try:
        return "mask" in inspect.signature(call).parameters
    except (TypeError, ValueError):
        return False


def _fits(a: tuple[int | None, ...], b: tuple[int | None, ...]) -> bool:
    return len(a) == len(b) and all(
        x is None or y is None or x == y for x, y in zip(a, b, strict=True)
    )


def _differ_before_last(shapes: list[tuple[int | None, ...] | None]) -> bool:
    ranks = {len(s) for s in shapes if s is not None}
    if ranks != {len(shapes[0] or ())} or min(ranks) < 3:
        return False
    leading = [s[1:-1] for s in shapes if s is not None]
    return any(not _fits(leading[0], other) for other in leading[1:])


def _made_from(items: tuple[Arg, ...], filename: str, lineno: int) -> tuple[str, str] | None:
    """(block, source): one item assigned from an expression that reads another, a few steps back."""
    names = [item.text for item in items if item.text.isidentifier()]
    for item in items:  # a block written inline, `[x, self.attn(x, x)]`: it reads the other
        if not item.text.isidentifier() and "(" in item.text:
            for other in names:
                if re.search(rf"\b{re.escape(other)}\b", item.text):
                    return item.text, other
    lines = linecache.getlines(filename)[: max(lineno - 1, 0)]
    for block in names:
        seen = {block}
        frontier = [block]
        for _ in range(4):  # a block's few lines: h = Dense(x); h = Dropout(h); ...
            nxt = []
            for name in frontier:
                rhs = " ".join(_assignments(name, lines))
                for other in names:
                    if other != block and re.search(rf"\b{re.escape(other)}\b", rhs):
                        return block, other
                nxt += [w for w in re.findall(r"\b[A-Za-z_]\w*\b", rhs) if w not in seen]
                seen.update(nxt)
            frontier = nxt
    return None


def _assignments(name: str, lines: list[str]) -> list[str]:
    """The right-hand side of every ``name = ...`` statement in ``lines`` (``h = f(h)`` included)."""
    pattern = re.compile(rf"(?:^|;)\s*{re.escape(name)}\s*=(?!=)\s*([^;]+)")
    return [m.group(1).strip() for line in lines for m in pattern.finditer(line)]
