"""What the explain rules read from a raised exception: its messages, frames and op names.

Pure parsing of the exception object: no TensorFlow import.  Frames are read
from ``exc.__traceback__`` (never altered); "user" frames are those outside
installed packages, the standard library and tfnb_debug itself.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._contracts import ContractReport, read_contract
from tfnb_debug.explain._distribution import DistributionInfo, read_distribution
from tfnb_debug.explain._evidence import (
    DatasetStage,
    Evidence,
    _keras_layer_class,
    dataset_stages,
    read_evidence,
)
from tfnb_debug.explain._user_layers import (
    NONE_INPUT,
    UserLayer,
    read_silent_calls,
    read_user_layers,
)
from tfnb_debug.ground.files import ipython_cell_number, is_user_file
from tfnb_debug.ground.text import key_sentence, strip_ansi

_GRAPH_NODE = re.compile(r"\{\{node ([^}\s]+)\}\}")
_DETECTED_AT = re.compile(r"Detected at node '?([^\s']+?)'? defined at")
_EAGER_OP = re.compile(r"\[Op:(\w+)\]")
_DEFINED_AT_FILE = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)', re.M)
_USER_CODE_BLOCK = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\s*\*?\s*\n\s+(.+)')
_SHAPE = re.compile(r"[(\[]([^()\[\]]*)[)\]]")
_SHAPE_TEXT = r"(\([^()]*\))"

# IPython's rewrite of a line or cell magic: the cell's own code is inside the string
_MAGIC_CALL = ("get_ipython().run_cell_magic(", "get_ipython().run_line_magic(")
_TARGET_OUTPUT = re.compile(
    r"(Arguments? `(?:target|output)`[^\n]*?)\.? (?:Received: )?target\.shape="
    + _SHAPE_TEXT
    + r", output\.shape="
    + _SHAPE_TEXT
)


@dataclass(frozen=True)
class Frame:
    """One traceback frame, as plain values."""

    filename: str
    lineno: int
    function: str
    source: str
    user: bool


@dataclass(frozen=True)
class InputInfo:
    """One tensor a Keras layer's input check received: dtype and the layer that produced it."""

    dtype: str
    producer: str
    producer_class: str = ""  # the producing layer's class ("LSTM", "InputLayer"), "" if unknown


@dataclass(frozen=True)
class TrainedModel:
    """A compiled Keras model whose training step raised: its name, loss and trainable count.

    ``output_activation`` is the activation of the layer that makes the output
    (``"softmax"``, ``"sigmoid"``, ``"linear"``; ``""`` when it cannot be read);
    ``loss_source`` the source of a loss function defined in the user's code.
    """

    name: str
    loss: str
    variables: int
    output_activation: str = ""
    loss_source: str = ""


_FIT_METHODS = ("fit", "evaluate", "train_on_batch", "test_on_batch")


@dataclass(frozen=True)
class LabelInfo:
    """The labels the failing ``fit``/``evaluate`` call was given as an array (``y=``)."""

    name: str  # the user's expression for them (``y_train``)
    dtype: str
    shape: tuple[int | None, ...]
    low: float | None  # None when not numeric or empty
    high: float | None
    whole: bool  # every value is a whole number (class ids, also when stored as floats)


@dataclass(frozen=True)
class BuildStep:
    """One layer of a Sequential that Keras was building when the error came: its output shape."""

    name: str
    class_name: str
    shape: tuple[int | None, ...] | None


@dataclass(frozen=True)
class SequentialBuild:
    """The error came from ``Sequential.build`` (the constructor, ``add()`` or ``build()``).

    ``steps`` are the layers built before the failing one, the model's input
    first (name ``"input"``); ``layer``/``layer_class`` the layer that raised,
    ``received`` and ``dtype`` what it was given, ``producer`` the layer that
    made it (``"input"`` for the Input).
    """

    model: str
    layer: str
    layer_class: str
    received: tuple[int | None, ...] | None
    dtype: str
    producer: str
    steps: tuple[BuildStep, ...]


@dataclass(frozen=True)
class DatasetInfo:
    """A ``tf.data`` dataset found in the traceback's frames: its element shapes, its name if any."""

    name: str  # the user's variable bound to it ("" when none was found)
    shapes: tuple[tuple[int | None, ...] | None, ...]  # per top-level component (None: unknown)
    stages: tuple[DatasetStage, ...] = ()  # its pipeline, source first


