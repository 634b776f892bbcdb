"""A layer that builds from one input shape called on a list of tensors (S12).

A layer such as ``LayerNormalization`` or ``Dense`` sizes its weights from one input shape;
called on ``[x, y]`` it gets a list of shapes, which Keras refuses while building ("Cannot
convert '((None, 5, 64),)' to a shape. Found invalid dimension '(None, 5, 64)' of type
'<class 'tuple'>'").  The user's line names the list.  A normalization given a block's
input and output normalizes their sum (a residual connection: ``Add``, after projecting the
narrower one when the widths differ); another layer takes them merged or one at a time.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext, parse_shape
from tfnb_debug.explain._returned_tuples import list_call
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_LIST_SHAPE = re.compile(r"Cannot convert '\((\(.*\)),?\)' to a shape\. Found invalid dimension")
_LIST_CALLED = re.compile(r"when calling (\w+)\.call\(\)[\s\S]*'list' object has no attribute")


def list_into_one_input(ctx: ErrorContext) -> Explained | None:
    """S12: the layer was called on a list where it builds from one tensor."""
    match = _LIST_SHAPE.search(ctx.text)
    user = ctx.user_code_line()
    if user is None or not user[3]:
        return None
    callee, items = list_call(user[3])
    if len(items) < 2:
        return None
    called = _LIST_CALLED.search(ctx.text)
    if called is not None and called.group(1) == "Embedding":
        return _ids_into_one_embedding(ctx, user, callee, items)
    if match is None:
        return None
    written = re.search(r"(\w+)\([^()]*\)$", callee)
    name, cls = ctx.layers[0] if ctx.layers else ("", written.group(1) if written else callee)
    shapes = [parse_shape(s) for s in re.findall(r"\([^()]*\)", match.group(1))]
    widths = [s[-1] for s in shapes if s]
    merged = f"[{', '.join(items)}]"
    if "Normalization" in cls:
        project = (
            f"; the last axes differ ({' vs '.join(str(w) for w in widths)}): project the "
            f"narrower one first with keras.layers.Dense({max(w for w in widths if w)})"
            if len(set(widths)) > 1 and all(widths)
            else " (a Dense projection first, if their last axes differ)"
            if len(widths) < len(items)
            else ""
        )
        hint = (
            f"{cls} normalizes one tensor; `{merged}` is a block's input and output (a residual "
            f"connection): add them first, `{cls}()(keras.layers.Add()({merged}))`{project}"
        )
    else:
        hint = (
            f"{cls} builds from one input: merge the {len(items)} first "
            f"(`keras.layers.Concatenate()({merged})`, or `Add` for a residual sum of one "
            "shape), or call it on each one separately"
        )
    return (
        finding(
            "S12",
            f"{cls}{f' {name!r}' if name else ''} was called on a list of {len(items)} tensors "
            f"({merged}) but builds "
            "its weights from one input's shape",
            place=ctx.where(user[0], user[1], user[2]),
            evidence=f"`{user[3].strip()}`; Keras got the shapes {match.group(1)}",
            hint=hint,
        ),
        (),
    )


def _ids_into_one_embedding(
    ctx: ErrorContext, user: tuple[str, int, str, str], callee: str, items: list[str]
) -> Explained:
    """An Embedding called on a list of id tensors: each id input needs its own table."""
    merged = f"[{', '.join(items)}]"
    each = (
        ", ".join(f"`keras.layers.Embedding(...)({item})`" for item in items)
        if all(item.isidentifier() for item in items)
        else "one `keras.layers.Embedding(...)` per input"
    )
    return (
        finding(
            "S12",
            f"Embedding was called on a list of {len(items)} id tensors ({merged}) but looks up "
            "one tensor of ids",
            place=ctx.where(user[0], user[1], user[2]),
            evidence=f"`{user[3].strip()}`; Embedding.call got a list, which has no shape",
            hint=(
                f"give each id input its own Embedding (its own vocabulary size), {each}, then "
                "add the vectors (token + position embeddings) or join them with "
                "`keras.layers.Concatenate()` (separate features); for ids of one "
                "vocabulary sharing one table, create the layer once and call it on each"
            ),
        ),
        (),
    )
