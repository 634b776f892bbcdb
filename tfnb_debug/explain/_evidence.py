"""More of what the explain rules read from a raised exception: the failing call's arguments
(:mod:`._call`), the lineage of a tf.data dataset, a model's Embedding and lookup layers, layers'
dtype policies and the classes the user defined.

Read once from the traceback's live objects into plain values (no live tensors
are kept, and no TensorFlow import).
"""

from __future__ import annotations

import linecache
import re
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._call import Arg, CallInfo, describe_value, failing_call
from tfnb_debug.explain._violation import features_spec

__all__ = [
    "Arg",
    "CallInfo",
    "DatasetStage",
    "Evidence",
    "LayerDtypes",
    "dataset_stages",
    "describe_value",
    "read_evidence",
]


@dataclass(frozen=True)
class DatasetStage:
    """One step of a tf.data pipeline, source first: what it is and the shapes after it.

    ``kind`` is ``map``, ``batch``, ``from_generator``, ``tensor_slices``, ...;
    ``function`` the mapped function's (or the generator's) name; ``python``
    the call in that function that returns tensors of unknown shape
    (``tf.py_function``, ``tf.numpy_function``, ``tf.io.decode_image``,
    ``tf.io.parse_tensor``), or ``""``.
    """

    kind: str
    function: str
    python: str
    shapes: tuple[tuple[int | None, ...] | None, ...]
    dtypes: tuple[str, ...] = ()
    batch_size: int | None = None
    #: ``padded_batch``'s ``padded_shapes``, per component (None on an axis padded to the longest)
    padded: tuple[tuple[int | None, ...], ...] = ()
    #: the ``keras.utils.*_dataset_from_directory`` that made this dataset ("" when none): Keras
    #: sets ``class_names`` and ``file_paths`` on the dataset those functions return
    loader: str = ""
    #: ``batch``'s or ``window``'s drop_remainder (None for other stages)
    drop_remainder: bool | None = None


@dataclass(frozen=True)
class LayerDtypes:
    """A layer in the traceback: its dtype policy and the raw ``tf.Variable`` attributes it holds."""

    name: str
    class_name: str
    policy: str
    compute_dtype: str
    raw_variables: tuple[
        tuple[str, str], ...
    ]  # (attribute, dtype) of tf.Variables not made by add_weight
    #: a model's output layers: (layer name, the dtype of the output it makes)
    outputs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Evidence:
    """Everything this module reads from an exception."""

    call: CallInfo | None = None
    embeddings: tuple[tuple[str, int], ...] = ()  # (layer name, input_dim) in the models involved
    masked: tuple[str, ...] = ()  # the Embeddings among them with mask_zero=True (id 0: padding)
    vocabularies: tuple[tuple[str, int], ...] = ()  # (name, vocabulary_size()) of lookup layers
    layer_dtypes: tuple[LayerDtypes, ...] = ()  # layers seen as ``self``, innermost first
    user_classes: tuple[str, ...] = ()  # names bound to classes in the user's namespaces
    # (embedding, producer, class, ids it makes): an Embedding fed by a preprocessing layer
    id_sources: tuple[tuple[str, str, str, int], ...] = ()
    #: (name, dtype) of the tensors and arrays the user's failing line names (dtype clashes)
    line_dtypes: tuple[tuple[str, str], ...] = ()


_CLASH = r"expected to be a \w+ tensor but is a|does not match type|have types \["


def read_evidence(exc: BaseException, is_user_file: Any) -> Evidence:
    """Read every piece; a piece that cannot be read stays empty, the others are kept."""

    def safely(read: Any, *args: Any) -> Any:
        try:
            return read(*args)
        except Exception:
            return None

    return Evidence(
        call=safely(failing_call, exc, is_user_file),
        embeddings=safely(_embeddings, exc, is_user_file) or (),
        masked=safely(_masked, exc, is_user_file) or (),
        vocabularies=safely(_vocabularies, exc, is_user_file) or (),
        layer_dtypes=safely(_layer_dtypes, exc, is_user_file) or (),
        user_classes=safely(_user_classes, exc, is_user_file) or (),
        id_sources=safely(_id_sources, exc, is_user_file) or (),
        line_dtypes=(safely(_line_dtypes, exc) or ()) if re.search(_CLASH, str(exc)) else (),
    )


