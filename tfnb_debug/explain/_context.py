"""What the explain rules read from a raised exception: its messages, frames and op names.

Pure parsing of the exception object: no TensorFlow import.  Frames are read
from ``exc.__traceback__`` (never altered); "user" frames are those outside
installed packages, the standard library and tfnb_debug itself.
:class:`ErrorContext` and :func:`build_context` live here, with the helpers the
rules use on messages (node names, shapes); the readers of the live objects in
the frames (checked inputs, trained models, datasets, the failing model) are in
:mod:`tfnb_debug.explain._traceback_objects`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tfnb_debug.explain._batch_fixers import BatchFixer, batch_fixing_layer
from tfnb_debug.explain._condition import condition_rank
from tfnb_debug.explain._contracts import ContractReport, read_contract
from tfnb_debug.explain._distribution import DistributionInfo, read_distribution
from tfnb_debug.explain._diverged_fit import DivergedFit, read_diverged
from tfnb_debug.explain._evidence import Evidence, _keras_layer_class, read_evidence
from tfnb_debug.explain._library_results import Misuse, misused_result
from tfnb_debug.explain._line_origins import FailedCheck, read_failed_line
from tfnb_debug.explain._loss_targets import read_target_range
from tfnb_debug.explain._negative_ids import NegativeIds, read_negative_ids
from tfnb_debug.explain._nonfinite_source import (
    NonfiniteSource,
    consequence_source,
    read_nonfinite_source,
)
from tfnb_debug.explain._probability_checks import read_doubled_outputs, read_probability_source
from tfnb_debug.explain._step_data import StepData, read_step_data
from tfnb_debug.explain._traceback_objects import (
    DatasetInfo,
    InputInfo,
    SequentialBuild,
    TrainedModel,
    _checked_inputs,
    _datasets,
    _model_inputs,
    _producers,
    _sequential_build,
    _trained_models,
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
    #: the parameter names of the frame's function (a user frame only): a symbolic tensor
    #: that arrives through one was made by the trace running now
    params: tuple[str, ...] = ()


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
    multi_hot_rows: int = 0  # rows of 0/1 labels with more than one 1 (multi-label targets)
    values: tuple[float, ...] = ()  # the distinct values, when at most 8


# layers whose output has their input's shape: what made a wrong shape is before them
SHAPE_KEEPERS = frozenset(
    {
        "Dropout",
        "SpatialDropout1D",
        "SpatialDropout2D",
        "SpatialDropout3D",
        "GaussianNoise",
        "GaussianDropout",
        "AlphaDropout",
        "BatchNormalization",
        "LayerNormalization",
        "GroupNormalization",
        "UnitNormalization",
        "Activation",
        "ReLU",
        "LeakyReLU",
        "PReLU",
        "ELU",
        "Softmax",
        "ActivityRegularization",
        "Identity",
    }
)


@dataclass(frozen=True)
class ErrorContext:
    """Everything the rules look at, read once from the exception."""

    type_names: tuple[str, ...]  # the exception's class and its bases, innermost first
    messages: tuple[str, ...]  # the exception's message, then its causes/contexts; ANSI-free
    frames: tuple[Frame, ...]  # outermost first
    #: (name, class) of Keras layers seen as ``self``, innermost first
    layers: tuple[tuple[str, str], ...]
    cells: Mapping[str, int]
    inputs: tuple[InputInfo, ...] = ()  # what a Keras layer's input check received
    trained: tuple[TrainedModel, ...] = ()  # compiled models whose training step raised
    sequential_build: SequentialBuild | None = None  # the error came from Sequential.build
    datasets: tuple[DatasetInfo, ...] = ()  # tf.data datasets the failing call was given
    model_inputs: tuple[tuple[int | None, ...] | None, ...] = ()  # the innermost model's Inputs
    evidence: Evidence = Evidence()  # the failing call, pipelines, embeddings, dtype policies
    producers: tuple[tuple[str, str, str], ...] = ()  # (layer, producer, class) in that model
    distribution: DistributionInfo | None = None  # tf.distribute facts, when the error is about it
    #: the failing call into the library, its contract checked
    contract: ContractReport | None = None
    user_layers: tuple[UserLayer, ...] = ()  # the user's own layer classes running, innermost first
    silent_calls: tuple[tuple[str, str], ...] = ()  # (class, kind) whose call returns nothing
    # an AttributeError's (attribute, class of the object, names of that class and its bases)
    missing_attribute: tuple[str, str, tuple[str, ...]] | None = None
    misuse: Misuse | None = None  # the user's line used a library result as another kind of value
    #: (layer or model name, the user's variable bound to it), for layers named in findings
    variables: tuple[tuple[str, str], ...] = ()
    #: the highest rank of the tensors in the failing user line's condition (``if err > 0:``)
    condition_rank: int | None = None
    #: the layer of the model that fixes the batch axis (read only for incompatible shapes)
    batch_fixer: BatchFixer | None = None
    diverged: DivergedFit | None = None  # a model of the cell whose fit went non-finite
    #: the op (or data) that made the value a failed eager numeric check held (N01, M02, N05...)
    nonfinite_source: NonfiniteSource | None = None
    consequence: NonfiniteSource | None = None  # what made the NaN/Inf a user's line met
    #: (model, loss, labels, lowest, highest): a fit's targets outside its loss's range
    target_range: tuple[str, str, str, float, float] | None = None
    #: (name, model, output layer, activation, units, "sum"/"range"): a failed probability check
    probability_source: tuple[str, str, str, str, int, str] | None = None
    doubled: tuple[Any, ...] = ()  # models of the failing statement squashing twice (M08)
    #: the element a user's overridden train_step/test_step gets from the failing fit call
    step_data: StepData | None = None
    negative_ids: tuple[NegativeIds, ...] = ()  # integer arrays with negatives (user frames)
    failed_check: FailedCheck | None = None  # what the user's failed check compared
    #: the exception itself, for the readers a rule asks for when it needs them (:meth:`read`)
    exc: BaseException | None = field(default=None, compare=False, repr=False)
    _read: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def read(self, reader: Callable[..., Any], *args: Any) -> Any:
        """``reader(exc, *args)``, run once per error and only when a rule asks for it; a
        reader that fails on half-built objects reads as None."""
        if (reader, args) not in self._read:
            self._read[reader, args] = _safely(reader, self.exc, *args) if self.exc else None
        return self._read[reader, args]

    def variable_of(self, layer: str) -> str:
        """The user's variable bound to the layer or model of that name, "" when none or
        when it has the layer's own name."""
        found = [v for name, v in self.variables if name == layer and v != layer]
        return found[0] if len(found) == 1 else ""

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

    def shape_maker(self, source: InputInfo | None) -> InputInfo | None:
        """The layer that gave a tensor its shape: ``source``'s producer, or, when that layer
        keeps its input's shape (Dropout, normalization, an activation), the layer before it,
        read from the model's graph or from the Sequential being built."""
        seen = 0
        while source is not None and source.producer_class in SHAPE_KEEPERS and seen < 16:
            seen += 1
            before, cls = next(
                ((p, c) for n, p, c in self.producers if n == source.producer), ("", "")
            )
            steps = self.sequential_build.steps if self.sequential_build is not None else ()
            at = next((i for i, step in enumerate(steps) if step.name == source.producer), -1)
            if not before and at > 0:
                before, cls = steps[at - 1].name, steps[at - 1].class_name
            if not before:
                return source
            source = InputInfo(
                source.dtype, before, cls or ("InputLayer" if before == "input" else "")
            )
        return source

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
        return LabelInfo(
            y.text, y.dtype, y.shape, y.low, y.high, y.whole, y.multi_hot_rows, y.values
        )

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


