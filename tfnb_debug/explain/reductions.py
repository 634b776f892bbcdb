"""An op of the user's traced code whose operand has another shape than the op takes (S07),
read from the message and the user's statement (parsed) with the line that made the operand:

- a reduction over an axis its operand does not have (``ops.sum(x, axis=(1, 2))`` on a value
  of rank 1, often a Keras loss function's result, which averages the last axis);
- ``tf.ensure_shape`` of a value an earlier line made in another shape (a resize to another
  size than the one declared);
- ``tf.image.random_crop`` to a size larger than the images;
- ``tf.debugging.assert_type`` of a value an earlier line made in another dtype (S11:
  ``tf.strings.to_number`` gives float32 unless told ``out_type``)."""

from __future__ import annotations

import ast
import re

from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._operands import cell_text, innermost_node, parsed_file
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


_ENSURE = re.compile(r"Shapes are \[([\d, ]*)\] and \[([\d, ]*)\]\. for '\{\{node EnsureShape")


def ensured_other_shape(ctx: ErrorContext) -> Explained | None:
    """S07: ``tf.ensure_shape(x, shape)`` in a traced function, where the line that made ``x``
    gave it another shape."""
    found = _ENSURE.search(ctx.text)
    user = ctx.user_code_line()
    if found is None or user is None:
        return None
    statement = innermost_node(parsed_file(user[0]), user[1], (ast.stmt,))
    call = next(
        (
            n
            for n in ast.walk(statement or ast.Module(body=[], type_ignores=[]))
            if isinstance(n, ast.Call) and ast.unparse(n.func).endswith("ensure_shape") and n.args
        ),
        None,
    )
    if call is None or not isinstance(call.args[0], ast.Name):
        return None
    name, declared = call.args[0].id, ast.unparse(call.args[1]) if len(call.args) > 1 else ""
    made = assigned_before(name, user[0], user[1])
    if not made:
        return None
    want, have = found.group(1), found.group(2)
    return (
        finding(
            "S07",
            f"`tf.ensure_shape({name}, {declared})` declares [{want}], but `{name}` = `{made}` "
            f"made it [{have}]",
            place=ctx.where(user[0], user[1], user[2]),
            evidence=f"shapes [{want}] (declared) and [{have}] (made)",
            hint=f"make `{name}` the declared shape where it is made (the sizes in `{made}`), "
            f"or declare the shape it has, [{have}], if the model takes that",
        ),
        (),
    )


_TYPE = re.compile(r"must be of type tf\.(\w+); got tf\.(\w+)")


def asserted_other_type(ctx: ErrorContext) -> Explained | None:
    """S11: ``assert_type(x, dtype)`` where the line that made ``x`` gave it another dtype."""
    found = _TYPE.search(ctx.text)
    user = ctx.user_code_line()
    if found is None or user is None:
        return None
    checked = re.search(r"assert_type\(\s*(\w+)", user[3])
    made = assigned_before(checked.group(1), user[0], user[1]) if checked else ""
    if checked is None or not made:
        return None
    name, want, got = checked.group(1), found.group(1), found.group(2)
    parsed = re.fullmatch(r"((?:tf\.strings\.)?to_number)\((.*)\)", made)
    if parsed is not None and "out_type" not in made:
        why = " (tf.strings.to_number returns float32 unless given out_type)"
        fix = f"`{parsed.group(1)}({parsed.group(2)}, out_type=tf.{want})`"
    else:
        why, fix = "", f"`tf.cast({made}, tf.{want})`"
    return (
        finding(
            "S11",
            f"`{name}` = `{made}` is {got}{why}, and the check asks for {want}",
            place=ctx.where(user[0], user[1], user[2]),
            evidence=f"`{name}`: {got}; assert_type: {want}",
            hint=f"make it {want} where it is made: {fix}",
        ),
        (),
    )


_CROP = re.compile(r"Need value\.shape >= size, got \] \[([\d ]+)\] \[([\d ]+)\]")


def crop_larger_than_image(ctx: ErrorContext) -> Explained | None:
    """S07: ``tf.image.random_crop(x, size)`` with a size past the image's on some axis."""
    found = _CROP.search(ctx.text)
    if found is None:
        return None
    have = tuple(int(d) for d in found.group(1).split())
    want = tuple(int(d) for d in found.group(2).split())
    call = re.search(r"random_crop\([^\n]*", cell_text(ctx.user_frames()))
    shown = f"`{call.group(0).strip()}`" if call else "tf.image.random_crop"
    return (
        finding(
            "S07",
            f"{shown} asks for a crop of {want} from images of {have}: a crop cannot be larger "
            "than the image on any axis",
            place=ctx.node() or "tf.image.random_crop",
            evidence=f"image {have}, crop size {want}",
            hint=f"crop to a size within {have}, or resize or pad the images to at least "
            f"{want} first "
            "(tf.image.resize, tf.image.resize_with_crop_or_pad)",
        ),
        (),
    )
