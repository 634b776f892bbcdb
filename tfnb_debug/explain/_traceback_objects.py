"""What the live objects in a traceback's frames say, as plain records for the explain rules.

The readers :func:`tfnb_debug.explain._context.build_context` runs on the
frames of ``exc.__traceback__`` (never altered): the tensors Keras' input
check received, the compiled models whose training step raised, the layers a
``Sequential.build`` had made, the ``tf.data`` datasets the failing call was
given, and the Inputs and layer producers of the model that failed.  They look
at the objects the error left behind (Keras models and layers, datasets)
through their attributes: no TensorFlow import, and Keras only when it is
already loaded.
"""

from __future__ import annotations

import linecache
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tfnb_debug.collect.keras_access import all_sublayers
from tfnb_debug.explain._evidence import DatasetStage, dataset_stages
from tfnb_debug.ground.files import is_user_file


@dataclass(frozen=True)
class InputInfo:
    """One tensor a Keras layer's input check received: dtype and the layer that produced it."""

    dtype: str
    producer: str
    producer_class: str = ""  # the producing layer's class ("LSTM", "InputLayer"), "" if unknown
    #: when the producer is a model: the class of its last layer ("GlobalAveragePooling2D")
    inner_last: str = ""


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
    #: each output of a model with several: (output name, shape, activation of its layer)
    outputs: tuple[tuple[str, tuple[int | None, ...], str], ...] = ()
    batch_size: int | None = None  # the batch size its Input fixes (batch_shape, stateful RNNs)
    stateful: tuple[str, ...] = ()  # its stateful layers
    #: the metrics given to compile, as written ("accuracy") or by class name ("AUC")
    metrics: tuple[str, ...] = ()
    output_layer: str = ""  # the name of the layer that makes its (last) output
    #: its optimizer's learning-rate schedule when a list in its config mixes Python ints with
    #: floats: ("PiecewiseConstantDecay", "values", "[0.01, 0.001, 0]")
    schedule_ints: tuple[str, str, str] | None = None
    output_shape: tuple[int | None, ...] | None = None  # of its (one) output, batch axis first

    def output_of_shape(self, shape: tuple[int | None, ...]) -> tuple[str, str] | None:
        """(name, activation) of the one output of a multi-output model with ``shape``'s rank
        and last size (the output a loss check names), or None when none or several fit."""
        fits = [
            (name, activation)
            for name, out, activation in self.outputs
            if len(out) == len(shape) and out[-1:] == shape[-1:]
        ]
        return fits[0] if len(fits) == 1 else None


@dataclass(frozen=True)
class BuildStep:
    """One layer of a Sequential that Keras was building when the error came: its output shape."""

    name: str
    class_name: str
    shape: tuple[int | None, ...] | None
    valid_window: bool = False  # a window wider than 1 with padding='valid': it trims the size


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
    layer_valid_window: bool = False  # the failing layer's own window, padding='valid'


@dataclass(frozen=True)
class DatasetInfo:
    """A ``tf.data`` dataset found in the traceback's frames: its element shapes, its name if any."""

    name: str  # the user's variable bound to it ("" when none was found)
    shapes: tuple[tuple[int | None, ...] | None, ...]  # per top-level component (None: unknown)
    stages: tuple[DatasetStage, ...] = ()  # its pipeline, source first


def _one_output_shape(model: Any) -> tuple[int | None, ...] | None:
    try:
        shape = model.output_shape
        return tuple(None if d is None else int(d) for d in shape)
    except Exception:  # several outputs, or not built
        return None


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
        inner = getattr(operation, "layers", None)
        infos.append(
            InputInfo(
                str(name) if name is not None else "",
                producer if isinstance(producer, str) else "",
                type(operation).__name__ if operation is not None else "",
                type(inner[-1]).__name__ if isinstance(inner, list) and inner else "",
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
            _outputs(m),
            *_fixed_batch(m),
            _compiled_metrics(m),
            _output_layer(m),
            _schedule_ints(m),
            _one_output_shape(m),
        )
        for m in models
    )


