"""A user layer's own weight against its input in an op of its ``call`` (S01).

A custom layer that makes a weight in ``build`` from its own arguments (``shape=(self.units,)``)
instead of from ``input_shape`` fails in ``call`` on the first op that combines the weight
with the input (``x * self.w``: ``Mul`` got ``[?,10]`` and ``[5]``).  The op names two shapes;
the layer's frame shows that one of them is a weight of the layer (read from its attributes)
and the other its input, and ``build``'s source shows how the weight was sized.  The fix is
the size ``build`` reads from ``input_shape``.
"""

from __future__ import annotations

import linecache
import re

from tfnb_debug.explain._context import ErrorContext, fmt_shape, parse_shape
from tfnb_debug.ground.reports import Finding, finding


def weight_operand(ctx: ErrorContext, shapes: list[str]) -> tuple[Finding, tuple[()]] | None:
    """S01 when an op of a user layer's ``call`` combined a weight of the layer, sized without
    its input, with the input."""
    if len(shapes) != 2 or not ctx.user_layers:
        return None
    layer = ctx.user_layers[0]
    user = ctx.user_code_line()
    if layer.method != "call" or user is None or not user[3]:
        return None
    parsed = [parse_shape(s.replace("?", "None")) for s in shapes]
    if any(p is None or not p for p in parsed):
        return None
    for attr, shape in layer.weights:
        if not re.search(rf"\bself\.{re.escape(attr)}\b", user[3]):
            continue
        others = [p for p in parsed if p is not None and tuple(p) != tuple(shape)]
        if len(others) != 1 or not shape or not others[0]:
            continue
        features = others[0][-1]
        if features is None or features == shape[-1]:
            continue
        if layer.input_shape is None or not layer.input_shape or layer.input_shape[-1] != features:
            continue  # the other operand is not the layer's input (an intermediate result)
        sized = _sized_by(layer.build_source, attr)
        made = f" by `{sized}` in build()" if sized else ""
        return (
            finding(
                "S01",
                f"{layer.class_name} '{layer.name}': its weight `self.{attr}` has shape "
                f"{fmt_shape(shape)}{made}, but its input has {features} features, so "
                f"`{user[3].strip()}` cannot combine them",
                place=f"layer '{layer.name}'",
                evidence=f"`self.{attr}` {fmt_shape(shape)}; the input {fmt_shape(others[0])}",
                hint=f"size the weight from the input in build(): `self.{attr} = "
                f"self.add_weight(shape=(input_shape[-1],), ...)` ({features} here)"
                + (", not from the layer's own argument" if "self." in sized else ""),
            ),
            (),
        )
    return None


def _sized_by(source: str, attr: str) -> str:
    """The ``shape=`` expression that ``build`` gave the weight, "" when not found."""
    match = re.search(
        rf"self\.{re.escape(attr)}\s*=\s*self\.add_weight\((?:[^()]|\([^()]*\))*?shape\s*=\s*"
        r"(\([^()]*\)|\[[^\]]*\]|[\w.]+)",
        source,
    )
    return f"shape={match.group(1)}" if match else ""


def constant_operand(exc: BaseException, shapes: tuple[str, ...]) -> str | None:
    """The hint for a constant the user's failing line names (a weight vector in a loss)
    that is a (n, 1) column where (n,) would broadcast over the last axis of the op's other
    operand; None otherwise."""
    from tfnb_debug.explain._violation import shape_of
    from tfnb_debug.ground.files import innermost_user_traceback

    parsed = [parse_shape(s.replace("?", "None")) for s in shapes]
    user = innermost_user_traceback(exc)
    if user is None or len(parsed) != 2 or any(not p for p in parsed):
        return None
    frame = user.tb_frame
    line = linecache.getline(frame.f_code.co_filename, user.tb_lineno)
    params = set(frame.f_code.co_varnames[: frame.f_code.co_argcount])
    for name in dict.fromkeys(re.findall(r"\b([A-Za-z_]\w*)\b", line)):
        value = frame.f_locals.get(name, frame.f_globals.get(name))
        if name in params or value is None or callable(value):
            continue
        shape = shape_of(value) or ()
        if not shape or shape not in [tuple(p or ()) for p in parsed]:
            continue
        other = next(tuple(p or ()) for p in parsed if tuple(p or ()) != shape)
        if len(shape) == 2 and shape[1] == 1 and other and shape[0] == other[-1]:
            return (
                f"`{name}` has shape {fmt_shape(shape)}: a column, so its {shape[0]} values "
                f"lie on the first axis and meet the batch of {fmt_shape(other)}; one value per "
                f"class broadcasts from shape ({shape[0]},): `{name} = tf.reshape({name}, [-1])`"
            )
    return None  # another shape: the other readers (the labels, the head) say more
