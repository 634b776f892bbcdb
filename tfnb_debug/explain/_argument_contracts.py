"""Contracts on the call's arguments against the API's signature, and on each argument's kind.

- The arguments must bind to the API's parameters: an unknown keyword is named with the
  parameter it is closest to, or with its Keras 3 replacement when Keras 3 removed it
  (:mod:`._keras2`); a missing one with the signature.
- A ``tf.function`` with an ``input_signature`` takes that many arguments, of the declared
  ranks, sizes and dtypes.
- A count (``epochs``, ``steps_per_epoch``, ``units`` ...) takes an int, not a float; a size
  (``batch_size``, ``num_classes`` ...) a number, not an array; a shape argument a tuple, not
  a bare int; ``compile`` an instance, not its class (``optimizer=keras.optimizers.Adam``);
  a merge layer its tensors as one list.
- Keras 3 hands ``build`` its ``input_shape`` as a tuple of ints, without the TensorShape API
  (``.value``, ``.as_list()``).

Each check reads the live arguments of the failing call
(:class:`~tfnb_debug.explain._api.LiveCall`) and its binding error, and returns a
:class:`~tfnb_debug.explain._violation.Violation` only when an argument breaks the
contract; :mod:`tfnb_debug.explain._contracts` registers them.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Iterable
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._keras2 import SHAPE_ARGUMENTS, removed_argument
from tfnb_debug.explain._violation import Violation, fmt, shape_of

# the signature ---------------------------------------------------------------------------


def keras2_argument(call: LiveCall, exc: BaseException) -> Violation | None:
    """A Keras 2 argument Keras 3 removed, refused by the layer's or callback's own check."""
    removed = removed_argument(call.api, str(exc))
    if removed is None or call.bind_error:
        return None  # a TypeError from binding is signature_binding's
    word, replacement = removed
    code = "S04" if word in SHAPE_ARGUMENTS else "S12"
    return Violation(code, word, f"`{call.api}` has no argument `{word}` in Keras 3", replacement)


def signature_binding(call: LiveCall, exc: BaseException) -> Violation | None:
    """The arguments do not bind to the API's signature (a missing or an unknown argument)."""
    error = call.bind_error
    if not error or not isinstance(exc, TypeError):
        return None
    import inspect

    target: Any = getattr(call.receiver, "call", None) if call.method == "__call__" else call.callee
    try:
        params = list(inspect.signature(target).parameters)
    except (TypeError, ValueError, AttributeError):
        params = []
    unexpected = re.search(r"unexpected keyword argument '(\w+)'", error)
    missing = re.search(r"missing a required argument: '(\w+)'", error)
    shown = f"{call.api}({', '.join(params[:8])})"
    if unexpected:
        word = unexpected.group(1)
        removed = removed_argument(call.api, error)
        if removed is not None:
            return Violation(
                "S12",
                word,
                f"`{call.api}` has no argument `{word}` in Keras 3",
                removed[1],
            )
        return Violation(
            "S12",
            word,
            f"`{call.api}` has no argument `{word}`{_near(word, params)}",
            f"its arguments are: {shown}",
        )
    if missing:
        return Violation(
            "S12",
            call.source,
            f"`{call.api}` needs `{missing.group(1)}`, which the call does not pass",
            f"pass it: {shown}",
        )
    return None


def _near(name: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(options), n=1, cutoff=0.5)
    return f" (did you mean '{close[0]}'?)" if close else ""


_NO_SPEC = re.compile(r"input_signature missing type constraint for (\w+)")


