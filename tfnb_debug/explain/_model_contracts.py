"""Contracts of a Keras model: its construction, its ``compile`` and its training step.

- ``keras.Model(inputs, outputs)``: every output is a symbolic tensor made by calling
  layers, computed from the Inputs given (not from another model's Input; not a layer
  that was never called, not concrete data).
- ``compile``'s ``loss``, ``loss_weights`` and ``metrics`` list one entry per output, or
  are dicts keyed by the output names; a loss function is called as ``fn(y_true, y_pred)``.
- ``fit(class_weight=...)`` weights each example by its one class: a model with one
  output, one label per example.
- ``jit_compile=True``: every op of the step has an XLA kernel and an output shape that
  does not depend on a tensor's values.

Each check reads the live arguments of the failing call
(:class:`~tfnb_debug.explain._api.LiveCall`), the model (its outputs, compiled losses,
symbolic graph) and the user's namespaces, and returns a
:class:`~tfnb_debug.explain._violation.Violation` only when the call breaks the
contract; :mod:`tfnb_debug.explain._contracts` registers them.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import UNPACKING, UNREAD, LiveCall, public_name
from tfnb_debug.explain._argument_contracts import _near
from tfnb_debug.explain._data_shape_contracts import _leaves
from tfnb_debug.explain._violation import Violation, fmt, output_names, shape_of
from tfnb_debug.explain._violation import is_a as _is_a
from tfnb_debug.explain._violation import models_in as _models_in
from tfnb_debug.explain._violation import name_in as _name_in

# compile and fit -------------------------------------------------------------------------


def compile_keys(call: LiveCall, exc: BaseException) -> Violation | None:
    """A loss / loss_weights / metrics dict keyed by names that are not the model's outputs."""
    model = call.receiver
    names = output_names(model)
    if len(names) < 1:
        return None
    sources = [
        ("loss", getattr(model, "loss", None)),
        (
            "loss_weights",
            getattr(getattr(model, "_compile_loss", None), "_user_loss_weights", None),
        ),
        ("metrics", getattr(getattr(model, "_compile_metrics", None), "_user_metrics", None)),
    ]
    if call.api.endswith(".compile"):
        sources = [(k, call.value(k)) for k in ("loss", "loss_weights", "metrics")]
    keyed_by_dict = isinstance(getattr(model, "_outputs_struct", None), dict)
    for argument, value in sources:
        counted = re.search(r"must match the number of \w+, got \d+", str(exc))
        if (
            argument != "metrics"
            and isinstance(value, list | tuple)
            and len(names) > 1
            and len(value) != len(names)
            and counted is None  # Keras' message gives both counts itself
        ):
            return Violation(
                "S12",
                argument,
                f"compile's `{argument}` lists {len(value)} entries for a model with "
                f"{len(names)} outputs {names}: entry i goes to output i, so the extra "
                "entries name outputs that do not exist",
                f"give one entry per output, in order ({', '.join(names)}), or a dict keyed "
                "by the output names",
                f"{argument}={list(value)!r}"[:200],
            )
        if not isinstance(value, dict):
            continue
        wrong = [k for k in value if k not in names]
        if not wrong:
            continue
        message = str(exc)
        if re.search(r"expected keys?(?:\(s\))?:? ", message, re.I) and all(
            repr(n) in message for n in names
        ):
            return None  # Keras' own message lists the output names the keys must be
        near = _near(str(wrong[0]), names)
        if keyed_by_dict:
            layers = [str(n) for n in getattr(model, "output_names", [])]
            fix = (
                f"key the dict by the keys of the model's output dict {names} (the layer names "
                f"{layers} do not count when the outputs are a dict)"
            )
        else:
            fix = (
                f"key the dict by the output names {names}, or name the output layers as the "
                f"keys (`Dense(..., name='{wrong[0]}')`)"
            )
        return Violation(
            "S12",
            f"{argument}={{{', '.join(repr(k) for k in value)}}}",
            f"compile's `{argument}` dict is keyed by {sorted(map(str, value))}, but the model's "
            f"outputs are named {names}: '{wrong[0]}' names no output{near}",
            fix,
        )
    return None


