"""The contracts of Keras' preprocessing layers: what ``adapt`` reads and what each lookup maps.

The preprocessing guide states them: ``adapt(data)`` computes the layer's state
(a vocabulary, a mean and variance, bin boundaries) from the *inputs* the layer
will see, so a dataset of ``(inputs, labels)`` pairs must be mapped to its
inputs first; ``StringLookup`` and ``TextVectorization`` map strings,
``IntegerLookup`` maps integers, and each refuses (or cannot cast) the other
kind.  These checks read the live arguments of the failing call
(:class:`~tfnb_debug.explain._api.LiveCall`): the dataset's ``element_spec``,
the dtype of what a lookup was given or adapted on (``adapt`` reads what the layer will
be called on, so the layer's own contract applies to it), and the pipeline of a dataset
given to a numeric layer's ``adapt`` (which reads it as batches).  ``PREPROCESSING`` is
this module's table, added to the contracts in order.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._array_frames import column_names, frame_behind
from tfnb_debug.explain._violation import Violation, fmt, shape_of

_STRING_LAYERS = ("StringLookup", "TextVectorization")


def value_dtype(value: Any) -> str:
    """A value's dtype name, "string" for any kind of text (tf.string, NumPy <U/object/bytes)."""
    dtype = getattr(value, "dtype", None)
    name = getattr(dtype, "name", None) or str(dtype or "")
    if name.startswith(("<U", "<S", "|S", "object", "str", "bytes")) or name in ("O", "U", "S"):
        return "string"
    return name


_NUMERIC_LAYERS = ("CategoryEncoding", "Discretization", "Normalization", "Embedding")


def _kind(layer: Any) -> str:
    for klass in type(layer).__mro__:
        if klass.__name__ in (*_STRING_LAYERS, "IntegerLookup", *_NUMERIC_LAYERS):
            return klass.__name__
    return ""


def string_input_declared_numeric(call: LiveCall, exc: BaseException) -> Violation | None:
    """A model whose ``Input`` is float32 (the default) while its first layers take text: the
    strings the data holds are cast to the Input's dtype and fail ("Cast string to float")."""
    if "Cast string to" not in str(exc):
        return None
    model = call.receiver
    try:
        inputs = list(model.inputs)
        layers = list(model._flatten_layers(include_self=False, recursive=True))
    except Exception:
        return None
    for layer in layers:
        if _kind(layer) not in _STRING_LAYERS:
            continue
        tensor = _source_input(getattr(layer, "input", None), inputs)
        if tensor is not None and value_dtype(tensor) != "string":
            break
    else:
        return None
    shape = tuple(shape_of(tensor) or ())[1:]
    history = getattr(tensor, "_keras_history", None)
    name = getattr(getattr(history, "operation", None), "name", "") if len(inputs) > 1 else ""
    named = f", name='{name}'" if name else ""
    return Violation(
        "S11",
        "keras.Input",
        f"the model's Input{f' {name!r}' if name else ''} {fmt(shape_of(tensor))} is "
        f"{value_dtype(tensor)} (Keras' default), but it feeds {type(layer).__name__} "
        f"'{layer.name}', which takes strings: the text is cast to numbers on the way in and fails",
        f"declare the input as text: `keras.Input(shape={shape}{named}, dtype='string')`",
        f"Input dtype {value_dtype(tensor)}; {type(layer).__name__} '{layer.name}' after it",
    )


def adapt_pairs(call: LiveCall, exc: BaseException) -> Violation | None:
    """``layer.adapt(ds)`` where ``ds`` yields (inputs, labels) pairs: adapt reads inputs only."""
    key = "dataset" if "dataset" in call.values else "data"  # FeatureSpace.adapt(dataset)
    data = call.values.get(key, call.values.get("arg0", UNREAD))
    spec = getattr(data, "element_spec", None)
    if spec is None or not isinstance(spec, tuple | dict) or len(spec) < 2:
        return None
    if isinstance(spec, dict) and key == "dataset":
        return None  # a FeatureSpace adapts to a dict of features: one per key
    text = call.text(key)
    layer = type(call.receiver).__name__
    if isinstance(spec, dict) and not any(isinstance(s, dict | tuple) for s in spec.values()):
        # a dict of feature columns (no labels beside it): one layer adapts to one array
        keys = [str(k) for k in spec]
        stacked = ", ".join(f"x['{k}']" for k in keys[:3])
        return Violation(
            "S12",
            text,
            f"`{layer}.adapt` takes one tensor per element, but `{text}` yields a dict of "
            f"{len(keys)} feature columns ({', '.join(keys[:5])}): it cannot adapt to a dict",
            f"adapt one {layer} per column, `adapt({text}.map(lambda x: x['{keys[0]}']))`, or "
            f"stack the columns into one tensor first, `{text}.map(lambda x: "
            f"tf.stack([{stacked}], axis=-1))`",
            "element_spec: a dict of " + ", ".join(keys[:5]),
        )
    parts = list(spec) if isinstance(spec, dict) else [f"component {i}" for i in range(len(spec))]
    items = list(spec.values()) if isinstance(spec, dict) else list(spec)
    shown = ", ".join(
        f"{p}: a dict of {len(s)} ({', '.join(list(s)[:4])})"
        if isinstance(s, dict)
        else f"{p}: {getattr(getattr(s, 'dtype', None), 'name', '?')} {fmt(shape_of(s))}"
        for p, s in zip(parts, items, strict=True)
    )
    pick = "lambda x, y: x" if len(items) == 2 and isinstance(spec, tuple) else "lambda *e: e[0]"
    return Violation(
        "S12",
        text,
        f"`{layer}.adapt` reads the inputs the layer will see, but `{text}` yields "
        f"{len(items)} components per element (inputs and labels): it tries to adapt to all "
        "of them",
        f"adapt on the inputs alone: `adapt({text}.map({pick}))`",
        f"element_spec: {shown}",
    )


