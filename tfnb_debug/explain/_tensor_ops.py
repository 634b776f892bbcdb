"""The shape contracts of the tensor ops users call themselves (``keras.ops`` and ``tf``).

Each op states what it takes of its operands' shapes: ``concatenate`` joins along one axis
and needs every other axis equal; ``squeeze`` removes only axes of size 1; ``reshape`` keeps
the number of values (a fixed leading size is a fixed batch); ``einsum`` names one letter per
axis of each operand; ``split`` into N sections needs the axis to divide by N.  The check
reads the shapes the call got (also inside a ``Lambda``, whose function is read from the
user's line with the layer's input in place of its parameter) and names the operand and the
axis that break the contract, with a fix computed from those shapes.  An op on a Keras
tensor, or inside a layer, is S01 (a layer's graph); one on arrays or eager tensors S07.
``TENSOR_OPS`` is this module's table.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._assignments import assigned_before
from tfnb_debug.explain._violation import Violation, fmt, is_a, shape_of


def op_shapes(call: LiveCall, exc: BaseException) -> Violation | None:
    """The op's shape contract checked on the shapes it was called with."""
    op = call.api.rsplit(".", 1)[-1]
    check = _CHECKS.get(op)
    if check is None:
        return None
    found = check(call.values, call.texts)
    if found is None:
        return None
    layer = _enclosing_layer(exc) or (f"Lambda '{n}'" if (n := _lambda_on_line(call)) else "")
    keras = any(_is_keras_tensor(v) for v in _operands(call.values))
    problem, hint = found
    made = _made_by(problem, call)
    return _violation((problem + made, hint), call.source, layer, keras or bool(layer))


def _made_by(problem: str, call: LiveCall) -> str:
    """`` (`fake` = `generator(z)`)``: where the operands the problem names were assigned
    above the call, so the finding names the layer or model that made the odd shape."""
    names = dict.fromkeys(re.findall(r"`(\w+)` \(", problem))
    made = [
        f"`{name}` = `{rhs}`"
        for name in names
        if (rhs := assigned_before(name, call.filename, call.lineno)) and "(" in rhs
    ]
    return f" ({'; '.join(made[:3])})" if made else ""


def lambda_op(call: LiveCall, exc: BaseException) -> Violation | None:
    """A ``Lambda`` whose function is one op call on its input: the op's contract checked with
    the shape the layer got (Keras reports only that it could not infer the output shape)."""
    layer = call.callee
    if not is_a(layer, "Lambda"):
        return None
    inputs = call.values.get("inputs", UNREAD)
    if shape_of(inputs) is None:
        return None
    try:
        tree = ast.parse(call.source.strip())
    except SyntaxError:
        return None
    lam = next((n for n in ast.walk(tree) if isinstance(n, ast.Lambda)), None)
    if lam is None or len(lam.args.args) != 1 or not isinstance(lam.body, ast.Call):
        return None
    param = lam.args.args[0].arg
    op = _name(lam.body.func)
    check = _CHECKS.get(op)
    if check is None:
        return None
    values, texts = _bind(op, lam.body, param, inputs, call.texts.get("inputs", param))
    if values is None:
        return None
    found = check(values, texts)
    if found is None:
        return None
    name = str(getattr(layer, "name", "lambda"))
    return _violation(found, ast.unparse(lam.body), f"Lambda '{name}'", True)


def _violation(found: tuple[str, str], source: str, layer: str, graph: bool) -> Violation:
    problem, hint = found
    where = f" in {layer}" if layer else ""
    return Violation(
        "S01" if graph else "S07",
        source,
        f"`{source}`{where}: {problem}",
        hint,
    )