@dataclass(frozen=True)
class ErrorContext:
    """Everything the rules look at, read once from the exception."""

    type_names: tuple[str, ...]  # the exception's class and its bases, innermost first
    messages: tuple[str, ...]  # the exception's message, then its causes/contexts; ANSI-free
    frames: tuple[Frame, ...]  # outermost first
    layers: tuple[
        tuple[str, str], ...
    ]  # (name, class) of Keras layers seen as ``self``, innermost first
    cells: Mapping[str, int]
    inputs: tuple[InputInfo, ...] = ()  # what a Keras layer's input check received
    trained: tuple[TrainedModel, ...] = ()  # compiled models whose training step raised
    sequential_build: SequentialBuild | None = None  # the error came from Sequential.build
    datasets: tuple[DatasetInfo, ...] = ()  # tf.data datasets the failing call was given
    model_inputs: tuple[tuple[int | None, ...] | None, ...] = ()  # the innermost model's Inputs
    evidence: Evidence = Evidence()  # the failing call, pipelines, embeddings, dtype policies
    producers: tuple[tuple[str, str, str], ...] = ()  # (layer, producer, class) in that model
    distribution: DistributionInfo | None = None  # tf.distribute facts, when the error is about it
    contract: ContractReport | None = (
        None  # the failing call into the library, its contract checked
    )
    user_layers: tuple[UserLayer, ...] = ()  # the user's own layer classes running, innermost first
    silent_calls: tuple[tuple[str, str], ...] = ()  # (class, kind) whose call returns nothing
    # an AttributeError's (attribute, class of the object, names of that class and its bases)
    missing_attribute: tuple[str, str, tuple[str, ...]] | None = None

    def key_sentence(self) -> str:
        """The first line of the error that says what went wrong (no frames, no boilerplate)."""
        for message in self.messages:
            if sentence := key_sentence(message):
                return sentence
        return ""

    def input_source(self, layer: str, index: int = 0) -> InputInfo | None:
        """What fed input ``index`` of ``layer``: from its input check, else from the model."""
        if index < len(self.inputs) and self.inputs[index].producer:
            return self.inputs[index]
        for name, producer, cls in self.producers:
            if name == layer and index == 0:
                dtype = self.inputs[0].dtype if self.inputs else ""
                return InputInfo(dtype, producer, cls)
        return self.inputs[index] if index < len(self.inputs) else None

    @property
    def labels(self) -> LabelInfo | None:
        """The array labels (``y``) of the failing ``fit``/``evaluate``-like call, read from the
        call's arguments (:mod:`tfnb_debug.explain._call`)."""
        call = self.evidence.call
        if call is None or call.method not in _FIT_METHODS:
            return None
        y = call.arg(1, "y")
        if y is None or y.shape is None or y.kind not in ("array", "tensor", "series"):
            return None
        return LabelInfo(y.text, y.dtype, y.shape, y.low, y.high, y.whole)

    def inputs_text(self) -> str:
        """``float32 from layer 'flatten'`` per input of the failed input check."""
        parts = []
        for item in self.inputs:
            text = item.dtype or "?"
            if item.producer:
                text += f" from layer '{item.producer}'"
            parts.append(text)
        return "; ".join(parts)

    @property
    def layer_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.layers)

    def layer_of_class(self, class_name: str) -> str | None:
        """The innermost layer of that class, or the outermost layer when none matches."""
        for name, cls in self.layers:
            if cls == class_name:
                return name
        return self.layers[-1][0] if self.layers else None

    @property
    def type_name(self) -> str:
        return self.type_names[0]

    @property
    def text(self) -> str:
        """All messages joined: what the patterns search."""
        return "\n".join(self.messages)

    def is_a(self, name: str) -> bool:
        return name in self.type_names

    def where(self, filename: str, lineno: int, function: str = "") -> str:
        """A place a user recognises: ``Cell In[5], line 3`` or ``file.py, line 3``."""
        number = self.cells.get(filename)
        if number is None:
            number = ipython_cell_number(filename)
        base = f"Cell In[{number}]" if number is not None else os.path.basename(filename)
        text = f"{base}, line {lineno}"
        if function and function != "<module>":
            text += f" in {function}()"
        return text

    def user_frames(self) -> list[Frame]:
        return [f for f in self.frames if f.user]

    def node(self) -> str | None:
        """The graph node that failed (``scope/op``), if the message names one."""
        for pattern in (_GRAPH_NODE, _DETECTED_AT):
            found = pattern.findall(self.text)
            if found:
                return str(found[-1])
        return None

    def eager_op(self) -> str | None:
        found = _EAGER_OP.findall(self.text)
        ops = [op for op in found if not op.startswith("__inference")]
        return ops[-1] if ops else None

    def defined_at(self) -> tuple[str, int, str] | None:
        """The innermost user frame of a graph error's "defined at" stack."""
        best = None
        for filename, lineno, function in _DEFINED_AT_FILE.findall(self.text):
            if is_user_file(filename):
                best = (filename, int(lineno), function)
        return best

    def user_code_line(self) -> tuple[str, int, str, str] | None:
        """AutoGraph's ``in user code:`` entry (innermost), else the innermost user frame."""
        entries = _USER_CODE_BLOCK.findall(self.text) if "in user code:" in self.text else []
        for filename, lineno, function, source in reversed(entries):
            if is_user_file(filename):
                return filename, int(lineno), function, source.strip()
        for frame in reversed(self.frames):
            if frame.user:
                return frame.filename, frame.lineno, frame.function, frame.source
        return None


