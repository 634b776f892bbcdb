"""An op that takes a list of tensors of one dtype got several dtypes (S11).

``tf.concat``, ``tf.stack``, ``tf.add_n`` take a list whose tensors share one dtype;
TensorFlow names the list's dtypes in order ("Tensors in list passed to 'values' of
'ConcatV2' Op have types [float32, uint8] that don't all match").  Matched with the list as
the user's line writes it, the order names the tensor of the other dtype.  Where that
tensor is what a user's ``train_step`` received from ``fit`` (real images stored as
``uint8`` beside generated ``float32`` ones), the cast belongs where the data enters, once,
with the scaling that a ``uint8`` image needs; otherwise on the line itself.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections import Counter

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._operands import parsed_file
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_LIST_TYPES = re.compile(
    r"Tensors in list passed to '(\w+)' of '(\w+)' Op have types \[([^\]]+)\] that don't all match"
)


def list_dtypes(ctx: ErrorContext) -> Explained | None:
    """S11: the list item whose dtype differs, named from the user's line, and where it came from."""
    match = _LIST_TYPES.search(ctx.text)
    user = ctx.user_code_line()
    if match is None or user is None:
        return None
    types = [t.strip() for t in match.group(3).split(",")]
    items = _listed(user[3], len(types))
    if items is None:
        return None
    counts = Counter(types)
    if len(counts) != 2:
        return None
    (common, _), (odd_type, _) = sorted(
        counts.items(), key=lambda kv: (-kv[1], not kv[0].startswith("float"))
    )
    odd = [item for item, dtype in zip(items, types, strict=True) if dtype == odd_type]
    if not odd:
        return None
    name = odd[0]
    step = _step_parameter(user[0], user[1], name)
    data = ctx.step_data
    scale = " / 255.0" if odd_type == "uint8" else ""
    if step and data is not None and data.element == "tensor":
        hint = (
            f"`{name}` is the batch {data.method} gives the step, {odd_type} as stored in "
            f"`{data.x}`: cast it once where the data enters, `{data.x}.map(lambda x: "
            f"tf.cast(x, tf.{common}){scale})`"
            + (
                " (/ 255.0 puts uint8 pixels in [0, 1]: match the generated images' range)"
                if scale
                else ""
            )
            + f", or in the step, `{name} = tf.cast({name}, tf.{common}){scale}`"
        )
    else:
        hint = f"cast it to the others' dtype before the op, `tf.cast({name}, tf.{common})`" + (
            f" (and{scale} to bring uint8 pixels to [0, 1])" if scale else ""
        )
    return (
        finding(
            "S11",
            f"`{match.group(2)}` takes tensors of one dtype, but `{name}` is {odd_type} and the "
            f"others are {common}",
            place=ctx.where(user[0], user[1], user[2]),
            evidence=f"`{user[3].strip()}`; {match.group(2)} got "
            + ", ".join(f"{i} ({t})" for i, t in zip(items, types, strict=True)),
            hint=hint,
        ),
        (),
    )


def _listed(source: str, count: int) -> list[str] | None:
    """The items of the one list literal of ``count`` items the line passes to a call."""
    try:
        tree = ast.parse(textwrap.dedent(source).strip())
    except SyntaxError:
        return None
    lists = [
        node
        for call in ast.walk(tree)
        if isinstance(call, ast.Call)
        for node in call.args
        if isinstance(node, ast.List | ast.Tuple) and len(node.elts) == count
    ]
    return [ast.unparse(e) for e in lists[0].elts] if len(lists) == 1 else None


def _step_parameter(filename: str, lineno: int, name: str) -> bool:
    """``name`` is the data parameter of the user's ``train_step``/``test_step`` around the line."""
    tree = parsed_file(filename)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.FunctionDef)
            and node.name in ("train_step", "test_step")
            and node.lineno <= lineno <= (node.end_lineno or node.lineno)
        ):
            params = [a.arg for a in node.args.args[1:2]]
            unpacked = {
                ast.unparse(t)
                for stmt in ast.walk(node)
                if isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Name)
                and stmt.value.id in params
                for target in stmt.targets
                for t in (target.elts if isinstance(target, ast.Tuple) else [target])
            }
            return name in params or name in unpacked
    return False
