"""The user's call into a library, resolved: which Keras/TensorFlow API the failing line called,
with its arguments bound to that API's parameters as live values.

The call is the one the innermost user frame was executing when the exception
passed through it (``lstm(x, initial_state=[h])``, ``opt.apply_gradients(zip(v, g))``,
``tf.image.resize(img, (4, 4))``).  Only what is already bound in the frame is
read: names, constants, attributes of modules, classes and library objects,
subscripts of NumPy/pandas data, literals of those, and the pure builtins
``zip``/``list``/``tuple`` over them.  No user function or property runs.

Used by :mod:`tfnb_debug.explain._contracts` while the exception is read; the
rules never see these live values, only the plain result of the contracts.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import linecache
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from tfnb_debug.explain._call import _call_node

UNREAD: Any = type("Unread", (), {"__repr__": lambda self: "<unread>"})()
_LIBRARIES = ("keras", "tensorflow", "tf_keras")
_PURE_BUILTINS = {"zip": zip, "list": list, "tuple": tuple}


@dataclass
class LiveCall:
    """The failing user call, resolved (live values; never stored in a report).

    ``api`` is the public name of what was called: ``keras.layers.LSTM`` (a
    layer called on tensors), ``keras.Model.fit``, ``tf.image.resize``,
    ``keras.Model`` (a constructor).  ``receiver`` is the object a method was
    called on (or the layer called), ``callee`` the Python callable that ran,
    ``values`` the arguments bound to its parameters (``UNREAD`` where an
    argument was not evaluated), ``texts`` the source of each bound argument.
    """

    api: str
    method: str  # "__call__" for a layer (or another callable object), "" for a function
    callee: Any
    receiver: Any
    values: dict[str, Any] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    source: str = ""  # the call as written
    filename: str = ""
    lineno: int = 0
    bind_error: str = ""  # why the arguments do not bind to the API's signature, if they do not
    receiver_locals: dict[str, Any] = field(
        default_factory=dict
    )  # the receiver's own frames' locals
    namespaces: tuple[Mapping[str, Any], ...] = ()
    #: the names the call's result was unpacked into (``a, b = layer(x)``: 2; 0 when none)
    unpacked: int = 0

    def value(self, name: str) -> Any:
        return self.values.get(name, UNREAD)

    def text(self, name: str) -> str:
        return self.texts.get(name, name)


def user_call(exc: BaseException, is_user_file: Any) -> LiveCall | None:
    """The innermost user frame's call into Keras or TensorFlow, resolved, or None."""
    found: LiveCall | None = None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            node = _call_node(frame.f_code, tb.tb_lasti, tb.tb_lineno)
            if node is not None:
                spaces = (frame.f_locals, frame.f_globals, _builtins(frame))
                resolved = _resolve(
                    node, spaces, _called_object(tb.tb_next), _called_method(tb.tb_next, node)
                )
                if resolved is not None:
                    _fill_from_frames(resolved, tb.tb_next)
                    _receiver_locals(resolved, tb.tb_next)
                    resolved.filename = frame.f_code.co_filename
                    resolved.lineno = tb.tb_lineno
                    found = resolved
                else:
                    found = None  # the innermost user call is the user's own function
        tb = tb.tb_next
    return found


UNPACKING = re.compile(r"(too many|not enough) values to unpack \(expected (\d+)")
"""Python's message when a tuple target and the value it unpacks differ in length."""
_ITERATED = "Iterating over a symbolic KerasTensor is not supported"


