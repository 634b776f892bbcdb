"""Call contracts: the failing user call's arguments checked against what the API it called takes.

One check per documented contract of the APIs users call most.  Each check
reads the live arguments of :class:`~tfnb_debug.explain._api.LiveCall` and
returns a :class:`Violation` naming the argument that breaks the contract,
what it is, what the API takes, and a fix derived from the two (never a fix
already in place).  :func:`read_contract` runs them while the exception is
read and keeps plain values only (a :class:`ContractReport`).

``CONTRACTS`` lists, for each check, the API names it covers and the raise
sites (message patterns) whose exception it explains; ``scripts/explain_coverage.py``
reads it to build the coverage table of docs/diagnostics.md.
"""

from __future__ import annotations

import difflib
import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall, layer_frames, unpacked_call, user_call
from tfnb_debug.explain._call import describe_value
from tfnb_debug.explain._data_contracts import (
    class_weight_type,
    confusion_matrix_ids,
    fit_argument_kinds,
    fit_targets,
    image_channels,
    labels_logits_order,
    lambda_function,
    padding_values_dtype,
    set_weights_unbuilt,
    softmax_labels,
)
from tfnb_debug.explain._dataset_structure import (
    dataset_concatenate,
    dataset_map,
    map_over_windows,
    padded_batch,
    sampled_datasets,
)
from tfnb_debug.explain._keras2 import SHAPE_ARGUMENTS, removed_argument
from tfnb_debug.explain._layer_inputs import (
    frames_axis_missing,
    key_value_sources,
    steps_axis_dropped,
)
from tfnb_debug.explain._normalization import normalization_statistics, widened_by_normalization
from tfnb_debug.explain._op_dtypes import (
    allowed_dtypes,
    layer_weights_dtype,
    text_cast,
    traced_call,
)
from tfnb_debug.explain._optimizer_calls import (
    apply_gradients,
    fit_optimizer,
    tape_gradient,
)
from tfnb_debug.explain._output_axes import dataset_labels, extra_output_axes
from tfnb_debug.explain._preprocessing import (
    adapt_pairs,
    lookup_dtype,
    string_input_declared_numeric,
)
from tfnb_debug.explain._rnn_states import flag_as_initial_state, wrapping_bidirectional
from tfnb_debug.explain._saved_objects import load_custom_objects
from tfnb_debug.explain._spatial import (
    differing_axis,
    image_input_without_channels,
    merge_shapes,
    shrunk_input,
    size_fix,
)
from tfnb_debug.explain._tape_results import consumed_pairs, none_gradient, numpy_sources
from tfnb_debug.explain._unknown_axis import unknown_axis_weight
from tfnb_debug.explain._violation import (
    Violation,
    fmt,
    output_names,
    shape_of,
)
from tfnb_debug.explain._violation import is_a as _is_a
from tfnb_debug.explain._violation import items_of as _items
from tfnb_debug.explain._violation import models_in as _models_in
from tfnb_debug.explain._violation import name_in as _name_in
from tfnb_debug.explain._weights_files import (
    model_file_to_load_weights,
    weights_against_model,
    weights_file_to_load_model,
)

INTERNAL = ("AttributeError", "IndexError", "KeyError", "TypeError")


@dataclass(frozen=True)
class ContractReport:
    """The failing call into the library and what its contracts found (plain values)."""

    api: str
    source: str
    filename: str
    lineno: int
    arguments: tuple[str, ...]  # each bound argument, described
    violations: tuple[Violation, ...]


Check = Callable[[LiveCall, BaseException], "Violation | None"]


@dataclass(frozen=True)
class Contract:
    """A check, the APIs it applies to (public names, matched by suffix), the raise sites it explains."""

    apis: tuple[str, ...]
    check: Check
    explains: tuple[str, ...] = ()  # regexes over raise-site messages (for the coverage table)
    layer: bool = False  # also checked on a layer's own call frame inside a model's run


def read_contract(exc: BaseException, is_user_file: Any) -> ContractReport | None:
    """The user's failing call with its contracts checked; when it breaks none, the layers that
    ran inside it (a layer's ``call`` frame, innermost first) are checked with what they got."""
    call = (
        unpacked_call(exc, is_user_file)
        or user_call(exc, is_user_file)
        or traced_call(exc, is_user_file)
    )
    if call is None:
        return None
    violations = _check(call, exc, CONTRACTS)
    if not violations:
        layer_contracts = tuple(c for c in CONTRACTS if c.layer)
        for layer in layer_frames(exc, is_user_file) + _named_layers(call, exc):
            violations = _check(layer, exc, layer_contracts)
            if violations:
                break
    return ContractReport(
        api=call.api,
        source=call.source,
        filename=call.filename,
        lineno=call.lineno,
        arguments=tuple(_describe(call, name) for name in list(call.values)[:8]),
        violations=tuple(violations),
    )


_CALLING = re.compile(r"Exception encountered when calling (\w+)\.call\(\)")


def _named_layers(call: LiveCall, exc: BaseException) -> list[LiveCall]:
    """The layers of the call's model of the class Keras names in "Exception encountered when
    calling X.call()" (Keras filters their frames out), with their symbolic input as ``inputs``."""
    names = set(_CALLING.findall(str(exc)))
    model = call.receiver
    if not names or not _is_a(model, "Model"):
        return []
    out = []
    try:
        layers = list(model._flatten_layers(include_self=False, recursive=True))
    except Exception:
        return []
    for layer in layers:
        # the named class, or the RNN whose cell it is (Keras names GRUCell.call, not GRU)
        cell = getattr(layer, "cell", None)
        if type(layer).__name__ not in names and type(cell).__name__ not in names:
            continue
        for values in _node_arguments(layer):
            out.append(
                LiveCall(
                    call.api,
                    "__call__",
                    layer,
                    layer,
                    values=values,
                    source=call.source,
                    namespaces=call.namespaces,
                )
            )
    return out[:8]