def function_signature(call: LiveCall, exc: BaseException) -> Violation | None:
    missing = _NO_SPEC.search(str(exc))
    if missing is not None:
        declared = call.value("input_signature")
        count = len(declared) if isinstance(declared, list | tuple) else None
        name = missing.group(1)
        return Violation(
            "S12",
            call.text("input_signature"),
            f"the input_signature lists {count if count is not None else 'fewer'} spec(s), one "
            f"per parameter in order, and parameter `{name}` has none",
            f"add a spec for `{name}` (e.g. `tf.TensorSpec([], tf.float32)` for a scalar), or "
            f"take `{name}` out of the traced function (a default value, functools.partial, or "
            "a closure)",
        )
    function = call.callee
    keywords = _signature_keywords(function)
    binding = re.search(
        r"missing a required argument: '(\w+)'|too many positional arguments", str(exc)
    )
    if keywords and binding is not None and call.method == "__call__":
        given = [k for k in call.texts if not k.startswith("arg")]
        pairs = ", ".join(f"{k}={_matching_value(function, k, call)}" for k in keywords)
        return Violation(
            "S12",
            call.source,
            "a SavedModel signature takes its inputs by keyword, named as at export: "
            f"{', '.join(repr(k) for k in keywords)}; the call passes "
            + (f"{', '.join(repr(k) for k in given)}" if given else "them by position"),
            f"call it with the input names: `{call.source.split('(')[0]}({pairs})`",
        )
    specs, named, params = _declared(function)
    if not specs or call.method != "__call__":
        return None
    values = [v for k, v in call.values.items() if k.startswith("arg")] or list(
        call.values.values()
    )
    texts = list(call.texts.values())
    if len(values) != len(specs):
        return Violation(
            "S12",
            call.source,
            f"{named}'s input_signature declares {len(specs)} argument(s), the call passes {len(values)}",
            "pass exactly the declared arguments, or change input_signature",
        )
    for i, (value, spec) in enumerate(zip(values, specs, strict=True)):
        text = texts[i] if i < len(texts) else f"argument {i}"
        param = f"`{params[i]}`" if i < len(params) else f"argument {i}"
        declared = str(getattr(getattr(spec, "dtype", None), "name", ""))
        if isinstance(value, float | int) and not isinstance(value, bool) and declared:
            kind = type(value).__name__
            if (kind == "float") != declared.startswith(("float", "half", "bfloat")):
                fix = f"int({text})" if kind == "float" else f"float({text})"
                return Violation(
                    "S11",
                    text,
                    f"`{text}` is the Python {kind} {value!r}, and {named}'s input_signature "
                    f"declares {param} as {declared}",
                    f"pass {param} as {declared}: `{fix}`",
                )
        shape = shape_of(value)
        want = getattr(spec, "shape", None)
        if shape is None or want is None or want.rank is None:
            continue
        wanted = tuple(want.as_list())
        if len(shape) == len(wanted) - 1 and wanted[-1] == 1 and shape[1:] == tuple(wanted[1:-1]):
            return Violation(
                "S12",
                text,
                f"`{text}` {fmt(shape)} has no channel axis; {named}'s input_signature declares "
                f"{param} as {fmt(wanted)}",
                f"add the channel axis: `{text}[..., None]` (or declare {param} without it)",
            )
        if len(shape) == len(wanted) - 1 and all(
            need is None or need == have for have, need in zip(shape, wanted[1:], strict=True)
        ):
            return Violation(
                "S12",
                text,
                f"`{text}` is one example of shape {fmt(shape)}, and the input_signature takes a "
                f"batch, {fmt(wanted)}: its first axis is the batch",
                f"add the batch axis: `{text}[None, ...]` (or `np.expand_dims({text}, 0)`); a "
                "batch of one comes back",
            )
        if len(shape) != len(wanted):
            return Violation(
                "S12",
                text,
                f"`{text}` has rank {len(shape)} {fmt(shape)}; {named}'s input_signature "
                f"declares {param} as {fmt(wanted)}",
                "reshape the data to the declared rank, or declare the shape the data has (None for an axis that varies)",
            )
        for axis, (have, need) in enumerate(zip(shape, wanted, strict=True)):
            if need is not None and have is not None and have != need:
                return Violation(
                    "S12",
                    text,
                    f"`{text}` has {have} on axis {axis} {fmt(shape)}; {named}'s "
                    f"input_signature declares {need} there for {param} {fmt(wanted)}",
                    f"declare the shape the data has (TensorSpec({fmt(tuple(None if j == 0 else d for j, d in enumerate(shape)))}), None for an axis that varies) or fix the data",
                )
        dtype = str(getattr(getattr(value, "dtype", None), "name", getattr(value, "dtype", "")))
        if dtype and declared and dtype != declared:
            return Violation(
                "S11",
                text,
                f"`{text}` is {dtype}; {named}'s input_signature declares {param} as {declared}",
                f"cast it first: `tf.cast({text}, tf.{declared})`, or declare {dtype}",
            )
    return None