def fit_class_weight(call: LiveCall, exc: BaseException) -> Violation | None:
    weights = call.value("class_weight")
    model = call.receiver
    if isinstance(weights, dict) and len(output_names(model)) == 1:
        return _class_weight_per_position(call, weights)
    if not isinstance(weights, dict) or len(output_names(model)) < 2:
        return None
    y = call.text("y")
    return Violation(
        "S12",
        call.text("class_weight"),
        f"`class_weight` applies to a model with one output; this model has "
        f"{len(output_names(model))} outputs {output_names(model)}",
        "weight the examples instead: build per-example weights from the class weights of the "
        f"output they belong to, e.g. `w = np.vectorize(class_weight.get)({y}[0])`, and pass "
        "`sample_weight=w` (one array per output, or a dict keyed by output name); or weight the "
        "classes inside that output's loss",
    )


def _class_weight_per_position(call: LiveCall, weights: dict[Any, Any]) -> Violation | None:
    """``class_weight`` with labels per position (a tagger's (batch, steps) class ids): Keras
    weights each example by its one label, so a label per position does not fit."""
    y = call.value("y")
    shape = shape_of(y)
    if shape is None or len(shape) < 2:
        return None
    try:
        output = shape_of(call.receiver.output)
    except Exception:
        output = None
    one_hot = output is not None and len(output) == len(shape) and shape[-1] == output[-1]
    if one_hot and len(shape) == 2:
        return None  # one-hot rows, one label per example: what class_weight reads
    text = call.text("y")
    return Violation(
        "S12",
        call.text("class_weight"),
        f"`class_weight` weights each example by its one class, but `{text}` has a label per "
        f"position {fmt(shape)}: the per-example weights cannot line up with per-position labels",
        "weight each position instead: `sample_weight = np.vectorize(class_weight.get)"
        f"({text})` (shape {fmt(shape[:2])}) passed as `sample_weight=` (with a dataset, as the "
        "third element of each batch), and drop class_weight",
        f"class_weight keys {sorted(weights)[:6]}",
    )


_STEPS = ("train_step", "test_step", "predict_step")
_PARTS = ("x", "y", "sample_weight")


def step_unpack(call: LiveCall, exc: BaseException) -> Violation | None:
    """A model's own ``train_step``/``test_step``/``predict_step`` unpacks the batch Keras hands
    it into another number of parts: Keras passes ``(x,)``, ``(x, y)`` or ``(x, y,
    sample_weight)`` as the data holds them, and ``class_weight=`` / ``sample_weight=`` add
    the third."""
    found = UNPACKING.search(str(exc)) if isinstance(exc, ValueError) else None
    frame = _innermost_frame(exc)
    if found is None or frame is None or frame.f_code.co_name not in _STEPS:
        return None
    if not _is_a(frame.f_locals.get("self"), "Model"):
        return None
    names = frame.f_code.co_varnames[: frame.f_code.co_argcount]
    data = frame.f_locals.get(names[1]) if len(names) > 1 else None
    if not isinstance(data, tuple | list):
        return None
    expected, given = int(found.group(2)), len(data)
    if given == expected or not 1 <= given <= 3:
        return None
    step = frame.f_code.co_name
    parts = ", ".join(_PARTS[:given])
    source = _third_part_source(call) if given == 3 else ""
    why = f" because {source}" if source else ""
    problem = (
        f"Keras passes `{step}` each batch as ({parts}){why}, and the step unpacks it into "
        f"{expected}"
    )
    hint = (
        f"unpack with `x, y, sample_weight = keras.utils.unpack_x_y_sample_weight({names[1]})` "
        "(it takes 1, 2 or 3 parts)"
    )
    if given == 3:
        hint += (
            " and pass `sample_weight=sample_weight` to `self.compute_loss(...)` (and the "
            "metrics), so the weights count"
        )
    elif given < expected:
        hint += "; y is None when no labels are given"
    return Violation("S12", call.text("x") if call.values else call.source, problem, hint)


def _innermost_frame(exc: BaseException) -> Any:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame if tb is not None else None


def _third_part_source(call: LiveCall) -> str:
    """Which argument of the fit/evaluate call put a third part (sample weights) in the batch."""
    for name in ("class_weight", "sample_weight"):
        value = call.value(name)
        if value is not UNREAD and value is not None:
            return f"`{name}=` was given to `{call.api.rpartition('.')[2]}`"
    return ""