def unpacked_call(exc: BaseException, is_user_file: Any) -> LiveCall | None:
    """The library call whose result the user's line failed to unpack (``out, h =
    keras.layers.LSTM(8, return_state=True)(x)`` raising "too many values to unpack"), with
    :attr:`LiveCall.unpacked` set; the layer's constructor call when the layer is made on
    the line.  None when the error is not an unpacking or the line holds no such call."""
    iterated = isinstance(exc, NotImplementedError) and _ITERATED in str(exc)
    if not (isinstance(exc, ValueError) and UNPACKING.search(str(exc)) or iterated):
        return None
    tb, user = exc.__traceback__, None
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            user = tb
        tb = tb.tb_next
    # the user's line that unpacks: Python raises "values to unpack" in that frame itself (one
    # raised deeper, inside a library, is not the user's line); a KerasTensor refuses the
    # iteration in its own __iter__
    if user is None or (not iterated and user.tb_next is not None):
        return None
    tb = user
    frame = tb.tb_frame
    lines = linecache.getlines(frame.f_code.co_filename)
    if not 0 < tb.tb_lineno <= len(lines):
        return None
    try:
        statement = ast.parse(textwrap.dedent(lines[tb.tb_lineno - 1])).body[0]
    except (SyntaxError, IndexError):
        return None
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Tuple | ast.List)
        and isinstance(statement.value, ast.Call)
        and not any(isinstance(t, ast.Starred) for t in statement.targets[0].elts)
    ):
        return None
    spaces = (frame.f_locals, frame.f_globals, _builtins(frame))
    node = statement.value
    resolved = _resolve(node, spaces)
    if resolved is None and isinstance(node.func, ast.Call):
        resolved = _resolve(node.func, spaces)  # the layer made on the line: its arguments
    if resolved is None:
        return None
    resolved.unpacked = len(statement.targets[0].elts)
    resolved.filename = frame.f_code.co_filename
    resolved.lineno = tb.tb_lineno
    return resolved


def _builtins(frame: Any) -> Mapping[str, Any]:
    b = frame.f_builtins
    return b if isinstance(b, Mapping) else vars(b)


def evaluate(node: ast.expr, spaces: tuple[Mapping[str, Any], ...], depth: int = 0) -> Any:
    """A side-effect-free value of ``node`` in the frame's namespaces, or ``UNREAD``."""
    if depth > 6:
        return UNREAD
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = evaluate(node.operand, spaces, depth + 1)
        return -inner if isinstance(inner, int | float) and not isinstance(inner, bool) else UNREAD
    if isinstance(node, ast.Name):
        for names in spaces:
            if node.id in names:
                return names[node.id]
        return UNREAD
    if isinstance(node, ast.Attribute):
        base = evaluate(node.value, spaces, depth + 1)
        if base is UNREAD or not _safe_getattr_base(base):
            return UNREAD
        return _read_attr(base, node.attr)
    if isinstance(node, ast.Tuple | ast.List):
        items = [evaluate(e, spaces, depth + 1) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict):
        keys = [None if k is None else evaluate(k, spaces, depth + 1) for k in node.keys]
        if any(k is None or k is UNREAD or not isinstance(k, str | int) for k in keys):
            return UNREAD
        return {k: evaluate(v, spaces, depth + 1) for k, v in zip(keys, node.values, strict=True)}
    if isinstance(node, ast.Subscript):
        base = evaluate(node.value, spaces, depth + 1)
        index = (
            evaluate(node.slice, spaces, depth + 1)
            if not isinstance(node.slice, ast.Slice)
            else _slice(node.slice, spaces, depth)
        )
        if base is UNREAD or index is UNREAD or not _is_plain_container(base):
            return UNREAD
        try:
            return base[index]
        except Exception:
            return UNREAD
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        func = evaluate(node.func, spaces, depth + 1)
        pure = _PURE_BUILTINS.get(node.func.id)
        if pure is None or func is not pure:
            return UNREAD
        args = [evaluate(a, spaces, depth + 1) for a in node.args]
        if any(
            a is UNREAD or not isinstance(a, list | tuple | dict) and not _is_array(a) for a in args
        ):
            return UNREAD
        try:
            return list(pure(*args)) if pure is zip else pure(*args)
        except Exception:
            return UNREAD
    return UNREAD


