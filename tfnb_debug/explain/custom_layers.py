"""The user's own layers: weights sized without the input and a call that returns nothing
(S01), a static batch size read where it is unknown (T02: a concrete value asked of a
symbolic tensor).

Each rule reads what the class does (:mod:`tfnb_debug.explain._user_layers`),
not only the message: a weight is called mis-sized only when its shape does
not hold the input's feature size on the axis the product contracts, a
``call`` is said to return nothing only when its source has no ``return`` of
a value, and ``x.shape[0]`` is blamed only when it is on the failing line and
the failing shape holds ``None``.
"""

from __future__ import annotations

import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._user_layers import NONE_INPUT, UserLayer
from tfnb_debug.explain._violation import fmt
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

# Guards, not explanations: the rules below explain by the class's evidence, so these are plain
# strings, not compiled patterns (the coverage table counts compiled ones as message rules).
_SHAPE_ERROR = (
    r"Dimensions must be equal|Matrix size-incompatible|Incompatible shapes|incompatible shapes"
    r"|shapes? .*(?:mismatch|not compatible)|expected .* to match"
)
_STATIC_AXIS = r"\b(\w+)\.shape\[(0|-?\d+)\]"
_NONE_IN_SHAPE = r"\(None,|\[None,|, None\)|, None\]|Failed to convert elements of"


def _call_frame(ctx: ErrorContext, layer: UserLayer) -> str:
    for frame in reversed(ctx.frames):
        if frame.user and frame.function == f"{layer.class_name}.{layer.method}":
            return ctx.where(frame.filename, frame.lineno, frame.function)
    return f"{layer.class_name}.{layer.method}()"


def _in_the_failing_op(ctx: ErrorContext, shape: tuple[int | None, ...]) -> bool:
    """Whether the error names this weight's shape among the op's operands (``[4,3]``), or its
    first axis as one of the sizes that must agree ("but are 6 and 4")."""
    listed = ",".join("?" if d is None else str(d) for d in shape)
    if any(found.replace(" ", "") == listed for found in re.findall(r"\[([\d?, ]+)\]", ctx.text)):
        return True
    first = shape[0]
    return bool(re.search(rf"but are (\d+ and {first}|{first} and \d+)\b", ctx.text))


def weight_without_input_size(ctx: ErrorContext) -> Explained | None:
    """A user layer's product with its own weight fails because the weight was sized from a
    constructor argument (made in ``__init__``, or in a ``build`` that ignores the input's
    feature size), or with its axes in the order that does not contract with the input."""
    if not re.search(_SHAPE_ERROR, ctx.text, re.I):
        return None
    for layer in ctx.user_layers:
        if layer.method != "call" or not layer.input_shape or layer.input_shape[-1] is None:
            continue
        features = int(layer.input_shape[-1])
        for attr, shape in layer.weights:
            if len(shape) < 2 or shape[0] == features or not _in_the_failing_op(ctx, shape):
                continue
            units = shape[-1]
            if features in shape[1:] and len(shape) == 2:
                problem = (
                    f"its weight '{attr}' is {fmt(shape)}, (units, input_shape[-1]), but the "
                    f"product of the input {fmt(layer.input_shape)} with it contracts the "
                    f"input's last axis ({features}) with the weight's first ({shape[0]})"
                )
                fix = (
                    f"make '{attr}' shape (input_shape[-1], units) = ({features}, {shape[0]}), "
                    f"or transpose it in the product (transpose_b=True)"
                )
            elif not layer.defines_build:
                problem = (
                    f"{layer.class_name} creates its weight '{attr}' {fmt(shape)} in __init__, "
                    f"from its arguments, before it has seen an input; its input "
                    f"{fmt(layer.input_shape)} has {features} features on the last axis"
                )
                fix = (
                    f"create '{attr}' in build(self, input_shape) with shape "
                    f"(input_shape[-1], {units}), so it takes the input's {features} features"
                )
            else:
                reads = "input_shape" in layer.build_source
                problem = (
                    f"{layer.class_name}.build makes '{attr}' {fmt(shape)} "
                    + ("without the input's feature size" if reads else "and ignores input_shape")
                    + f"; its input {fmt(layer.input_shape)} has {features} features on the last axis"
                )
                fix = (
                    f"in build, give '{attr}' shape (input_shape[-1], {units}): its first axis "
                    f"must be the input's {features} features"
                )
            return (
                finding(
                    "S01",
                    problem,
                    place=f"layer '{layer.name}' ({_call_frame(ctx, layer)})",
                    evidence=f"{ctx.key_sentence()[:160]}",
                    hint=fix,
                ),
                (),
            )
    return None