def _line_dtypes(exc: BaseException) -> tuple[tuple[str, str], ...]:
    """The dtype of each tensor or array named on the user's failing line (its own frame)."""
    import ast

    from tfnb_debug.explain._api import evaluate
    from tfnb_debug.explain._nonfinite_source import failing_statement

    failing = failing_statement(exc)
    if failing is None:
        return ()
    spaces, _, statement = failing
    found: dict[str, str] = {}
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and node.id not in found:
            value = evaluate(node, spaces)
            dtype = getattr(getattr(value, "dtype", None), "name", None)
            if isinstance(dtype, str) and hasattr(value, "shape"):
                found[node.id] = dtype
    return tuple(found.items())[:12]


# models and layers ---------------------------------------------------------------------


def _keras_layer_class() -> Any:
    """Keras' Layer class if Keras is already imported (a Keras error implies it is)."""
    import sys

    if "keras" not in sys.modules:
        return None
    try:
        from keras import layers

        return layers.Layer
    except Exception:
        return None


def _embeddings(exc: BaseException, is_user_file: Any) -> tuple[tuple[str, int], ...]:
    """(name, input_dim) of the Embedding layers in the layers and models the traceback involves."""
    found: dict[str, int] = {}
    for layer in _involved_layers(exc, is_user_file):
        dim = getattr(layer, "input_dim", None)
        embedding = type(layer).__name__ == "Embedding" or hasattr(layer, "output_dim")
        if embedding and isinstance(dim, int):
            found.setdefault(str(layer.name), dim)
    return tuple(found.items())


def _masked(exc: BaseException, is_user_file: Any) -> tuple[str, ...]:
    """The names of the Embedding layers involved that reserve id 0 for padding (mask_zero)."""
    return tuple(
        str(layer.name)
        for layer in _involved_layers(exc, is_user_file)
        if hasattr(layer, "output_dim") and getattr(layer, "mask_zero", False) is True
    )


def _id_count(layer: Any) -> int | None:
    """How many distinct ids a preprocessing layer outputs (0..n-1), None for other layers."""
    cls = type(layer).__name__
    try:
        if cls == "Discretization":
            bounds = getattr(layer, "bin_boundaries", None)
            return len(bounds) + 1 if bounds is not None else int(layer.num_bins)
        if cls in _LOOKUPS:
            return int(layer.vocabulary_size())
        if cls in ("Hashing", "HashedCrossing"):
            return int(layer.num_bins)
    except Exception:
        return None
    return None


def _id_sources(exc: BaseException, is_user_file: Any) -> tuple[tuple[str, str, str, int], ...]:
    """(embedding, producer, producer class, ids it makes) for each Embedding of the models
    involved whose input a preprocessing layer makes (a Discretization's buckets, a lookup's ids)."""
    found: list[tuple[str, str, str, int]] = []
    for layer in _involved_layers(exc, is_user_file):
        if type(layer).__name__ != "Embedding":
            continue
        try:
            producer = layer.input._keras_history.operation
        except Exception:
            continue
        count = _id_count(producer)
        if count is not None:
            name = _user_name(exc, is_user_file, producer) or str(producer.name)
            found.append((str(layer.name), name, type(producer).__name__, count))
    return tuple(found[:8])


def _user_name(exc: BaseException, is_user_file: Any, obj: Any) -> str:
    """The name a user frame binds to ``obj`` (this very object), "" when none does."""
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            for space in (frame.f_locals, frame.f_globals):
                for key, value in list(space.items()):
                    if value is obj and not key.startswith("_"):
                        return str(key)
        tb = tb.tb_next
    return ""


def _involved_layers(exc: BaseException, is_user_file: Any) -> list[Any]:
    """Every layer of the layers and models the traceback involves (``self`` of a frame, or a
    layer named on a user line), nested layers included."""
    layer_cls = _keras_layer_class()
    if layer_cls is None:
        return []
    roots: dict[int, Any] = {}
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        if isinstance(owner, layer_cls):
            roots.setdefault(id(owner), owner)
        if is_user_file(frame.f_code.co_filename):
            line = linecache.getline(frame.f_code.co_filename, tb.tb_lineno)
            for names in (frame.f_locals, frame.f_globals):
                for key, value in list(names.items()):
                    if key in line and isinstance(value, layer_cls):
                        roots.setdefault(id(value), value)
        tb = tb.tb_next
    out: dict[int, Any] = {}
    for root in roots.values():
        try:
            layers = list(root._flatten_layers(include_self=True, recursive=True))
        except Exception:
            layers = [root]
        for layer in layers:
            out.setdefault(id(layer), layer)
    return list(out.values())