def user_function_arity(call: LiveCall, exc: BaseException) -> Violation | None:
    """A function of the user's that the library calls with a fixed number of arguments (a loss
    or metric as ``fn(y_true, y_pred)``) but that takes another number."""
    import inspect

    message = str(exc)
    match = re.search(
        r"(\w+)\(\) (missing \d+ required positional argument|takes \d+ positional)", message
    )
    if not isinstance(exc, TypeError) or match is None:
        return None
    name = match.group(1)
    model = call.receiver
    roles: list[tuple[str, Any]] = []
    loss = getattr(model, "loss", None)
    for value in (
        loss.values()
        if isinstance(loss, dict)
        else loss
        if isinstance(loss, list | tuple)
        else [loss]
    ):
        if getattr(value, "__name__", None) == name:
            roles.append(("loss", value))
    if not roles:
        return None
    role, function = roles[0]
    try:
        params = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None
    extra = params[2:]
    fix = (
        f"bind the extra argument(s) {extra} before compile: "
        f"`loss=lambda y_true, y_pred: {name}(y_true, y_pred, {', '.join(f'{p}=...' for p in extra)})` "
        f"(or functools.partial, or a keras.losses.Loss subclass that takes them in __init__)"
        if extra
        else f"give `{name}` the two arguments Keras passes: `def {name}(y_true, y_pred)`"
    )
    return Violation(
        "S12",
        name,
        f"Keras calls a {role} as `{name}(y_true, y_pred)`, but `{name}` takes {tuple(params)}",
        fix,
    )


_OVERRIDE = re.compile(
    r"(\w+)\.(\w+)\(\) (got an unexpected keyword argument '(\w+)'|missing \d+ required "
    r"positional arguments?: [^\n]*|takes \d+ positional arguments? but \d+ (?:were|was) given)"
)


def override_signature(call: LiveCall, exc: BaseException) -> Violation | None:
    """A method of the user's subclass of a Keras class (a Metric's ``update_state``, a Layer's
    ``call``, a Callback's hook) whose signature does not take what Keras passes to it: the
    base class's signature says what that is."""
    import inspect

    found = _OVERRIDE.search(str(exc)) if isinstance(exc, TypeError) else None
    if found is None:
        return None
    class_name, method = found.group(1), found.group(2)
    if method == "__init__" and "deserializ" in str(exc):
        return None  # load_model rebuilding from get_config's dict: C05 reads the config
    cls = next(
        (space[class_name] for space in call.namespaces if inspect.isclass(space.get(class_name))),
        None,
    )
    if cls is None or cls.__module__.split(".")[0] in ("keras", "tensorflow"):
        return None
    base = next(
        (b for b in cls.__mro__[1:] if b.__module__.split(".")[0] == "keras" and method in vars(b)),
        None,
    )
    if base is None:
        return None
    try:
        theirs = inspect.signature(vars(base)[method])
        ours = inspect.signature(vars(cls)[method])
    except (KeyError, TypeError, ValueError):
        return None
    public = public_name(base)
    keyword = found.group(4)
    generic = all(
        p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self"
        for p in theirs.parameters.values()
    )
    if keyword:
        problem = (
            f"Keras passes `{keyword}=` to `{class_name}.{method}` (a {public} hook), but it is "
            f"written `{method}{ours}`"
        )
        fix = f"add `{keyword}=None` to `{class_name}.{method}` (and use it, or ignore it)"
    elif not generic:
        problem = (
            f"Keras calls `{class_name}.{method}` as `{public}.{method}{theirs}`, but it is "
            f"written `{method}{ours}`"
        )
        fix = f"give `{class_name}.{method}` the parameters of `{public}.{method}{theirs}`"
    else:
        return None
    return Violation("S12", f"{class_name}.{method}", problem, fix, quote_call=False)


# construction ----------------------------------------------------------------------------


_KINDS = {"ndarray": "NumPy array", "EagerTensor": "tf.Tensor", "DataFrame": "DataFrame"}


