"""``%tfoverfit``: can the model memorize a handful of examples?

The standard first step when the loss does not fall: train a COPY of the model
(``keras.models.clone_model`` + the same weights + a fresh optimizer from the
same config + the same loss) on a few examples, with the model's augmentation
layers replaced by ``Identity``, and say whether the loss collapses.  If it
does not, the lint findings (:func:`tfnb_debug.lint.lint_model`) that explain
why are attached.  The user's model, its weights and optimizer state are never
touched (the global RNG state is restored too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tfnb_debug.errors import TfnbDebugError
from tfnb_debug.reports import Finding, Report, Section, Table

__all__ = ["OverfitReport", "OverfitThresholds", "overfit_small_batch"]


@dataclass(frozen=True)
class OverfitThresholds:
    """When a copy counts as having memorized its examples.

    Classification (a cross-entropy loss): the copy's accuracy on the examples
    reaches ``accuracy``.  Otherwise: the final loss is at most ``loss_ratio``
    times the initial loss (or below ``loss_floor``).
    """

    accuracy: float = 1.0
    loss_ratio: float = 0.05
    loss_floor: float = 1e-3

    def __post_init__(self) -> None:
        if not 0 < self.accuracy <= 1:
            raise ValueError("OverfitThresholds.accuracy must be in (0, 1]")
        if not 0 < self.loss_ratio < 1:
            raise ValueError("OverfitThresholds.loss_ratio must be in (0, 1)")


@dataclass(frozen=True, kw_only=True, repr=False)
class OverfitReport(Report):
    """What ``%tfoverfit`` shows; every field is a plain value."""

    model_name: str
    samples: int
    steps: int
    losses: tuple[float, ...]
    initial_loss: float
    final_loss: float
    accuracy: float | None
    memorized: bool
    augmentation_removed: tuple[str, ...]


def overfit_small_batch(
    model: Any,
    data: Any,
    *,
    samples: int = 16,
    steps: int = 200,
    thresholds: OverfitThresholds | None = None,
    plot: bool = True,
) -> OverfitReport:
    """Train a copy of ``model`` on ``samples`` examples of ``data`` for ``steps`` full-batch steps.

    ``data`` is a ``tf.data.Dataset`` of ``(x, y)`` (batched or not) or an
    ``(x, y)`` tuple of arrays.  The model must be compiled (its loss and
    optimizer config are reused).  Returns whether the copy memorized them.
    """
    from tfnb_debug.collect.snapshot import (
        VariableSnapshot,
        global_seed_generator,
        require_keras_model,
    )

    thresholds = thresholds or OverfitThresholds()
    model = require_keras_model(model)
    if samples < 1 or steps < 1:
        raise TfnbDebugError("--samples and --steps must be positive integers")
    if getattr(model, "optimizer", None) is None or getattr(model, "loss", None) is None:
        raise TfnbDebugError(
            f"model {model.name!r} is not compiled: call model.compile(optimizer=..., loss=...) "
            "first, so that its copy trains with the same loss and optimizer"
        )
    x, y = take_examples(model, data, samples)
    gen = global_seed_generator()
    rng = VariableSnapshot.take([gen.state]) if gen is not None else None
    try:
        copy, removed = copy_model(model)
        losses, accuracy, initial, final = _train(copy, model, x, y, steps)
    finally:
        if rng is not None:
            rng.restore()
    n = int(_leading_dim(x))
    memorized = _memorized(model, initial, final, accuracy, thresholds)
    findings: list[Finding] = []
    if not memorized:
        from tfnb_debug.lint import lint_model

        findings = list(lint_model(model, data=(x, y)).findings)
    return _report(
        model,
        n,
        steps,
        losses,
        initial,
        final,
        accuracy,
        memorized,
        removed,
        findings,
        thresholds,
        plot,
    )


# -- collect ----------------------------------------------------------------------------


def _leading_dim(x: Any) -> int:
    import keras

    return int(keras.tree.flatten(x)[0].shape[0])


def take_examples(model: Any, data: Any, n: int) -> tuple[Any, Any]:
    """The first ``n`` examples of ``data`` as ``(x, y)`` NumPy structures."""
    import keras
    import numpy as np
    import tensorflow as tf

    from tfnb_debug.collect.snapshot import first_batch

    if isinstance(data, tf.data.Dataset):
        element = data.element_spec
        x_spec = element[0] if isinstance(element, tuple) else element
        if not isinstance(element, tuple) or len(element) < 2:
            raise TfnbDebugError("DATA must yield (x, y) pairs to train on")
        first_x = keras.tree.flatten(x_spec)[0]
        inputs = getattr(model, "inputs", None) or []
        if inputs and first_x.shape.rank == len(inputs[0].shape) - 1:
            data = data.batch(n)  # an unbatched dataset
        xs: list[Any] = []
        ys: list[Any] = []
        count = 0
        for batch in data.take(max(n, 1)):
            xs.append(keras.tree.map_structure(lambda t: t.numpy(), batch[0]))
            ys.append(keras.tree.map_structure(lambda t: t.numpy(), batch[1]))
            count += _leading_dim(xs[-1])
            if count >= n:
                break
        if not xs:
            raise TfnbDebugError("DATA is an empty dataset")
        x = keras.tree.map_structure(lambda *a: np.concatenate(a)[:n], *xs)
        y = keras.tree.map_structure(lambda *a: np.concatenate(a)[:n], *ys)
        return x, y
    x, y = first_batch(data)
    if y is None:
        raise TfnbDebugError("DATA must be a (x, y) tuple of arrays or a tf.data.Dataset of pairs")
    x = keras.tree.map_structure(lambda a: np.asarray(a)[:n], x)
    y = keras.tree.map_structure(lambda a: np.asarray(a)[:n], y)
    return x, y


def _is_augmentation(layer: Any) -> bool:
    from keras.src.layers.preprocessing.data_layer import DataLayer

    random = bool(getattr(layer, "_seed_generators", None))
    return random and (isinstance(layer, DataLayer) or type(layer).__name__.startswith("Random"))


def copy_model(model: Any) -> tuple[Any, tuple[str, ...]]:
    """A compiled copy with the same weights and a fresh optimizer; augmentation -> Identity."""
    import keras

    removed: list[str] = []

    def clone_layer(layer: Any) -> Any:
        if _is_augmentation(layer):
            removed.append(layer.name)
            return keras.layers.Identity(name=layer.name)
        return layer.__class__.from_config(layer.get_config())

    try:
        copy = keras.models.clone_model(model, clone_function=clone_layer, recursive=True)
    except Exception as err:
        raise TfnbDebugError(
            f"cannot copy model {model.name!r} ({type(err).__name__}: {_first_line(err)}); "
            "subclassed models need get_config()/from_config() so that clone_model can rebuild them"
        ) from None
    if not copy.built:
        raise TfnbDebugError(f"the copy of {model.name!r} could not be built")
    _copy_weights(model, copy)
    optimizer = model.optimizer.__class__.from_config(model.optimizer.get_config())
    copy.compile(optimizer=optimizer, loss=model.loss, jit_compile=False)
    return copy, tuple(removed)


def _copy_weights(source: Any, target: Any) -> None:
    """Copy weights layer by layer (augmentation layers have none to copy)."""
    src_layers = source._flatten_layers(include_self=False, recursive=True)
    dst_layers = target._flatten_layers(include_self=False, recursive=True)
    dst_by_name = {layer.name: layer for layer in dst_layers}
    for layer in src_layers:
        if layer._flatten_layers(include_self=False, recursive=False):
            continue  # a container: its leaves carry the weights
        weights = layer.get_weights()
        if not weights:
            continue
        other = dst_by_name.get(layer.name)
        if other is None:
            raise TfnbDebugError(f"the copy of the model has no layer {layer.name!r}")
        other.set_weights(weights)


def _train(
    copy: Any, model: Any, x: Any, y: Any, steps: int
) -> tuple[tuple[float, ...], float | None, float, float]:
    initial = float(copy.evaluate(x, y, batch_size=_leading_dim(x), verbose=0))
    losses: list[float] = []
    for _ in range(steps):
        loss = copy.train_on_batch(x, y)
        value = float(loss[0] if isinstance(loss, list | tuple) else loss)
        losses.append(value)
        if not math.isfinite(value):
            break
    final = float(copy.evaluate(x, y, batch_size=_leading_dim(x), verbose=0))
    accuracy = _accuracy(model, copy, x, y)
    return tuple(losses), accuracy, initial, final


def _is_classification(model: Any) -> bool:
    name = model.loss if isinstance(model.loss, str) else type(model.loss).__name__
    if (
        callable(model.loss)
        and not isinstance(model.loss, type)
        and hasattr(model.loss, "__name__")
    ):
        name = model.loss.__name__
    return "crossentropy" in str(name).lower().replace("_", "")


def _accuracy(model: Any, copy: Any, x: Any, y: Any) -> float | None:
    import keras
    import numpy as np

    if not _is_classification(model):
        return None
    outputs = keras.tree.flatten(copy(x, training=False))
    labels = keras.tree.flatten(y)
    if len(outputs) != 1 or len(labels) != 1:
        return None
    pred = np.asarray(outputs[0])
    true = np.asarray(labels[0])
    if pred.ndim >= 2 and pred.shape[-1] > 1:
        guess = pred.argmax(-1)
        target = true.argmax(-1) if true.shape == pred.shape else true.reshape(guess.shape)
    else:
        probs = (
            "sigmoid" in str(getattr(model.layers[-1], "activation", "")).lower()
            if getattr(model, "layers", None)
            else False
        )
        cut = 0.5 if probs else 0.0
        guess = (pred.reshape(-1) > cut).astype(int)
        target = true.reshape(-1).round().astype(int)
    return float(np.mean(guess == target))


def _memorized(
    model: Any, initial: float, final: float, accuracy: float | None, t: OverfitThresholds
) -> bool:
    if not math.isfinite(final):
        return False
    if accuracy is not None:
        return accuracy >= t.accuracy
    return final <= t.loss_floor or final <= t.loss_ratio * initial


# -- report -----------------------------------------------------------------------------


def _report(
    model: Any,
    n: int,
    steps: int,
    losses: tuple[float, ...],
    initial: float,
    final: float,
    accuracy: float | None,
    memorized: bool,
    removed: tuple[str, ...],
    findings: list[Finding],
    t: OverfitThresholds,
    plot: bool,
) -> OverfitReport:
    from tfnb_debug.reports import sort_findings

    if memorized:
        verdict = f"yes: a copy of {model.name!r} memorized {n} examples in {len(losses)} steps"
    else:
        verdict = (
            f"NO: a copy of {model.name!r} could not memorize {n} examples in {len(losses)} steps"
            + (" (the loss became NaN/Inf)" if losses and not math.isfinite(losses[-1]) else "")
        )
    criterion = (
        f"criterion: accuracy on the examples >= {t.accuracy:g}"
        if accuracy is not None
        else f"criterion: final loss <= {t.loss_ratio:g} x initial loss or <= {t.loss_floor:g}"
    )
    summary = [verdict, criterion]
    if removed:
        summary.append(
            "augmentation layers replaced by Identity in the copy: " + ", ".join(removed)
        )
    if not memorized:
        summary.append(
            "lint findings that can explain it are listed below"
            if findings
            else "no lint finding explains it: try a larger model, a higher learning rate, "
            "or check the labels match the inputs"
        )
    summary.append("the model you passed, its weights and optimizer state were not changed")
    rows: list[tuple[Any, ...]] = [
        ("examples", n),
        ("steps run", len(losses)),
        ("loss before (inference mode)", initial),
        ("loss after (inference mode)", final),
        ("loss ratio after/before", final / initial if initial else float("nan")),
    ]
    if accuracy is not None:
        rows.append(("accuracy on the examples", accuracy))
    rows.append(("memorized", "yes" if memorized else "NO"))
    sections: tuple[Section, ...] = ()
    if plot and losses:
        sections = (_loss_section(losses),)
    return OverfitReport(
        title=f"tfnb_debug overfit check of {model.name!r}",
        summary=tuple(summary),
        findings=sort_findings(findings),
        tables=(Table("result", ("item", "value"), tuple(rows)),),
        sections=sections,
        model_name=model.name,
        samples=n,
        steps=len(losses),
        losses=losses,
        initial_loss=initial,
        final_loss=final,
        accuracy=accuracy,
        memorized=memorized,
        augmentation_removed=removed,
    )


def _loss_section(losses: tuple[float, ...]) -> Section:
    from tfnb_debug.render.html import image_html
    from tfnb_debug.render.plots import figure_data_uri, new_figure

    fig = new_figure(5.0, 2.6)
    ax = fig.add_subplot(1, 1, 1)
    finite = [v if math.isfinite(v) else float("nan") for v in losses]
    ax.plot(range(1, len(finite) + 1), finite, color="#1f77b4")
    if all(v > 0 for v in finite if math.isfinite(v)) and any(math.isfinite(v) for v in finite):
        ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title("loss of the copy on the examples")
    text = f"loss: {losses[0]:.4g} -> {losses[-1]:.4g} over {len(losses)} steps"
    return Section("loss", image_html(figure_data_uri(fig), alt=text), text)


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__
