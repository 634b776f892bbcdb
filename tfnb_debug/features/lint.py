"""``%tflint``: static and data-aware checks of a model and its compile configuration.

Glue over the rule functions the other features own, so every code is emitted
in one place only:

* M01-M05 loss/output pairing: :func:`tfnb_debug.diagnostics.model.check_loss_pairing`
  (labels from the data enable M04/M05);
* M07 metric-on-logits and M08 double-activation: :func:`tfnb_debug.features.model_outputs.check_outputs`
  (with data, the model's predictions on the first batches give M07 the metric
  as reported and as corrected, and M08 the measured output range);
* M06 memory budget: :func:`tfnb_debug.features.memory.estimate_model_memory`;
* S05 mixed-precision output: :func:`tfnb_debug.diagnostics.shapes.mixed_precision_output`
  on a :func:`tfnb_debug.features.shapes.trace_shapes` trace (only when a mixed policy is in use);
* P12 and N04 with data: :func:`tfnb_debug.features.pipeline.inspect_pipeline` without timing;
* P13 with ``(x, y)`` data and a ``validation_split``: :func:`tfnb_debug.features.fit_data.split_skew_of_data`;
* P16 with data, for a trained classifier: :func:`tfnb_debug.collect.fit_outcome.predict_classes`
  and :func:`tfnb_debug.diagnostics.outcomes.majority_class`.

The model's variables, optimizer state and the global RNG state are restored afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tfnb_debug.ground.reports import Finding, Report, Table, sort_findings

__all__ = ["LintReport", "lint_model"]

_DATA_CODES = ("P12", "N04")


@dataclass(frozen=True, kw_only=True, repr=False)
class LintReport(Report):
    """What ``%tflint`` shows: which checks ran, and their findings."""

    model_name: str
    checks: tuple[tuple[str, str, str], ...]  # (codes, check, status)


def lint_model(
    model: Any,
    data: Any = None,
    *,
    batch_size: int | None = None,
    device_memory: int | None = None,
    memory_thresholds: Any = None,
    pipeline_thresholds: Any = None,
    validation_split: float | None = None,
) -> LintReport:
    """Lint ``model`` (compiled, built) and, with ``data``, its pairing with the data.

    ``data`` is a ``tf.data.Dataset`` of ``(x, y)`` or an ``(x, y)`` tuple of
    arrays.  ``batch_size`` (else the data's batch size) sizes the M06
    activation estimate; ``device_memory`` (bytes) replaces the
    detected device's memory for M06.  Thresholds of the underlying features can be passed
    through (``MemoryThresholds``, ``PipelineThresholds``).  ``validation_split``
    (with ``(x, y)`` arrays) checks the labels of the split ``fit`` would make (P13).
    """
    from tfnb_debug.collect._patching import preserved
    from tfnb_debug.collect.keras_access import build_from_data
    from tfnb_debug.collect.snapshot import has_own_train_step, require_keras_model

    model = require_keras_model(model, built=False)
    x, y, dataset = _data_parts(data)
    # a model without an Input is built on the data as its first fit would build it
    build_from_data(model, x)
    if not model.built and not has_own_train_step(model):
        model = require_keras_model(model)  # the one-line "not built yet" error
    findings: list[Finding] = []
    checks: list[tuple[str, str, str]] = []
    with preserved(model):
        if validation_split is not None:
            findings += _split_skew(model, data, validation_split, checks)
        if batch_size is None and x is not None:
            batch_size = _leading(x)
        findings += _loss_pairing(model, y, checks)
        findings += _outputs(model, y, dataset, checks)
        findings += _what_reaches_the_loss(model, x, y, checks, findings)
        findings += _memory(model, batch_size, device_memory, memory_thresholds, checks)
        findings += _mixed_precision(model, x, checks)
        findings += _data_rules(model, dataset, pipeline_thresholds, checks)
        findings += _majority_class(model, data, checks)
    summary = (
        f"{len(checks)} checks of {model.name!r}"
        + ("" if data is not None else " (add --data DS for P12/N04 and label checks)"),
        *(f"{check} {status}" for _, check, status in checks if status.startswith("not checked")),
    )
    return LintReport(
        title=f"tfnb_debug lint of {model.name!r}",
        summary=summary,
        findings=sort_findings(findings),
        tables=(Table("checks", ("codes", "check", "status"), tuple(checks)),),
        model_name=model.name,
        checks=tuple(checks),
    )


def _split_skew(
    model: Any, data: Any, validation_split: float, checks: list[tuple[str, str, str]]
) -> list[Finding]:
    from tfnb_debug.features.fit_data import split_skew_of_data

    found, status = split_skew_of_data(model.name, data, validation_split)
    checks.append(("P13", f"labels of validation_split={validation_split:g}", status))
    return found


def _leading(x: Any) -> int | None:
    import keras

    try:
        return int(keras.tree.flatten(x)[0].shape[0])
    except Exception:
        return None


def _data_parts(data: Any) -> tuple[Any, Any, Any]:
    """``(x, y, dataset)`` from a dataset or an ``(x, y)`` tuple (all None without data)."""
    if data is None:
        return None, None, None
    import keras
    import numpy as np
    import tensorflow as tf

    from tfnb_debug.collect.snapshot import first_batch
    from tfnb_debug.ground.errors import TfnbDebugError

    x, y = first_batch(data, what="--data")
    if isinstance(data, tf.data.Dataset):
        dataset = data
    else:
        if y is None:
            raise TfnbDebugError("--data must be a tf.data.Dataset or an (x, y) tuple of arrays")
        # lists become tuples: tf.data cannot hold a list of labels of different shapes
        xs = keras.tree.lists_to_tuples(keras.tree.map_structure(np.asarray, x))
        ys = keras.tree.lists_to_tuples(keras.tree.map_structure(np.asarray, y))
        dataset = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(32)
        x, y = first_batch(dataset)
    y = keras.tree.map_structure(lambda t: np.asarray(t), y) if y is not None else None
    return x, y, dataset


def _loss_pairing(model: Any, y: Any, checks: list[tuple[str, str, str]]) -> list[Finding]:
    from tfnb_debug.collect.snapshot import has_own_train_step
    from tfnb_debug.diagnostics.model import check_loss_pairing

    check = "loss / output pairing"
    if getattr(model, "loss", None) is None:
        if has_own_train_step(model):
            status = "not checked: the model computes its loss in its own train_step"
        elif getattr(model, "optimizer", None) is not None:
            status = "not checked: the model was compiled without a loss"
        else:
            status = "not checked: the model is not compiled"
        checks.append(("M01-M05", check, status))
        return []
    found = check_loss_pairing(model, y)
    labels = "with labels (M04, M05)" if y is not None else "no labels: M04/M05 need --data"
    checks.append(("M01-M05", check, f"ran, {labels}"))
    return found


def _outputs(model: Any, y: Any, dataset: Any, checks: list[tuple[str, str, str]]) -> list[Finding]:
    from tfnb_debug.features.model_outputs import check_outputs

    notes: list[str] = []
    found = check_outputs(model, y=y, data=dataset, notes=notes)
    how = "; ".join(notes) if notes else "--data adds the measured numbers"
    checks.append(
        ("M07, M08", "metrics vs output scale, activations before the output", f"ran ({how})")
    )
    check = "output range vs targets, accuracy on a regression"
    if y is None:
        checks.append(("M03, M07", check, "skipped: no --data (x, y)"))
        return found
    from tfnb_debug.features.model_outputs import check_targets

    targets = check_targets(model, y)
    checks.append(("M03, M07", check, "ran (the targets of --data)"))
    return [*found, *(f for f in targets if f not in found)]


def _what_reaches_the_loss(
    model: Any, x: Any, y: Any, checks: list[tuple[str, str, str]], already: list[Finding]
) -> list[Finding]:
    """S08, M02, M03 from the model's loss run once, eagerly, on the first batch.

    A model with its own ``train_step`` runs one step of it; any other model
    computes its compiled loss on one forward pass (no gradient, no trace of
    a train function).  Both under
    :class:`~tfnb_debug.collect.training_guard.TrainingGuard` (every weight,
    optimizer, metric and random state restored) and
    :func:`~tfnb_debug.collect.loss_watch.watch_losses`.
    """
    from tfnb_debug.collect.loss_watch import watch_losses
    from tfnb_debug.collect.snapshot import has_own_train_step
    from tfnb_debug.collect.training_guard import TrainingGuard
    from tfnb_debug.diagnostics.losses import check_losses
    from tfnb_debug.ground.text import first_line

    codes, check = "S08, M02, M03", "what reaches the loss on the first batch"
    if x is None:
        checks.append((codes, check, "skipped: no --data"))
        return []
    own_step = has_own_train_step(model)
    if getattr(model, "optimizer", None) is None or (
        getattr(model, "loss", None) is None and not own_step
    ):
        checks.append((codes, check, "not checked: the model is not compiled with a loss"))
        return []
    try:
        with TrainingGuard(model), watch_losses() as watch:
            if own_step:
                model.train_step((x, y) if y is not None else x)
                how = "ran (one eager step of the model's own train_step; every state restored)"
            else:
                model.compute_loss(x=x, y=y, y_pred=model(x, training=True))
                how = "ran (the compiled loss on one forward pass; every state restored)"
    except Exception as err:
        explained = _explained(err, already)
        checks.append(
            (
                codes,
                check,
                f"not checked: it raised {type(err).__name__}: {first_line(err)}"
                + (f" (explained: {', '.join(f.code for f in explained)})" if explained else ""),
            )
        )
        return explained
    checks.append((codes, check, how))
    return check_losses(watch, already=already)


def _explained(err: BaseException, already: Sequence[Finding]) -> list[Finding]:
    """The findings the diagnosis under a failing cell gives for ``err`` (the same rules), less
    the codes the static checks already reported."""
    from tfnb_debug.explain import explain_exception

    try:
        report = explain_exception(err, fallback=False)
    except Exception:
        return []
    seen = {f.code for f in already}
    return [f for f in report.findings if f.code not in seen] if report is not None else []


def _memory(
    model: Any,
    batch_size: int | None,
    device_memory: int | None,
    thresholds: Any,
    checks: list[tuple[str, str, str]],
) -> list[Finding]:
    from tfnb_debug.features.memory import estimate_model_memory

    report = estimate_model_memory(
        model, batch_size=batch_size, device_memory=device_memory, thresholds=thresholds
    )
    what = f"batch {batch_size}" if batch_size else "parameters and optimizer state only"
    checks.append(("M06", "training memory vs device memory", f"ran ({what}; {report.device})"))
    return list(report.findings)


def _mixed_precision(model: Any, x: Any, checks: list[tuple[str, str, str]]) -> list[Finding]:
    from tfnb_debug.collect.snapshot import layer_paths

    policies = {
        str(getattr(getattr(layer, "dtype_policy", None), "name", ""))
        for _, layer in layer_paths(model)
    }
    policies.add(str(getattr(getattr(model, "dtype_policy", None), "name", "")))
    if not any(p.startswith("mixed_") for p in policies):
        checks.append(("S05", "mixed-precision output dtype", "not applicable: no mixed policy"))
        return []
    from tfnb_debug.diagnostics.shapes import ShapeFacts, mixed_precision_output
    from tfnb_debug.features.shapes import trace_shapes

    report = trace_shapes(model, x, stats=False)
    if report.failed:
        checks.append(("S05", "mixed-precision output dtype", f"trace failed: {report.error_type}"))
        return []
    checks.append(("S05", "mixed-precision output dtype", "ran (one forward pass)"))
    return mixed_precision_output(ShapeFacts(calls=report.calls), report.thresholds)


def _majority_class(model: Any, data: Any, checks: list[tuple[str, str, str]]) -> list[Finding]:
    """P16: a trained classifier whose predictions on the data collapsed to the majority class."""
    import numpy as np
    import tensorflow as tf

    from tfnb_debug.collect.fit_outcome import predict_classes
    from tfnb_debug.diagnostics.outcomes import majority_class
    from tfnb_debug.features.fit_data import classifier_head
    from tfnb_debug.ground.text import first_line

    check = "predictions vs the majority class"
    if data is None:
        checks.append(("P16", check, "skipped: no --data"))
        return []
    head = classifier_head(model)
    if head is None:
        checks.append(("P16", check, "not applicable: not a single-output classifier"))
        return []
    iterations = getattr(getattr(model, "optimizer", None), "iterations", None)
    trained = ""
    if iterations is None or int(np.asarray(iterations)) == 0:
        # the optimizer took no step here; weights loaded from a file were trained elsewhere
        from tfnb_debug.collect.trained_weights import moved_from_initial

        moved = moved_from_initial(model, head.output)
        if moved is None:
            checks.append(("P16", check, "not checked: the model has not trained yet"))
            return []
        trained = (
            f"; the optimizer has taken no step, but {moved} has moved: trained weights "
            "(loaded or trained elsewhere)"
        )
    if not isinstance(data, tf.data.Dataset) and not isinstance(data, tuple | list):
        checks.append(("P16", check, "not checked: --data is not (x, y) or a dataset"))
        return []
    try:
        predictions = predict_classes(model, data, head, examples_of="examples of --data")
    except Exception as err:
        checks.append(
            ("P16", check, f"not checked: it raised {type(err).__name__}: {first_line(err)}")
        )
        return []
    if predictions is None:
        checks.append(("P16", check, "not checked: the labels are not one class per example"))
        return []
    checks.append(("P16", check, f"ran (predictions on {predictions.source}{trained})"))
    from tfnb_debug.collect.metric_facts import collect_metrics

    kinds = tuple(fact.kind for fact in collect_metrics(model))
    return majority_class(
        predictions, model=model.name, metric_kinds=kinds, examples_of="examples of --data"
    )


def _data_rules(
    model: Any, dataset: Any, thresholds: Any, checks: list[tuple[str, str, str]]
) -> list[Finding]:
    if dataset is None:
        checks.append(("P12, N04", "labels and input range vs model", "skipped: no --data"))
        return []
    from tfnb_debug.features.pipeline import inspect_pipeline

    report = inspect_pipeline(
        dataset,
        model=model,
        batches=2,
        throughput=False,
        per_stage=False,
        augmentation=False,
        thresholds=thresholds,
    )
    checks.append(("P12, N04", "labels and input range vs model", "ran (2 sampled batches)"))
    return [f for f in report.findings if f.code in _DATA_CODES]
