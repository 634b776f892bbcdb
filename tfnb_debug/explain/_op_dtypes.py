"""The dtypes an op takes (S11): a tensor of a dtype outside an op's allowed list, text given to
``tf.cast``, an integer tensor meeting a layer's float weights.

Every TensorFlow op declares per input the dtypes it takes, and refuses another with the
op, the attribute or parameter and the allowed list: eagerly "Value for attr 'TI' of float
is not in the list of allowed values: uint8, int8, int32, int64 ... Op<name=OneHot;
signature=indices:TI, ...>", in a ``tf.function`` or a ``Dataset.map`` "Value passed to
parameter 'indices' has DataType float32 not in list of allowed values: ...".  The user's
call is often not the op itself (``tf.sort`` runs ``Neg``, ``tf.reduce_mean`` runs
``Mean``), so the argument is found by what was refused: the argument of the user's call
whose dtype is the refused one (the op's own input name first).  The fix casts it to a dtype
the op takes, picked from the allowed list by what the value is (ids held as floats become
int32, a bool mask float32), or, for text, parses it or looks it up, naming both when the
values are not seen.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._violation import Violation, is_number

__all__ = ["allowed_dtypes", "layer_weights_dtype", "text_cast", "traced_call"]

_ATTR = re.compile(
    r"Value for attr '(\w+)' of (\w+) is not in the list of allowed values: ([\w, ]+)"
)
_PARAMETER = re.compile(
    r"Value passed to parameter '(\w+)' has DataType (\w+) not in list of allowed values: "
    r"([\w, ]+)"
)
_OP = re.compile(r"Op<name=(\w+); signature=([^>]*?)(?:->|>)")
_CAST_TEXT = re.compile(r"Cast string to (\w+) is not supported")
_CONVERSION = re.compile(
    r"Incompatible type conversion requested to type (\w+) for `?tf\.Variable of type (\w+)"
)
_LAYER = re.compile(r"Exception encountered when calling (\w+)\.call\(\)")

# TensorFlow's short names in these messages -> the dtype names users write
_NAMES = {"float": "float32", "double": "float64", "half": "float16", "string": "string"}
_FLOATS = ("float32", "float64", "float16", "bfloat16")
_INTS = ("int32", "int64", "int16", "int8", "uint8", "uint16", "uint32", "uint64")


def _dtype(name: str) -> str:
    return _NAMES.get(name, name)


def _dtype_of(value: Any) -> str:
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return ""
    name = getattr(dtype, "name", None) or str(dtype)
    return "string" if name in ("string", "object") or name.startswith(("<U", "|S")) else name


def _refused(text: str) -> tuple[str, str, str, tuple[str, ...]] | None:
    """(op or "", the op's input name, the refused dtype, the allowed dtypes) from the message."""
    attr = _ATTR.search(text)
    if attr is not None:
        op, param = "", attr.group(1)
        signature = _OP.search(text)
        if signature is not None:
            op = signature.group(1)
            inputs = [p.strip().split(":") for p in signature.group(2).split(",")]
            named = [p[0] for p in inputs if len(p) == 2 and p[1].strip() == attr.group(1)]
            param = named[0] if named else param
        allowed = tuple(_dtype(d.strip()) for d in attr.group(3).split(",") if d.strip())
        return op, param, _dtype(attr.group(2)), allowed
    given = _PARAMETER.search(text)
    if given is not None:
        allowed = tuple(_dtype(d.strip()) for d in given.group(3).split(",") if d.strip())
        return "", given.group(1), _dtype(given.group(2)), allowed
    return None


def _argument(call: LiveCall, param: str, dtype: str) -> tuple[str, Any] | None:
    """The argument of ``call`` with the refused ``dtype``: the one bound to the op's own input
    name first, else the only one of that dtype, else the first of them."""
    value = call.values.get(param, UNREAD)
    if value is not UNREAD and _dtype_of(value) == dtype:
        return param, value
    found = [(n, v) for n, v in call.values.items() if v is not UNREAD and _dtype_of(v) == dtype]
    return found[0] if found else None


def _target(have: str, allowed: tuple[str, ...]) -> str | None:
    """The dtype to cast to: integers for ids held as floats or text, float32 for a bool
    mask or integers where the op computes in floats; None when nothing fits."""
    floats = [d for d in _FLOATS if d in allowed]
    ints = [d for d in _INTS if d in allowed]
    if have in _FLOATS or have == "string":
        return ints[0] if ints and not floats else (floats[0] if floats else None)
    if have == "bool" or have in _INTS:
        return floats[0] if floats else (ints[0] if ints else None)
    return None


def _kind(allowed: tuple[str, ...]) -> str:
    if all(d in _INTS for d in allowed):
        return "integer"
    if all(d in _FLOATS or d.startswith("complex") for d in allowed):
        return "floating-point"
    return "numeric"


def _cast(text: str, value: Any, target: str) -> str:
    numpy = type(value).__module__ == "numpy"
    return f"`{text}.astype('{target}')`" if numpy else f"`tf.cast({text}, tf.{target})`"


def allowed_dtypes(call: LiveCall, exc: BaseException) -> Violation | None:
    """A tensor whose dtype the op refuses (``tf.one_hot`` of float ids, ``tf.reduce_mean``
    of a bool mask, ``tf.nn.softmax`` of integers), found in the user's call by its dtype."""
    refused = _refused(str(exc))
    if refused is None:
        return None
    op, param, have, allowed = refused
    target = _target(have, allowed)
    if target is None:
        return None
    found = _argument(call, param, have)
    traced = None if found is not None else _traced_argument(str(exc), param, call)
    if found is not None:
        name, value = found
        text = call.text(name)
        api = call.api
        if api == "tf.function":  # the op is somewhere in the user's function
            api = f"an op in `{getattr(call.callee, '__name__', 'the tf.function')}`"
        else:
            api = f"`{api}`"
    elif traced is not None:  # traced in a tf.function or Dataset.map: the line, not values
        api, text, line = traced
        value = None
    elif param in call.texts and call.values.get(param, UNREAD) is UNREAD:
        # the user's call binds the refused input itself, to an expression not evaluated
        # (a slice of a traced tensor): the message's dtype is its dtype
        api, text, value = f"`{call.api}`", call.texts[param], None
    elif (local := _local_of_dtype(call, have)) is not None:
        # an operand inside an expression of the line (``vectors * mask[..., None]``): the
        # one name on the line whose value has the refused dtype
        api, (text, value) = f"an op on the line `{call.source}`", local
    else:
        return None
    runs = f" (it runs {op})" if op and op.lower() not in api.replace("_", "").lower() else ""
    problem = f"{api}{runs} takes {_kind(allowed)} `{param}`; `{text}` is {have}"
    if have == "string":
        hint = (
            f"text is not cast: for numbers written as text `tf.strings.to_number({text}, "
            f"out_type=tf.{target})`, for category words a keras.layers.StringLookup "
            f"(or IntegerLookup) that maps them to ids"
        )
    else:
        what = {
            "bool": " (True/False become 1/0)",
            "int": " first (the op computes in floats)",
        }.get("int" if have in _INTS else have, " first")
        if have in _FLOATS and target in _INTS:
            what = " first (ids held as floats, e.g. parsed from text or read from a float array)"
        hint = f"cast it to {target}{what}: {_cast(text, value, target)}"
        loss = _compiled_loss(call) if re.search(r"\by_true\b", text) else ""
        if loss and have in _FLOATS:
            hint = (
                f"`{loss}` is the model's compiled loss, and Keras casts `y_true` to the "
                f"predictions' dtype ({have}) before it calls a loss, whatever the labels' "
                f"dtype: cast it back inside `{loss}`, {_cast(text, value, target)}"
            )
    evidence = f"{f'op {op} ' if op else ''}input '{param}' refuses {have}"
    if len(allowed) <= 4:
        evidence += f" (it takes {', '.join(allowed)})"
    if traced is not None:
        evidence += f"; traced in {traced[2]}"
    return Violation("S11", text, problem, hint, evidence=evidence)


def _local_of_dtype(call: LiveCall, dtype: str) -> tuple[str, Any] | None:
    """The one name on the call's line whose value (a local of the user's frame) has
    ``dtype``, or None when none or several do."""
    import ast

    if not call.namespaces:
        return None
    try:
        tree = ast.parse(call.source.strip())
    except SyntaxError:
        return None
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    local = call.namespaces[0]
    found = [(n, local[n]) for n in sorted(names) if n in local and _dtype_of(local[n]) == dtype]
    return found[0] if len(found) == 1 else None


def _compiled_loss(call: LiveCall) -> str:
    """The name of the function the user's call is in when a model in the user's namespace was
    compiled with it as its loss (Keras casts the labels for a loss; a metric function gets
    them as they are), else ""."""
    from tfnb_debug.explain._operands import enclosing_function
    from tfnb_debug.explain._violation import models_in

    function = enclosing_function(call.filename, call.lineno) if call.filename else None
    if function is None:
        return ""
    losses = (getattr(getattr(m, "loss", None), "__name__", None) for _, m in models_in(call))
    return function.name if function.name in losses else ""


# the innermost line of the user's code a tf.function or Dataset.map traced ("in user code:")
_TRACED_LINE = re.compile(r'File "[^"]+", line \d+, in (\w+)\s*\*?\s*\n\s+(\S[^\n]*)')


def _traced_argument(text: str, param: str, call: LiveCall) -> tuple[str, str, str] | None:
    """(the API called, the argument's source, where) for an op input refused while a
    function was traced: the user's line from the message, its calls resolved in the user's
    namespaces, and the argument bound to the op's input name by the API's signature."""
    import ast
    import inspect

    lines = _TRACED_LINE.findall(text)
    if not lines:
        return None
    function, source = lines[-1]
    try:
        tree = ast.parse(source.strip().removeprefix("return ").strip())
    except SyntaxError:
        return None
    from tfnb_debug.explain._api import evaluate

    spaces = tuple(call.namespaces)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = evaluate(node.func, spaces) if spaces else UNREAD
        if callee is UNREAD or not callable(callee):
            continue
        try:
            bound = inspect.signature(callee).bind_partial(
                *node.args, **{k.arg: k.value for k in node.keywords if k.arg is not None}
            )
        except (TypeError, ValueError):
            continue
        if param in bound.arguments and isinstance(bound.arguments[param], ast.expr):
            name = ast.unparse(node.func)
            where = f"`{function}`: `{source.strip()}`"
            return f"`{name}`", ast.unparse(bound.arguments[param]), where
    return None


def text_cast(call: LiveCall, exc: BaseException) -> Violation | None:
    """``tf.cast`` of text to a number: casting does not parse.  The values, when they are
    read, say which fix: numbers written as text are parsed, words are looked up."""
    match = _CAST_TEXT.search(str(exc))
    value = call.values.get("x", UNREAD)
    if match is None or value is UNREAD or _dtype_of(value) != "string":
        return None
    target = _dtype(match.group(1))
    text = call.text("x")
    sample = _sample(value)
    parse = f"`tf.strings.to_number({text}, out_type=tf.{target})`"
    lookup = "a keras.layers.StringLookup that maps each word to an id"
    if sample and all(is_number(s) for s in sample):
        hint = f"the values are numbers written as text ('{sample[0]}'): parse them with {parse}"
    elif sample:
        hint = f"the values are words ('{sample[0]}'), not numbers: map them with {lookup}"
    else:
        hint = f"for numbers written as text parse them with {parse}; for words use {lookup}"
    return Violation(
        "S11",
        text,
        f"`tf.cast` does not parse text: `{text}` is a string tensor, cast to {target}",
        hint,
    )


def layer_weights_dtype(call: LiveCall, exc: BaseException) -> Violation | None:
    """A layer called with an integer (or other) tensor its float weights cannot meet: a
    functional model casts its inputs to the ``Input``'s dtype, a subclassed model or a layer
    called directly does not."""
    text = str(exc)
    match = _CONVERSION.search(text)
    if match is None:
        return None
    have, weights = _dtype(match.group(1)), _dtype(match.group(2))
    found = [(n, v) for n, v in call.values.items() if v is not UNREAD and _dtype_of(v) == have]
    if not found:
        return None
    name, value = found[0]
    arg = call.text(name)
    layer = _LAYER.search(text)
    where = f"{layer.group(1)}'s" if layer is not None else "the layer's"
    outer = _outer_argument(exc, have, call)
    if outer is not None:  # the layer runs inside the user's model: cast what the model got
        hint = (
            f"cast the model's input to {weights}: {_cast(outer[0], outer[1], weights)} "
            f"(or `{arg} = tf.cast({arg}, self.compute_dtype)` at the top of call())"
        )
        arg = outer[0]
    else:
        hint = f"cast the input to {weights} first: {_cast(arg, value, weights)}"
    if have == "uint8":
        hint += (
            f" (uint8 image pixels run 0..255: divide by 255.0 too if the model is meant to see "
            f"0..1, e.g. `tf.cast({arg}, tf.{weights}) / 255.0`)"
        )
    return Violation(
        "S11",
        arg,
        f"`{arg}` is {have}, but {where} weights are {weights}: a subclassed model or a layer "
        "called directly does not cast its inputs (a functional model's keras.Input does)",
        hint,
        evidence=f"{have} input, {weights} tf.Variable",
    )


def _sample(value: Any) -> list[str]:
    try:
        flat = value.numpy().reshape(-1)[:4]
    except Exception:
        return []
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in flat]