def split_node(node: str) -> tuple[str, str]:
    """``compile_loss/mse/sub`` -> (``compile_loss/mse``, ``sub``)."""
    scope, _, op = node.rpartition("/")
    return scope, op


def scope_owner(scope: str) -> str:
    """Say what a name scope belongs to: a compiled loss or metric, a gradient, or layers."""
    parts = [p for p in scope.split("/") if p]
    prefix = ""
    if parts and parts[0] in ("gradient_tape", "gradients"):
        prefix = "the gradient of "
        parts = parts[1:]
    if len(parts) >= 2 and parts[0] == "compile_loss":
        return f"{prefix}the loss '{parts[1]}'"
    if len(parts) >= 2 and parts[0] == "compile_metrics":
        return f"{prefix}the metric '{parts[1]}'"
    if parts:
        return f"{prefix}name scope '{'/'.join(parts)}'"
    return prefix.strip()


def parse_shape(text: str) -> tuple[int | None, ...] | None:
    """``(None, 28, 28)``, ``[4,3]`` or ``[?,3]`` -> a tuple with None for unknown dims."""
    match = _SHAPE.search(text)
    if match is None:
        return None
    dims: list[int | None] = []
    for part in match.group(1).split(","):
        token = part.strip()
        if not token:
            continue
        if token in ("None", "?", "-1"):
            dims.append(None)
        elif token.lstrip("-").isdigit():
            dims.append(int(token))
        else:
            return None
    return tuple(dims)


def same_shape(a: tuple[int | None, ...], b: tuple[int | None, ...]) -> bool:
    """Equal ranks and equal sizes wherever both are known (None matches anything)."""
    return len(a) == len(b) and all(
        x is None or y is None or x == y for x, y in zip(a, b, strict=True)
    )