def _node_arguments(layer: Any) -> list[dict[str, Any]]:
    """What the layer was called with in the model's graph (each inbound node's arguments:
    ``inputs`` and keywords such as ``initial_state``), else its symbolic input alone."""
    found = []
    for node in list(getattr(layer, "_inbound_nodes", []) or [])[:4]:
        arguments = getattr(node, "arguments", None)
        args = list(getattr(arguments, "args", ()) or ())
        kwargs = dict(getattr(arguments, "kwargs", {}) or {})
        if args or kwargs:
            found.append({"inputs": args[0] if args else None, **kwargs})
    if found:
        return found
    try:
        return [{"inputs": layer.input}]
    except Exception:
        return []


def _check(call: LiveCall, exc: BaseException, contracts: tuple[Contract, ...]) -> list[Violation]:
    violations: list[Violation] = []
    for contract in contracts:
        if not _applies(contract, call):
            continue
        try:
            found = contract.check(call, exc)
        except Exception:
            found = None
        if found is not None and found not in violations:
            violations.append(found)
    return violations


def _applies(contract: Contract, call: LiveCall) -> bool:
    """``Layer.add_weight`` matches ``keras.Layer.add_weight`` and the same method of a subclass;
    ``tf.image.`` (ending in a dot) every API under it; ``*`` every call."""
    if "*" in contract.apis:
        return True
    names = _api_names(call)
    for api in contract.apis:
        for name in names:
            if api.endswith(".") and name.startswith(api):
                return True
            if name == api or name.endswith("." + api):
                return True
    return False


def _api_names(call: LiveCall) -> set[str]:
    """The call's API name, and the same method on every library base class (LSTM -> RNN, Layer)."""
    from tfnb_debug.explain._api import public_name

    names = {call.api}
    owner = (
        call.receiver
        if call.receiver is not None
        else (call.callee if isinstance(call.callee, type) else None)
    )
    if owner is not None:
        cls = owner if isinstance(owner, type) else type(owner)
        for klass in cls.__mro__:
            base = public_name(klass)
            names.add(
                f"{base}.{call.method}" if call.method and call.method != "__call__" else base
            )
    return names


def _describe(call: LiveCall, name: str) -> str:
    value = call.values.get(name, UNREAD)
    text = call.text(name)
    if value is UNREAD:
        return f"{name}=`{text}` (not read)"
    described = describe_value(text, value).describe()
    return (
        f"{name}={described}" if described != f"`{text}`" else f"{name}=`{text}` ({_kind(value)})"
    )


def _kind(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, int | float | str | bool):
        return repr(value)[:40]
    return type(value).__name__


# small readers -------------------------------------------------------------------------


def item_text(text: str, index: int | str) -> str:
    """The source of item ``index`` of an argument: ``x`` of ``(x, y)``, else ``text[index]``."""
    import ast

    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.Tuple | ast.List) and isinstance(index, int) and index < len(node.elts):
        return ast.unparse(node.elts[index])
    if isinstance(node, ast.Dict) and isinstance(index, str):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == index:
                return ast.unparse(value)
    return f"{text}[{index!r}]"


# layers called on tensors ----------------------------------------------------------------


def _state_count(layer: Any) -> tuple[int, list[int | None]] | None:
    """How many initial states an RNN layer takes and each one's size."""
    if _is_a(layer, "Bidirectional"):
        forward = _state_count(layer.forward_layer)
        backward = _state_count(layer.backward_layer)
        if forward is None or backward is None:
            return None
        return forward[0] + backward[0], forward[1] + backward[1]
    cell = getattr(layer, "cell", None)
    size = getattr(cell, "state_size", None)
    if size is None:
        return None
    sizes = list(size) if isinstance(size, list | tuple) else [size]
    return len(sizes), [s if isinstance(s, int) else None for s in sizes]


# the states an RNN class returns after its output with return_state=True (a constructor
# call on the failing line: no instance to ask)
_STATES_OF = {
    "LSTM": 2,
    "GRU": 1,
    "SimpleRNN": 1,
    "ConvLSTM1D": 2,
    "ConvLSTM2D": 2,
    "ConvLSTM3D": 2,
}
_STATE_NAMES = {1: "state", 2: "state_h, state_c"}


def _returned(call: LiveCall) -> tuple[str, int, str] | None:
    """(what returns, how many tensors, their names) for a layer call whose result count its
    arguments decide: an RNN with or without ``return_state`` (a Bidirectional one: both
    directions' states), MultiHeadAttention with ``return_attention_scores``."""
    layer = call.receiver if call.method == "__call__" else None
    if layer is None and inspect.isclass(call.callee):  # made on the line: its arguments
        cls = call.callee.__name__
        if cls == "Bidirectional":
            inner = call.value("layer")
            if inner is UNREAD or inner is None:
                return None
            count = _state_count(inner)
            states = 2 * count[0] if count else None
            return_state = bool(getattr(inner, "return_state", False))
            cls = f"Bidirectional({type(inner).__name__})"
        else:
            states = _STATES_OF.get(cls)
            flag = call.value("return_state")
            return_state = flag is True
        name = call.value("name")
        label = f"{cls} '{name}'" if isinstance(name, str) else cls
    elif layer is not None:
        cls = type(layer).__name__
        label = f"{cls} '{layer.name}'"
        if _is_a(layer, "MultiHeadAttention"):
            scores = call.value("return_attention_scores") is True
            return (label, 2 if scores else 1, "output, scores" if scores else "output")
        count = _state_count(layer)
        states = count[0] if count else None
        wrapped = getattr(layer, "forward_layer", layer)
        return_state = bool(getattr(wrapped, "return_state", False))
    else:
        return None
    if states is None:
        return None
    if not return_state:
        return (label, 1, "output")
    if label.startswith("Bidirectional"):  # each direction's states, forward first
        names = {
            2: "forward_h, backward_h",
            4: "forward_h, forward_c, backward_h, backward_c",
        }.get(states, f"{states} states")
    else:
        names = _STATE_NAMES.get(states, f"{states} states")
    return (label, 1 + states, f"output, {names}")


