"""A reduction over an axis its operand does not have (S07): ``ops.sum(x, axis=(1, 2))`` on
a value of rank 1, often a Keras loss function's result (it averages the last axis, so a
per-example vector is left) where image-shaped data was assumed.  Read from the message's
dimension and rank, and the user's statement (parsed): the reducing call, its operand, the
name the result is assigned to."""

from __future__ import annotations

import ast
import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._operands import innermost_node, parsed_file
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_INVALID = re.compile(
    r"Invalid reduction dimension (-?\d+) for input with (\d+) dimensions"
    r"(?:[^\n]*?with input shapes: \[([^\]]*)\])?"
)
_LOSSES = re.compile(
    r"crossentropy|squared_error|absolute_error|hinge|huber|log_cosh|kl_divergence"
)


def reduced_missing_axis(ctx: ErrorContext) -> Explained | None:
    """S07: the reducing call of the user's statement and the rank its operand has."""
    found = _INVALID.search(ctx.text)
    user = ctx.user_code_line()
    if found is None or user is None:
        return None
    dim, rank, shape = int(found.group(1)), int(found.group(2)), found.group(3) or ""
    statement = innermost_node(parsed_file(user[0]), user[1], (ast.stmt,))
    if statement is None:
        return None
    for node in ast.walk(statement):
        axis = next((k.value for k in getattr(node, "keywords", []) if k.arg == "axis"), None)
        if not isinstance(node, ast.Call) or axis is None or not node.args:
            continue
        axes = _axes(axis)
        if dim not in axes:
            continue
        operand, call = ast.unparse(node.args[0]), ast.unparse(node.func)
        target = _target(statement)
        loss = isinstance(node.args[0], ast.Call) and _LOSSES.search(ast.unparse(node.args[0].func))
        why = (
            " (a Keras loss function averages the last axis: one value per example is left)"
            if loss
            else ""
        )
        hint = (
            f"reduce only the axes `{operand}` has (axis=-1 for its last, or no axis for all), "
            + (
                f"or give the loss data of the rank the axes assume ({max(axes) + 2} or more "
                "dimensions, e.g. images not flattened into rows)"
                if loss
                else "or reshape it first"
            )
        )
        return (
            finding(
                "S07",
                f"{target}`{call}(..., axis={ast.unparse(axis)})` reduces axis {dim}, but its "
                f"operand `{operand}` has {rank} dimension{'s' if rank != 1 else ''}"
                + (f" (shape [{shape}])" if shape else "")
                + why,
                place=ctx.where(user[0], user[1], user[2]),
                evidence=f"Invalid reduction dimension {dim} for input with {rank} dimensions",
                hint=hint,
            ),
            (),
        )
    return None


def _axes(node: ast.expr) -> list[int]:
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return []
    values = value if isinstance(value, tuple | list) else [value]
    return [v for v in values if isinstance(v, int)]


def _target(statement: ast.AST) -> str:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        return f"`{ast.unparse(statement.targets[0])}`: "
    return ""