# ------------------------------------------------------------------ the contracts
def _concatenate(values: dict[str, Any], texts: dict[str, str]) -> tuple[str, str] | None:
    items = values.get("xs", values.get("values", UNREAD))
    axis = values.get("axis", 0)
    if not isinstance(items, list | tuple) or len(items) < 2 or not isinstance(axis, int):
        return None
    shapes = [shape_of(t) for t in items]
    if any(s is None for s in shapes) or len({len(s) for s in shapes if s is not None}) != 1:
        return None
    rank = len(shapes[0] or ())
    at = axis % rank if rank else 0
    differ = [
        i
        for i in range(rank)
        if i != at and len({s[i] for s in shapes if s is not None and s[i] is not None}) > 1
    ]
    if not differ:
        return None
    names = _item_names(items, texts.get("xs", texts.get("values", "")))
    listed = ", ".join(f"{n} {fmt(s)}" for n, s in zip(names, shapes, strict=True))
    problem = (
        f"concatenate joins along axis {axis}, so every other axis must be equal, but {listed} "
        f"differ on axis {', '.join(str(i) for i in differ)}"
    )
    same = len({s[at] for s in shapes if s is not None}) == 1  # equal on the joined axis too
    if len(differ) == 1 and same:
        other = differ[0] - rank if differ[0] == rank - 1 else differ[0]
        hint = (
            f"they agree on axis {axis} and differ only on axis {differ[0]}: to join them "
            f"there, `axis={other}`"
        )
    elif differ == [0] and at != 0 and 1 in {s[0] for s in shapes if s is not None}:
        one = names[[s[0] if s else None for s in shapes].index(1)]
        full = next(n for n, s in zip(names, shapes, strict=True) if s and s[0] != 1)
        hint = (
            f"axis 0 is the batch: {one} has 1 there and is not repeated for each example: "
            f"broadcast it to the batch first, `tf.repeat({one.strip('`')}, "
            f"tf.shape({full.strip('`')})[0], axis=0)`"
        )
    else:
        hint = f"make axes {', '.join(str(i) for i in differ)} equal before joining them"
    return problem, hint


def _squeeze(values: dict[str, Any], texts: dict[str, str]) -> tuple[str, str] | None:
    shape = shape_of(values.get("x", values.get("input", UNREAD)))
    axis = values.get("axis")
    if shape is None or not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
        return None
    if shape[axis] in (1, None):
        return None
    ones = [i for i, d in enumerate(shape) if d == 1]
    name = texts.get("x", texts.get("input", "the tensor"))
    problem = f"squeeze removes only an axis of size 1, but axis {axis} of `{name}` {fmt(shape)} has size {shape[axis]}"
    if ones:
        choices = " or ".join(f"axis={i if i < len(shape) - 1 else -1}" for i in ones)
        return problem, f"the axis of size 1 is {', '.join(str(i) for i in ones)}: `{choices}`"
    return problem, f"`{name}` has no axis of size 1: reshape or reduce it instead"


def _transpose(values: dict[str, Any], texts: dict[str, str]) -> tuple[str, str] | None:
    shape = shape_of(values.get("x", values.get("a", UNREAD)))
    perm = values.get("axes", values.get("perm", UNREAD))
    if shape is None or not isinstance(perm, tuple | list) or len(perm) == len(shape):
        return None
    name = texts.get("x", texts.get("a", "the tensor"))
    full = None
    if len(perm) == len(shape) - 1 and len(set(perm)) == len(perm):
        # the example's axes numbered with the batch axis (1..) or without it (0..)
        full = (0, *perm) if 0 not in perm else (0, *(p + 1 for p in perm))
    return (
        f"a transpose permutation names every axis, and `{name}` {fmt(shape)} has "
        f"{len(shape)}, the batch axis first; {tuple(perm)} names {len(perm)}",
        f"keep the batch axis first: {full}" if full else f"give all {len(shape)} axes",
    )