def unpacked_result(call: LiveCall, exc: BaseException) -> Violation | None:
    """``a, b = layer(x)`` where the layer returns another number of tensors."""
    if not call.unpacked:
        return None
    returned = _returned(call)
    if returned is None:
        return None
    label, count, names = returned
    if count == call.unpacked:
        return None
    if count == 1:
        fix = (
            "assign the one output (`outputs = ...`), or pass `return_state=True` to get the "
            "states after it"
            if "attention" not in label.lower()
            else "assign the one output, or pass `return_attention_scores=True` to get the scores"
        )
        problem = f"{label} returns one tensor here, and the line unpacks it into {call.unpacked}"
    else:
        fix = f"unpack all {count}: `{names} = ...`"
        problem = (
            f"{label} returns {count} tensors ({names}), and the line unpacks them into "
            f"{call.unpacked}"
        )
    return Violation("S12", call.source, problem, fix)


def rnn_initial_state(call: LiveCall, exc: BaseException) -> Violation | None:
    layer = call.receiver
    states = call.value("initial_state")
    if states is UNREAD or states is None or call.method != "__call__" or layer is None:
        return None
    misplaced = flag_as_initial_state(call, layer, states)
    if misplaced is not None:
        return misplaced
    listed = _items(states)
    given = listed if listed is not None else [states]
    wrapper = wrapping_bidirectional(call, layer)
    if wrapper is not None:  # each direction got half of what the user gave the wrapper
        layer, given = wrapper, given * 2
    expected = _state_count(layer)
    if expected is None:
        return None
    count, sizes = expected
    text = call.text("initial_state")
    kind = type(layer).__name__
    names = {1: "[h]", 2: "[h, c]", 4: "[h_fw, c_fw, h_bw, c_bw]"}.get(count, f"{count} tensors")
    if len(given) != count:
        extra = ""
        if len(given) == count + 1:
            extra = (
                " (it looks like an RNN's full return_state output: the first item is the "
                "sequence output, the rest are the states)"
            )
            fix = "pass the states only: `output, *states = ...` then `initial_state=states`"
        else:
            fix = f"pass `initial_state={names}`, each of shape (batch, units)"
        return Violation(
            "S12",
            text,
            f"`initial_state` of {kind} '{layer.name}' is {len(given)} tensor(s); "
            f"{kind} takes {count} ({names}){extra}",
            fix,
            evidence=f"the layer's states: {count} of size {sizes}",
        )
    for i, (state, size) in enumerate(zip(given, sizes, strict=True)):
        shape = shape_of(state)
        if shape and size is not None and shape[-1] is not None and shape[-1] != size:
            return Violation(
                "S01",  # a size the layer cannot take (the count above is the structure's S12)
                text,
                f"state {i} of `initial_state` has {shape[-1]} units, {kind} '{layer.name}' has "
                f"{size}",
                f"make the states (batch, {size}) (the encoder's units equal to this layer's), "
                f"or give '{layer.name}' units={shape[-1]}",
                evidence=f"state {i} shape {fmt(shape)}",
            )
    return None


def attention_inputs(call: LiveCall, exc: BaseException) -> Violation | None:
    layer = call.receiver
    inputs = call.value("inputs")
    if inputs is UNREAD or call.method != "__call__":
        return None
    kind = type(layer).__name__
    items = _items(inputs)
    text = call.text("inputs")
    if items is None:
        if "must be called on a list of inputs" in str(exc):
            return None  # Keras' own message names the fix
        return Violation(
            "S12",
            text,
            f"{kind} was called on one tensor {fmt(shape_of(inputs))}; it takes a list "
            "[query, value] or [query, value, key]",
            f"call it on a list: `{call.source.split('(')[0]}([query, value])` (for "
            f"self-attention `[{text}, {text}]`)",
        )
    if len(items) not in (2, 3):
        return Violation(
            "S12",
            text,
            f"{kind} was called on a list of {len(items)}; it takes [query, value] or "
            "[query, value, key]",
            "pass two or three tensors",
        )
    query, value = shape_of(items[0]), shape_of(items[1])
    key = shape_of(items[2]) if len(items) == 3 else value
    if query and key and query[-1] is not None and key[-1] is not None and query[-1] != key[-1]:
        which = "key" if len(items) == 3 else "value (used as the key)"
        return Violation(
            "S01",
            text,
            f"{kind} scores query against key by a dot product, so their last axes must agree: "
            f"query {fmt(query)}, {which} {fmt(key)}",
            "project one of them to the other's size with a Dense layer first, or use "
            "MultiHeadAttention (it projects query and key itself)",
        )
    return None


def mha_inputs(call: LiveCall, exc: BaseException) -> Violation | None:
    if call.method != "__call__":
        return None
    mask = _mha_mask(call)
    if mask is not None:
        return mask
    if "value" in call.bind_error and "missing" in call.bind_error:
        query = next(iter(call.texts.values()), "x")
        given = _items(next(iter(call.values.values()), None))
        if given is not None and 2 <= len(given) <= 3:
            parts = _list_texts(query, len(given))
            return Violation(
                "S12",
                call.source,
                f"{type(call.receiver).__name__} takes query, value (and key) as separate "
                f"arguments, but got one list of {len(given)} tensors "
                f"({', '.join(fmt(shape_of(t)) for t in given)}): the list form is the "
                "Attention layer's",
                f"pass them as separate arguments: `{call.source.split('(')[0]}({parts})`",
            )
        return Violation(
            "S12",
            call.source,
            f"{type(call.receiver).__name__} takes `query` and `value` (and optionally `key`); "
            "only the query was given",
            f"for self-attention pass the same tensor twice: `mha({query}, {query})`; for "
            "cross-attention `mha(query, value)`",
        )
    return None


