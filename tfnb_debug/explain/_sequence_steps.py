"""Sequences given to a model declared for another number of steps (S01).

A recurrent or pooling layer takes sequences of any length, so a window length that differs
from the declared ``keras.Input((steps, features))`` is a mistake only where the steps size a
weight: a ``Flatten`` turns steps x features into one axis, and the ``Dense`` after it holds a
kernel of exactly that many rows.  The evidence is the call's data (an array, or a dataset's
element_spec), the model's declared Input and its layers.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.collect.keras_access import all_sublayers
from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._violation import Violation, fmt, is_a


def steps_against_input(
    call: LiveCall,
    model: Any,
    want: tuple[int | None, ...],
    data: tuple[int | None, ...],
    spec: Any,
    message: str = "",
) -> Violation | None:
    """Sequences of another length than the declared Input's steps, where a Flatten sizes the
    next layer's kernel by the steps (an RNN or a pooling layer would take any length).  A
    dataset whose steps are unknown in its element_spec gets them from the failing matrix
    product: the Flatten's output width over its channels."""
    if spec is None:
        return None  # an array: Keras' own input check names the layer built for another size
    flatten = next((lay for lay in all_sublayers(model) if is_a(lay, "Flatten")), None)
    if flatten is None or want[1] is None or data[-1] != want[-1]:
        return None
    evidence = ""
    if data[1] is None:
        data = (data[0], _steps_from_product(flatten, want[1], message), data[-1])
        product = _PRODUCT.search(message)
        if product is not None and data[1] is not None:
            evidence = (
                f"the product after '{flatten.name}' got {product.group(1)} features where its "
                f"kernel has {product.group(2)} rows"
            )
    if data[1] is None or data[1] == want[1]:
        return None
    text = call.text("x")
    what = (
        f"the dataset `{text}` yields windows" if spec is not None else f"`{text}` holds sequences"
    )
    made = "where the windows are made (`sequence_length=` of timeseries_dataset_from_array, or the slicing)"
    return Violation(
        "S01",
        text,
        f"the model was built for sequences of {want[1]} steps (Input {fmt(want[1:])}), but "
        f"{what} of {data[1]} steps ({fmt(data[1:])}): Flatten '{flatten.name}' turns the "
        "steps into features, so the layer after it was sized for "
        f"{want[1]} steps and fails on {data[1]}",
        f"make the windows {want[1]} steps long {made}, or build the model for {data[1]} steps "
        f"(`keras.Input(({data[1]}, {data[-1]}))`); GlobalAveragePooling1D or an RNN in place "
        "of the Flatten takes any length",
        evidence=evidence,
    )


_PRODUCT = re.compile(r"Matrix size-incompatible: In\[0\]: \[\d+,(\d+)\], In\[1\]: \[(\d+),\d+\]")


def _steps_from_product(flatten: Any, steps: int, message: str) -> int | None:
    """The steps the data had, from "In[0]: [16,384], In[1]: [768,1]" after ``flatten``: its
    input was built as (steps, channels) with steps x channels = 768 rows, so 384 is 24
    steps of the same channels (only when the layers before it keep the steps)."""
    match = _PRODUCT.search(message)
    try:
        built = tuple(flatten.input.shape)
    except Exception:
        return None
    if match is None or len(built) != 3 or built[1] != steps or not isinstance(built[2], int):
        return None
    width, rows = int(match.group(1)), int(match.group(2))
    if rows != steps * built[2] or width % built[2]:
        return None
    return width // built[2]
