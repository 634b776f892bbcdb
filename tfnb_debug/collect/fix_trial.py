"""A training fault's fix, tried on a copy: does the change make the loss fall?

:func:`run_fix_trial` takes a ``fit`` call's model and arguments (kept by the
recording's fit recorder until it ends) and a few :class:`Change` s that the
recorded evidence supports (a learning rate 10x lower or higher, gradient clipping,
ReLU with He initialization in place of hidden sigmoid/tanh layers, standardized
regression targets, whose loss is converted back to the targets' units, Keras' default
initializers in place of a constant kernel, an extreme spread or a large bias).  It trains a
copy of the model (``clone_model``: the same architecture, compiled with the same
loss and a fresh optimizer from the same config) once unchanged and once per change,
from the same initial weights where the architecture is unchanged, on the same
batches of a bounded sample of the training rows, and evaluates the loss on those
rows before training and at four points of it.  A change is *confirmed* when its
final loss is finite and below
:data:`~tfnb_debug.records.trials.CONFIRM_RATIO` x the unchanged run's (or the
unchanged run's is not finite) and below its own first loss.

Cost: at most :data:`MAX_ROWS` rows, :data:`MAX_STEPS` steps per run, and
``max_seconds`` for all runs after the unchanged run's first step (whose trace is a
one-time cost); a run that would not fit is not made, and the trial says so.

Everything runs under :class:`~tfnb_debug.collect.training_guard.TrainingGuard` on the
user's model (weights, optimizer, metrics and every global random state put back bit
for bit), with Keras' layer-name counters put back; the copies are dropped
afterwards.  Nothing here raises: a failure is a :class:`Trial` that did not run, with
the reason.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfnb_debug.collect.fit_args import is_dataset
from tfnb_debug.collect.label_control import dataset_rows, name_counters_kept
from tfnb_debug.collect.model_config import (
    bias_problem,
    fan_in_of,
    hidden_saturating,
    hidden_saturating_layers,
    kernel_problem,
    safe_config,
    suspicious_initializers,
)
from tfnb_debug.records.trials import Change, Trial, TrialRun

__all__ = [
    "hidden_saturating_layers",
    "run_fix_trial",
    "suspicious_initializers",
]

#: training rows a trial samples from the fit's training data
MAX_ROWS = 1024
#: optimizer steps per run, at most
MAX_STEPS = 120
#: fewer steps than this fit the budget: the trial is not judged
MIN_STEPS = 10
#: seconds for all runs after the unchanged run's first step
MAX_SECONDS = 8.0
#: the loss is evaluated before training and after these shares of the steps
_CHECKPOINTS = (0.25, 0.5, 0.75, 1.0)


def run_fix_trial(
    model: Any,
    arguments: dict[str, Any],
    changes: Sequence[Change],
    *,
    max_seconds: float = MAX_SECONDS,
    max_steps: int = MAX_STEPS,
    seed: int = 0,
) -> Trial:
    """Try ``changes`` on copies of ``model`` (see the module docstring); never raises."""
    start = time.monotonic()
    try:
        data = _training_rows(arguments, seed)
        if isinstance(data, str):
            return Trial(False, data)
        x, y, batch = data
        return _guarded(model, arguments, changes, x, y, batch, start, max_seconds, max_steps, seed)
    except Exception as err:  # a trial must never change what the cell did
        first = str(err).splitlines()[0][:120] if str(err) else ""
        return Trial(
            False, f"it failed ({type(err).__name__}: {first})", seconds=time.monotonic() - start
        )


def _training_rows(a: dict[str, Any], seed: int) -> tuple[Any, np.ndarray, int] | str:
    import keras

    x, y = a.get("x"), a.get("y")
    batch = int(a.get("batch_size") or 32)
    if is_dataset(x):
        got = dataset_rows(x, MAX_ROWS)
        if got is None:
            return "the training dataset does not yield (x, y) pairs"
        x, y, batch = got
    elif y is None or x is None:
        return "fit was given no labels"
    if isinstance(y, dict | list | tuple):
        return "the model has several outputs"
    y = np.asarray(y)
    n = int(y.shape[0])
    split = float(a.get("validation_split") or 0.0)
    n = int(math.floor(n * (1.0 - split))) if split else n
    rows = np.sort(np.random.default_rng(seed).permutation(n)[:MAX_ROWS])
    return keras.tree.map_structure(lambda v: np.asarray(v)[rows], x), y[rows], max(1, batch)


def _guarded(
    model: Any,
    a: dict[str, Any],
    changes: Sequence[Change],
    x: Any,
    y: np.ndarray,
    batch: int,
    start: float,
    max_seconds: float,
    max_steps: int,
    seed: int,
) -> Trial:
    from tfnb_debug.collect.training_guard import TrainingGuard

    rows = len(y)
    batch = min(batch, rows)
    epochs = max(1, int(a.get("epochs") or 1) - int(a.get("initial_epoch") or 0))
    steps = min(max_steps, epochs * math.ceil(rows / batch))
    order = np.concatenate(
        [
            np.random.default_rng([seed, k]).permutation(rows)
            for k in range(math.ceil(steps * batch / rows) + 1)
        ]
    )
    marks = sorted({max(1, round(share * steps)) for share in _CHECKPOINTS})
    runs: list[TrialRun] = []
    not_run: list[tuple[str, str]] = []
    with TrainingGuard(model), name_counters_kept():
        # no keras.utils.set_random_seed here: it would reset TensorFlow's op seeds and
        # kernel caches, which no guard can put back; the copies draw their weights from
        # Keras' global seed generator, which the guard restores
        base = _copy(model, x, None)
        if isinstance(base, str):
            return Trial(False, base, seconds=time.monotonic() - start)
        initial = [v.numpy() for v in base.variables]
        baseline, budget_start = _train(base, x, y, order, batch, marks, None)
        per_run = time.monotonic() - budget_start
        if baseline is None:
            return Trial(False, "the unchanged copy did not train", seconds=per_run)
        for change in changes:
            if time.monotonic() - budget_start + per_run > max_seconds:
                not_run.append((change.label, f"out of its {max_seconds:g} s budget"))
                continue
            copy = _copy(model, x, change)
            if isinstance(copy, str):
                not_run.append((change.label, copy))
                continue
            if change.kind not in ("relu", "init"):  # the same initial weights
                for v, value in zip(copy.variables, initial, strict=True):
                    v.assign(value)
            if change.kind == "targets":  # standardized targets, the loss in the user's units
                mean, std = float(np.mean(y)), float(np.std(y)) or 1.0
                unit = std**2 if change.factor == 2 else std
                run, _ = _train(copy, x, (y - mean) / std, order, batch, marks, change.label, unit)
            else:
                run, _ = _train(copy, x, y, order, batch, marks, change.label)
            if run is not None:
                runs.append(run)
            del copy
        del base
    return Trial(
        True,
        baseline=baseline,
        runs=tuple(runs),
        not_run=tuple(not_run),
        rows=rows,
        steps=steps,
        batch_size=batch,
        seconds=time.monotonic() - start,
        checkpoints=tuple(marks),
    )


def _copy(model: Any, x: Any, change: Change | None) -> Any:
    """A compiled, built copy of ``model`` with ``change`` applied, or why there is none."""
    import keras

    optimizer = getattr(model, "optimizer", None)
    loss = getattr(model, "loss", None)
    if optimizer is None or loss is None:
        return "the model was not compiled with a loss and an optimizer"
    clone_function = None
    if change is not None and change.kind == "relu":
        clone_function = _relu_instead(model)
        if clone_function is None:
            return "the model has no hidden sigmoid/tanh layer"
    if change is not None and change.kind == "init":
        clone_function = _default_init(model)
        if clone_function is None:
            return "no layer has a suspicious initializer"
    try:
        if clone_function is None:
            copy = keras.models.clone_model(model)
        else:
            copy = keras.models.clone_model(model, clone_function=clone_function)
    except Exception as err:
        return f"the model could not be copied with keras.models.clone_model ({type(err).__name__})"
    config = optimizer.get_config()
    if change is not None and change.kind == "learning_rate":
        rate = config.get("learning_rate")
        if not isinstance(rate, int | float):
            return "the learning rate is a schedule"
        config["learning_rate"] = float(rate) * change.factor
    if change is not None and change.kind == "optimizer":
        config[change.setting] = change.value
    if change is not None and change.kind == "schedule":
        config["learning_rate"] = change.value
    if change is not None and change.kind == "clipnorm":
        config["clipnorm"] = change.factor
        config.pop("global_clipnorm", None)
        config.pop("clipvalue", None)
    fresh = optimizer.__class__.from_config(config)
    copy.compile(optimizer=fresh, loss=loss, jit_compile=False)
    if not copy.built:
        copy(keras.tree.map_structure(lambda v: v[:2], x), training=False)
    fresh.build(copy.trainable_variables)
    return copy


def _relu_instead(model: Any) -> Any:
    """A ``clone_function`` turning the hidden layers with a sigmoid/tanh activation into
    ReLU layers with He initialization (the output layer keeps its activation); None when
    there is no such layer."""
    hidden = hidden_saturating(model)
    if not hidden:
        return None
    chosen = {id(layer) for layer in hidden}

    def clone(layer: Any) -> Any:
        config = layer.get_config()
        if id(layer) in chosen:
            config["activation"] = "relu"
            if "kernel_initializer" in config:
                config["kernel_initializer"] = "he_normal"
        return layer.__class__.from_config(config)

    return clone


def _default_init(model: Any) -> Any:
    """A ``clone_function`` giving the layers with a suspicious initializer Keras' defaults
    (He normal under a ReLU, else Glorot uniform, and zero biases); None when none has one."""
    chosen = {
        id(layer)
        for layer in getattr(model, "layers", [])
        if safe_config(layer) is not None
        and (
            kernel_problem(safe_config(layer) or {}, fan_in_of(layer))
            or bias_problem(safe_config(layer) or {})
        )
    }
    if not chosen:
        return None

    def clone(layer: Any) -> Any:
        config = layer.get_config()
        if id(layer) in chosen:
            relu = getattr(getattr(layer, "activation", None), "__name__", "") in {"relu", "relu6"}
            if "kernel_initializer" in config:
                config["kernel_initializer"] = "he_normal" if relu else "glorot_uniform"
            if "bias_initializer" in config:
                config["bias_initializer"] = "zeros"
        return layer.__class__.from_config(config)

    return clone


def _train(
    copy: Any,
    x: Any,
    y: np.ndarray,
    order: np.ndarray,
    batch: int,
    marks: Sequence[int],
    label: str | None,
    unit: float = 1.0,
) -> tuple[TrialRun | None, float]:
    """Train ``marks[-1]`` steps, evaluating the loss on the rows before and at each mark
    (times ``unit``: standardized targets' loss back in the targets' units); the run and
    when its first step ended."""
    import keras

    losses = [unit * _loss(copy, x, y, batch)]
    first_end = time.monotonic()
    for step in range(marks[-1]):
        idx = order[step * batch : (step + 1) * batch]
        copy.train_on_batch(keras.tree.map_structure(lambda v, i=idx: v[i], x), y[idx])
        if step == 0:
            first_end = time.monotonic()
        if step + 1 in marks:
            losses.append(unit * _loss(copy, x, y, batch))
    return TrialRun(label or "unchanged", tuple(losses)), first_end


def _loss(copy: Any, x: Any, y: np.ndarray, batch: int) -> float:
    logs = copy.evaluate(x, y, batch_size=max(batch, 256), verbose=0, return_dict=True)
    return float(logs.get("loss", float("nan")))