def _mha_mask(call: LiveCall) -> Violation | None:
    """``attention_mask`` not of shape (batch, query steps, value steps), e.g. a padding mask
    (batch, steps) given as it is."""
    mask = call.value("attention_mask")
    query, value = shape_of(call.value("query")), shape_of(call.value("value"))
    shape = shape_of(mask)
    if mask is UNREAD or shape is None or query is None or value is None:
        return None
    if len(query) != 3 or len(value) != 3:
        return None
    want = (query[0], query[1], value[1])
    if len(shape) == 3 and all(
        a in (b, 1, None) or b is None for a, b in zip(shape, want, strict=True)
    ):
        return None
    text = call.text("attention_mask")
    if len(shape) == 2 and shape[1] == value[1] and shape[0] in (query[0], None):
        hint = (
            f"a padding mask per value step, {fmt(shape)}, needs the query axis: "
            f"`attention_mask={text}[:, None, :]` (it broadcasts to {fmt(want)}), or let "
            "Keras build it from an Embedding(mask_zero=True) input"
        )
    else:
        hint = f"give `attention_mask` the shape (batch, query steps, value steps) = {fmt(want)}"
    return Violation(
        "S01",
        text,
        f"MultiHeadAttention's `attention_mask` must have shape (batch, query steps, value "
        f"steps) = {fmt(want)}, but `{text}` has {fmt(shape)}",
        hint,
        evidence=f"query {fmt(query)}, value {fmt(value)}, attention_mask {fmt(shape)}",
    )


def _list_texts(text: str, count: int) -> str:
    """``a, b`` from the source ``[a, b]`` of a list argument, else ``text[0], text[1]``."""
    import ast

    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.List | ast.Tuple) and len(node.elts) == count:
        return ", ".join(ast.unparse(e) for e in node.elts)
    return ", ".join(f"{text}[{i}]" for i in range(count))


def add_weight_shape(call: LiveCall, exc: BaseException) -> Violation | None:
    shape = call.value("shape")
    if not isinstance(shape, list | tuple) or None not in shape:
        return None
    index = list(shape).index(None)
    text = call.text("shape")
    batch = index == 0 and len(shape) > 1
    layer = call.receiver
    owner = (
        f"{type(layer).__name__} '{getattr(layer, 'name', '?')}': " if _is_a(layer, "Layer") else ""
    )
    return Violation(
        "S01",
        text,
        f"{owner}`add_weight(shape={text})` has None at position {index}"
        + (
            ": the weight's shape reads the batch axis (input_shape[0] is None while Keras builds)"
            if batch
            else ""
        ),
        "a weight cannot depend on the batch size: build it from the feature axes, e.g. "
        "`shape=(input_shape[-1], units)`; per-example values belong in call()"
        if batch
        else "every axis of a weight must be known when build() runs: use the known axes of "
        "input_shape (input_shape[-1]) or a constructor argument",
        evidence=f"shape {shape}",
    )


# weights ---------------------------------------------------------------------------------


def set_weights(call: LiveCall, exc: BaseException) -> Violation | None:
    target = call.receiver
    given = _items(call.value("weights"))
    if target is None or given is None:
        return None
    try:
        current = [tuple(int(d) for d in w.shape) for w in target.weights]
    except Exception:
        return None
    name = getattr(target, "name", "the layer")
    text = call.text("weights")
    if len(given) != len(current):
        if f"expecting {len(current)} weights" in str(exc):
            return None  # Keras' own message says how many it expects
        return Violation(
            "S12",
            text,
            f"`set_weights` got {len(given)} arrays for '{name}', which holds {len(current)} "
            f"weights {current}",
            "pass one array per weight in get_weights() order (kernel, then bias; BatchNormalization: "
            "gamma, beta, moving mean, moving variance)",
        )
    for i, (w, want) in enumerate(zip(given, current, strict=True)):
        have = shape_of(w)
        if have is None or have == want:
            continue
        if tuple(reversed(have)) == want and len(want) == 2:
            fix = f"transpose it: `{item_text(text, i)}.T` (a (out, in) matrix from another framework, Keras Dense stores (in, out))"
        elif (
            len(want) == 4
            and sorted(d or 0 for d in have) == sorted(want)
            and (have[2], have[3], have[1], have[0]) == want
        ):
            fix = (
                f"reorder its axes: `np.transpose({item_text(text, i)}, (2, 3, 1, 0))` (a PyTorch-style "
                "(out, in, kh, kw) kernel; Keras Conv2D stores (kh, kw, in, out))"
            )
        elif sorted(d or 0 for d in have) == sorted(want):
            fix = f"its axes are in another order: transpose it to {fmt(want)}"
        else:
            fix = f"the array belongs to a layer of another size: give '{name}' the size the array has, or load the matching weights"
        return Violation(
            "S12",
            item_text(text, i),
            f"weight {i} of '{name}' has shape {fmt(want)} but the array given has {fmt(have)}",
            fix,
        )
    return None


# optimizers and tapes ---------------------------------------------------------------------


def to_categorical(call: LiveCall, exc: BaseException) -> Violation | None:
    import numpy as np

    labels, classes = call.value("x"), call.value("num_classes")
    if labels is UNREAD or not isinstance(classes, int):
        return None
    try:
        array = np.asarray(labels)
        low, high = int(array.min()), int(array.max())
    except Exception:
        return None
    if low >= 0 and high < classes:
        return None
    text = call.text("x")
    if low < 0:
        fix = f"the labels hold {low}: re-index them to start at 0"
    elif low == 1 and high == classes:
        fix = f"the labels run from 1 to {high}: use `{text} - 1`, or num_classes={high + 1} and ignore class 0"
    else:
        fix = f"num_classes={high + 1} (the largest label + 1), or re-index the labels to 0..{classes - 1}"
    return Violation(
        "P12",
        text,
        f"`to_categorical` got labels from {low} to {high} with num_classes={classes}",
        fix,
        evidence=f"labels in [{low}, {high}]",
    )


