"""What a model of text is given: labels that are strings (the loss casts them to float and
fails, S11), or a dataset that was already vectorized given to a model that vectorizes its
string input itself (S12).  Read from the dataset's element_spec (or ``y``) and the model's
Input dtypes; nothing runs."""

from __future__ import annotations

from typing import Any

from tfnb_debug.explain._api import UNREAD, LiveCall
from tfnb_debug.explain._output_axes import dataset_labels
from tfnb_debug.explain._preprocessing import value_dtype
from tfnb_debug.explain._violation import Violation, features_spec, fmt, shape_of


def string_labels(call: LiveCall, exc: BaseException) -> Violation | None:
    """S11: a dataset's labels are text ("positive"/"negative"), and the loss casts them to
    float."""
    if "Cast string to" not in str(exc) or "loss" not in str(exc):
        return None
    x, y = call.values.get("x", UNREAD), call.values.get("y", UNREAD)
    if y is not UNREAD and y is not None:
        return None  # labels given as an array: the label rules read their values
    labels = dataset_labels(x)
    dtype = value_dtype(labels)
    if labels is UNREAD or dtype != "string":
        return None
    return Violation(
        "S11",
        call.text("x"),
        f"the labels of `{call.text('x')}` are strings ({dtype}), and the loss casts its labels to float: text labels "
        "cannot be cast",
        "map the labels to numbers before fit: 0/1 for two classes (`(labels == "
        "'<the positive class>').astype(int)`), class ids for several (a "
        "StringLookup(num_oov_indices=0) adapted on the labels)",
    )


def vectorized_twice(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: a dataset of token ids (already vectorized) given to a model whose Input takes
    strings and vectorizes them itself."""
    x = call.values.get("x", UNREAD)
    features = features_spec(getattr(x, "element_spec", None))
    try:
        inputs = list(call.receiver.inputs)
    except Exception:
        return None
    if len(inputs) != 1 or value_dtype(inputs[0]) != "string" or features is None:
        return None
    dtype = value_dtype(features)
    if not dtype.startswith("int"):
        return None
    text = call.text("x")
    return Violation(
        "S12",
        text,
        f"`{text}` yields {dtype} token ids {fmt(shape_of(features))} (the text was already "
        "vectorized), and the model's Input takes strings: the model vectorizes its input "
        "itself, so the ids would be vectorized a second time",
        f"give the model the raw text (drop the map that vectorizes `{text}`), or build the "
        "model on the ids: an int Input followed by the Embedding, without the vectorizer",
    )


#: this module's contracts, as ``Contract`` arguments (apis, check, explains)
TEXT_DATA_CONTRACTS: tuple[tuple[Any, ...], ...] = (
    (("Model.fit", "Model.evaluate"), string_labels, (r"Cast string to float",)),
    (("Model.fit", "Model.evaluate", "Model.predict"), vectorized_twice, (r"input rank must be",)),
)