def lookup_dtype(call: LiveCall, exc: BaseException) -> Violation | None:
    """A string lookup given integers, or an integer lookup given strings."""
    inputs = call.values.get("inputs", UNREAD)
    if inputs is UNREAD:
        return None
    return _kind_against_dtype(call.receiver, inputs, value_dtype(inputs), call.text("inputs"))


def adapt_dtype(call: LiveCall, exc: BaseException) -> Violation | None:
    """``layer.adapt(data)`` with data of the other kind (integers for a StringLookup, strings
    for an IntegerLookup or a numeric layer): adapt reads what the layer will be called on,
    so the layer's own contract applies to it.  A dataset's dtype is its element_spec's."""
    data = call.values.get("data", call.values.get("arg0", UNREAD))
    spec = getattr(data, "element_spec", None)
    if spec is not None:
        if isinstance(spec, tuple | dict | list):
            return None  # pairs or several inputs: adapt_pairs names what to map to
        dtype = value_dtype(spec)
    elif data is UNREAD or isinstance(data, list | tuple):
        return None
    else:
        dtype = value_dtype(data)
    if dtype == "string" and spec is None and _kind(call.receiver) in _NUMERIC_LAYERS:
        return None  # a text array given to a numeric adapt: adapt_text_values reads it
    text = call.text("data") if "data" in call.values else call.text("arg0")
    found = _kind_against_dtype(call.receiver, data if spec is None else spec, dtype, text)
    if found is None or spec is None:
        return found
    return Violation(
        found.code,
        found.argument,
        found.problem.replace(f"`{text}` holds", f"`{text}` yields"),
        found.hint,
        f"element_spec: {getattr(getattr(spec, 'dtype', None), 'name', dtype)} "
        f"{fmt(shape_of(spec))}",
    )


def adapt_unbatched(call: LiveCall, exc: BaseException) -> Violation | None:
    """``Normalization``/``Discretization``'s ``adapt`` on a dataset of single values (never
    batched, or mapped down to scalars): adapt reads a dataset as batches, and a value of
    shape () has no axis to compute the statistics over."""
    from tfnb_debug.explain._evidence import dataset_stages

    data = call.values.get("data", call.values.get("arg0", UNREAD))
    spec = getattr(data, "element_spec", None)
    kind = _kind(call.receiver)
    if spec is None or isinstance(spec, tuple | dict | list) or kind not in _NUMERIC_LAYERS:
        return None
    shape = shape_of(spec)
    if shape is None or len(shape) != 0:
        return None
    kinds = [stage.kind for stage in dataset_stages(data)]
    text = call.text("data") if "data" in call.values else call.text("arg0")
    return Violation(
        "S12",
        text,
        f"`{kind}.adapt` reads a dataset as batches, but each element of `{text}` is a "
        "single value of shape (), with no batch axis to compute the statistics over"
        + ("" if "batch" in kinds else f": `{text}` is not batched"),
        f"batch it first: `adapt({text}.batch(256))` (or adapt on the NumPy array of the column)",
        f"element_spec: {getattr(getattr(spec, 'dtype', None), 'name', '?')} (); "
        f"pipeline: {' -> '.join(kinds) or '?'}",
    )


