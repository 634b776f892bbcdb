"""A Keras 2 module attribute that Keras 3 moved or removed (S12).

``keras.layers.experimental.preprocessing.Rescaling``, ``K.set_value(...)``,
``K.function(...)``: Keras 3 answers "module 'keras.backend' has no attribute 'set_value'",
which says what is gone but not where it went.  Two readings, in order:

- the name the line asks for (the missing attribute, or the last name of the dotted path
  after it) is searched in Keras 3's public modules: ``Rescaling`` lives in ``keras.layers``,
  ``clip`` in ``keras.ops``;
- the backend idioms the Keras 3 migration guide replaces without a same-name successor:
  ``set_value(v, x)`` is ``v.assign(x)``, ``get_value``/``eval`` read a value with
  ``keras.ops.convert_to_numpy``, ``function`` is a ``keras.Model`` from the inputs to the
  outputs, ``placeholder`` is ``keras.Input``, ``int_shape(x)`` is ``x.shape``.

The arguments the line gives are put into the Keras 3 form (``K.set_value(opt.lr, 1e-3)``
becomes ``opt.learning_rate.assign(1e-3)``).
"""

from __future__ import annotations

import ast
import re

from tfnb_debug.explain._context import ErrorContext
from tfnb_debug.explain.report import NextStep
from tfnb_debug.ground.reports import Finding, finding

Explained = tuple[Finding, tuple[NextStep, ...]]

_MISSING = re.compile(r"module '(keras[\w.]*)' has no attribute '(\w+)'")
_PUBLIC = (
    "keras.layers",
    "keras.ops",
    "keras.utils",
    "keras.random",
    "keras.losses",
    "keras.metrics",
    "keras.optimizers",
    "keras.callbacks",
    "keras.activations",
    "keras.initializers",
    "keras.regularizers",
    "keras.models",
    "keras.saving",
    "keras",
)


def removed_keras2_module_attribute(ctx: ErrorContext) -> Explained | None:
    """S12: where a Keras 2 module attribute lives in Keras 3, or its Keras 3 idiom."""
    match = _MISSING.search(ctx.text)
    user = ctx.user_code_line()
    if match is None or user is None:
        return None
    module, attribute = match.group(1), match.group(2)
    source = user[3]
    call = _call_of(source, attribute)
    wanted = _last_name_after(source, attribute) or attribute
    hint = _idiom(attribute, call) if module == "keras.backend" else ""
    if not hint:
        found = _public_home(wanted)
        if found is None:
            return None
        hint = f"Keras 3 has it as `{found}`" + (
            f" (the `{module}.{attribute}` path is gone)" if wanted != attribute else ""
        )
    return (
        finding(
            "S12",
            f"`{module}.{attribute}` is Keras 2 API that Keras 3 removed",
            place=ctx.where(user[0], user[1], user[2]),
            evidence=f"`{source.strip()}`; Keras 3's {module} has no '{attribute}'",
            hint=hint,
        ),
        (),
    )


def _public_home(name: str) -> str | None:
    import importlib

    for path in _PUBLIC:
        try:
            module = importlib.import_module(path)
        except ImportError:
            continue
        if hasattr(module, name):
            return f"{path}.{name}"
    return None


def _idiom(attribute: str, call: ast.Call | None) -> str:
    args = [ast.unparse(a) for a in call.args] if call is not None else []
    first = _keras3_attribute(args[0]) if args else "v"
    if attribute == "set_value":
        value = args[1] if len(args) > 1 else "value"
        return f"assign to the variable itself: `{first}.assign({value})`"
    if attribute in ("get_value", "eval", "batch_get_value"):
        return f"read it with `keras.ops.convert_to_numpy({first})` (or `float({first})`)"
    if attribute == "function":
        inputs = args[0] if args else "inputs"
        outputs = args[1] if len(args) > 1 else "outputs"
        return (
            f"build a model from the inputs to the outputs and call it: "
            f"`keras.Model({inputs}, {outputs})(x)` (or `.predict(x)`)"
        )
    if attribute == "placeholder":
        return "declare the input with `keras.Input(shape=...)`"
    if attribute == "int_shape":
        return f"read the shape directly: `{first}.shape` (a tuple, None for unknown axes)"
    return ""


def _keras3_attribute(text: str) -> str:
    """``model.optimizer.lr`` -> ``model.optimizer.learning_rate`` (the Keras 3 attribute)."""
    return re.sub(r"\.lr\b", ".learning_rate", text)


def _call_of(source: str, attribute: str) -> ast.Call | None:
    try:
        tree = ast.parse(source.strip())
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == attribute
        ):
            return node
    return None


def _last_name_after(source: str, attribute: str) -> str:
    """``Rescaling`` for ``keras.layers.experimental.preprocessing.Rescaling(...)`` asked for
    ``experimental``: the name the dotted path ends in."""
    chain = re.search(rf"\.{attribute}((?:\.\w+)+)", source)
    return chain.group(1).rsplit(".", 1)[-1] if chain else ""