def _layer_dtypes(exc: BaseException, is_user_file: Any = None) -> tuple[LayerDtypes, ...]:
    """The layers seen as ``self`` in the traceback, innermost first, and, innermost of all,
    the models the failing user line names (``y - net(x)`` raising after ``net`` returned)."""
    layer_cls = _keras_layer_class()
    if layer_cls is None:
        return ()
    out: list[LayerDtypes] = []
    seen: set[int] = set()
    entries = []
    tb = exc.__traceback__
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    users = [e for e in entries if is_user_file and is_user_file(e.tb_frame.f_code.co_filename)]
    last_user = users[-1] if users else None
    for tb in entries:
        owners = [tb.tb_frame.f_locals.get("self")]
        if tb is last_user:
            line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
            owners += [
                v
                for k, v in list(tb.tb_frame.f_locals.items())
                if f"{k}(" in line and isinstance(v, layer_cls) and hasattr(v, "layers")
            ][:4]
        for owner in owners:
            if not isinstance(owner, layer_cls) or id(owner) in seen:
                continue
            seen.add(id(owner))
            raw = []
            for attr, value in list(vars(owner).items()):
                cls = type(value)
                if cls.__module__.startswith("tensorflow") and "Variable" in cls.__name__:
                    raw.append((attr, str(getattr(value.dtype, "name", value.dtype))))
            policy = getattr(getattr(owner, "dtype_policy", None), "name", "")
            out.insert(
                0,
                LayerDtypes(
                    str(owner.name),
                    type(owner).__name__,
                    str(policy),
                    str(getattr(owner, "compute_dtype", "")),
                    tuple(raw),
                    _output_dtypes(owner),
                ),
            )
    return tuple(out)


def _output_dtypes(model: Any) -> tuple[tuple[str, str], ...]:
    """(layer name, dtype) of each output of a model, from its graph (a Functional model) or
    its last layer (a Sequential); () for a layer or a model with neither."""
    if not hasattr(model, "layers"):
        return ()
    try:
        outputs = model.outputs
    except Exception:
        outputs = None
    found = []
    for tensor in outputs or []:
        history = getattr(tensor, "_keras_history", None)
        layer = getattr(history, "operation", None) or getattr(history, "layer", None)
        found.append((str(getattr(layer, "name", "")), str(getattr(tensor, "dtype", ""))))
    if not found and model.layers:
        last = model.layers[-1]
        found.append((str(last.name), str(getattr(last, "compute_dtype", ""))))
    return tuple(found)


_LOOKUPS = ("TextVectorization", "StringLookup", "IntegerLookup")


def _vocabularies(exc: BaseException, is_user_file: Any) -> tuple[tuple[str, int], ...]:
    """Lookup layers (TextVectorization, StringLookup, IntegerLookup) in the user's namespaces
    and models: the user's variable name (else the layer's) and ``vocabulary_size()``."""
    layer_cls = _keras_layer_class()
    if layer_cls is None:
        return ()
    found: dict[int, tuple[str, int]] = {}

    def add(name: str, layer: Any) -> None:
        if type(layer).__name__ in _LOOKUPS and id(layer) not in found:
            try:
                found[id(layer)] = (name, int(layer.vocabulary_size()))
            except Exception:
                return

    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            for space in (frame.f_locals, frame.f_globals):
                for key, value in list(space.items()):
                    if not isinstance(value, layer_cls) or key.startswith("_"):
                        continue
                    add(key, value)
                    if hasattr(value, "_flatten_layers") and type(value).__name__ not in _LOOKUPS:
                        try:
                            inner = list(value._flatten_layers(include_self=False, recursive=True))
                        except Exception:
                            inner = []
                        for layer in inner:
                            add(str(layer.name), layer)
        tb = tb.tb_next
    return tuple(found.values())[:8]


def _user_classes(exc: BaseException, is_user_file: Any) -> tuple[str, ...]:
    names: dict[str, None] = {}
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if is_user_file(frame.f_code.co_filename):
            for space in (frame.f_locals, frame.f_globals):
                for key, value in list(space.items()):
                    if isinstance(value, type) and not key.startswith("_"):
                        names.setdefault(key)
        tb = tb.tb_next
    return tuple(names)


# datasets ------------------------------------------------------------------------------


def dataset_stages(ds: Any, limit: int = 30) -> tuple[DatasetStage, ...]:
    """The pipeline of ``ds``, source first, read with the ``_inputs()`` walk."""
    chain: list[Any] = []
    current = ds
    while current is not None and len(chain) < limit:
        chain.append(current)
        try:
            inputs = current._inputs()
        except Exception:
            break
        current = inputs[0] if inputs else None
    stages = []
    for obj in reversed(chain):
        try:
            stages.append(_stage(obj))
        except Exception:
            continue
    return tuple(stages)