def _stack(values: dict[str, Any], texts: dict[str, str]) -> tuple[str, str] | None:
    items = values.get("x", values.get("values", UNREAD))
    if not isinstance(items, list | tuple) or len(items) < 2:
        return None
    shapes = [shape_of(t) for t in items]
    if any(s is None for s in shapes) or len(set(shapes)) == 1:
        return None
    names = _item_names(items, texts.get("x", texts.get("values", "")))
    listed = ", ".join(f"{n} {fmt(s)}" for n, s in zip(names, shapes, strict=True))
    return (
        f"stack puts tensors of one shape side by side on a new axis, and {listed} differ",
        "give them one shape first (a Dense of one width on each), or join them along their "
        "last axis with concatenate, which takes other widths",
    )


def _reshape(values: dict[str, Any], texts: dict[str, str]) -> tuple[str, str] | None:
    shape = shape_of(values.get("x", values.get("tensor", UNREAD)))
    target = values.get("newshape", values.get("shape", UNREAD))
    if shape is None or not isinstance(target, tuple | list) or None in shape:
        return None
    if not all(isinstance(d, int) for d in target) or -1 in target or not target:
        return None
    size, wanted = math.prod(d for d in shape if d is not None), math.prod(target)
    if size == wanted:
        return None
    name = texts.get("x", texts.get("tensor", "the tensor"))
    problem = (
        f"reshape keeps the number of values, but `{name}` {fmt(shape)} holds {size} and "
        f"{tuple(target)} holds {wanted}"
    )
    rest = math.prod(target[1:])
    if target[0] != shape[0] and rest and size % rest == 0:
        fixed = (-1, *target[1:])
        return (
            problem + f": its first size, {target[0]}, fixes the batch axis, and this batch "
            f"has {shape[0]} examples",
            f"let the batch axis follow the data: `{tuple(fixed)}`",
        )
    return problem, f"give a target that holds {size} values (or -1 on one axis)"


def _einsum(values: dict[str, Any], texts: dict[str, str]) -> tuple[str, str] | None:
    subscripts = values.get("subscripts", UNREAD)
    if not isinstance(subscripts, str) or "..." in subscripts:
        return None
    inputs = subscripts.split("->")[0].split(",")
    operands = [values.get(f"arg{i + 1}", UNREAD) for i in range(len(inputs))]
    for i, (letters, operand) in enumerate(zip(inputs, operands, strict=True)):
        shape = shape_of(operand)
        letters = letters.strip()
        if shape is None or len(letters) == len(shape):
            continue
        name = texts.get(f"arg{i + 1}", f"operand {i}")
        return (
            f"einsum names {len(letters)} axes for operand {i} ('{letters}'), but `{name}` "
            f"{fmt(shape)} has {len(shape)}",
            f"give '{letters}' one letter per axis of `{name}` ({len(shape)} letters, e.g. "
            "one more for a heads axis), and the same letters in the output for the axes kept",
        )
    return None


