"""Read the transformation chain of a ``tf.data.Dataset`` from the dataset object itself.

TensorFlow has no public API for this.  Two private but long-lived ways exist
(``TRAPS.md``, "Looking inside a tf.data pipeline"):

* the serialized dataset graph (``ds._as_serialized_graph()``), the primary
  source: op types in input order, constant arguments (batch size, buffer
  sizes, ``num_parallel_calls``) and the function library, which tells whether a
  ``map`` function uses random ops;
* the ``ds._inputs()`` walk, the fallback, which also gives the live dataset
  object of every stage (needed to time each prefix of the chain and to show a
  ``map`` stage's input next to its output).

Both sit behind :func:`read_structure`, which never raises: if a TensorFlow
upgrade breaks them the structure says ``source="unknown"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import tensorflow as tf

from tfnb_debug.collect.keras_datasets import file_reader, mark_utilities, stored_order

__all__ = [
    "AUTOTUNE",
    "Stage",
    "Structure",
    "batched_before",
    "chain_text",
    "read_structure",
]

AUTOTUNE = -1

# Ops whose output differs from run to run with no seed passed in by the data.
_STATEFUL_RANDOM = {
    "RandomUniform",
    "RandomUniformInt",
    "RandomStandardNormal",
    "TruncatedNormal",
    "ParameterizedTruncatedNormal",
    "RandomShuffle",
    "RandomCrop",
    "Multinomial",
    "RandomGamma",
    "RandomPoisson",
    "RandomPoissonV2",
    "StatefulUniform",
    "StatefulUniformInt",
    "StatefulUniformFullInt",
    "StatefulStandardNormal",
    "StatefulStandardNormalV2",
    "StatefulTruncatedNormal",
    "RngReadAndSkip",
    "RngSkip",
    "NonDeterministicInts",
    "SampleDistortedBoundingBox",
    "SampleDistortedBoundingBoxV2",
}
# Stateless random ops are random across epochs when their seed comes from a
# variable that the function updates (Keras' SeedGenerator, tf.random.Generator).
_VARIABLE_OPS = {"ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp"}
_PY_FUNC_OPS = {"EagerPyFunc", "PyFunc", "PyFuncStateless"}

# Normalised op name (see _kind) -> the tf.data method a user writes.
_API_NAMES = {
    "tensor_slice": "from_tensor_slices",
    "tensor": "from_tensors",
    "range": "range",
    "map": "map",
    "flat_map": "flat_map",
    "interleave": "interleave",
    "filter": "filter",
    "batch": "batch",
    "padded_batch": "padded_batch",
    "unbatch": "unbatch",
    "shuffle": "shuffle",
    "shuffle_and_repeat": "shuffle_and_repeat",
    "repeat": "repeat",
    "cache": "cache",
    "prefetch": "prefetch",
    "take": "take",
    "skip": "skip",
    "shard": "shard",
    "zip": "zip",
    "concatenate": "concatenate",
    "options": "with_options",
    "tf_record": "TFRecordDataset",
    "text_line": "TextLineDataset",
    "fixed_length_record": "FixedLengthRecordDataset",
    "generator": "from_generator",
    "model": "model",
    "max_intra_op_parallelism": "with_options",
    "private_thread_pool": "with_options",
    "snapshot": "snapshot",
    "scan": "scan",
    "window": "window",
    "rebatch": "rebatch",
    "ignore_errors": "ignore_errors",
    "assert_cardinality": "assert_cardinality",
    "sliding_window": "sliding_window",
    "unique": "unique",
    "enumerate": "enumerate",
}
# Python classes of the _inputs() walk that have no op of their own in the graph.
_NO_GRAPH_NODE = {"_RestructuredDataset", "DatasetV1Adapter", "_NumpyIterator"}


@dataclass(frozen=True)
class Stage:
    """One transformation of the chain, in input order (source first).

    ``params`` are the constant arguments read from the graph (``None`` when
    they are not constants).  ``random_ops`` is ``True``/``False`` for
    function-taking stages, ``None`` when unknown (a ``py_function``).
    ``branches`` holds the other inputs of ``zip``/``concatenate`` as chains.
    ``dataset`` is the live dataset object of this stage when the ``_inputs()``
    walk found it (not compared, not shown).
    """

    kind: str
    op: str
    params: tuple[tuple[str, Any], ...] = ()
    function: str = ""
    random_ops: bool | None = None
    python_function: bool = False
    internal: bool = False  # a helper stage TensorFlow inserted (ragged_batch's map, unbatch's)
    utility: str = ""  # the Keras utility that built this stage (keras.utils.image_dataset_...)
    branches: tuple[tuple[Stage, ...], ...] = ()
    dataset: Any = field(default=None, compare=False, repr=False)

    def param(self, name: str, default: Any = None) -> Any:
        for key, value in self.params:
            if key == name:
                return value
        return default

    @property
    def api(self) -> str:
        return _API_NAMES.get(self.kind, self.kind)

    def label(self) -> str:
        """e.g. ``map(parallel=AUTOTUNE, random ops: yes)`` or ``batch(32, drop_remainder=False)``."""
        return f"{self.api}({', '.join(self._arguments())})"

    def _arguments(self) -> list[str]:
        args: list[str] = []
        k = self.kind
        if k in {"tensor_slice", "tensor", "range", "generator"}:
            n = self.param("elements")
            if n is not None:
                args.append(str(n))
        elif k in {"batch", "padded_batch"}:
            args.append(_num(self.param("batch_size")))
            args.append(f"drop_remainder={self.param('drop_remainder')}")
            if self.param("ragged"):
                args.append("ragged")
        elif k in {"shuffle", "shuffle_and_repeat"} or k == "prefetch":
            args.append(_num(self.param("buffer_size")))
        elif k == "cache":
            filename = self.param("filename")
            args.append("memory" if filename == "" else repr(filename) if filename else "?")
        elif k in {"repeat", "take", "skip"}:
            count = self.param("count")
            if count is not None and not (k == "repeat" and count == -1):
                args.append(str(count))
        if k in {"map", "interleave", "flat_map", "filter"}:
            calls = self.param("num_parallel_calls")
            if calls is not None:
                args.append(f"parallel={_num(calls)}")
            if self.random_ops is not None or self.python_function:
                args.append(
                    "random ops: "
                    + ("yes" if self.random_ops else "unknown" if self.random_ops is None else "no")
                )
            if self.python_function:
                args.append("py_function")
        return [a for a in args if a]


@dataclass(frozen=True)
class Structure:
    """The chain read from a dataset: ``stages`` in input order, and where it came from."""

    stages: tuple[Stage, ...]
    source: str  # "graph", "inputs" or "unknown"
    note: str = ""

    @property
    def known(self) -> bool:
        return self.source != "unknown" and bool(self.stages)

    def text(self) -> str:
        return chain_text(self.stages) if self.stages else "unknown"

    def index_of(self, kind: str) -> list[int]:
        return [i for i, s in enumerate(self.stages) if s.kind == kind]


def batched_before(stages: Sequence[Stage], index: int) -> bool:
    """Whether the elements entering stage ``index`` are batches."""
    batched = False
    for stage in stages[:index]:
        if stage.kind in {"batch", "padded_batch", "rebatch"}:
            batched = True
        elif stage.kind == "unbatch":
            batched = False
    return batched


def chain_text(stages: Sequence[Stage]) -> str:
    """``a -> b -> c``; a ``zip``/``concatenate`` shows its inputs as ``zip[chain | chain]``."""
    text = ""
    for stage in stages:
        if stage.internal:
            continue
        if stage.branches:
            inner = " | ".join([text, *(chain_text(b) for b in stage.branches)])
            text = f"{stage.api}[{inner}]"
        else:
            text = f"{text} -> {stage.label()}" if text else stage.label()
    return text


def read_structure(ds: tf.data.Dataset) -> Structure:
    """The chain of ``ds``: from the serialized graph, else the ``_inputs()`` walk, else unknown."""
    objects = _walk_objects(ds)
    try:
        stages = _from_graph(ds)
    except Exception as err:  # a private API changed: fall back, never fail
        note = f"serialized graph unreadable ({type(err).__name__}); used the _inputs() walk"
        try:
            walked = _from_walk(objects)
        except Exception as err2:
            return Structure((), "unknown", f"{note}; the walk failed too ({type(err2).__name__})")
        if not walked:
            return Structure(
                (), "unknown", "neither the serialized graph nor the walk was readable"
            )
        return Structure(tuple(walked), "inputs", note)
    stages = _attach(stages, objects)
    # from_generator is built as from_tensors(id) -> flat_map(generator): show one stage.
    merged = [
        s
        for i, s in enumerate(stages)
        if not (s.kind == "tensor" and i + 1 < len(stages) and stages[i + 1].kind == "generator")
    ]
    return Structure(tuple(mark_utilities(_mark_internal(merged))), "graph")


def _mark_internal(stages: list[Stage]) -> list[Stage]:
    """Flag the maps TensorFlow adds itself, so no rule blames the user for them."""
    out = list(stages)
    for i, stage in enumerate(out):
        if stage.kind != "map" or i + 1 >= len(out):
            continue
        after = out[i + 1]
        if type(stage.dataset).__name__ == "_DenseToRaggedDataset" and after.kind == "batch":
            out[i] = replace(stage, internal=True)
            out[i + 1] = replace(after, params=(*after.params, ("ragged", True)))
        elif "Dataset_map_normalize" in stage.function and after.kind == "unbatch":
            out[i] = replace(stage, internal=True)
    return out


# ---------------------------------------------------------------------------
# serialized graph


def _from_graph(ds: tf.data.Dataset) -> list[Stage]:
    graph = tf.compat.v1.GraphDef()
    graph.ParseFromString(ds._as_serialized_graph().numpy())
    nodes = {n.name: n for n in graph.node}
    library = {f.signature.name: f for f in graph.library.function}
    root = next(n for n in graph.node if n.op == "_Retval")
    cache: dict[str, tuple[bool | None, bool]] = {}
    return _chain(nodes, _strip(root.input[0]), library, cache)


def _chain(
    nodes: dict[str, Any], name: str, library: dict[str, Any], cache: dict[str, Any]
) -> list[Stage]:
    stages: list[Stage] = []
    current: str | None = name
    while current is not None:
        node = nodes[current]
        inputs = [_strip(i) for i in node.input if not i.startswith("^")]
        dataset_inputs = [i for i in inputs if _is_dataset(nodes.get(i))]
        branches = tuple(
            tuple(_chain(nodes, other, library, cache)) for other in dataset_inputs[1:]
        )
        stages.append(_stage_from_node(node, nodes, inputs, library, cache, branches))
        current = dataset_inputs[0] if dataset_inputs else None
    stages.reverse()
    return stages


def _is_dataset(node: Any) -> bool:
    return node is not None and re.search(r"Dataset(V\d+)?$", node.op) is not None


def _strip(name: str) -> str:
    return name.split(":")[0]


def _kind(op: str) -> str:
    base = re.sub(r"V\d+$", "", op)
    base = re.sub(r"Dataset$", "", base)
    base = re.sub(r"^(Parallel|Legacy|Experimental)", "", base)
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()
    return {"dense_to_sparse_batch": "batch"}.get(snake, snake)


def _const(nodes: dict[str, Any], name: str) -> Any:
    node = nodes.get(name)
    if node is None or node.op != "Const":
        return None
    try:
        value = tf.make_ndarray(node.attr["value"].tensor)
    except Exception:  # resource handles and variants have no NumPy form
        return None
    if value.ndim == 0:
        item = value.item()
        return item.decode("utf-8", "replace") if isinstance(item, bytes) else item
    return None


def _order(nodes: dict[str, Any], name: str, kind: str) -> str | None:
    """The stored order of a 1-D constant of file paths or window starts (see keras_datasets)."""
    node = nodes.get(name)
    if node is None or node.op != "Const":
        return None
    dims = node.attr["value"].tensor.tensor_shape.dim
    if len(dims) != 1 or not 2 <= dims[0].size <= 1_000_000:
        return None
    proto = node.attr["value"].tensor
    try:
        if proto.dtype == tf.string.as_datatype_enum:
            # a string constant may be packed in tensor_content, which make_ndarray cannot read
            value = tf.io.parse_tensor(proto.SerializeToString(), tf.string).numpy()
        else:
            value = tf.make_ndarray(proto)
    except Exception:
        return None
    return stored_order(value, kind=kind)


def _leading_dim(nodes: dict[str, Any], name: str) -> int | None:
    node = nodes.get(name)
    if node is None or node.op != "Const":
        return None
    dims = node.attr["value"].tensor.tensor_shape.dim
    return int(dims[0].size) if dims else None


def _stage_from_node(
    node: Any,
    nodes: dict[str, Any],
    inputs: list[str],
    library: dict[str, Any],
    cache: dict[str, Any],
    branches: tuple[tuple[Stage, ...], ...],
) -> Stage:
    op = node.op
    kind = _kind(op)
    params: list[tuple[str, Any]] = []
    scalar = [_const(nodes, i) for i in inputs]
    if kind == "tensor_slice":
        params.append(("elements", _leading_dim(nodes, inputs[0]) if inputs else None))
        if len(inputs) == 1:
            params.append(("order", _order(nodes, inputs[0], "paths")))
        if "is_files" in node.attr:  # the file names of tf.data.Dataset.list_files
            params.append(("files", node.attr["is_files"].b))
    elif kind == "tensor" and len(inputs) == 1:
        params.append(("order", _order(nodes, inputs[0], "starts")))
    elif kind == "range" and len(scalar) >= 3 and None not in scalar[:3]:
        start, stop, step = scalar[:3]
        params.append(("elements", max(0, -(-(stop - start) // step))))
    elif kind in {"batch", "padded_batch"}:
        params.append(("batch_size", scalar[1] if len(scalar) > 1 else None))
        params.append(("drop_remainder", scalar[-1] if isinstance(scalar[-1], bool) else None))
    elif kind in {"shuffle", "shuffle_and_repeat"}:
        params.append(("buffer_size", scalar[1] if len(scalar) > 1 else None))
        reshuffle = (
            node.attr["reshuffle_each_iteration"].b
            if "reshuffle_each_iteration" in node.attr
            else None
        )
        params.append(("reshuffle_each_iteration", reshuffle))
    elif kind == "prefetch":
        params.append(("buffer_size", scalar[1] if len(scalar) > 1 else None))
    elif kind == "cache":
        params.append(("filename", scalar[1] if len(scalar) > 1 else None))
    elif kind in {"repeat", "take", "skip"}:
        params.append(("count", scalar[1] if len(scalar) > 1 else None))
    elif kind == "map":
        parallel = op.startswith("Parallel")
        params.append(("num_parallel_calls", scalar[-1] if parallel and len(scalar) > 1 else None))
    elif kind == "interleave":
        parallel = op.startswith("Parallel")
        params.append(("cycle_length", scalar[-5] if parallel and len(scalar) >= 6 else None))
        params.append(("num_parallel_calls", scalar[-1] if parallel and len(scalar) > 1 else None))
    if "deterministic" in node.attr:
        params.append(("deterministic", node.attr["deterministic"].s.decode() or "default"))
    function = node.attr["f"].func.name if "f" in node.attr else ""
    if not function and "predicate" in node.attr:
        function = node.attr["predicate"].func.name
    random_ops: bool | None = None
    python = False
    if function and function in library:
        random_ops, python = _function_randomness(function, library, cache)
        reads = file_reader(_function_ops(function, library))
        if reads is not None:
            params.append(("reads", reads))
        if kind == "flat_map" and _calls_generator(function, library):
            kind, python = "generator", True
    return Stage(kind, op, tuple(params), function, random_ops, python, branches=branches)


def _referenced_functions(fdef: Any, library: dict[str, Any]) -> Iterable[str]:
    for node in fdef.node_def:
        if node.op in library:
            yield node.op
        for attr in node.attr.values():
            if attr.func.name:
                yield attr.func.name
            for func in attr.list.func:
                yield func.name


def _function_randomness(
    name: str, library: dict[str, Any], cache: dict[str, Any], seen: frozenset[str] = frozenset()
) -> tuple[bool | None, bool]:
    """(uses random ops: True/False/None for unknown, calls Python) for a library function."""
    if name in cache:
        cached: tuple[bool | None, bool] = cache[name]
        return cached
    fdef = library[name]
    ops = {n.op for n in fdef.node_def}
    random = bool(ops & _STATEFUL_RANDOM) or (
        any(
            o.startswith(
                (
                    "StatelessRandom",
                    "StatelessTruncated",
                    "StatelessMultinomial",
                    "StatelessShuffle",
                )
            )
            for o in ops
        )
        and bool(ops & _VARIABLE_OPS)
    )
    python = bool(ops & _PY_FUNC_OPS)
    for child in set(_referenced_functions(fdef, library)) - seen - {name}:
        if child in library:
            child_random, child_python = _function_randomness(child, library, cache, seen | {name})
            random = random or bool(child_random)
            python = python or child_python
    result: tuple[bool | None, bool] = (True if random else (None if python else False), python)
    cache[name] = result
    return result


def _function_ops(name: str, library: dict[str, Any]) -> set[str]:
    """Every op type in a library function and the functions it calls."""
    ops: set[str] = set()
    pending, seen = [name], set()
    while pending:
        current = pending.pop()
        if current in seen or current not in library:
            continue
        seen.add(current)
        fdef = library[current]
        ops |= {n.op for n in fdef.node_def}
        pending.extend(_referenced_functions(fdef, library))
    return ops


def _calls_generator(name: str, library: dict[str, Any]) -> bool:
    fdef = library[name]
    return any(n.op == "GeneratorDataset" for n in fdef.node_def)


# ---------------------------------------------------------------------------
# _inputs() walk


def _walk_objects(ds: Any) -> list[Any]:
    """The live dataset objects of the main chain, source first (empty if the walk fails)."""
    objects: list[Any] = []
    try:
        current = ds
        while current is not None and len(objects) < 1000:
            objects.append(current)
            inputs = current._inputs()
            current = inputs[0] if inputs else None
    except Exception:
        return []
    objects.reverse()
    return objects


def _class_kind(obj: Any) -> str:
    name = type(obj).__name__.lstrip("_")
    name = re.sub(r"^(Parallel|Legacy)", "", name)
    name = re.sub(r"Dataset(V\d+)?$", "", name)
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    return {"dense_to_ragged": "map", "shuffle_and_repeat": "shuffle"}.get(snake, snake)


def _attach(stages: list[Stage], objects: list[Any]) -> list[Stage]:
    """Give each graph stage of the main chain its live object, when the two lines agree."""
    live = [o for o in objects if type(o).__name__ not in _NO_GRAPH_NODE]
    if len(live) != len(stages):
        return stages
    out = []
    for stage, obj in zip(stages, live, strict=True):
        kind = _class_kind(obj)
        same = kind == stage.kind or (stage.kind == "generator" and kind == "flat_map")
        same = same or (
            stage.kind == "batch" and kind in {"batch", "ragged_batch", "dense_to_sparse_batch"}
        )
        if not same:
            return stages
        out.append(replace(stage, dataset=obj))
    return out


def _from_walk(objects: list[Any]) -> list[Stage]:
    stages = []
    for obj in objects:
        if type(obj).__name__ in _NO_GRAPH_NODE:
            continue
        kind = _class_kind(obj)
        params: list[tuple[str, Any]] = []
        for key, attr in (
            ("batch_size", "_batch_size"),
            ("drop_remainder", "_drop_remainder"),
            ("buffer_size", "_buffer_size"),
            ("num_parallel_calls", "_num_parallel_calls"),
            ("count", "_count"),
            ("filename", "_filename"),
        ):
            value = getattr(obj, attr, None)
            if value is not None:
                params.append((key, _scalar(value)))
        random_ops: bool | None = None
        python = False
        func = getattr(obj, "_map_func", None) or getattr(obj, "_predicate", None)
        if func is not None:
            random_ops, python = _concrete_randomness(func)
        stages.append(
            Stage(kind, type(obj).__name__, tuple(params), "", random_ops, python, dataset=obj)
        )
    return stages


def _concrete_randomness(wrapper: Any) -> tuple[bool | None, bool]:
    try:
        gdef = wrapper.function.graph.as_graph_def()
    except Exception:
        return None, False
    library = {f.signature.name: f for f in gdef.library.function}

    class _Top:
        node_def = gdef.node

    library["__top__"] = _Top()
    result = _function_randomness("__top__", library, {})
    return result


def _scalar(value: Any) -> Any:
    try:
        item = value.numpy().item() if hasattr(value, "numpy") else value
    except Exception:
        return None
    return item.decode("utf-8", "replace") if isinstance(item, bytes) else item


def _num(value: Any) -> str:
    if value is None:
        return "?"
    if value == AUTOTUNE:
        return "AUTOTUNE"
    return str(value)
