"""A user's ``train_step`` that unpacks ``data`` as ``(x, y)`` when ``fit`` gave it another
form (S12): only ``x`` (``fit(images)``: the step gets the batch itself, and unpacking it
iterates over its first axis), or a dict (unpacking a dict gives its keys, so ``x`` is the
string ``'features'`` and the model refuses it).  The form comes from the live ``fit`` call
(:mod:`tfnb_debug.explain._step_data`); the unpacking from the step's own line.
"""

from __future__ import annotations

import ast
import re
import textwrap

from tfnb_debug.explain._api import UNPACKING
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._operands import enclosing_parameters
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_STRING_INPUT = re.compile(r"Got '([^']+)' \(of type <class 'str'>\) as input for layer")


def step_data_structure(ctx: ErrorContext) -> Explained | None:
    """S12: the step's ``x, y = data`` against the element ``fit`` really gives it."""
    data = ctx.step_data
    user = ctx.user_code_line()
    if data is None or user is None:
        return None
    method = f"{data.method}(...)"
    place = ctx.where(user[0], user[1], user[2])
    key = _STRING_INPUT.search(ctx.text)
    if data.element == "dict" and key is not None and key.group(1) in data.keys:
        a, b = (data.keys + ("y",))[:2]
        return (
            finding(
                "S12",
                f"{data.model_class}'s step unpacked a dict element as a tuple: the layer got "
                f"the key string '{key.group(1)}' instead of its values",
                place=place,
                evidence=f"`{data.x}` given to {data.method} yields dicts with keys "
                f"{list(data.keys)}; unpacking a dict (`x, y = data`) gives its keys",
                hint=f"read the values by key in the step, `x, y = data[{a!r}], data[{b!r}]`, or "
                f"make the dataset yield (x, y) tuples: `{data.x}.map(lambda d: (d[{a!r}], "
                f"d[{b!r}]))`",
            ),
            (),
        )
    unpack = _unpacking(user[3])
    if unpack is None or data.element != "tensor" or data.y_given:
        return None
    if not (re.search(r"Iterating over a symbolic|iterat", ctx.text) or UNPACKING.search(ctx.text)):
        return None
    targets, value = unpack
    params = enclosing_parameters(user[0], user[1]) or ()
    if len(params) < 2 or value != params[1]:
        return None  # another tensor unpacked (``h, w = shape``): not the step's data
    first = targets[0]
    return (
        finding(
            "S12",
            f"the step unpacks `{value}` as ({', '.join(targets)}), but {data.method} was given "
            f"only x (`{data.x}`), so `{value}` is one batch tensor, not an (x, y) pair",
            place=place,
            evidence=f"`{user[3].strip()}`; {data.method}(x={data.x}) with no y; Keras passes "
            f"the step x alone when no y is given",
            hint=f"take the batch as it is, `{first} = {value}` (the step has no labels), or "
            f"pass the labels to {method} as y (or a dataset of (x, y) pairs)",
        ),
        (),
    )


def _unpacking(source: str) -> tuple[list[str], str] | None:
    """(targets, value) of ``a, b = data`` on the line; None for any other statement."""
    try:
        statement = ast.parse(textwrap.dedent(source).strip()).body[0]
    except (SyntaxError, IndexError):
        return None
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Tuple | ast.List)
        and isinstance(statement.value, ast.Name)
    ):
        return [ast.unparse(t) for t in statement.targets[0].elts], statement.value.id
    return None
