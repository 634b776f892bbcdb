"""A merge layer given the tuple a layer returned with ``return_state``/
``return_attention_scores`` as one of its inputs (S01).

``MultiHeadAttention(..., return_attention_scores=True)`` returns ``(output, scores)`` and an
RNN with ``return_state=True`` returns ``[output, *states]``.  Passed on as one tensor to
``Add``/``Concatenate``, the tuple reaches the merge layer's shape check, which prints a
nested shape ("Received shapes (10, 32) and ((None, 4, 10, 10),)").  The user's line names
the merge's inputs; the line that assigned the odd one shows the flag.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.ground.reports import Finding, finding

_NESTED = re.compile(r"Received shapes .*\(\(")
_FLAG = re.compile(r"return_(state|attention_scores)\s*=\s*True")


def returned_tuple(ctx: ErrorContext, received: int = 0) -> tuple[Finding, tuple[()]] | None:
    """S01 naming the merge input that holds a layer's several results, and how to unpack:
    the merge printed a nested shape, or got more tensors (``received``) than its list names."""
    user = ctx.user_code_line()
    if user is None or not user[3]:
        return None
    names = listed_items(user[3])
    if not names or (not _NESTED.search(ctx.text) and received <= len(names)):
        return None
    for name in names:
        made = assigned_before(name, user[0], user[1]) if name.isidentifier() else ""
        flag = _FLAG.search(made)
        if flag is None:
            continue
        parts = f"{name}, *states" if flag.group(1) == "state" else f"{name}, scores"
        return (
            finding(
                "S01",
                f"`{name}` is the tuple `{made}` returns with return_{flag.group(1)}=True (the "
                "output first), not one tensor, so the merge layer cannot combine it",
                place=ctx.where(user[0], user[1], user[2]),
                evidence=f"`{user[3].strip()}`; `{name} = {made}`",
                hint=f"unpack it where it is made, `{parts} = {made}`, and merge the output "
                f"(or drop return_{flag.group(1)}=True)",
            ),
            (),
        )
    return None


def listed_items(source: str) -> list[str]:
    """The items, as written, of the list a call on the line is given (``Add()([a, b])``)."""
    return list_call(source)[1]


def list_call(source: str) -> tuple[str, list[str]]:
    """(callee, items) of the first call on the line given one list literal."""
    import ast

    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return "", []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and len(node.args) == 1
            and isinstance(node.args[0], ast.List)
        ):
            return ast.unparse(node.func), [ast.unparse(item) for item in node.args[0].elts]
    return "", []