_C_TYPES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "int": "int32",
    "long": "int64",
}


def dtype_name(name: str) -> str:
    """A dtype as TensorFlow's C-level messages write it ("double", "half") by its name
    ("float64", "float16"); other names unchanged."""
    return _C_TYPES.get(name, name)


def same_shape(a: tuple[int | None, ...], b: tuple[int | None, ...]) -> bool:
    """Equal ranks and equal sizes wherever both are known (None matches anything)."""
    return len(a) == len(b) and all(
        x is None or y is None or x == y for x, y in zip(a, b, strict=True)
    )


def fmt_shape(shape: tuple[int | None, ...]) -> str:
    inner = ", ".join("None" if d is None else str(d) for d in shape)
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


_CHECKS = r"did not hold|must have rank|Tensor \w+ must|not compatible|[Dd]imension|shape|[Ll]ength|float16"


def build_context(exc: BaseException, *, cells: Mapping[str, int] | None = None) -> ErrorContext:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 6:
        chain.append(current)
        current = current.__cause__ or current.__context__
    messages = tuple(strip_ansi(_message(e)) for e in chain)
    frames, layers = _frames(exc)
    text = "\n".join(messages)
    nan_words = bool(re.search(r"(?i)\bnan\b|\binf\b|not finite|non-finite", text))
    # Each reader looks at live objects the error left behind, some half-built (a Functional
    # whose __init__ raised has no name yet): one that fails leaves its piece empty.
    return ErrorContext(
        type_names=tuple(c.__name__ for c in type(exc).__mro__),
        messages=messages,
        frames=frames,
        layers=layers,
        cells=dict(cells or {}),
        exc=exc,
        inputs=_safely(_checked_inputs, exc) or (),
        trained=_safely(_trained_models, exc) or (),
        sequential_build=_safely(_sequential_build, exc),
        datasets=_safely(_datasets, exc) or (),
        model_inputs=_safely(_model_inputs, exc) or (),
        producers=_safely(_producers, exc) or (),
        evidence=_safely(read_evidence, exc, is_user_file) or Evidence(),
        distribution=_safely(read_distribution, exc, text, is_user_file),
        contract=_safely(read_contract, exc, is_user_file),
        user_layers=_safely(read_user_layers, exc, is_user_file) or (),
        # only when a None is what failed: the scan reads the source of the user's layer classes
        silent_calls=(
            _safely(read_silent_calls, exc, is_user_file) or ()
            if re.search(NONE_INPUT, text)
            else ()
        ),
        missing_attribute=_safely(_missing_attribute, exc),
        misuse=_safely(misused_result, exc, is_user_file),
        variables=_safely(_layer_variables, exc) or (),
        condition_rank=_safely(condition_rank, exc),
        diverged=(
            _safely(read_diverged, exc)
            if type(exc).__name__ == "AssertionError"
            or re.search(r"had (?:NaN|Inf) values|not finite|All-NaN", text)
            else None
        ),
        nonfinite_source=(
            _safely(read_nonfinite_source, exc)
            if re.search(r"Tensor had [^\n]*values", text)
            else None
        ),
        consequence=(
            _safely(consequence_source, exc, nan_words)
            if nan_words or type(exc).__name__ == "AssertionError"
            else None
        ),
        target_range=(
            _safely(read_target_range, exc) if type(exc).__name__ == "AssertionError" else None
        ),
        probability_source=(
            _safely(read_probability_source, exc)
            if re.search(r"did not hold|to be true|tolerance|probabilities", text)
            or type(exc).__name__ == "AssertionError"
            else None
        ),
        doubled=(
            _safely(read_doubled_outputs, exc) or ()
            if type(exc).__name__ in ("AssertionError", "IndexError")
            or "tolerance" in "".join(messages[:1])
            else ()
        ),
        failed_check=(
            _safely(read_failed_line, exc)
            if type(exc).__name__ == "AssertionError" or re.search(_CHECKS, text)
            else None
        ),
        negative_ids=(
            _safely(read_negative_ids, exc) or () if "Condition x >= 0 did not hold" in text else ()
        ),
        step_data=(
            _safely(read_step_data, exc)
            if re.search(
                r"_step|Iterating over|values to unpack|of type <class 'str'>|Tensors in list passed",
                text,
            )
            else None
        ),
        batch_fixer=(
            _safely(batch_fixing_layer, exc)
            if re.search(r"[Ii]ncompatible shapes|Input to reshape is", text)
            else None
        ),
    )


def _layer_variables(exc: BaseException, limit: int = 400) -> tuple[tuple[str, str], ...]:
    """(layer name, variable) for the Keras layers and models bound to names in the user's
    frames (the notebook namespace), so a finding about 'functional_3' can say `encoder`."""
    layer_cls = _keras_layer_class()
    if layer_cls is None:
        return ()
    found: dict[tuple[str, str], None] = {}
    tb = exc.__traceback__
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            for space in (tb.tb_frame.f_locals, tb.tb_frame.f_globals):
                for key, value in list(space.items())[:limit]:
                    if not key.startswith("_") and isinstance(value, layer_cls):
                        name = getattr(value, "name", None)
                        if isinstance(name, str):
                            found.setdefault((name, key))
        tb = tb.tb_next
    return tuple(found)


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
        params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount] if user else ()
        frames.append(Frame(code.co_filename, lineno, function, source, user, tuple(params)))
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
