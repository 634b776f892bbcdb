"""Another model's outputs given where a model takes one input (S12).

``model.predict`` and a model's call return a list when the model has several outputs (a
VAE's encoder returns ``[z_mean, z_log_var, z]``), so ``decoder.predict(encoder.predict(x))``
hands the decoder all of them, and Keras says only that one input received several tensors
and to pass a dict.  The evidence is the argument's own source (a ``predict`` or a call of a
model in the user's namespace), that model's outputs, and the receiving model's inputs; the
fix picks the output by its index, never a dict.  ``MODEL_OUTPUTS`` is this module's table.
"""

from __future__ import annotations

import re
from typing import Any

from tfnb_debug.explain._api import LiveCall
from tfnb_debug.explain._tape_results import value_of
from tfnb_debug.explain._violation import Violation, fmt, is_a, shape_of

_COUNT = re.compile(r"expects (\d+) (?:named )?input\(s\).*?received (\d+) input tensors", re.S)
_PRODUCER = re.compile(r"^\s*(\w+)(?:\.(?:predict|predict_on_batch))?\s*\(")


def outputs_as_one_input(call: LiveCall, exc: BaseException) -> Violation | None:
    """S12: the data is the list of another model's outputs, and this model takes fewer inputs."""
    count = _COUNT.search(str(exc))
    key = "x" if "x" in call.texts else "inputs"
    text = call.texts.get(key, "")
    producer = _PRODUCER.match(text)
    if count is None or producer is None:
        return None
    expected, received = int(count.group(1)), int(count.group(2))
    other = value_of(call, producer.group(1))
    if not is_a(other, "Model") or other is call.receiver:
        return None
    try:
        outputs = list(other.outputs)
        inputs = [shape_of(t) for t in call.receiver.inputs]
    except Exception:
        return None
    if len(outputs) != received or expected >= received:
        return None
    names = [_made_by(t) for t in outputs]
    fits = [i for i, t in enumerate(outputs) if expected == 1 and shape_of(t) == inputs[0]]
    listed = ", ".join(f"[{i}] '{n}' {fmt(shape_of(outputs[i]))}" for i, n in enumerate(names))
    receiver = call.receiver.name
    pick = (
        f"`{text}[{fits[0]}]`"
        if len(fits) == 1
        else f"`{text}[i]` with i the output '{receiver}' is for"
        + (f" (of shape {fmt(inputs[0])}: {', '.join(f'[{i}]' for i in fits)})" if fits else "")
    )
    return Violation(
        "S12",
        text,
        f"`{text}` returns the {received} outputs of model '{other.name}' as a list, and model "
        f"'{receiver}' takes {expected} input{'s' if expected > 1 else ''}: it got all of them",
        f"pass the output '{receiver}' takes, by its index: {pick}",
        evidence=f"outputs of '{other.name}': {listed}",
    )


def _made_by(tensor: Any) -> str:
    """The name of the layer that made a model's output tensor ("?" when not recorded)."""
    operation = getattr(getattr(tensor, "_keras_history", None), "operation", None)
    return str(getattr(operation, "name", "?"))


MODEL_OUTPUTS: tuple[tuple[Any, ...], ...] = (
    (
        (
            "Model.predict",
            "Model.fit",
            "Model.evaluate",
            "Model.__call__",
            "Model.predict_on_batch",
        ),
        outputs_as_one_input,
        (r"input tensors",),
    ),
)