def _compiled_metrics(model: Any) -> tuple[str, ...]:
    """The metrics given to compile: names as written, metric objects by their class."""
    config = getattr(model, "_compile_config", None)
    given = getattr(config, "config", {}).get("metrics") if config is not None else None
    items = given if isinstance(given, list | tuple) else [given] if given else []
    return tuple(i if isinstance(i, str) else type(i).__name__ for i in items[:12])


def _schedule_ints(model: Any) -> tuple[str, str, str] | None:
    """A list of the optimizer's schedule config that mixes Python ints with floats (an int
    there becomes an int32 tensor that the float32 update cannot use)."""
    schedule = getattr(getattr(model, "optimizer", None), "_learning_rate", None)
    config = getattr(schedule, "get_config", None)
    if config is None or not callable(config):
        return None
    try:
        items = dict(config())
    except Exception:
        return None
    for key, value in items.items():
        if not isinstance(value, list | tuple):
            continue
        kinds = {type(v) for v in value}
        if int in kinds and float in kinds:
            return type(schedule).__name__, str(key), str(list(value))
    return None


def _output_layer(model: Any) -> str:
    try:
        return str(model.layers[-1].name)
    except Exception:
        return ""


def _fixed_batch(model: Any) -> tuple[int | None, tuple[str, ...]]:
    """(the batch size the model's first Input fixes, its stateful layers)."""
    try:
        size = model.inputs[0].shape[0]
    except Exception:
        size = None
    stateful = tuple(
        str(layer.name) for layer in all_sublayers(model) if getattr(layer, "stateful", False)
    )
    return (int(size) if isinstance(size, int) else None), stateful


def _outputs(model: Any) -> tuple[tuple[str, tuple[int | None, ...], str], ...]:
    """(name, shape, activation) of each output of a model with several outputs, else ()."""
    try:
        outputs = list(model.outputs)
        names = list(model.output_names)
    except Exception:
        return ()
    if len(outputs) < 2 or len(names) != len(outputs):
        return ()
    found = []
    for name, tensor in zip(names, outputs, strict=True):
        history = getattr(tensor, "_keras_history", None)
        layer = getattr(history, "operation", None)
        activation = getattr(getattr(layer, "activation", None), "__name__", "")
        if type(layer).__name__ == "Softmax":
            activation = "softmax"
        try:
            shape = tuple(None if d is None else int(d) for d in tensor.shape)
        except Exception:
            continue
        found.append((str(name), shape, str(activation or "")))
    return tuple(found)


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
                str(built.name),
                type(built).__name__,
                _shape_of(outputs[0]) if outputs else None,
                _valid_window(built),
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
        layer_valid_window=_valid_window(layer),
    )


def _valid_window(layer: Any) -> bool:
    """A window wider than 1 at stride 1 with padding='valid': it trims k - 1 positions (a
    pooling that strides by its size divides the size whatever its padding)."""
    size = getattr(layer, "kernel_size", None) or getattr(layer, "pool_size", None)
    sizes = size if isinstance(size, tuple | list) else (size,)
    strides = getattr(layer, "strides", 1)
    steps = strides if isinstance(strides, tuple | list) else (strides,)
    wide = any(isinstance(k, int) and k > 1 for k in sizes)
    return wide and all(s == 1 for s in steps) and getattr(layer, "padding", None) == "valid"


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
    # the names on the traceback's lines, and on the other lines of the user's failing cells
    # (a `for x, y in ds:` loop whose body raised names `ds` only on its own line)
    cells = {tb_file for tb_file in _user_files(exc)}
    for filename in list(cells)[:4]:
        lines.extend(linecache.getlines(filename)[:400])
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


def _user_files(exc: BaseException) -> list[str]:
    found: list[str] = []
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if is_user_file(name) and name not in found:
            found.append(name)
        tb = tb.tb_next
    return found


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