def _kind_against_dtype(layer: Any, inputs: Any, dtype: str, text: str) -> Violation | None:
    kind = _kind(layer)
    if not kind:
        return None
    name = getattr(layer, "name", kind)
    if kind in _STRING_LAYERS and dtype.startswith(("int", "uint")):
        if kind == "StringLookup":
            hint = (
                "for integer category codes use keras.layers.IntegerLookup (same vocabulary "
                "and output_mode, with the integer codes as its vocabulary), or map the codes "
                "to their strings before the StringLookup"
            )
        else:
            hint = (
                "TextVectorization splits and looks up raw text: give it the strings; token ids "
                "that are already integers go straight to an Embedding"
            )
        return Violation(
            "S11",
            text,
            f"{kind} '{name}' maps strings, but `{text}` holds {dtype} values {fmt(shape_of(inputs))}",
            hint,
        )
    if kind == "StringLookup" and getattr(layer, "invert", False) and dtype == "string":
        return Violation(
            "S11",
            text,
            f"StringLookup '{name}' is inverted (invert=True): it maps integer ids back to "
            f"strings, but `{text}` holds strings",
            "give it ids: the output of the forward StringLookup (same vocabulary), or the "
            "predicted class ids (`tf.argmax(probs, axis=-1)`); strings go to the forward lookup",
        )
    if kind in _NUMERIC_LAYERS and dtype == "string":
        numbers = _numeric_strings(inputs)
        if numbers:
            return Violation(
                "S11",
                text,
                f"{kind} '{name}' takes numbers, but `{text}` holds numbers stored as text "
                f"(e.g. {numbers!r})",
                f"convert them to numbers first: `{text}.astype('float32')` for a NumPy array "
                f"(`tf.strings.to_number({text})` for a tensor, pd.to_numeric for a column)",
            )
        return Violation(
            "S11",
            text,
            f"{kind} '{name}' takes numbers, but `{text}` holds strings",
            "turn the strings into ids first: keras.layers.StringLookup(vocabulary=...) (with "
            "output_mode='one_hot' it replaces a CategoryEncoding), then this layer",
        )
    if kind == "IntegerLookup" and dtype == "string":
        return Violation(
            "S11",
            text,
            f"IntegerLookup '{name}' maps integers, but `{text}` holds strings",
            "use keras.layers.StringLookup for string categories, or convert the strings to "
            "integers first",
        )
    return None


def _numeric_strings(values: Any, limit: int = 200) -> str:
    """One of the strings of ``values`` when every one read is a number ("34"), else ""."""
    import numpy as np

    try:
        array = values.numpy() if hasattr(values, "numpy") else np.asarray(values)
        flat = [v.decode() if isinstance(v, bytes) else str(v) for v in array.ravel()[:limit]]
    except Exception:
        return ""
    if not flat:
        return ""
    for item in flat:
        try:
            float(item)
        except ValueError:
            return ""
    return flat[0]


def adapt_table(call: LiveCall, exc: BaseException) -> Violation | None:
    """``layer.adapt(df)``: adapt iterates what it is given, and a DataFrame yields its column
    names, not rows."""
    data = call.values.get("data", call.values.get("arg0", UNREAD))
    if type(data).__name__ != "DataFrame":
        return None
    text = call.text("data")
    layer = type(call.receiver).__name__
    return Violation(
        "S12",
        text,
        f"`{text}` is a pandas DataFrame: `{layer}.adapt` iterates it, and iterating a "
        "DataFrame yields its column names, not its rows",
        f"adapt on the values: `adapt({text}.to_numpy('float32'))` (the columns the layer "
        "will see, in the model's order)",
    )


def adapt_text_values(call: LiveCall, exc: BaseException) -> Violation | None:
    """``Normalization.adapt`` (or another numeric layer's) on an array that holds strings:
    a mean and a variance exist only for numbers."""
    import numpy as np

    data = call.values.get("data", call.values.get("arg0", UNREAD))
    if not isinstance(data, np.ndarray) or data.dtype.kind not in "OUS" or data.ndim not in (1, 2):
        return None
    table = data.reshape(-1, 1) if data.ndim == 1 else data
    sample = table[:200]
    texts = [
        j for j in range(table.shape[1]) if any(isinstance(v, str | bytes) for v in sample[:, j])
    ]
    if not texts:
        return None
    text, layer = call.text("data"), type(call.receiver).__name__
    example = next(v for v in sample[:, texts[0]] if isinstance(v, str | bytes))
    columns = ", ".join(str(j) for j in texts[:4])
    behind = frame_behind(text, call.namespaces, call.filename, call.lineno)
    names = column_names(behind[1], table.shape[1]) if behind is not None else None
    if names is not None:
        columns = ", ".join(f"'{names[j]}'" for j in texts[:4])
    if _kind(call.receiver) in _STRING_LAYERS:
        return _missing_among_strings(text, layer, table, texts, columns, behind)
    return Violation(
        "S11",
        text,
        f"`{text}` holds strings in column{'s' if len(texts) > 1 else ''} {columns} (e.g. "
        f"{example!r}): `{layer}.adapt` computes statistics that only numbers have",
        f"adapt `{layer}` on the numeric columns only, and encode the text column"
        f"{'s' if len(texts) > 1 else ''} separately (keras.layers.StringLookup with "
        "output_mode='one_hot', or pd.get_dummies) before joining them",
    )