def _matching_value(function: Any, keyword: str, call: LiveCall) -> str:
    """The argument text whose shape fits input ``keyword``'s spec and no other's; "..." when
    the shapes do not tell (a keyword's value is never guessed from the order)."""
    specs = function.structured_input_signature[1]

    def fits(value: Any, spec: Any) -> bool:
        have, want = shape_of(value), getattr(spec, "shape", None)
        if have is None or want is None or want.rank != len(have):
            return False
        return all(w is None or w == h for w, h in zip(want.as_list(), have, strict=True))

    texts = [t for k, t in call.texts.items()]
    values = [call.values.get(k, UNREAD) for k in call.texts]
    own = [t for t, v in zip(texts, values, strict=True) if fits(v, specs[keyword])]
    if len(own) != 1:
        return "..."
    chosen = values[texts.index(own[0])]
    others = [k for k in specs if k != keyword and fits(chosen, specs[k])]
    return own[0] if not others else "..."


def _signature_keywords(function: Any) -> list[str]:
    """The keyword input names of a concrete function that takes keywords only (a
    SavedModel's ``signatures[...]``), else []."""
    structured = getattr(function, "structured_input_signature", None)
    if not isinstance(structured, tuple) or len(structured) != 2 or structured[0]:
        return []
    return [str(k) for k in structured[1]] if isinstance(structured[1], dict) else []


def _declared(function: Any) -> tuple[tuple[Any, ...], str, tuple[str, ...]]:
    """(specs, "`name`", parameter names) of a tf.function with an input_signature, or of a
    concrete function (its traced signature); no specs when it has neither."""
    specs = getattr(function, "input_signature", None)
    python = getattr(function, "python_function", None) or getattr(
        function, "_python_function", None
    )
    if not specs:
        structured = getattr(function, "structured_input_signature", None)
        specs = structured[0] if isinstance(structured, tuple) and structured else None
    traced = getattr(function, "name", "") or ""
    traced = traced.decode() if isinstance(traced, bytes) else str(traced)
    name = getattr(python, "__name__", "") or re.sub(r"^__inference_|_\d+$", "", traced)
    try:
        params = tuple(inspect.signature(python).parameters) if python is not None else ()
    except (TypeError, ValueError):
        params = ()
    return tuple(specs or ()), f"`{name}`" if name else "the tf.function", params


# argument kinds --------------------------------------------------------------------------


def batch_size_argument(call: LiveCall, exc: BaseException) -> Violation | None:
    """An array or tensor where the API takes a number (``get_initial_state(batch_size)``)."""
    for name in ("batch_size", "num_classes", "units", "filters", "input_dim", "output_dim"):
        value = call.values.get(name, UNREAD)
        shape = shape_of(value)
        if value is UNREAD or shape is None or len(shape) == 0:
            continue
        text = call.text(name)
        method = call.api.rpartition(".")[2]
        fix = f"pass a number: `{method}({name}={text}.shape[0])`"
        if name == "batch_size":
            fix = (
                f"pass the batch size: `{method}(batch_size=tf.shape({text})[0])` (Keras 3's "
                f"`{method}` takes the batch size, not the inputs as Keras 2 did)"
                if method == "get_initial_state"
                else f"pass a number: `{name}={text}.shape[0]`"
            )
        return Violation(
            "S12",
            text,
            f"`{call.api}` takes `{name}` as a number, but got `{text}`, an array of shape {fmt(shape)}",
            fix,
        )
    return None


_INT_PARAMETERS = (
    "epochs",
    "batch_size",
    "steps_per_epoch",
    "validation_steps",
    "validation_freq",
    "initial_epoch",
    "units",
    "filters",
    "num_classes",
    "input_dim",
    "output_dim",
    "num_heads",
    "key_dim",
)


