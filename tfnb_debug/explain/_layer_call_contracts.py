"""Contracts of a layer called on tensors, and of the weights it makes or is given.

- An RNN returns its output, and with ``return_state=True`` its states after it (a
  ``Bidirectional`` one both directions'); ``MultiHeadAttention`` returns its scores
  too with ``return_attention_scores=True``: ``a, b = layer(x)`` must unpack that many.
- An RNN takes ``initial_state`` as one tensor per state of its cell (``[h]``,
  ``[h, c]``; a ``Bidirectional`` one both directions'), each of the cell's units.
- ``Attention`` takes one list ``[query, value]`` or ``[query, value, key]`` whose query
  and key agree on their last axis; ``MultiHeadAttention`` takes ``query`` and ``value``
  (and ``key``) as separate arguments and an ``attention_mask`` of shape (batch, query
  steps, value steps).
- ``add_weight`` takes a shape whose every axis is known when ``build`` runs (never the
  batch axis); ``set_weights`` one array per weight, of that weight's shape.

Each check reads the live arguments of the failing call
(:class:`~tfnb_debug.explain._api.LiveCall`) and the layer itself (its cell's
``state_size``, its weights) and returns a
:class:`~tfnb_debug.explain._violation.Violation` only when an argument breaks the
contract; :mod:`tfnb_debug.explain._contracts` registers them.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._rnn_states import flag_as_initial_state, wrapping_bidirectional
from tfnb_debug.explain._violation import Violation, fmt, item_text, shape_of
from tfnb_debug.explain._violation import is_a as _is_a
from tfnb_debug.explain._violation import items_of as _items

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
        made = _producers(call.receiver, 2 if len(items) == 3 else 1)
        return Violation(
            "S01",
            text,
            f"{kind} '{layer.name}' scores query against key by a dot product, so their last "
            "axes must agree: "
            f"query {fmt(query)}, {which} {fmt(key)}" + (f" ({made})" if made else ""),
            ("give the layers that make them the same units, or " if made else "")
            + "project one of them to the other's size with a Dense layer first, or use "
            "MultiHeadAttention (it projects query and key itself)",
        )
    return None


def _producers(layer: Any, key_index: int) -> str:
    """ "query from LSTM 'lstm_1' (32 units), key from LSTM 'lstm' (16 units)": the layers that
    made the attention layer's query and key in the model graph, when they have units."""
    try:
        tensors = list(layer._inbound_nodes[0].input_tensors)
    except Exception:
        return ""
    if len(tensors) <= key_index:
        return ""
    parts = []
    for role, tensor in (("query", tensors[0]), ("key", tensors[key_index])):
        maker = getattr(getattr(tensor, "_keras_history", None), "operation", None)
        units = getattr(maker, "units", None)
        if maker is None or not isinstance(units, int):
            return ""
        parts.append(f"{role} from {type(maker).__name__} '{maker.name}' ({units} units)")
    return ", ".join(parts)


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


_DEEP = r"Input to reshape|[Ii]ncompatible shapes|must be equal"