def fmt_shape(shape: tuple[int | None, ...]) -> str:
    inner = ", ".join("None" if d is None else str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def build_context(exc: BaseException, *, cells: Mapping[str, int] | None = None) -> ErrorContext:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 6:
        chain.append(current)
        current = current.__cause__ or current.__context__
    messages = tuple(strip_ansi(_message(e)) for e in chain)
    frames, layers = _frames(exc)
    # Each reader looks at live objects the error left behind, some half-built (a Functional
    # whose __init__ raised has no name yet): one that fails leaves its piece empty.
    return ErrorContext(
        type_names=tuple(c.__name__ for c in type(exc).__mro__),
        messages=messages,
        frames=frames,
        layers=layers,
        cells=dict(cells or {}),
        inputs=_safely(_checked_inputs, exc) or (),
        trained=_safely(_trained_models, exc) or (),
        sequential_build=_safely(_sequential_build, exc),
        datasets=_safely(_datasets, exc) or (),
        model_inputs=_safely(_model_inputs, exc) or (),
        producers=_safely(_producers, exc) or (),
        evidence=_safely(read_evidence, exc, is_user_file) or Evidence(),
        distribution=_safely(read_distribution, exc, "\n".join(messages), is_user_file),
        contract=_safely(read_contract, exc, is_user_file),
        user_layers=_safely(read_user_layers, exc, is_user_file) or (),
        # only when a None is what failed: the scan reads the source of the user's layer classes
        silent_calls=(
            _safely(read_silent_calls, exc, is_user_file) or ()
            if re.search(NONE_INPUT, "\n".join(messages))
            else ()
        ),
        missing_attribute=_safely(_missing_attribute, exc),
    )


def _missing_attribute(exc: BaseException) -> tuple[str, str, tuple[str, ...]] | None:
    """What an AttributeError asked for and of which object's class (Python sets ``name`` and
    ``obj`` on it), as plain names."""
    if not isinstance(exc, AttributeError) or not isinstance(getattr(exc, "name", None), str):
        return None
    obj = getattr(exc, "obj", None)
    if obj is None:
        return None
    cls = obj if isinstance(obj, type) else type(obj)
    return str(exc.name), cls.__name__, tuple(c.__name__ for c in cls.__mro__)


def _safely(read: Any, *args: Any) -> Any:
    try:
        return read(*args)
    except Exception:
        return None


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:
        return ""


def _frames(exc: BaseException) -> tuple[tuple[Frame, ...], tuple[tuple[str, str], ...]]:
    import linecache

    frames: list[Frame] = []
    layers: list[tuple[str, str]] = []
    user_locals: list[Mapping[str, Any]] = []
    layer_cls = _keras_layer_class()
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        lineno = tb.tb_lineno
        source = linecache.getline(code.co_filename, lineno).strip()
        user = is_user_file(code.co_filename) and not source.startswith(_MAGIC_CALL)
        function = code.co_name
        if user and "self" in code.co_varnames[:1]:
            # a method of the user's own class (a custom layer's call, a model's train_step):
            # name the class too, so "in Gate.call()" says which layer of the model it was
            owner_cls = type(tb.tb_frame.f_locals.get("self")).__name__
            if owner_cls != "NoneType":
                function = f"{owner_cls}.{function}"
        frames.append(Frame(code.co_filename, lineno, function, source, user))
        owner = tb.tb_frame.f_locals.get("self") if layer_cls is not None else None
        if layer_cls is not None and isinstance(owner, layer_cls):
            owner = _wrapping_model(owner, user_locals, layer_cls)
            name = getattr(owner, "name", None)
            if isinstance(name, str) and (name, type(owner).__name__) not in layers:
                layers.insert(0, (name, type(owner).__name__))
        if frames[-1].user and layer_cls is not None:
            user_locals.append(tb.tb_frame.f_locals)
        tb = tb.tb_next
    return tuple(frames), tuple(layers)


def _wrapping_model(layer: Any, user_locals: list[Mapping[str, Any]], layer_cls: Any) -> Any:
    """A Sequential runs through a hidden inner Functional: name the user's model instead."""
    if type(layer).__name__ != "Functional":
        return layer
    for names in user_locals:
        for value in list(names.values()):
            if isinstance(value, layer_cls) and getattr(value, "_functional", None) is layer:
                return value
    return layer


def _checked_inputs(exc: BaseException) -> tuple[InputInfo, ...]:
    """The tensors in Keras' ``assert_input_compatibility`` frame, if the error came from there."""
    tb = exc.__traceback__
    found: Any = None
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "assert_input_compatibility":
            found = tb.tb_frame.f_locals.get("inputs")
        tb = tb.tb_next
    if found is None:
        return ()
    items = list(found.values()) if isinstance(found, dict) else found
    if not isinstance(items, list | tuple):
        items = [items]
    infos = []
    for tensor in items[:8]:
        dtype = getattr(tensor, "dtype", None)
        name = getattr(dtype, "name", dtype)
        history = getattr(tensor, "_keras_history", None)
        operation = getattr(history, "operation", None)
        producer = getattr(operation, "name", "")
        infos.append(
            InputInfo(
                str(name) if name is not None else "",
                producer if isinstance(producer, str) else "",
                type(operation).__name__ if operation is not None else "",
            )
        )
    return tuple(infos)


def _trained_models(exc: BaseException) -> tuple[TrainedModel, ...]:
    """The compiled models in the traceback whose optimizer raised (else whose fit() raised).

    Read from the frames: the optimizer is ``self`` of its own frame, the model
    ``self`` or the first argument of a frame (``fit`` behind Keras' filter), or a
    name in a user frame (the notebook namespace).
    """
    if "keras" not in sys.modules:
        return ()
    try:
        import keras

        model_cls, optimizer_cls = keras.Model, keras.optimizers.Optimizer
    except Exception:
        return ()
    optimizers: list[Any] = []
    called: list[Any] = []
    named: list[Any] = []
    tb = exc.__traceback__
    while tb is not None:
        local = tb.tb_frame.f_locals
        owner = local.get("self")
        args = local.get("args")
        if isinstance(owner, optimizer_cls):
            optimizers.append(owner)
        first = args[0] if isinstance(args, tuple) and args else None
        called.extend(v for v in (owner, first) if isinstance(v, model_cls))
        if is_user_file(tb.tb_frame.f_code.co_filename):
            named.extend(v for v in list(local.values()) if isinstance(v, model_cls))
        tb = tb.tb_next
    compiled = [m for m in dict.fromkeys([*called, *named]) if getattr(m, "loss", None) is not None]
    models = [m for m in compiled if any(getattr(m, "optimizer", None) is o for o in optimizers)]
    if not models:
        models = [m for m in compiled if m in called]
    from tfnb_debug.ground.text import loss_name

    return tuple(
        TrainedModel(
            str(m.name),
            loss_name(m.loss),
            len(m.trainable_variables),
            _output_activation(m),
            _user_source(m.loss),
        )
        for m in models
    )


def _output_activation(model: Any) -> str:
    """The activation that makes the model's (single) output, or ``""`` when unknown."""
    try:
        layer = model.layers[-1]
    except Exception:
        return ""
    cls = type(layer).__name__
    if cls == "Softmax":
        return "softmax"
    activation = getattr(layer, "activation", None)
    name = getattr(activation, "__name__", None)
    return str(name) if isinstance(name, str) else ""


def _user_source(obj: Any) -> str:
    """The source of a function (or a Loss's wrapped function) written in the user's code."""
    import inspect

    fn = getattr(obj, "fn", obj)
    code = getattr(fn, "__code__", None)
    if code is None or not is_user_file(code.co_filename):
        return ""
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        import linecache

        lines = linecache.getlines(code.co_filename)
        return "".join(lines[code.co_firstlineno - 1 : code.co_firstlineno + 30])


def _sequential_build(exc: BaseException) -> SequentialBuild | None:
    """What ``Sequential.build`` was doing when ``exc`` came through it (innermost such frame)."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        names = frame.f_locals
        owner = names.get("self")
        if (
            frame.f_code.co_name == "build"
            and "Sequential" in (c.__name__ for c in type(owner).__mro__)
            and "layer" in names
            and "x" in names
        ):
            found = (owner, names["layer"], names["x"])
        tb = tb.tb_next
    if found is None:
        return None
    try:
        return _read_build(*found)
    except Exception:
        return None


def _read_build(model: Any, layer: Any, x: Any) -> SequentialBuild:
    layers = list(model._layers)
    steps = [BuildStep("input", "InputLayer", _shape_of(layers[0].output))]
    for built in layers[1:]:
        if built is layer:
            break
        nodes = getattr(built, "_inbound_nodes", None) or []
        outputs = nodes[-1].outputs if nodes else []
        steps.append(
            BuildStep(
                str(built.name), type(built).__name__, _shape_of(outputs[0]) if outputs else None
            )
        )
    history = getattr(x, "_keras_history", None)
    operation = getattr(history, "operation", None)
    producer = ""
    if operation is not None:
        is_input = type(operation).__name__ == "InputLayer"
        producer = "input" if is_input else str(getattr(operation, "name", ""))
    dtype = getattr(x, "dtype", "")
    return SequentialBuild(
        model=str(model.name),
        layer=str(layer.name),
        layer_class=type(layer).__name__,
        received=_shape_of(x),
        dtype=str(getattr(dtype, "name", dtype)),
        producer=producer,
        steps=tuple(steps),
    )


def _shape_of(t: Any) -> tuple[int | None, ...] | None:
    try:
        return tuple(None if d is None else int(d) for d in t.shape)
    except Exception:
        return None


def _is_dataset(value: Any) -> bool:
    return hasattr(type(value), "element_spec") and "Dataset" in type(value).__name__


def _datasets(exc: BaseException, limit: int = 8) -> tuple[DatasetInfo, ...]:
    """The datasets the failing call was given.

    Those held by a library frame (``fit``'s ``x`` and ``validation_data``),
    and, since Keras filters its own frames out of tracebacks, the user's
    variables bound to a dataset whose name appears in a line of the user's
    code in the traceback (``model.fit(train_ds, validation_data=val_ds)``).
    """
    found: dict[int, Any] = {}
    user: list[Mapping[str, Any]] = []
    lines: list[str] = []
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            user.extend((frame.f_locals, frame.f_globals))
            lines.append(linecache_line(frame.f_code.co_filename, tb.tb_lineno))
        else:
            for value in list(frame.f_locals.values()):
                items = value if isinstance(value, tuple | list) else (value,)
                for item in items[:4]:
                    if _is_dataset(item):
                        found.setdefault(id(item), item)
        tb = tb.tb_next
    words = set(re.findall(r"[A-Za-z_]\w*", " ".join(lines)))
    for names in user:
        for key, value in list(names.items()):
            if key in words and not key.startswith("_") and _is_dataset(value):
                found.setdefault(id(value), value)
    out = []
    for ds in list(found.values())[:limit]:
        try:
            out.append(
                DatasetInfo(
                    _name_of(ds, user), _component_shapes(ds.element_spec), dataset_stages(ds)
                )
            )
        except Exception:
            continue
    return tuple(out)


def linecache_line(filename: str, lineno: int) -> str:
    import linecache

    return linecache.getline(filename, lineno)


def _name_of(value: Any, namespaces: list[Mapping[str, Any]]) -> str:
    for names in namespaces:
        for key, item in list(names.items()):
            if item is value and not key.startswith("_"):
                return str(key)
    return ""


def _component_shapes(spec: Any) -> tuple[tuple[int | None, ...] | None, ...]:
    parts = spec if isinstance(spec, tuple) else (spec,)
    shapes: list[tuple[int | None, ...] | None] = []
    for part in parts:
        shape = getattr(part, "shape", None)
        try:
            dims = shape.as_list() if shape is not None else None
        except Exception:
            dims = None
        shapes.append(None if dims is None else tuple(dims))
    return tuple(shapes)


def _model_inputs(exc: BaseException) -> tuple[tuple[int | None, ...] | None, ...]:
    """The Input shapes of the model that failed."""
    found = _failed_model(exc)
    if found is None:
        return ()
    try:
        return tuple(_shape_of(t) for t in found.inputs or ())
    except Exception:
        return ()


def _producers(exc: BaseException) -> tuple[tuple[str, str, str], ...]:
    """``(layer, producer, producer class)`` for each one-input layer of the model that failed."""
    found = _failed_model(exc)
    out: list[tuple[str, str, str]] = []
    try:
        layers = list(found.layers) if found is not None else []
    except Exception:
        return ()
    for layer in layers[:500]:
        try:
            nodes = layer._inbound_nodes
            tensors = nodes[0].input_tensors if nodes else []
            operation = tensors[0]._keras_history.operation if len(tensors) == 1 else None
        except Exception:
            continue
        if operation is not None:
            out.append((str(layer.name), str(operation.name), type(operation).__name__))
    return tuple(out)


def _failed_model(exc: BaseException) -> Any:
    """The model that failed.

    The innermost Functional/Sequential ``self`` in the traceback, else (Keras
    filters its frames out) the one model the user's lines in the traceback
    name (``model.evaluate(data)``).
    """
    found: Any = None
    named: dict[int, Any] = {}
    user: list[Mapping[str, Any]] = []
    lines: list[str] = []
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        if _is_graph_model(owner):
            found = owner
        if is_user_file(frame.f_code.co_filename):
            user.extend((frame.f_locals, frame.f_globals))
            lines.append(linecache_line(frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    if found is None:
        words = set(re.findall(r"[A-Za-z_]\w*", " ".join(lines)))
        for names in user:
            for key, value in list(names.items()):
                if key in words and _is_graph_model(value):
                    named.setdefault(id(value), value)
        if len(named) == 1:
            found = next(iter(named.values()))
    return found


def _is_graph_model(value: Any) -> bool:
    return type(value).__name__ in ("Functional", "Sequential") or any(
        c.__name__ in ("Functional", "Sequential") for c in type(value).__mro__[1:3]
    )


def target_output_shapes(
    ctx: ErrorContext,
) -> tuple[tuple[int | None, ...], tuple[int | None, ...]] | None:
    """(labels, output) shapes from Keras' "Arguments `target` and `output` ..." check."""
    target = _TARGET_OUTPUT.search(ctx.text)
    if target is None:
        return None
    labels, output = parse_shape(target.group(2)), parse_shape(target.group(3))
    return None if labels is None or output is None else (labels, output)


def keras_loss_function(ctx: ErrorContext) -> str | None:
    for frame in reversed(ctx.frames):
        path = frame.filename.replace("\\", "/")
        if "keras/" in path and ("/losses" in path or path.endswith("nn.py")):
            return frame.function
    return None
