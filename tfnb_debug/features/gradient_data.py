"""The device records of a gradient recording read back as one history, and whose they are.

A recording keeps one record series per optimizer/variable group (a GAN has two).
:func:`merged_history` joins them into one :class:`~tfnb_debug.records.gradients.GradientHistory`;
:func:`loss_series` names each group's loss from the evidence (the variable it was
held in, the optimizer's or the model's variable); :func:`recorded_model_name` and
:func:`recorded_models` tell which model the variables belong to, :func:`group_title` names a group;
:func:`optimizer_iterations` reads each optimizer's step counter, to tell whether
the cell trained at all and from initialization.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from tfnb_debug.features.gradient_report import LossSeries
from tfnb_debug.records.gradients import HIST_EDGES, STAT_COLUMNS, GradientHistory, VariableMeta

__all__ = [
    "empty_history",
    "group_title",
    "loss_series",
    "merged_history",
    "optimizer_iterations",
    "recorded_model_name",
    "recorded_models",
]


def loss_series(data: list[Any]) -> list[LossSeries]:
    """Each group's own loss with the best name the evidence gives it, when more than one
    group recorded a loss (a GAN's two optimizers); none otherwise.

    A name two groups would share is passed over for the next one each has (the
    optimizer's variable, the model's), then ``loss N``.
    """
    with_loss = [d for d in data if d.loss_known.any()]
    if len(with_loss) < 2:
        return []
    names = [tuple(getattr(d, "loss_names", ())) for d in with_loss]
    level = [0] * len(names)
    while True:
        picked = [n[i] if i < len(n) else None for n, i in zip(names, level, strict=True)]
        shared = {p for p in picked if p is not None and picked.count(p) > 1}
        if not shared:
            break
        level = [i + 1 if p in shared else i for p, i in zip(picked, level, strict=True)]
    taken = {p for p in picked if p is not None}
    series = []
    for j, (d, label) in enumerate(zip(with_loss, picked, strict=True), start=1):
        if label is None:
            label = f"loss {j}"
            while label in taken:
                label += "'"
        series.append(LossSeries(label, d.steps[d.loss_known], d.loss[d.loss_known]))
    return series


def empty_history(variables: tuple[VariableMeta, ...]) -> GradientHistory:
    """No recorded step yet: the variables only (a step failed before any was recorded)."""
    n = len(variables)
    return GradientHistory(
        variables=variables,
        steps=np.zeros(0, dtype=np.int64),
        loss=np.zeros(0),
        loss_known=np.zeros(0, dtype=bool),
        stats=np.zeros((0, n, len(STAT_COLUMNS))),
        hist=np.zeros((0, n, len(HIST_EDGES) - 1)),
    )


def optimizer_iterations(objects: Iterable[Any]) -> dict[int, tuple[str, int]]:
    out: dict[int, tuple[str, int]] = {}
    for obj in objects:
        opt = getattr(obj, "optimizer", None) if not hasattr(obj, "apply_gradients") else obj
        if opt is None or not hasattr(opt, "iterations"):
            continue
        try:
            out[id(opt)] = (str(getattr(opt, "name", "optimizer")), int(opt.iterations.numpy()))
        except Exception:
            continue
    return out


def merged_history(data: list[Any]) -> GradientHistory:
    if len(data) == 1:
        return data[0]
    records = max(len(d.steps) for d in data)

    def pad(array: np.ndarray, fill: float) -> np.ndarray:
        shape = (records, *array.shape[1:])
        out = np.full(shape, fill, dtype=np.float64)
        out[: len(array)] = array
        return out

    with_loss = next((d for d in data if d.loss_known.any()), data[0])
    base = max(data, key=lambda d: len(d.steps))
    variables: list[VariableMeta] = [v for d in data for v in d.variables]
    return GradientHistory(
        variables=tuple(variables),
        steps=base.steps,
        loss=pad(with_loss.loss, np.nan),
        loss_known=pad(with_loss.loss_known.astype(float), 0.0).astype(bool),
        stats=np.concatenate([pad(d.stats, np.nan) for d in data], axis=1),
        hist=np.concatenate([pad(d.hist, 0.0) for d in data], axis=1),
        no_gradient=tuple(p for d in data for p in d.no_gradient),
        total_steps=max(d.total_steps for d in data),
    )


def recorded_model_name(capture: Any, data: list[Any], watched: list[Any]) -> str | None:
    """The one model the recorded steps train, or None when there is no such single model
    (several, or one not found): a layer's name is never taken for a model's."""
    models = recorded_models(capture, data, watched)
    return models[0] if len(models) == 1 else None


def recorded_models(capture: Any, data: list[Any], watched: list[Any]) -> tuple[str, ...]:
    """The models the recorded steps train, each once: the fitted ones, else each group's
    model; () when a group's model is not known."""
    if capture.fit_models:
        return tuple(dict.fromkeys(str(info.name) for info in capture.fit_models))
    names = [_group_model(d, watched) for d in data]
    if None in names:
        return ()
    return tuple(dict.fromkeys(n for n in names if n is not None))


def group_title(group: Any, watched: list[Any]) -> str:
    """One optimizer/variable group as the notes name it: its model, else its first variable."""
    model = _group_model(group, watched)
    if model is not None:
        return f"model '{model}'"
    return f"'{group.variables[0].path}'..." if group.variables else "?"


def _group_model(group: Any, watched: list[Any]) -> str | None:
    """The model one optimizer/variable group trains: found by identity where the step was
    taken (``CaptureData.models``), else the one notebook model whose trainable variables
    have exactly the group's paths."""
    found = tuple(dict.fromkeys(getattr(group, "models", ())))
    if found:
        return found[0] if len(found) == 1 else None
    paths = {meta.path for meta in group.variables}
    names = []
    for obj in watched:
        name = getattr(obj, "name", None)
        if not name or not hasattr(obj, "trainable_variables") or hasattr(obj, "apply_gradients"):
            continue
        try:
            own = {str(getattr(v, "path", "")).split(":")[0] for v in obj.trainable_variables}
        except Exception:
            continue
        if own == paths:
            names.append(str(name))
    names = list(dict.fromkeys(names))
    return names[0] if len(names) == 1 else None


# -- the dry probe --------------------------------------------------------------