def model_graph(call: LiveCall, exc: BaseException) -> Violation | None:
    """``keras.Model(inputs, outputs)``: every output must be reachable from the inputs given."""
    inputs = call.values.get("inputs", call.values.get("arg0", UNREAD))
    outputs = call.values.get("outputs", call.values.get("arg1", UNREAD))
    if inputs is UNREAD or outputs is UNREAD:
        return None
    in_text = call.texts.get("inputs", call.texts.get("arg0", "inputs"))
    out_text = call.texts.get("outputs", call.texts.get("arg1", "outputs"))
    given = _leaves(_as_structure(inputs), "inputs")
    outs = _leaves(_as_structure(outputs), "outputs")
    given_tensors = [t for _, t in given]
    data = [(path, t) for path, t in given if getattr(t, "_keras_history", None) is None]
    if data:
        path, value = data[0]
        shape = shape_of(value)
        example = fmt(shape[1:]) if shape else "(...)"
        shown = in_text if len(given) == 1 else f"{in_text} ({path})"
        return Violation(
            "S12",
            in_text,
            f"`{shown}` is a {_KINDS.get(type(value).__name__, type(value).__name__)}"
            f"{' ' + fmt(shape) if shape else ''}, data, "
            "not a `keras.Input`: a model's inputs are the symbolic Input tensors its layers "
            "were called on",
            f"declare the input with `inp = keras.Input(shape={example})`, build the layers on "
            f"`inp`, and make the model with `keras.Model(inp, ...)`; the data goes to "
            "fit/predict",
        )
    for _, out in outs:
        if getattr(out, "_keras_history", None) is None:
            if _is_a(out, "Layer"):
                last = _last_tensor_from(call, given_tensors)
                on = f"`{out_text} = {type(out).__name__}(...)({last})`" if last else "the tensor"
                return Violation(
                    "S12",
                    out_text,
                    f"`{out_text}` is a {type(out).__name__} layer that was never called, not the "
                    "tensor a layer returns",
                    f"call it on the tensor it should transform: {on}"
                    + (f" (`{last}` is the last tensor built from the inputs)" if last else ""),
                )
            return Violation(
                "S12",
                out_text,
                f"an output is a {type(out).__name__}, not a symbolic tensor made by calling layers "
                "on the model's Inputs",
                "build the output with layers (wrap TensorFlow ops in a Layer or a Lambda) from "
                "the Input tensors, not from concrete data",
            )
        sources = _source_inputs(out)
        missing = [s for s in sources if not any(s is g for g in given_tensors)]
        if missing:
            names = [
                getattr(getattr(m, "_keras_history", None), "operation", None) for m in missing
            ]
            shown = ", ".join(
                f"'{getattr(n, 'name', '?')}' {fmt(shape_of(m))}"
                for n, m in zip(names, missing, strict=True)
            )
            variable = _name_in(call, missing[0])
            variable_of_owner, owner = _model_of_input(call, missing[0])
            if owner and not variable:
                return Violation(
                    "S12",
                    in_text,
                    f"the outputs were built on the Input of model {owner} ({shown}), not on "
                    f"`{in_text}`: the layers were called in that model's graph",
                    f"use that model's inputs, `keras.Model({variable_of_owner}.inputs, "
                    f"{out_text})`; or, for a new input, call the layers (or "
                    f"`{variable_of_owner}`) on `{in_text}` to make the outputs",
                )
            return Violation(
                "S12",
                in_text,
                f"the outputs depend on Input(s) {shown} that are not in `inputs` "
                f"({len(given_tensors)} given)",
                f"list every Input the outputs use: `keras.Model(inputs=[{in_text.strip('[]')}, "
                f"{variable or 'the missing Input'}], outputs=...)`",
            )
    return None


def _as_structure(value: Any) -> tuple[Any, ...] | dict[Any, Any]:
    """A tensor, a list or a tuple (or dict) of them, as a tuple (or dict) to walk."""
    if isinstance(value, tuple | dict):
        return value
    return tuple(value) if isinstance(value, list) else (value,)


def _model_of_input(call: LiveCall, tensor: Any) -> tuple[str, str]:
    """The user's model whose inputs include ``tensor``: (its variable, how a finding names
    it: the variable and the model's own name when that differs, `base` ('mobilenetv2_1.00_64'))."""
    for name, model in _models_in(call):
        try:
            if any(t is tensor for t in model.inputs):
                own = str(getattr(model, "name", ""))
                return name, f"`{name}`" + (f" ('{own}')" if own and own != name else "")
        except Exception:
            continue
    return "", ""