def _read_attr(base: Any, attr: str) -> Any:
    """``base.attr`` when a library (or the instance's own dict) defines it, else ``UNREAD``."""
    if not (inspect.ismodule(base) or inspect.isclass(base)):
        for klass in type(base).__mro__:
            if attr in vars(klass):
                if klass.__module__.split(".")[0] not in (*_LIBRARIES, "numpy", "builtins"):
                    return UNREAD  # defined by the user's subclass: may be a property with effects
                break
    try:
        return getattr(base, attr)
    except Exception:
        return UNREAD


def _slice(node: ast.Slice, spaces: tuple[Mapping[str, Any], ...], depth: int) -> Any:
    parts = [
        None if p is None else evaluate(p, spaces, depth + 1)
        for p in (node.lower, node.upper, node.step)
    ]
    if any(p is UNREAD or not (p is None or isinstance(p, int)) for p in parts):
        return UNREAD
    return slice(*parts)


def _is_array(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "numpy" and hasattr(value, "shape")


def _is_plain_container(value: Any) -> bool:
    module = type(value).__module__.split(".")[0]
    return module in ("numpy", "pandas") or isinstance(value, list | tuple | dict)


def _safe_getattr_base(value: Any) -> bool:
    """Attributes are read only from modules, classes, and library objects (no user property runs)."""
    if inspect.ismodule(value) or inspect.isclass(value):
        return True
    cls = type(value)
    for klass in cls.__mro__:
        module = klass.__module__.split(".")[0]
        if module in _LIBRARIES or module == "numpy":
            # a user subclass of a library class may define properties: only library-defined attrs
            return True
    return False


def is_library(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or type(obj).__module__
    return isinstance(module, str) and module.split(".")[0] in _LIBRARIES


def _makes_array(callee: Any) -> bool:
    """NumPy's array constructors: they make the one array a Keras call would, with the same
    rectangular contract (a list of rows of different lengths fails there first)."""
    import numpy as np

    return any(callee is f for f in (np.array, np.asarray, np.stack, np.vstack))


def public_name(obj: Any) -> str:
    """``keras.layers.LSTM``, ``tf.image.resize``, ``tf.data.Dataset``: the name users know."""
    own = vars(obj) if isinstance(obj, type) else getattr(obj, "__dict__", {})
    path = own.get("_api_export_path")
    if isinstance(path, str | list | tuple) and path:
        name = path if isinstance(path, str) else sorted(path, key=len)[0]
        return str(name)
    names = own.get("_tf_api_names")
    if isinstance(names, tuple | list) and names:
        usable = [n for n in names if "__internal__" not in n and "compat" not in n]
        if usable:
            return "tf." + sorted(usable, key=len)[0]
    try:
        from tensorflow.python.util import tf_export

        canonical = tf_export.get_canonical_name_for_symbol(obj)
        if canonical:
            return "tf." + canonical
    except Exception:
        pass
    module = getattr(obj, "__module__", "") or ""
    qual = getattr(obj, "__qualname__", getattr(obj, "__name__", type(obj).__name__))
    return f"{module}.{qual}" if module else str(qual)


def library_class(cls: type, method: str = "") -> type | None:
    """The class users know ``cls`` (or its ``method``) by: the first class in the MRO that a
    library exports and that has ``method`` (a user's subclass -> its base; Functional -> Model)."""
    first = None
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] not in _LIBRARIES:
            continue
        first = first or klass
        exported = "_api_export_path" in vars(klass) or "_tf_api_names" in vars(klass)
        if exported and (not method or hasattr(klass, method)):
            return klass
    return first


def _called_object(tb: Any, depth: int = 4) -> Any:
    """The library object whose ``__call__`` the next frames run (``Layer.__call__``'s ``self``),
    for a call whose callee is itself an expression (``keras.layers.Dense(4)(x)``)."""
    while tb is not None and depth > 0:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        if frame.f_code.co_name == "__call__" and owner is not None and is_library(type(owner)):
            return owner
        fn, args = frame.f_locals.get("fn"), frame.f_locals.get("args")
        wrapped_call = getattr(fn, "__name__", "") == "__call__" and isinstance(args, tuple)
        if wrapped_call and args and library_class(type(args[0])) is not None:
            return args[0]  # Keras' traceback filter: the layer is the wrapped call's self
        tb, depth = tb.tb_next, depth - 1
    return UNREAD


def _called_method(tb: Any, node: ast.Call, depth: int = 3) -> Any:
    """The bound library method a call on an expression ran (``ds.window(4).map(f)``: the
    next frames' ``map`` and its ``self``), which is not evaluated again to resolve it."""
    if not isinstance(node.func, ast.Attribute):
        return UNREAD
    name = node.func.attr
    while tb is not None and depth > 0:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        if frame.f_code.co_name == name and owner is not None and is_library(type(owner)):
            method = inspect.getattr_static(type(owner), name, None)
            if inspect.isfunction(method):
                return method.__get__(owner, type(owner))
            return UNREAD
        tb, depth = tb.tb_next, depth - 1
    return UNREAD


def _resolve(
    node: ast.Call,
    spaces: tuple[Mapping[str, Any], ...],
    called: Any = UNREAD,
    called_method: Any = UNREAD,
) -> LiveCall | None:
    callee = evaluate(node.func, spaces)
    if callee is UNREAD and isinstance(node.func, ast.Call):
        callee = called
    if callee is UNREAD and isinstance(node.func, ast.Attribute):
        callee = called_method
    target: Any
    owner: Any
    if callee is UNREAD or callee is None:
        return None
    receiver: Any = None
    method = ""
    if inspect.ismethod(callee) and not inspect.isclass(callee.__self__):
        receiver = callee.__self__
        method = callee.__func__.__name__
        owner = library_class(type(receiver), method)
        if owner is None:
            return None
        api = f"{public_name(owner)}.{method}"
        target = callee
    elif inspect.isclass(callee):
        if not is_library(callee) and library_class(callee) is None:
            return None
        api = public_name(callee if is_library(callee) else library_class(callee))
        target = callee
    elif inspect.isfunction(callee) or inspect.isbuiltin(callee) or inspect.ismethod(callee):
        if not is_library(callee) and not _makes_array(callee):
            return None
        api = public_name(callee)
        qualname = getattr(callee, "__qualname__", "")
        if not inspect.ismethod(callee) and qualname.count(".") == 1:  # a staticmethod
            import sys

            holder = getattr(sys.modules.get(callee.__module__ or ""), qualname.split(".")[0], None)
            if inspect.isclass(holder):
                owner = library_class(holder, callee.__name__) or holder
                api = f"{public_name(owner)}.{callee.__name__}"
        if inspect.ismethod(callee):  # a classmethod: tf.data.Dataset.from_tensor_slices
            owner = (
                library_class(cast(type, callee.__self__), callee.__func__.__name__)
                or callee.__self__
            )
            api = f"{public_name(owner)}.{callee.__func__.__name__}"
        target = callee
    elif callable(callee) and library_class(type(callee)) is not None:
        receiver = callee
        method = "__call__"
        owner = library_class(type(callee))
        api = public_name(owner)
        if "Function" in type(callee).__name__ and hasattr(callee, "input_signature"):
            api = "tf.function"  # also a SavedModel's restored function (tf.__internal__...)
        target = getattr(callee, "call", None) if hasattr(callee, "call") else callee
    else:
        return None
    call = LiveCall(api, method, callee, receiver, source=ast.unparse(node), namespaces=spaces)
    _bind(call, node, target, spaces)
    return call


def _bind(
    call: LiveCall, node: ast.Call, target: Any, spaces: tuple[Mapping[str, Any], ...]
) -> None:
    args = [a for a in node.args if not isinstance(a, ast.Starred)]
    starred = len(args) != len(node.args) or any(k.arg is None for k in node.keywords)
    values = [evaluate(a, spaces) for a in args]
    keywords = {k.arg: evaluate(k.value, spaces) for k in node.keywords if k.arg}
    texts = [ast.unparse(a) for a in args]
    keyword_texts = {k.arg: ast.unparse(k.value) for k in node.keywords if k.arg}
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        signature = None
    if signature is not None and not starred:
        try:
            signature.bind(*values, **keywords)
        except TypeError as error:
            call.bind_error = str(error)
        try:
            bound = signature.bind_partial(*values, **keywords)
        except TypeError:
            bound = None
        if bound is not None:
            names = list(bound.arguments)
            call.values = dict(bound.arguments)
            for param in signature.parameters.values():
                if param.kind is param.VAR_KEYWORD and param.name in call.values:
                    extra = call.values.pop(param.name)
                    names.remove(param.name)
                    call.values.update(extra)
                    names.extend(extra)
            for param in signature.parameters.values():
                if param.kind is param.VAR_POSITIONAL and param.name in call.values:
                    rest = call.values.pop(param.name)
                    offset = names.index(param.name)
                    names.remove(param.name)
                    for i, value in enumerate(rest):
                        call.values[f"arg{offset + i}"] = value
                        names.insert(offset + i, f"arg{offset + i}")
            for i, name in enumerate(names):
                if i < len(texts):
                    call.texts[name] = texts[i]
            for key, text in keyword_texts.items():
                call.texts[key] = text
            return
    call.values = {f"arg{i}": v for i, v in enumerate(values)} | keywords
    call.texts = {f"arg{i}": t for i, t in enumerate(texts)} | keyword_texts


def _has_unread(value: Any) -> bool:
    if value is UNREAD:
        return True
    if isinstance(value, list | tuple):
        return any(_has_unread(v) for v in value)
    if isinstance(value, dict):
        return any(_has_unread(v) for v in value.values())
    return False


def _target_code(call: LiveCall) -> Any:
    """The code object of the function the call ran (unwrapped from Keras/TF decorators)."""
    callee = call.callee
    if call.method == "__call__":
        function = getattr(call.receiver, "call", None) or type(call.receiver).__call__
    elif inspect.isclass(callee):
        function = getattr(callee, "__init__", None)
    else:
        function = callee
    function = getattr(function, "__func__", function)
    with contextlib.suppress(Exception):
        function = inspect.unwrap(function)
    return getattr(function, "__code__", None)


def _fill_from_frames(call: LiveCall, tb: Any) -> None:
    """Arguments the source did not give away (``np.array([...])``, a lambda) read from the called
    function's own frame deeper in the traceback, where they are bound to its parameters, or from
    the ``args``/``kwargs`` of the decorator that wraps it (TensorFlow filters the function's own
    frame out of its tracebacks)."""
    if not any(_has_unread(v) for v in call.values.values()):
        return
    code = _target_code(call)
    if code is None:
        return
    order = list(call.values)
    first = tb
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code is code or _constructs(call, frame):
            code = frame.f_code
            names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
            local = frame.f_locals
            _name_positionals(call, [n for n in names[: code.co_argcount] if n != "self"])
            order = list(call.values)
            for name in names:
                if name != "self" and name in local and _has_unread(call.values.get(name, UNREAD)):
                    call.values[name] = local[name]
            if code.co_flags & inspect.CO_VARARGS:
                extra = local.get(code.co_varnames[code.co_argcount + code.co_kwonlyargcount])
                _fill_positional(call, order, extra)
            return
        tb = tb.tb_next
    tb, depth = first, 0
    while tb is not None and depth < 3:
        local = tb.tb_frame.f_locals
        if isinstance(local.get("args"), tuple) and isinstance(local.get("kwargs"), dict):
            args, kwargs = local["args"], local["kwargs"]
            if call.receiver is not None and args and args[0] is call.receiver:
                args = args[1:]
            _fill_positional(call, order, args)
            for key, value in kwargs.items():
                if _has_unread(call.values.get(key, UNREAD)):
                    call.values[key] = value
            return
        tb, depth = tb.tb_next, depth + 1


def _receiver_locals(call: LiveCall, tb: Any) -> None:
    """The locals of the library frames that run on the receiver (``self`` is it), innermost last:
    what the API computed from the arguments (``apply_gradients``' ``trainable_variables``)."""
    if call.receiver is None:
        return
    while tb is not None:
        local = tb.tb_frame.f_locals
        if local.get("self") is call.receiver:
            for key, value in local.items():
                call.receiver_locals.setdefault(key, value)
        tb = tb.tb_next


def _constructs(call: LiveCall, frame: Any) -> bool:
    """The frame is the ``__init__`` of the object a class call makes (``keras.Model(...)`` runs
    ``Functional.__init__``)."""
    if not inspect.isclass(call.callee) or frame.f_code.co_name != "__init__":
        return False
    owner = frame.f_locals.get("self")
    return owner is not None and isinstance(owner, call.callee)


def _name_positionals(call: LiveCall, params: list[str]) -> None:
    """``arg0``, ``arg1`` (an API that takes ``*args``) renamed to the parameters that got them."""
    for i, name in enumerate(params):
        key = f"arg{i}"
        if key in call.values and name not in call.values:
            call.values[name] = call.values.pop(key)
            if key in call.texts:
                call.texts[name] = call.texts.pop(key)


def _fill_positional(call: LiveCall, order: list[str], values: Any) -> None:
    for name, value in zip(order, values if isinstance(values, tuple) else (), strict=False):
        if _has_unread(call.values.get(name, UNREAD)):
            call.values[name] = value


def layer_frames(exc: BaseException, is_user_file: Any) -> list[LiveCall]:
    """The library layers running in the traceback (innermost first), as calls with the frame's
    locals for arguments: what a layer was given when the error came from inside a model's run
    (``model.predict`` -> ``LSTM.call`` with ``initial_state``), where the user's call is ``predict``."""
    found: list[LiveCall] = []
    user: list[Mapping[str, Any]] = []
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        cls = library_class(type(owner)) if owner is not None else None
        if cls is not None and hasattr(owner, "_inbound_nodes") and _frame_is_library(frame):
            values = {k: v for k, v in frame.f_locals.items() if k not in ("self", "__class__")}
            call = LiveCall(public_name(cls), "__call__", owner, owner, values=values)
            call.source = f"{type(owner).__name__} '{getattr(owner, 'name', '?')}'"
            found.insert(0, call)
        elif is_user_file(frame.f_code.co_filename):
            user.extend((frame.f_locals, frame.f_globals))
        wrapped = _filtered_layer_call(frame.f_locals)
        if wrapped is not None:
            found.insert(0, wrapped)
        tb = tb.tb_next
    for call in found:
        call.namespaces = tuple(user)
    return found


def _filtered_layer_call(local: Mapping[str, Any]) -> LiveCall | None:
    """A layer call that Keras' traceback filter left only as its error handler's ``fn(*args)``."""
    fn, args, kwargs = local.get("fn"), local.get("args"), local.get("kwargs")
    if getattr(fn, "__name__", "") != "__call__" or not isinstance(args, tuple) or not args:
        return None
    layer = args[0]
    cls = library_class(type(layer))
    if cls is None or not hasattr(layer, "_inbound_nodes"):
        return None
    call = LiveCall(public_name(cls), "__call__", layer, layer)
    call.source = f"{type(layer).__name__} '{getattr(layer, 'name', '?')}'"
    try:
        bound = inspect.signature(layer.call).bind_partial(*args[1:], **(kwargs or {}))
        call.values = dict(bound.arguments)
    except (TypeError, ValueError):
        call.values = {f"arg{i}": v for i, v in enumerate(args[1:])}
    return call


def _frame_is_library(frame: Any) -> bool:
    path = frame.f_code.co_filename.replace("\\", "/")
    return "/keras/" in path or "/tensorflow/" in path