def call_returns_nothing(ctx: ErrorContext) -> Explained | None:
    """A None reached a layer (or the loss) and a layer or model class of the user's has a
    ``call`` that ends without ``return``: its output is None."""
    if not ctx.silent_calls or not re.search(NONE_INPUT, ctx.text):
        return None
    names = [name for name, _ in ctx.silent_calls]
    kinds = {kind for _, kind in ctx.silent_calls}
    listed = ", ".join(f"{n}.call" for n in names)
    what = "model" if kinds == {"model"} else "layer"
    return (
        finding(
            "S01",
            f"{listed} {'has' if len(names) == 1 else 'have'} no return statement, so the "
            f"{what}'s output is None, and the next step that uses it gets None in place of a tensor",
            place=f"class {names[0]}" if len(names) == 1 else "classes " + ", ".join(names),
            evidence=ctx.key_sentence()[:160],
            hint=f"end {listed} with `return` of the result it computes",
        ),
        (),
    )


def static_batch_in_call(ctx: ErrorContext) -> Explained | None:
    """A user layer's ``call`` reads ``x.shape[0]`` (the batch axis, None while Keras builds
    the model or traces the step) into a shape, and the failing shape holds that None."""
    if not ctx.user_layers or not re.search(_NONE_IN_SHAPE, ctx.text):
        return None
    for frame in reversed(ctx.frames):
        if not frame.user or not frame.function.endswith(".call"):
            continue
        match = re.search(_STATIC_AXIS, frame.source)
        if match is None or match.group(2) != "0":
            continue
        name = match.group(1)
        return (
            finding(
                "T02",
                f"`{name}.shape[0]` is the batch axis, unknown (None) while Keras builds the model "
                "and traces the step, and the line puts it into a shape",
                place=ctx.where(frame.filename, frame.lineno, frame.function),
                evidence=f"`{frame.source}`; {ctx.key_sentence()[:120]}",
                hint=f"use the dynamic size `tf.shape({name})[0]` (keras.ops.shape({name})[0])"
                # -1 stands for one axis only in a reshape's target shape
                + (", or -1 in the reshape" if "reshape" in frame.source.lower() else ""),
            ),
            (),
        )
    return None


def build_given_shapes(ctx: ErrorContext) -> Explained | None:
    """A user layer called on a list of tensors reads ``input_shape`` in ``build`` as one
    shape: it is the list of their shapes, so ``input_shape[-1]`` is a shape, not a size."""
    if "shape" not in ctx.text:
        return None
    for layer in ctx.user_layers:
        if layer.method != "build" or len(layer.shapes_given) < 2:
            continue
        shapes = ", ".join(fmt(s) for s in layer.shapes_given)
        first = layer.shapes_given[0]
        size = first[-1] if first else None
        return (
            finding(
                "S01",
                f"{layer.class_name} is called on a list of {len(layer.shapes_given)} tensors, so "
                f"its build(input_shape) gets a list of their shapes [{shapes}]: input_shape[-1] "
                "is the last shape, not a size",
                place=f"layer '{layer.name}' ({_call_frame(ctx, layer)})",
                evidence=ctx.key_sentence()[:160],
                hint="read the size from one of the shapes: input_shape[0][-1]"
                + (f" ({size}, the first input's features)" if size is not None else "")
                + ", and input_shape[1][-1] for the second",
            ),
            (),
        )
    return None


_UNPACKED = r"not enough values to unpack \(expected (\d+), got (\d+)\)"


def cell_state_count(ctx: ErrorContext) -> Explained | None:
    """S01: the user's RNN cell unpacks more states than its ``state_size`` declares (the RNN
    hands a cell one state per entry of state_size)."""
    import ast

    match = re.search(_UNPACKED, ctx.text)
    cells = [u for u in ctx.user_layers if u.state_size and u.method == "call"]
    if match is None or not cells:
        return None
    cell, want = cells[0], int(match.group(1))
    try:
        declared = ast.literal_eval(cell.state_size)
    except (ValueError, SyntaxError):
        return None
    sizes = list(declared) if isinstance(declared, list | tuple) else [declared]
    if len(sizes) >= want or not all(isinstance(s, int) for s in sizes):
        return None
    fix = "[" + ", ".join(str(sizes[0]) for _ in range(want)) + "]"
    return (
        finding(
            "S01",
            f"{cell.class_name} '{cell.name}' declares state_size={cell.state_size} "
            f"({len(sizes)} state{'s' if len(sizes) > 1 else ''}), and its call unpacks {want}: "
            "the RNN hands a cell one state per entry of state_size",
            place=_call_frame(ctx, cell),
            evidence=f"state_size {cell.state_size}; unpacking expected {want}, got "
            f"{match.group(2)}",
            hint=f"declare one size per state, `self.state_size = {fix}` (e.g. [units, units] "
            f"for h and c), and return the {want} new states as a list",
        ),
        (),
    )