def _stage(obj: Any) -> DatasetStage:
    name = type(obj).__name__.strip("_")
    kind = name.removesuffix("Dataset")
    kind = {
        "Map": "map",
        "ParallelMap": "map",
        "Batch": "batch",
        "ParallelBatch": "batch",
        "PaddedBatch": "padded_batch",
        "DenseToRaggedBatch": "ragged_batch",
        "RaggedBatch": "ragged_batch",
        "TensorSlice": "from_tensor_slices",
        "Tensor": "from_tensors",
        "FlatMap": "flat_map",
        "Prefetch": "prefetch",
        "Shuffle": "shuffle",
        "Cache": "cache",
        "Repeat": "repeat",
    }.get(kind, kind.lower())
    function, python = "", ""
    wrapper = getattr(obj, "_map_func", None)
    func = getattr(wrapper, "_func", None)
    if func is not None:
        qualname = getattr(func, "__qualname__", "")
        if "_from_generator" in qualname:
            kind = "from_generator"
            function = _generator_name(func)
        else:
            function = str(getattr(func, "__name__", ""))
            python = _python_op(wrapper)
    spec = obj.element_spec
    parts = spec if isinstance(spec, tuple) else (spec,)
    dtypes = tuple(str(getattr(getattr(p, "dtype", None), "name", "")) for p in parts)
    size = getattr(obj, "_batch_size", getattr(obj, "_size", None))  # window() keeps _size
    try:
        batch = int(size.numpy()) if size is not None and hasattr(size, "numpy") else None
    except Exception:
        batch = None
    drop = getattr(obj, "_drop_remainder", None)
    try:
        dropped = bool(drop.numpy()) if drop is not None and hasattr(drop, "numpy") else None
    except Exception:
        dropped = None
    return DatasetStage(
        kind,
        function,
        python,
        _spec_shapes(spec),
        dtypes,
        batch,
        _padded_shapes(obj),
        _loader(obj),
        dropped,
    )


def _loader(obj: Any) -> str:
    """Which ``*_dataset_from_directory`` returned ``obj``, read from the attributes Keras sets
    on it and the dtype of its first component ("" for any other dataset)."""
    if not (hasattr(obj, "class_names") and hasattr(obj, "file_paths")):
        return ""
    spec = obj.element_spec
    first = features_spec(spec)
    dtype = str(getattr(getattr(first, "dtype", None), "name", ""))
    shape = tuple(getattr(first, "shape", ()) or ())
    if dtype == "string":
        return "text_dataset_from_directory"
    # images: (batch, height, width, channels), or (height, width, channels) unbatched; audio:
    # (batch, samples, channels) with samples of any length, or (samples, channels)
    image = len(shape) == 4 or len(shape) == 3 and shape[0] is not None
    return "image_dataset_from_directory" if image else "audio_dataset_from_directory"


def _padded_shapes(obj: Any) -> tuple[tuple[int | None, ...], ...]:
    """``padded_batch``'s padded shape of each component (-1, "the longest", read as None)."""
    padded = getattr(obj, "_padded_shapes", None)
    if padded is None:
        return ()
    parts = padded if isinstance(padded, tuple | list) else (padded,)
    try:
        return tuple(
            tuple(None if int(d) < 0 else int(d) for d in part.numpy().tolist()) for part in parts
        )
    except Exception:
        return ()


def _spec_shapes(spec: Any) -> tuple[tuple[int | None, ...] | None, ...]:
    """The shape of each top-level component of an element_spec (None: unknown rank)."""
    shapes: list[tuple[int | None, ...] | None] = []
    for part in spec if isinstance(spec, tuple) else (spec,):
        try:
            shapes.append(tuple(part.shape.as_list()))
        except Exception:
            shapes.append(None)
    return tuple(shapes)


def _generator_name(flat_map_fn: Any) -> str:
    for cell in getattr(flat_map_fn, "__closure__", None) or ():
        inner = cell.cell_contents
        for sub in getattr(inner, "__closure__", None) or ():
            state = sub.cell_contents
            generator = getattr(state, "_generator", None)
            if generator is not None:
                return str(getattr(generator, "__name__", ""))
    return ""


def _python_op(wrapper: Any) -> str:
    try:
        ops = {op.type for op in wrapper.function.graph.get_operations()}
    except Exception:
        return ""
    if "EagerPyFunc" in ops:
        return "tf.py_function"
    if ops & {"PyFunc", "PyFuncStateless"}:
        return "tf.numpy_function"
    if "DecodeImage" in ops:
        return "tf.io.decode_image"
    if "ParseTensor" in ops:
        return "tf.io.parse_tensor"
    return ""
