"""How Keras pairs the targets, losses and metrics given to a model of several outputs with
its outputs, against what the user meant (S12, S07).

- A list of targets is paired with the outputs by position: the order that fits the outputs'
  sizes and values better than the given one shows the targets are in another order.
- A ``None`` target is fine only for an output whose loss is ``None``: one loss string applies
  to every output.
- A list of losses for a model whose outputs are a dict is paired with the outputs in the
  order ``keras.tree`` flattens a dict: its keys sorted.
- A flat list of metrics as long as the outputs is read as one entry per output.

Read from the failing ``fit``/``evaluate`` call: the live model (its outputs, their names,
units and activations, and the arguments ``compile`` was given) and the targets.
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

from tfnb_debug.explain._api import user_call
from tfnb_debug.explain._operands import item_texts
from tfnb_debug.ground.files import is_user_file


class Pairing(NamedTuple):
    code: str
    problem: str
    hint: str
    evidence: str


def output_pairing(exc: BaseException) -> Pairing | None:
    """The pairing of the failing call's targets, or of compile's losses or metrics, with the
    model's outputs that does not fit, or None."""
    call = user_call(exc, is_user_file)
    if call is None or call.method not in ("fit", "evaluate", "train_on_batch", "test_on_batch"):
        return None
    model = call.receiver
    try:
        outputs = list(model.outputs)
        names = [str(n) for n in model.output_names]
        config = dict(model._compile_config.config)
    except Exception:
        return None
    if len(outputs) < 2 or len(names) != len(outputs):
        return None
    heads = [(n, _units(o), _activation(o)) for n, o in zip(names, outputs, strict=True)]
    y = call.value("y")
    y_text = call.text("y")
    loss, metrics = config.get("loss"), config.get("metrics")
    structure = getattr(model, "_outputs_struct", None)
    return (
        _weights_per_output(call.value("x"), call.text("x"), names, exc)
        or _none_target(y, y_text, heads, loss)
        or _target_order(y, y_text, heads, call)
        or _loss_list_for_dict(structure, loss, str(exc))
        or _metrics_per_output(metrics, heads, str(exc))
    )


def _weights_per_output(x: Any, text: str, names: list[str], exc: BaseException) -> Pairing | None:
    """A dataset of (x, y, sample_weight) whose weights dict lacks an output's name."""
    key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
    spec = getattr(x, "element_spec", None)
    if key not in names or not isinstance(spec, tuple) or len(spec) != 3:
        return None
    weights = spec[2]
    if not isinstance(weights, dict) or key in weights:
        return None
    return Pairing(
        "S12",
        f"the sample_weight part of `{text}`'s elements (their third part) is a dict for "
        f"{sorted(weights)} only, and Keras looks up a weight for every output: '{key}' has none",
        f"give every output its weights in that dict, e.g. `'{key}': np.ones(n)` for equal "
        "weights (or drop the weights dict)",
        f"outputs {names}; weights keys {sorted(weights)}",
    )


def _none_target(y: Any, text: str, heads: list[Any], loss: Any) -> Pairing | None:
    if not isinstance(y, list | tuple) or len(y) != len(heads) or not isinstance(loss, str):
        return None
    empty = [heads[i][0] for i, item in enumerate(y) if item is None]
    if not empty:
        return None
    pairs = ", ".join(f"'{n}': {'None' if n in empty else repr(loss)}" for n, _, _ in heads)
    return Pairing(
        "S12",
        f"`{text}` gives output {', '.join(repr(n) for n in empty)} no target (None), but "
        f"loss={loss!r} applies to every output, so its loss has nothing to compare with",
        f"give that output no loss: `loss={{{pairs}}}` (or give it a target)",
        f"targets: {['None' if item is None else 'array' for item in y]}; outputs "
        f"{[n for n, _, _ in heads]}",
    )