def _missing_among_strings(
    text: str, layer: str, table: Any, texts: list[int], columns: str, behind: Any
) -> Violation | None:
    """S11 (as for text with gaps given to a model): a string layer adapted on text that also
    holds missing values (a NaN or None where pandas had no value), so the array is neither
    strings nor numbers."""
    import math

    def missing(v: Any) -> bool:
        return v is None or (isinstance(v, float) and math.isnan(v))

    gaps = [j for j in texts if any(missing(v) for v in table[:, j])]
    if not gaps:
        return None
    count = sum(1 for j in gaps for v in table[:, j] if missing(v))
    column = columns.split(", ")[0].strip("'")
    if behind is not None and re.fullmatch(r".+\[\s*['\"][^'\"]+['\"]\s*\]", behind[0]):
        fill = f"`{behind[0]} = {behind[0]}.fillna('unknown')`"
    elif behind is not None and not column.isdigit():
        fill = f"`{behind[0]}['{column}'] = {behind[0]}['{column}'].fillna('unknown')`"
    else:
        fill = f"`np.where(pd.isna({text}), 'unknown', {text})`"
    return Violation(
        "S11",
        text,
        f"`{text}` mixes text with {count} missing value(s) (NaN/None) in column "
        f"{columns}: `{layer}.adapt` takes strings, and a NaN is a float, so the array is "
        "neither strings nor numbers",
        f"fill the gaps with a string of their own before adapting (and before the model sees "
        f"the column): {fill}",
        evidence=f"{count} NaN/None among the strings of {columns}",
    )


def _source_input(tensor: Any, inputs: list[Any], limit: int = 50) -> Any:
    """The model Input ``tensor`` comes from, following each layer's first input."""
    for _ in range(limit):
        if tensor is None:
            return None
        if any(tensor is i for i in inputs):
            return tensor
        history = getattr(tensor, "_keras_history", None)
        operation: Any = getattr(history, "operation", None)
        try:
            node = operation._inbound_nodes[getattr(history, "node_index", 0)]
            tensor = list(node.input_tensors)[0]
        except Exception:
            return None
    return None


_CROSSABLE = ("StringLookup", "IntegerLookup", "Discretization", "Hashing")


def feature_space_cross(call: LiveCall, exc: BaseException) -> Violation | None:
    """A FeatureSpace cross of a feature that is not categorical: ``HashedCrossing`` takes the
    integer or string ids of lookup, hashing or discretized features, not a normalized float."""
    space = call.receiver
    features = getattr(space, "features", None)
    if not isinstance(features, dict):
        return None
    for cross in getattr(space, "crosses", None) or []:
        for name in getattr(cross, "feature_names", ()):
            feature = features.get(name)
            kind = type(getattr(feature, "preprocessor", None)).__name__
            if feature is None or kind in _CROSSABLE:
                continue
            names = " x ".join(f"'{n}'" for n in cross.feature_names)
            return Violation(
                "S11",
                call.text("data") if "data" in call.texts else call.source,
                f"the FeatureSpace crosses {names}, and '{name}' is a {kind} feature "
                f"({getattr(feature, 'dtype', '?')}): a cross hashes integer or string ids, "
                "not float values",
                f"cross a discretized '{name}': declare it "
                f"`'{name}': FeatureSpace.float_discretized(num_bins=...)` (or add such a "
                f"feature beside it) and cross that, or drop '{name}' from the cross",
            )
    return None


#: this module's contracts, as ``Contract`` arguments (apis, check, explains, layer): added
#: to ``_contracts.CONTRACTS`` in this order
PREPROCESSING: tuple[tuple[Any, ...], ...] = (
    (("adapt",), adapt_pairs, ()),
    (("FeatureSpace",), feature_space_cross, (r"inputs should have an integer or string dtype",)),
    (("adapt",), adapt_table, (r"Got an element of type str",)),
    (("adapt",), adapt_text_values, (r"unsupported operand type\(s\) for",)),
    (("adapt",), adapt_dtype, (r"Cast \w+ to \w+ is not supported",)),
    (("adapt",), adapt_unbatched, (r"values must be in the range \[-ndim, ndim\)",)),
    (
        (
            "StringLookup",
            "IntegerLookup",
            "TextVectorization",
            "CategoryEncoding",
            "Discretization",
        ),
        lookup_dtype,
        (),
        True,
    ),
    (
        ("Model.fit", "Model.evaluate", "Model.predict"),
        string_input_declared_numeric,
        (r"Cast string to",),
    ),
)
