"""A batch size written into the user's code as a constant.

Two operands that differ only on the first axis (16 against 8) met a tensor made with a
fixed batch size: ``tf.random.normal((16, latent_dim))`` in a GAN's step, ``tf.ones((32, 1))``
as labels, ``tf.reshape(x, (32, -1))``, ``keras.Input(batch_size=32)``.  The user's cell (the
function around the failing line first) is searched for such a call whose batch entry is
one of the two sizes, written as a number or as a name assigned that number.
"""

from __future__ import annotations

import ast
import linecache

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain._operands import call_name

# callee name (last part) -> index of the argument that holds the shape
_MAKERS = {
    "normal": 0,
    "uniform": 0,
    "truncated_normal": 0,
    "zeros": 0,
    "ones": 0,
    "fill": 0,
    "empty": 0,
    "rand": -1,  # np.random.rand(16, 8): the sizes are the arguments
    "randn": -1,
    "reshape": 1,
    "broadcast_to": 1,
}


def literal_batch(ctx: ErrorContext, sizes: tuple[int, ...]) -> tuple[int, str, int] | None:
    """(line, source, size) of the call in the user's code that writes one of ``sizes`` as
    the batch entry of a shape, the function around the failing line searched first."""
    user = ctx.user_code_line()
    if user is None:
        return None
    lines = linecache.getlines(user[0])
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return None
    constants = _int_constants(tree)
    scopes: list[ast.AST] = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and node.lineno <= user[1] <= (node.end_lineno or node.lineno)
    ]
    for scope in [*scopes[-1:], tree]:
        for call in sorted(
            (n for n in ast.walk(scope) if isinstance(n, ast.Call)), key=lambda n: n.lineno
        ):
            size = _batch_entry(call, constants)
            if size in sizes:
                return call.lineno, lines[call.lineno - 1].strip(), size
    return None


def _batch_entry(call: ast.Call, constants: dict[str, int]) -> int | None:
    func = call.func
    name = call_name(func)
    for keyword in call.keywords:
        if keyword.arg == "batch_size" and name == "Input":
            return _int(keyword.value, constants)
    index = _MAKERS.get(name)
    if index is None:
        return None
    if index == -1:
        return _int(call.args[0], constants) if call.args else None
    shape = call.args[index] if index < len(call.args) else None
    if shape is None:
        shape = next((k.value for k in call.keywords if k.arg == "shape"), None)
    if isinstance(shape, ast.Tuple | ast.List) and shape.elts:
        return _int(shape.elts[0], constants)
    return None


def _int(node: ast.expr, constants: dict[str, int]) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _int_constants(tree: ast.AST) -> dict[str, int]:
    """Names assigned an integer literal (``BATCH = 16``), the last assignment kept."""
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and type(node.value.value) is int
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found
