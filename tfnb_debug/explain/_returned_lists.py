"""A Python list in what a user's data function returns (``__getitem__``, a generator).

Keras 3 reads a list the way tf.data does: as a nested structure, one value per item.
``return x[s], [int(v) for v in y[s]]`` hands it a batch of features and a *structure* of
scalar labels (each of rank 0), not a label vector.  The function's source shows the list
literal or comprehension; nothing is run.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from tfnb_debug.explain._violation import Violation


def listed_return(function: Any) -> str:
    """The source of a list literal or comprehension that ``function`` returns (or yields) as
    one item of a tuple, "" when none is seen (or the source cannot be read)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return ""
    for node in ast.walk(tree):
        value = node.value if isinstance(node, ast.Return | ast.Yield) else None
        if isinstance(value, ast.Tuple):
            for item in value.elts:
                if isinstance(item, ast.List | ast.ListComp):
                    return ast.unparse(item)
    return ""


def listed_item(function: Any, subject: str, verb: str) -> Violation | None:
    """S12 for a data function that ``verb``s (returns, yields) a list as one of its items."""
    listed = listed_return(function)
    if not listed:
        return None
    return Violation(
        "S12",
        subject.split("`")[1] if "`" in subject else subject,
        f"{subject} a Python list, `{listed}`, which Keras reads as a structure of separate "
        "values (one per item), not as one batch tensor",
        f"{verb} an array instead: `np.array({listed})` (a list is a structure in Keras 3, as "
        "in tf.data)",
    )