def shared_layer_width(call: LiveCall, exc: BaseException) -> Violation | None:
    """A layer reused on a tensor of another width than the one it was first called (and
    built) on: its weights were sized by that first call."""
    layer = call.callee
    message = str(exc)
    kernel = getattr(layer, "kernel", None)
    if kernel is None and type(layer).__name__ in ("LayerNormalization", "BatchNormalization"):
        # a normalization reused at another width fails deep in its call (a reshape of gamma)
        kernel = getattr(layer, "gamma", None) if re.search(_DEEP, message) else None
    elif "expected axis -1" not in message:
        return None
    nodes = list(getattr(layer, "_inbound_nodes", []) or [])
    inputs = next(iter(call.values.values()), UNREAD)
    width = shape_of(inputs)
    if call.method != "__call__" or kernel is None or not width or not kernel.shape:
        return None
    built = int(kernel.shape[0])
    if width[-1] is None or width[-1] == built:
        return None
    first = getattr(nodes[0], "arguments", None) if nodes else None
    first_args = list(getattr(first, "args", ()) or ())
    first_input = first_args[0] if first_args else None
    source = getattr(getattr(first_input, "_keras_history", None), "operation", None)
    where = f" on the output of '{source.name}'" if source is not None else ""
    text = call.text(next(iter(call.values), "inputs"))
    name = getattr(layer, "name", "the layer")
    return Violation(
        "S01",
        text,
        f"'{name}' is reused: its first call{where} built its weights for {built} features, and "
        f"`{text}` here has {width[-1]}; a layer shares its weights across calls, so every "
        "input must have the width of the first",
        f"give this branch its own layer (`{type(layer).__name__}(...)` per branch), or project "
        f"`{text}` to {built} features first (a Dense({built})) if the weights must be shared",
        f"{kernel.name} {fmt(tuple(int(d) for d in kernel.shape))}; this input {fmt(width)}",
    )


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
        other = _layer_with_shapes(call, target, [shape_of(g) for g in given])
        if other is not None:
            return Violation("S12", text, *other)
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
            other = _layer_with_shapes(call, target, [shape_of(g) for g in given])
            if other is not None:
                return Violation("S12", item_text(text, i), *other)
            fix = f"the array belongs to a layer of another size: give '{name}' the size the array has, or load the matching weights"
        return Violation(
            "S12",
            item_text(text, i),
            f"weight {i} of '{name}' has shape {fmt(want)} but the array given has {fmt(have)}",
            fix,
        )
    return None


def _source_model(call: LiveCall, target_model: Any) -> str:
    """The user's name of the model the arrays came from: ``old`` of ``old.layers[i]
    .get_weights()``, or the model holding the layer ``a`` of ``a.get_weights()``."""
    found = re.match(r"\s*(\w+)", call.text("weights"))
    if found is None:
        return ""
    name = found.group(1)
    value = next((space[name] for space in call.namespaces if name in space), None)
    if _is_a(value, "Model") and value is not target_model:
        return name
    if not _is_a(value, "Layer"):
        return ""
    for space in call.namespaces:
        for var, model in list(space.items()):
            layers = getattr(model, "layers", None) if _is_a(model, "Model") else None
            if model is target_model or not isinstance(layers, list) or var.startswith("_"):
                continue
            if any(layer is value for layer in layers):
                return var
    return ""


def _layer_with_shapes(
    call: LiveCall, target: Any, shapes: list[tuple[int | None, ...] | None]
) -> tuple[str, str] | None:
    """(problem, fix) when the arrays have the weight shapes of another layer of a model (in
    the user's namespace) that holds ``target``: the layers were paired by a shifted index."""
    for space in call.namespaces:
        for var, model in list(space.items()):
            layers = getattr(model, "layers", None) if _is_a(model, "Model") else None
            if not isinstance(layers, list) or var.startswith("_"):
                continue
            here = next((i for i, layer in enumerate(layers) if layer is target), None)
            if here is None:
                continue
            for j, layer in enumerate(layers):
                try:
                    weights = [tuple(int(d) for d in w.shape) for w in layer.weights]
                except Exception:
                    continue
                if j == here or not weights or weights != shapes:
                    continue
                problem = (
                    f"the arrays given to '{target.name}' (`{var}.layers[{here}]`) have the "
                    f"shapes of '{layer.name}' (`{var}.layers[{j}]`), {weights}: the layers were "
                    "paired by an index that is off by "
                    f"{abs(j - here)}"
                )
                if type(layers[0]).__name__ == "InputLayer":
                    problem += (
                        f"; `{var}` lists its InputLayer as layers[0], so its layers sit one index "
                        "later than a Sequential's"
                    )
                old = _source_model(call, model) or "source_model"
                fix = (
                    "pair the layers that hold weights, not one index over both models: "
                    f"`for a, b in zip([l for l in {old}.layers if l.weights], [l for l in "
                    f"{var}.layers if l.weights]): b.set_weights(a.get_weights())`, or "
                    f"`{var}.set_weights({old}.get_weights())` when the architectures match"
                )
                return problem, fix
    return None