def _target_order(y: Any, text: str, heads: list[Any], call: Any) -> Pairing | None:
    if not isinstance(y, list | tuple) or len(y) != len(heads) or len(y) > 4:
        return None
    if any(item is None or getattr(item, "shape", None) is None for item in y):
        return None
    given = sum(_fit(item, head) for item, head in zip(y, heads, strict=True))
    scored = sorted(
        (
            (sum(_fit(y[i], heads[k]) for k, i in enumerate(order)), order)
            for order in itertools.permutations(range(len(y)))
        ),
        reverse=True,
    )
    best, order = scored[0]
    if best <= given or (len(scored) > 1 and scored[1][0] == best):
        return None
    items = item_texts(text, len(y))
    wanted = ", ".join(items[i] for i in order)
    return Pairing(
        "S12",
        f"the targets `{text}` are paired with the outputs {[n for n, _, _ in heads]} by "
        f"position, and they fit them in another order: [{wanted}]",
        f"give the targets in the order of the outputs, `[{wanted}]`, or as a dict keyed by "
        "output name, which does not depend on order",
        "; ".join(
            f"`{items[i]}` {tuple(getattr(y[i], 'shape', ()))} -> output '{heads[i][0]}' "
            f"({heads[i][1]} unit{'s' if heads[i][1] != 1 else ''}, {heads[i][2] or 'linear'})"
            for i in range(len(y))
        ),
    )


def _loss_list_for_dict(structure: Any, loss: Any, message: str) -> Pairing | None:
    if not isinstance(structure, dict) or not isinstance(loss, list | tuple):
        return None
    if len(loss) != len(structure) or "shape" not in message.lower():
        return None
    keys = sorted(structure)
    pairs = ", ".join(f"{loss[i]!r} -> '{k}'" for i, k in enumerate(keys))
    meant = ", ".join(f"'{k}': {loss[i]!r}" for i, k in enumerate(structure))
    return Pairing(
        "S07",
        f"loss is a list and the model's outputs a dict: the list is paired with the outputs in "
        f"their sorted key order, {keys}, so {pairs}",
        f"key the losses by output name: `loss={{{meant}}}`",
        f"outputs {list(structure)}; loss {list(loss)}",
    )


def _metrics_per_output(metrics: Any, heads: list[Any], message: str) -> Pairing | None:
    if not isinstance(metrics, list | tuple) or len(metrics) != len(heads):
        return None
    if any(isinstance(m, list | tuple | dict) for m in metrics) or "hape" not in message:
        return None
    pairs = ", ".join(f"{m!r} -> '{n}'" for m, (n, _, _) in zip(metrics, heads, strict=True))
    return Pairing(
        "S07",
        f"metrics={list(metrics)} has one entry per output, so Keras pairs them by position: "
        f"{pairs}; a metric then meets an output and targets it was not meant for",
        "give the metrics per output by name: `metrics={"
        + ", ".join(f"'{n}': [...]" for n, _, _ in heads)
        + "}`",
        f"outputs {[n for n, _, _ in heads]}; metrics {list(metrics)}",
    )


def _fit(item: Any, head: tuple[str, int | None, str]) -> int:
    """How well a target fits an output: 2 for its encoding (one-hot rows of its width, class
    ids below its units for softmax, 0/1 for sigmoid), 1 for its width alone, 0 otherwise."""
    _, units, activation = head
    shape = tuple(getattr(item, "shape", ()) or ())
    width = shape[-1] if len(shape) > 1 else 1
    try:
        import numpy as np

        values = np.asarray(item)
        whole = values.dtype.kind in "iub" or bool(np.all(np.mod(values, 1) == 0))
        low, high = float(values.min()), float(values.max())
    except Exception:
        return 1 if width == units else 0
    if activation == "softmax" and units and units > 1:
        if width == units and whole and low >= 0 and high <= 1:
            return 2
        return 2 if width == 1 and whole and low >= 0 and high < units else 0
    if activation == "sigmoid":
        return 2 if width == units and whole and low >= 0 and high <= 1 else 0
    return 1 if width == units and not (whole and high <= 1 and units and units > 1) else 0


def _units(output: Any) -> int | None:
    try:
        return int(output.shape[-1])
    except Exception:
        return None


def _activation(output: Any) -> str:
    layer = getattr(getattr(output, "_keras_history", None), "operation", None)
    function = getattr(layer, "activation", None)
    return str(getattr(function, "__name__", "") or "")
