"""Two operands of an element-wise op whose sizes cannot broadcast, built symbolically (S07).

Keras' ops check broadcasting while a functional model is built ("Cannot broadcast shape,
the failure dim has value 40, which cannot be broadcasted to 50. Input shapes are: [None, 40,
16] and [50, 16]").  The user's line names the operands (``token_emb + pos_emb``); the lines
that assigned them show where each size came from (an ``Input``'s length against a constant
``arange(maxlen)``).  The fix makes one side follow the other.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.ground.reports import Finding, finding

_BROADCAST = re.compile(
    r"Cannot broadcast shape, the failure dim has value (\d+), which cannot be broadcasted to "
    r"(\d+)\. Input shapes are: (\[[^\]]*\]) and (\[[^\]]*\])"
)
_OPERANDS = re.compile(r"([A-Za-z_]\w*)\s*[-+*/]\s*([A-Za-z_]\w*)")


def broadcast_sizes(ctx: ErrorContext) -> tuple[Finding, tuple[()]] | None:
    """S07 naming both sizes and, from the user's line, the operands and what made them."""
    match = _BROADCAST.search(ctx.text)
    if match is None:
        return None
    have, want, a, b = match.groups()
    user = ctx.user_code_line()
    source = user[3].strip() if user and user[3] else ""
    place = ctx.where(user[0], user[1], user[2]) if user else "an element-wise op"
    evidence = f"operand shapes {a} and {b}"
    hint = (
        f"make the two operands agree on that axis ({have} against {want}) where each is sized, "
        "or give one a size of 1 there to broadcast"
    )
    operands = _OPERANDS.search(source)
    if operands is not None and user is not None:
        chains = {n: _chain(n, user[0], user[1]) for n in operands.groups()}
        evidence += "; " + "; ".join(
            f"`{n}` from " + " <- ".join(f"`{step}`" for step in chain)
            for n, chain in chains.items()
            if chain
        )
        ranged = [n for n, c in chains.items() if any(re.search(r"\ba?range\(", x) for x in c)]
        if ranged:
            hint = (
                f"`{ranged[0]}` is sized by a range of fixed length while the "
                f"other operand follows the data: take the positions from the data's length, "
                f"`keras.ops.arange(keras.ops.shape(x)[1])`, or one constant for both"
            )
    return (
        finding(
            "S07",
            f"`{source or 'an element-wise op'}` combines tensors of shapes {a} and {b}: one "
            f"axis is {have} on one side and {want} on the other, and neither is 1",
            place=place,
            evidence=evidence,
            hint=hint,
        ),
        (),
    )


def _chain(name: str, filename: str, lineno: int) -> list[str]:
    """Where a tensor came from, followed through the lines above: the layer input each
    assignment's last call reads (``Embedding(...)(positions)`` -> ``positions``), up to a
    range, an Input or three steps."""
    steps: list[str] = []
    current = name
    for _ in range(3):
        made = assigned_before(current, filename, lineno)
        if not made:
            break
        fed = re.search(r"\)\(\s*([A-Za-z_]\w*)\s*\)\s*$", made)
        steps.append(f"{current} = {made}" if not fed else f"{current} = ...({fed.group(1)})")
        if fed is None:
            break
        current = fed.group(1)
    return steps