def image_rank(call: LiveCall, exc: BaseException) -> Violation | None:
    name = "images" if "images" in call.values else "image"
    if "value" in call.values and "size" in call.values:  # tf.image.random_crop(value, size)
        return _crop_size(call)
    value = call.value(name)
    shape = shape_of(value)
    if shape is None or len(shape) in (3, 4):
        size = call.value("size")
        if isinstance(size, int) or (isinstance(size, list | tuple) and len(size) != 2):
            return Violation(
                "S07",
                call.text("size"),
                f"`{call.api}` takes size=(height, width), got {size!r}",
                "pass two numbers: `size=(h, w)`",
            )
        return None
    text = call.text(name)
    if len(shape) == 2:
        fix = f"a single grayscale image of shape {fmt(shape)} needs a channel axis: `{text}[..., None]` (or `tf.expand_dims({text}, -1)`)"
    elif len(shape) == 5:
        fix = f"fold the extra axis into the batch: `tf.reshape({text}, (-1, {shape[2]}, {shape[3]}, {shape[4]}))`, or map the op over it"
    else:
        fix = "give it (height, width, channels) or (batch, height, width, channels)"
    return Violation(
        "S07",
        text,
        f"`{call.api}` takes images of rank 3 (H, W, C) or 4 (N, H, W, C); `{text}` has rank "
        f"{len(shape)}, shape {fmt(shape)}",
        fix,
    )


def _crop_size(call: LiveCall) -> Violation | None:
    shape, size = shape_of(call.value("value")), call.value("size")
    if shape is None or not isinstance(size, list | tuple) or len(size) == len(shape):
        return None
    text = call.text("value")
    full = tuple(size) + tuple(shape[len(size) :]) if len(size) < len(shape) else None
    return Violation(
        "S07",
        call.text("size"),
        f"`{call.api}` takes one size per axis of `{text}` {fmt(shape)}: size {tuple(size)} has "
        f"{len(size)} entries for rank {len(shape)}",
        f"give every axis, the channels included: `size={full}`"
        if full
        else f"give {len(shape)} sizes, one per axis",
    )


# tf.data ---------------------------------------------------------------------------------


def _leaves(value: Any, prefix: str) -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out.extend(_leaves(v, item_text(prefix, str(k))))
        return out
    if isinstance(value, tuple):
        out = []
        for i, v in enumerate(value):
            out.extend(_leaves(v, item_text(prefix, i)))
        return out
    return [(prefix, value)]


def from_tensor_slices(call: LiveCall, exc: BaseException) -> Violation | None:
    tensors = call.value("tensors")
    if tensors is UNREAD:
        return None
    text = call.text("tensors")
    leaves = _leaves(tensors, text)
    if isinstance(tensors, list) and tensors and isinstance(tensors[0], list | tuple):
        lengths = sorted({len(t) for t in tensors if isinstance(t, list | tuple)})
        if len(lengths) > 1:
            return Violation(
                "S13",
                text,
                f"`from_tensor_slices` got a Python list of rows of different lengths {lengths[:4]}: "
                "it needs one rectangular array",
                "pad the rows to one length (keras.utils.pad_sequences) or build the dataset with "
                "tf.ragged.constant(...) and padded_batch/ragged_batch",
            )
    firsts = [(name, _length(v)) for name, v in leaves]
    known = [(n, f) for n, f in firsts if f is not None]
    if len({f for _, f in known}) > 1:
        listed = ", ".join(f"`{n}` {f}" for n, f in known[:4])
        return Violation(
            "S12",
            text,
            f"`from_tensor_slices` slices every component along its first axis, so all must have "
            f"the same length: {listed}",
            "give every component one entry per example (x and y of the same length); check how "
            "each was built or split",
        )
    return None


def _length(value: Any) -> int | None:
    shape = shape_of(value)
    if shape:
        return shape[0]
    return len(value) if isinstance(value, list) else None


def function_signature(call: LiveCall, exc: BaseException) -> Violation | None:
    function = call.callee
    specs = getattr(function, "input_signature", None)
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
            f"the tf.function's input_signature declares {len(specs)} argument(s), the call passes {len(values)}",
            "pass exactly the declared arguments, or change input_signature",
        )
    for i, (value, spec) in enumerate(zip(values, specs, strict=True)):
        shape = shape_of(value)
        want = getattr(spec, "shape", None)
        if shape is None or want is None or want.rank is None:
            continue
        wanted = tuple(want.as_list())
        text = texts[i] if i < len(texts) else f"argument {i}"
        if len(shape) != len(wanted):
            return Violation(
                "S12",
                text,
                f"`{text}` has rank {len(shape)} {fmt(shape)}; the input_signature declares "
                f"{fmt(wanted)}",
                "reshape the data to the declared rank, or declare the shape the data has (None for an axis that varies)",
            )
        for axis, (have, need) in enumerate(zip(shape, wanted, strict=True)):
            if need is not None and have is not None and have != need:
                return Violation(
                    "S12",
                    text,
                    f"`{text}` has {have} on axis {axis} {fmt(shape)}; the input_signature "
                    f"declares {need} there {fmt(wanted)}",
                    f"declare the shape the data has (TensorSpec({fmt(tuple(None if j == 0 else d for j, d in enumerate(shape)))}), None for an axis that varies) or fix the data",
                )
        dtype = str(getattr(getattr(value, "dtype", None), "name", getattr(value, "dtype", "")))
        declared = str(getattr(spec.dtype, "name", spec.dtype))
        if dtype and declared and dtype != declared:
            return Violation(
                "S11",
                text,
                f"`{text}` is {dtype}; the input_signature declares {declared}",
                f"cast it first: `tf.cast({text}, tf.{declared})`, or declare {dtype}",
            )
    return None