def _split(values: dict[str, Any], texts: dict[str, str]) -> tuple[str, str] | None:
    shape = shape_of(values.get("x", values.get("value", UNREAD)))
    parts = values.get("indices_or_sections", values.get("num_or_size_splits", UNREAD))
    axis = values.get("axis", 0)
    if shape is None or not isinstance(parts, int) or not isinstance(axis, int) or parts < 2:
        return None
    size = shape[axis] if -len(shape) <= axis < len(shape) else None
    if size is None or size % parts == 0:
        return None
    name = texts.get("x", texts.get("value", "the tensor"))
    sizes = [size // parts + (1 if i < size % parts else 0) for i in range(parts)]
    points = [sum(sizes[: i + 1]) for i in range(parts - 1)]
    return (
        f"split into {parts} sections needs axis {axis} to divide by {parts}, but `{name}` "
        f"{fmt(shape)} has {size} there",
        f"give the split points instead of a count: `{points}` makes sections of "
        f"{'/'.join(str(s) for s in sizes)}; use the points of the sizes the groups have",
    )


_CHECKS = {
    "concatenate": _concatenate,
    "concat": _concatenate,
    "squeeze": _squeeze,
    "reshape": _reshape,
    "einsum": _einsum,
    "split": _split,
    "transpose": _transpose,
    "stack": _stack,
}


# ------------------------------------------------------------------ reading the call
def _bind(
    op: str, node: ast.Call, param: str, value: Any, text: str
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """The values and texts of a lambda's one op call: the parameter is the layer's input,
    the other arguments literals; None when another expression is passed."""
    names = _POSITIONAL.get(op, ())
    values: dict[str, Any] = {}
    texts: dict[str, str] = {}
    for i, arg in enumerate(node.args):
        key = names[i] if i < len(names) else ""
        if not key:
            return None, {}
        if isinstance(arg, ast.Name) and arg.id == param:
            values[key], texts[key] = value, text
            continue
        try:
            values[key] = ast.literal_eval(arg)
        except ValueError:
            return None, {}
    for keyword in node.keywords:
        if keyword.arg is None:
            return None, {}
        try:
            values[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            return None, {}
    return values, texts


# each op's positional parameters, by the names its check reads
_POSITIONAL = {
    "concatenate": ("xs", "axis"),
    "concat": ("values", "axis"),
    "squeeze": ("x", "axis"),
    "reshape": ("x", "newshape"),
    "split": ("x", "indices_or_sections", "axis"),
    "einsum": ("subscripts", "arg1", "arg2", "arg3"),
    "transpose": ("x", "axes"),
    "stack": ("x", "axis"),
}


def _name(func: ast.expr) -> str:
    return (
        func.attr
        if isinstance(func, ast.Attribute)
        else func.id
        if isinstance(func, ast.Name)
        else ""
    )


def _operands(values: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for value in values.values():
        out.extend(value if isinstance(value, list | tuple) else [value])
    return out


def _is_keras_tensor(value: Any) -> bool:
    return type(value).__name__ == "KerasTensor"


def _item_names(items: Any, text: str) -> list[str]:
    """Each item as the user knows it: the layer that made a Keras tensor ('conv_narrow'),
    else its name in the list literal (``[narrow, wide]``), else its position."""
    try:
        written = [ast.unparse(e) for e in ast.parse(text, mode="eval").body.elts]  # type: ignore[attr-defined]
    except Exception:
        written = []
    names = []
    for i, item in enumerate(items):
        operation = getattr(getattr(item, "_keras_history", None), "operation", None)
        own = f"`{written[i]}`" if i < len(written) else f"item {i}"
        names.append(f"{own} from '{operation.name}'" if operation is not None else own)
    return names


def _lambda_on_line(call: LiveCall) -> str:
    """The name given to a ``Lambda`` made on the call's own line (its function is the op's
    caller, run later by fit or predict, where Keras drops the layer's frames)."""
    import linecache

    line = linecache.getline(call.filename, call.lineno) if call.filename else ""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) == "Lambda":
            for keyword in node.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return ""


def _enclosing_layer(exc: BaseException) -> str:
    """ "Lambda 'name'" (or "AddCLSToken 'name'" for the user's own layer class) of the
    innermost layer whose call ran the op, "" when none."""
    found = ""
    tb = exc.__traceback__
    while tb is not None:
        owner = tb.tb_frame.f_locals.get("self")
        mine = is_a(owner, "Layer") and not type(owner).__module__.startswith(("keras", "tf"))
        if is_a(owner, "Lambda") or mine and tb.tb_frame.f_code.co_name == "call":
            found = f"{type(owner).__name__} '{getattr(owner, 'name', '')}'"
        tb = tb.tb_next
    return found


TENSOR_OPS: tuple[tuple[Any, ...], ...] = (
    (
        ("keras.ops.", "tf.", "tensorflow."),
        op_shapes,
        (
            r"must have the same shape except on the `axis`",
            r"Cannot squeeze",
            r"Cannot reshape a tensor",
            r"to have rank \d+ but got",
            r"should evenly divide the split dimension",
        ),
    ),
    (("keras.layers.Lambda",), lambda_op, (r"specify the `output_shape` argument",)),
)