def _last_tensor_from(call: LiveCall, inputs: list[Any]) -> str:
    """The user's variable holding the most recently made symbolic tensor built from ``inputs``."""
    best: tuple[int, str] | None = None
    for space in call.namespaces[:2]:
        for key, value in list(space.items()):
            if key.startswith("_") or getattr(value, "_keras_history", None) is None:
                continue
            number = re.search(r"(\d+)$", str(getattr(value, "name", "")))
            order = int(number.group(1)) if number else -1
            sources = _source_inputs(value)
            built_here = sources and all(any(s is i for i in inputs) for s in sources)
            is_input = any(value is i for i in inputs)
            if built_here and not is_input and (best is None or order > best[0]):
                best = (order, key)
    return best[1] if best else ""


def _source_inputs(tensor: Any, limit: int = 2000) -> list[Any]:
    """The Input tensors a symbolic tensor was computed from (walking ``_keras_history``)."""
    found: list[Any] = []
    stack = [tensor]
    seen: set[int] = set()
    while stack and len(seen) < limit:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        history = getattr(t, "_keras_history", None)
        operation = getattr(history, "operation", None)
        if operation is None:
            continue
        if type(operation).__name__ == "InputLayer":
            if not any(t is f for f in found):
                found.append(t)
            continue
        try:
            node = operation._inbound_nodes[getattr(history, "node_index", 0)]
            stack.extend(node.input_tensors)
        except Exception:
            continue
    return found


# the compiled step (XLA) -----------------------------------------------------------------


_XLA_UNSUPPORTED = re.compile(
    r"Detected unsupported operations when trying to compile graph \S+ on XLA_\w+_JIT: ([^\n]+)"
)
_XLA_OP_APIS = {
    "EagerPyFunc": "tf.py_function",
    "PyFunc": "tf.numpy_function",
    "PyFuncStateless": "tf.numpy_function",
}


_XLA_CONSTANT = re.compile(r"node (\S+) .*?must be a compile-time constant", re.S)


def xla_unsupported(call: LiveCall, exc: BaseException) -> Violation | None:
    """``jit_compile=True`` and an op XLA has no kernel for (Python functions, strings, ...)."""
    match = _XLA_UNSUPPORTED.search(str(exc))
    if match is None:
        return _xla_constant(call, exc)
    ops = re.findall(r"(\w+) \(No registered", match.group(1))
    apis = sorted({_XLA_OP_APIS.get(op, "") for op in ops} - {""})
    strings = [op for op in ops if "String" in op or "Regex" in op or op == "_Arg"]
    if apis:
        what = f"{', '.join(apis)} (op {', '.join(ops[:3])}) runs Python, which XLA cannot compile"
        fix = (
            f"compile with `jit_compile=False`, or write that part with TensorFlow ops instead of "
            f"{apis[0]} (or move it into the tf.data pipeline)"
        )
    elif strings:
        what = (
            f"the step handles string tensors (op {', '.join(ops[:3])}), and XLA has no string type"
        )
        fix = (
            "compile with `jit_compile=False`, or turn strings into numbers in the tf.data "
            "pipeline (TextVectorization / StringLookup in `ds.map`) so the model gets ints"
        )
    else:
        what = f"XLA has no kernel for op {', '.join(ops[:3]) or '?'}"
        fix = "compile with `jit_compile=False`, or replace that op"
    subject = (
        f"`{call.source.partition('(')[0].strip()}`"
        if call.api.endswith("tf.function")
        else "the training step"
    )
    return Violation(
        "T03",
        "jit_compile=True",
        f"{subject} is compiled with XLA (jit_compile=True) but {what}",
        fix,
    )


def _xla_constant(call: LiveCall, exc: BaseException) -> Violation | None:
    """``jit_compile=True`` and an op whose output size depends on a value (``bincount``,
    ``unique``, ``where`` with one argument): XLA needs that value when it compiles."""
    found = _XLA_CONSTANT.search(str(exc))
    model = call.receiver
    if found is None or not getattr(model, "jit_compile", False):
        return None
    node = found.group(1)
    parts = [p for p in node.split("/") if p]
    op = parts[-1] if parts else node
    scope = parts[0] if len(parts) > 1 else ""
    where = f" in `{scope}`" if scope else ""
    return Violation(
        "T02",
        "jit_compile=True",
        f"the step is compiled with XLA (jit_compile=True), and op {op}{where} needs a value of "
        "a tensor as a constant when XLA compiles (its output size depends on the data)",
        f"compile with `jit_compile=False`, or rewrite {scope or 'that code'} with ops whose "
        "output shape does not depend on the values (e.g. a count as "
        "tf.reduce_sum(tf.cast(condition, 'float32')))",
        f"node {node}",
    )