# models: construction, compile and fit -----------------------------------------------------


def _near(name: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(options), n=1, cutoff=0.5)
    return f" (did you mean '{close[0]}'?)" if close else ""


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
            owner = _model_of_input(call, missing[0])
            if owner and not variable:
                return Violation(
                    "S12",
                    in_text,
                    f"the outputs were built on the Input of model `{owner}` ({shown}), not on "
                    f"`{in_text}`: the layers were called in `{owner}`'s graph",
                    f"use that model's inputs, `keras.Model({owner}.inputs, {out_text})`; or, for "
                    f"a new input, call the layers (or `{owner}`) on `{in_text}` to make the outputs",
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


def _model_of_input(call: LiveCall, tensor: Any) -> str:
    """The user's model whose inputs include ``tensor``."""
    for name, model in _models_in(call):
        try:
            if any(t is tensor for t in model.inputs):
                return name
        except Exception:
            continue
    return ""


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
    """A float where the API counts something (``steps_per_epoch=len(x) / 32``)."""
    if not isinstance(exc, TypeError | ValueError):
        return None
    for name in _INT_PARAMETERS:
        value = call.values.get(name, UNREAD)
        if isinstance(value, float) or type(value).__name__ in ("float32", "float64"):
            text = call.text(name)
            return Violation(
                "S12",
                f"{name}={text}",
                f"`{name}` counts something and takes an int; `{text}` is {value!r}, a float",
                f"pass an int: `{name}={_int_form(text)}`",
            )
    return None


def _int_form(text: str) -> str:
    if " / " in text and " // " not in text:
        return text.replace(" / ", " // ")
    return f"int({text})"


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


# dimensions: where a wrong size came from -------------------------------------------------


def _fit_xy(call: LiveCall) -> tuple[Any, Any]:
    return call.values.get("x", UNREAD), call.values.get("y", UNREAD)


def target_shape(call: LiveCall, exc: BaseException) -> Violation | None:
    """``fit(x, y)`` whose labels have another size than the model's output on an axis past the
    batch: the output's chain on that axis says which layer made the size (``fit(x, x)``: the
    labels are the inputs, so the output must have the input's shape)."""
    from tfnb_debug.explain._lineage import axis_chain, fmt_chain

    x, y = _fit_xy(call)
    model = call.receiver
    from_dataset = y is UNREAD or y is None
    if from_dataset:
        y = dataset_labels(x)  # a dataset of (x, y) elements: its label spec
    labels = shape_of(y)
    if labels is None or x is UNREAD:
        return None
    try:
        outputs = list(model.outputs)
    except Exception:
        return None
    if len(outputs) != 1:
        return None
    output = outputs[0]
    out_shape = shape_of(output)
    if out_shape is None or len(labels) < 2:
        return None
    loss = model.loss if isinstance(getattr(model, "loss", None), str) else ""
    loss = loss or str(getattr(getattr(model, "loss", None), "name", "") or "")
    # a sparse loss takes one class id per position: its labels are the output less the class axis
    ids = "sparse" in loss.lower() and len(labels) == len(out_shape) - 1
    compared = out_shape[:-1] if ids else out_shape
    if len(compared) != len(labels):
        return None
    axis = differing_axis([compared, (None, *labels[1:])], None)
    if axis is None:
        return None
    if axis == len(labels) - 1 and y is not x and not ids:
        return None  # the class/feature axis: the label rules (M04, M05, S07) read that one
    chain = axis_chain(output, axis)
    if not chain:
        return None
    started_at_label_size = chain[0].size == labels[axis]
    fix = size_fix([chain], "the output", labels[axis])
    text_x, text_y = call.text("x"), call.text("y")
    if y is x:
        what = (
            f"the labels are the inputs themselves (`{text_x}`, {fmt(labels)}), so the model must "
            f"output that shape"
        )
    else:
        named = f"of `{text_x}`" if from_dataset else f"`{text_y}`"
        what = f"the labels {named} have {labels[axis]} on axis {axis}"
    if not fix:
        fix = (
            f"the model's input has {chain[0].size} on axis {axis} and the layers change it to "
            f"{out_shape[axis]}: make them return it to {labels[axis]} (compare the strides and "
            "upsampling factors along the chain)"
            if started_at_label_size
            else f"the labels' axis {axis} ({labels[axis]}) does not come from the input's "
            f"({chain[0].size}): build the labels with the output's size, or change the layers"
        )
    return Violation(
        "S07",
        f"fit({text_x})" if from_dataset else f"fit({text_x}, {text_y})",
        f"{what}, but it outputs {fmt(out_shape)} (axis {axis}: {out_shape[axis]} vs "
        f"{labels[axis]})",
        fix,
        evidence=f"axis {axis}: {fmt_chain(chain)}",
    )


def output_axes(call: LiveCall, exc: BaseException) -> Violation | None:
    """Labels that lack axes the model's output keeps (``_output_axes``): S07 with its layer."""
    found = extra_output_axes(call, exc)
    if found is None:
        return None
    return Violation("S07", found.argument, found.problem, found.hint, evidence=found.evidence)


def baked_sample_count(call: LiveCall, exc: BaseException) -> Violation | None:
    """An Input whose shape holds the number of samples (``Input(shape=x.shape)``)."""
    model = call.receiver
    x = call.values.get("x", call.values.get("inputs", call.values.get("arg0", UNREAD)))
    data = shape_of(x)
    try:
        declared = [shape_of(t) for t in model.inputs]
    except Exception:
        return None
    if data is None or len(declared) != 1 or declared[0] is None or len(data) < 2:
        return None
    per_example = declared[0][1:]
    if tuple(per_example) != tuple(data):
        return None
    labels = shape_of(call.values.get("y", UNREAD))
    if labels is None or labels[0] != data[0]:
        return None  # without labels of that length, x may be one example without its batch axis
    text = call.text("x") if "x" in call.values else call.text("inputs")
    return Violation(
        "S01",
        text,
        f"the model's Input has shape {fmt(declared[0])}: its first axis after the batch is "
        f"{data[0]}, the number of samples in `{text}` {fmt(data)}, so every example is expected "
        "to hold the whole dataset",
        f"declare the shape of one example: `keras.Input(shape={text}.shape[1:])` "
        f"(= {fmt(data[1:])})",
    )


# more argument kinds ---------------------------------------------------------------------


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


def loss_argument_order(call: LiveCall, exc: BaseException) -> Violation | None:
    """A sparse Keras loss called as ``loss(y_pred, y_true)``: the first argument has one
    axis more than the second, on the same leading axes (the predictions' class axis),
    where the contract is ``loss(y_true, y_pred)`` with ``y_pred`` the one with the axis."""
    if "sparse" not in call.api.lower():
        return None
    first, second = call.values.get("y_true", UNREAD), call.values.get("y_pred", UNREAD)
    fs, ss = shape_of(first), shape_of(second)
    if fs is None or ss is None or len(fs) != len(ss) + 1:
        return None
    if any(a is not None and b is not None and a != b for a, b in zip(fs[:-1], ss, strict=False)):
        return None
    dtype = str(getattr(getattr(second, "dtype", None), "name", getattr(second, "dtype", "")))
    ids = f", {dtype} like class ids" if dtype.startswith(("int", "uint")) else ""
    given_true, given_pred = call.text("y_true"), call.text("y_pred")
    callee = call.source.split("(", 1)[0].strip() if "(" in call.source else call.api
    return Violation(
        "S07",
        call.source,
        f"`{call.api}` is called as (y_true, y_pred), but got `{given_true}` of shape "
        f"{fmt(fs)} first and `{given_pred}` of shape {fmt(ss)}{ids} second: the first has "
        "the class axis of predictions, the second looks like the labels",
        f"swap them: labels first, predictions second: `{callee}({given_pred}, {given_true})`"
        ", or pass `y_true=..., y_pred=...` by name",
    )


def data_against_input(call: LiveCall, exc: BaseException) -> Violation | None:
    """Data whose example shape differs from the model's declared Input on a spatial axis."""
    x = call.values.get("x", UNREAD)
    data = shape_of(x)
    model = call.receiver
    try:
        declared = [shape_of(t) for t in model.inputs]
    except Exception:
        return None
    if data is None or len(declared) != 1 or declared[0] is None:
        return None
    want = declared[0]
    if len(want) != len(data) or len(want) != 4:
        return None  # images only: a sequence's other length is not a size to resize
    differ = [i for i in range(1, len(want) - 1) if want[i] is not None and data[i] != want[i]]
    if not differ or data[-1] != want[-1]:
        return None  # another channel count or order (channels first) is not a size to resize
    text = call.text("x")
    size = tuple(want[i] for i in range(1, len(want) - 1))
    return Violation(
        "S01",
        text,
        f"the model was built for examples of shape {fmt(want[1:])}, but `{text}` holds "
        f"{fmt(data[1:])}: layers sized by the input (a Flatten before a Dense) then fail",
        f"resize the data to {size} (tf.image.resize, keras.layers.Resizing), or build the model "
        f"for {fmt(data[1:])} (GlobalAveragePooling instead of Flatten keeps it independent of the "
        "size)",
    )


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
    return Violation(
        "T03",
        "jit_compile=True",
        f"the training step is compiled with XLA (jit_compile=True) but {what}",
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


CONTRACTS: tuple[Contract, ...] = (
    Contract(("RNN", "Bidirectional"), rnn_initial_state, (r"initial_state", r"state"), layer=True),
    Contract(("RNN", "Bidirectional", "MultiHeadAttention"), unpacked_result),
    Contract(
        ("Attention", "AdditiveAttention"),
        attention_inputs,
        (r"must be called on a list of inputs",),
        layer=True,
    ),
    Contract(("MultiHeadAttention",), key_value_sources, (r"dimensions of `value` and `key`",)),
    Contract(("*",), steps_axis_dropped, (r"at least 3 dimensions", r"expected ndim=3")),
    Contract(("TimeDistributed",), frames_axis_missing, (r"Kernel shape must have the same",)),
    Contract(
        ("MultiHeadAttention",),
        mha_inputs,
        (r"missing a required argument", r"attention_mask"),
        layer=True,
    ),
    Contract(("Layer.add_weight",), add_weight_shape, (r"must be fully-defined",)),
    Contract(
        ("Layer.set_weights",),
        set_weights,
        (r"weight shape .* is not compatible", r"expects \d+ weights"),
    ),
    Contract(("Optimizer.apply_gradients",), consumed_pairs, (r"not enough values to unpack",)),
    Contract(
        ("Optimizer.apply_gradients", "Optimizer.apply"),
        apply_gradients,
        (r"Unknown variable", r"_unique_id"),
    ),
    Contract(("Model.fit", "Model.train_on_batch"), fit_optimizer, (r"Unknown variable",)),
    Contract(("GradientTape.gradient",), numpy_sources, (r"has no attribute '_id'",)),
    Contract(("GradientTape.gradient",), tape_gradient, ()),
    Contract(("to_categorical",), to_categorical, (r"index \d+ is out of bounds",)),
    Contract(
        ("tf.image.",),
        image_rank,
        (
            r"must have either 3 or 4 dimensions",
            r"must be at least three-dimensional",
            r"'size' must be a 1-D",
        ),
    ),
    Contract(
        ("Dataset.from_tensor_slices",),
        from_tensor_slices,
        (r"Dimensions \d+ and \d+ are not compatible", r"non-rectangular"),
    ),
    Contract(("Dataset.map",), dataset_map, (r"takes \d+ positional argument",)),
    Contract(("Dataset.padded_batch",), padded_batch, (r"padded_shapes", r"padded shape")),
    Contract(("Dataset.concatenate",), dataset_concatenate, (r"Incompatible dataset elements",)),
    Contract(("Dataset.map",), map_over_windows, (r"_VariantDataset",)),
    Contract(
        ("Dataset.sample_from_datasets", "Dataset.choose_from_datasets"),
        sampled_datasets,
        (r"must have compatible element specs", r"same type"),
    ),
    Contract(
        ("tf.function",), function_signature, (r"Can not cast TensorSpec", r"input_signature")
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch", "Model.compile"),
        compile_keys,
        (r"in loss dict", r"loss_weights", r"metrics"),
    ),
    Contract(("Model.fit",), fit_class_weight, (r"class_weight` is only supported",)),
    Contract(("Model.fit",), class_weight_type, (r"has no attribute 'get'",)),
    Contract(
        ("Model.fit", "Model.evaluate"),
        fit_argument_kinds,
        (r"Unrecognized data type", r"must be at least rank 1"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch", "Model.test_on_batch"),
        fit_targets,
        (r"have different structures", r"same nested structure"),
    ),
    Contract(("Dataset.padded_batch",), padding_values_dtype, (r"Invalid `padding_values`",)),
    Contract(
        ("tf.image.",),
        image_channels,
        (r"must have 3 channels", r"Dimension must be 3", r"should be size 1"),
    ),
    Contract(
        ("softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits"),
        softmax_labels,
        (r"logits and labels must be", r"Rank mismatch"),
    ),
    Contract(("Layer.set_weights",), set_weights_unbuilt, (r"was expecting 0 weights",)),
    Contract(("Lambda",), lambda_function, (r"could not automatically infer the shape",)),
    Contract(("confusion_matrix",), confusion_matrix_ids, (r"Shapes of all inputs must match",)),
    Contract(("keras.Model", "keras.Function"), model_graph, (r"is not connected to `inputs`",)),
    Contract(
        ("Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Dot"),
        merge_shapes,
        (r"requires inputs with matching shapes", r"Inputs have incompatible shapes"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch"),
        target_shape,
        (r"Incompatible shapes", r"target.shape"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch"),
        output_axes,
        (r"must have the same rank", r"must have rank \(ndim\)"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict", "keras.Model"),
        baked_sample_count,
        (r"incompatible with the layer", r"expected shape="),
    ),
    Contract(("*",), none_gradient, (r"Attempt to convert a value \(None\)",)),
    Contract(("keras.Sequential",), image_input_without_channels, (r"min_ndim=4",)),
    Contract(("*",), unknown_axis_weight, (r"must be fully-defined",)),
    Contract(("*",), shrunk_input, (r"would be zero or negative", r"Negative dimension size")),
    Contract(("*",), int_argument, (r"cannot be interpreted as an integer",)),
    Contract(("*",), layer_list_inputs, (r"too many positional arguments",)),
    Contract(
        ("Model.compile",), class_for_instance, (r"Could not interpret optimizer identifier",)
    ),
    Contract(("*",), shape_argument, (r"Cannot convert .* to a shape",)),
    Contract(
        ("*",),
        allowed_dtypes,
        (r"is not in the list of allowed values", r"not in list of allowed values"),
    ),
    Contract(("tf.cast",), text_cast, (r"Cast string to",)),
    Contract(("*",), layer_weights_dtype, (r"Incompatible type conversion requested",)),
    Contract(("tf.nn.",), labels_logits_order, (r"must equal `logits.shape.rank - 1`",)),
    Contract(
        ("keras.losses.",), loss_argument_order, (r"must have rank \(ndim\) `target.ndim - 1`",)
    ),
    Contract(("load_model",), weights_file_to_load_model, (r"No model config found",)),
    Contract(("Model.load_weights",), model_file_to_load_weights, (r"could not be loaded",)),
    Contract(("Model.load_weights",), weights_against_model, (r"could not be loaded",)),
    Contract(
        ("load_model", "model_from_json"),
        load_custom_objects,
        (r"could not be deserialized", r"Could not locate", r"missing \d+ required"),
    ),
    Contract(("Model.fit", "Model.evaluate", "Model.predict"), data_against_input, ()),
    Contract(("Normalization",), normalization_statistics, (), layer=True),
    Contract(("adapt",), adapt_pairs, ()),
    Contract(
        (
            "StringLookup",
            "IntegerLookup",
            "TextVectorization",
            "CategoryEncoding",
            "Discretization",
        ),
        lookup_dtype,
        (),
        layer=True,
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict"),
        string_input_declared_numeric,
        (r"Cast string to",),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict", "Model.train_on_batch", "keras.Model"),
        widened_by_normalization,
        (),
    ),
    Contract(("*",), tensorshape_api_on_tuple, (r"has no attribute",)),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.predict"),
        xla_unsupported,
        (r"Detected unsupported operations", r"must be a compile-time constant"),
    ),
    Contract(
        ("Model.fit", "Model.evaluate", "Model.train_on_batch"),
        user_function_arity,
        (r"required positional argument",),
    ),
    Contract(("*",), batch_size_argument, (r"non-rectangular",)),
    Contract(
        ("*",), signature_binding, (r"missing a required argument", r"unexpected keyword argument")
    ),
    Contract(("*",), keras2_argument, (r"Unrecognized keyword arguments passed to",)),
)