def int_argument(call: LiveCall, exc: BaseException) -> Violation | None:
    """A float where the API counts something (``steps_per_epoch=len(x) / 32``), or a NumPy
    integer where a Keras layer checks ``isinstance(value, int)`` ("expected a positive
    integer. Received: units=4": the value prints as a valid count, its type is the cause)."""
    if not isinstance(exc, TypeError | ValueError):
        return None
    for name in _INT_PARAMETERS:
        value = call.values.get(name, UNREAD)
        text = call.text(name)
        if isinstance(value, float) or type(value).__name__ in ("float32", "float64"):
            return Violation(
                "S12",
                f"{name}={text}",
                f"`{name}` counts something and takes an int; `{text}` is {value!r}, a float",
                f"pass an int: `{name}={_int_form(text)}`",
            )
        checked = f"Received an invalid value for `{name}`, expected a positive integer"
        if _numpy_int(value) and int(value) > 0 and checked in str(exc):
            return Violation(
                "S12",
                f"{name}={text}",
                f"`{name}` counts something and takes a Python int; `{text}` is "
                f"{int(value)}, but a NumPy {type(value).__name__}, which the type check refuses",
                f"pass a Python int: `{name}=int({text})`",
            )
    return None


def _numpy_int(value: object) -> bool:
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__.startswith(("int", "uint"))


def _int_form(text: str) -> str:
    if " / " in text and " // " not in text:
        return text.replace(" / ", " // ")
    return f"int({text})"


def layer_list_inputs(call: LiveCall, exc: BaseException) -> Violation | None:
    """A merge layer called on tensors as separate arguments: it takes one list."""
    if call.method != "__call__" or "too many positional arguments" not in call.bind_error:
        return None
    texts = [t for k, t in call.texts.items() if k.startswith("arg") or k == "inputs"]
    shown = ", ".join(texts) if texts else "a, b"
    kind = type(call.receiver).__name__
    return Violation(
        "S12",
        call.source,
        f"{kind} takes its tensors as one list, but got {len(texts) or 'several'} separate arguments",
        f"pass them in a list: `{kind}()([{shown}])`",
    )


def class_for_instance(call: LiveCall, exc: BaseException) -> Violation | None:
    """A class where ``compile`` takes an instance (``optimizer=keras.optimizers.Adam``)."""
    import inspect

    for name in ("optimizer", "loss", "metrics"):
        value = call.values.get(name, UNREAD)
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if inspect.isclass(item):
                text = call.text(name)
                return Violation(
                    "S12",
                    f"{name}={text}",
                    f"`{name}` got the class {item.__name__}, not an instance of it",
                    f"instantiate it: `{name}={text}()` (with its arguments, e.g. "
                    f"`{item.__name__}(learning_rate=1e-3)`)"
                    if name == "optimizer"
                    else f"instantiate it: `{text}()`",
                )
    return None


def shape_argument(call: LiveCall, exc: BaseException) -> Violation | None:
    """A bare int where a shape tuple is taken (``keras.Input(shape=10)``)."""
    for name in ("shape", "input_shape", "batch_shape", "target_shape"):
        value = call.values.get(name, UNREAD)
        if isinstance(value, int) and not isinstance(value, bool):
            text = call.text(name)
            return Violation(
                "S12",
                f"{name}={text}",
                f"`{name}` takes a tuple of sizes; `{text}` is the int {value}",
                f"pass a tuple: `{name}=({value},)` (the comma makes it a tuple)",
            )
    return None


_AXIS_PARAMETERS = ("axis", "axes", "concat_dim", "dim")