def traced_call(exc: BaseException, is_user_file: Any) -> LiveCall | None:
    """For an op input refused while the user's function was traced (a ``Dataset.map``
    function, a ``tf.function``) where no library call of the user's code could be resolved:
    the innermost user frame's namespaces, in which :func:`allowed_dtypes` resolves the traced
    line's calls."""
    import linecache

    text = str(exc)
    traced = _TRACED_LINE.findall(text)
    if _refused(text) is None or not traced:
        return None
    frame, lineno = None, 0
    tb = exc.__traceback__
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            frame, lineno = tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next
    if frame is None:
        return None
    builtins = frame.f_builtins if isinstance(frame.f_builtins, dict) else vars(frame.f_builtins)
    return LiveCall(
        api=f"{traced[-1][0]}()",
        method="",
        callee=None,
        receiver=None,
        source=linecache.getline(frame.f_code.co_filename, lineno).strip(),
        filename=frame.f_code.co_filename,
        lineno=lineno,
        namespaces=(frame.f_locals, frame.f_globals, builtins),
    )


def _outer_argument(exc: BaseException, dtype: str, call: LiveCall) -> tuple[str, Any] | None:
    """The name the outermost user line passes that holds a ``dtype`` tensor (``pixels`` in
    ``model(pixels)``), when the failing call runs deeper in the user's code (a layer called
    in a subclassed model's ``call``)."""
    import ast
    import linecache

    from tfnb_debug.ground.files import is_user_file

    tb, outer = exc.__traceback__, None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            outer = tb
            break
        tb = tb.tb_next
    if outer is None:
        return None
    filename, lineno = outer.tb_frame.f_code.co_filename, outer.tb_lineno
    if (filename, lineno) == (call.filename, call.lineno):
        return None
    try:
        tree = ast.parse(linecache.getline(filename, lineno).strip())
    except SyntaxError:
        return None
    spaces = (outer.tb_frame.f_locals, outer.tb_frame.f_globals)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for arg in node.args:
                if isinstance(arg, ast.Name):
                    value = next((s[arg.id] for s in spaces if arg.id in s), None)
                    if value is not None and _dtype_of(value) == dtype:
                        return arg.id, value
    return None