def tensor_as_axis(call: LiveCall, exc: BaseException) -> Violation | None:
    """A tensor given where the API takes an axis (an int): ``keras.ops.concatenate(a, b)`` or
    ``tf.stack(a, b)``, whose tensors go in one list as the first argument."""
    names = list(call.values)
    axis = next((n for n in names if n in _AXIS_PARAMETERS), None)
    if axis is None or not names:
        return None
    value = call.value(axis)
    shape = shape_of(value)
    if value is UNREAD or shape is None or isinstance(value, int | bool):
        return None
    first = names[0]
    given = call.value(first)
    dtype = str(getattr(getattr(value, "dtype", None), "name", getattr(value, "dtype", "")))
    if not (shape == shape_of(given) or "float" in dtype):
        return None  # an int tensor of axes is an axis an API may take
    function = call.api.rpartition(".")[2]
    axis_text, first_text = call.text(axis), call.text(first)
    problem = (
        f"`{axis_text}` {fmt(shape)} went to `{axis}`, which takes an int (the axis to join on)"
    )
    if first != axis and shape_of(given) is not None and not isinstance(given, list | tuple):
        problem += f": `{function}` takes its tensors as one list in `{first}`"
        default = _default_axis(call, axis)
        hint = (
            f"pass them as a list: `{call.api}([{first_text}, {axis_text}])` ({axis} defaults to "
            f"{default}; {axis}=-1 joins along the last axis)"
            if default is not None
            else f"pass them as a list: `{call.api}([{first_text}, {axis_text}], {axis}=-1)`"
        )
    else:
        hint = f"give `{axis}` an int (e.g. `{axis}=-1`)"
    return Violation("S12", axis_text, problem, hint)


def _default_axis(call: LiveCall, axis: str) -> int | None:
    """The API's own default for its axis parameter (``stack``: 0), None when it has none."""
    import inspect

    try:
        default = inspect.signature(call.callee).parameters[axis].default
    except (TypeError, ValueError, KeyError):
        return None
    return default if isinstance(default, int) and not isinstance(default, bool) else None


def decorator_without_call(call: LiveCall, exc: BaseException) -> Violation | None:
    """A decorator factory written without its call (``@keras.saving.register_keras_serializable``
    instead of ``...()``): the factory took the class as its first argument and bound the
    class's name to its inner decorator, which the user's line then calls with the class's
    own arguments."""
    callee = call.callee
    qualname = str(getattr(callee, "__qualname__", ""))
    module = str(getattr(callee, "__module__", ""))
    factory, _, inner = qualname.partition(".<locals>.")
    if not inner or "." in inner or module.split(".")[0] not in ("keras", "tensorflow"):
        return None
    name = call.source.partition("(")[0].strip()
    if not name.isidentifier() or all(space.get(name) is not callee for space in call.namespaces):
        return None  # not a name of the user's that the factory rebound
    public = _public_factory(module, factory)
    registering = "register" in factory
    return Violation(
        "C05" if registering else "S12",
        name,
        f"`{name}` is not your class any more: `@{public}` was written without parentheses, so "
        f"the factory took `{name}` as its first argument and bound the name to its inner "
        f"`{inner}` function, which this line calls",
        f"call the factory in the decorator line: `@{public}()` (with its arguments inside the "
        "parentheses, if any), then re-run the cell that defines the class",
        quote_call=True,
    )


def _public_factory(module: str, factory: str) -> str:
    """``keras.saving.register_keras_serializable`` for the factory's public name, when Keras
    exports it under ``keras.saving`` or ``keras.utils``; else its module path."""
    try:
        import keras

        for space in ("saving", "utils"):
            if hasattr(getattr(keras, space), factory):
                return f"keras.{space}.{factory}"
    except Exception:
        pass
    return f"{module}.{factory}"


def tensorshape_api_on_tuple(call: LiveCall, exc: BaseException) -> Violation | None:
    """TF1/Keras 2 ``TensorShape`` idioms in a ``build`` that Keras 3 gives a tuple of ints."""
    if not isinstance(exc, AttributeError):
        return None
    match = re.search(
        r"'(int|tuple|NoneType)' object has no attribute '(value|as_list|dims|ndims)'", str(exc)
    )
    if match is None:
        return None
    kind, attr = match.groups()
    fix = {
        "value": "use the int itself: `input_shape[-1]` (Keras 3 passes plain ints, not Dimension objects)",
        "as_list": "it already is one: use `list(input_shape)`",
        "dims": "use `input_shape` itself (a tuple)",
        "ndims": "use `len(input_shape)`",
    }[attr]
    return Violation(
        "S01",
        f".{attr}",
        f"`.{attr}` is TensorFlow 1 / Keras 2 TensorShape API, but in Keras 3 build() gets "
        f"input_shape as a tuple of ints (here a {kind} has no `.{attr}`)",
        fix,
    )
