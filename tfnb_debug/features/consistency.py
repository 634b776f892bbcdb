"""``%tfconsistency``: train vs inference vs export (findings C01-C04).

:func:`check_consistency` runs the model on one batch in inference mode twice,
in training mode, and (with ``export=True``) after a ``.keras`` round trip, a
``model.export`` SavedModel round trip and two checkpoint round trips.  Every
variable of the model, its optimizer and Keras' global seed generator is
snapshotted first and put back in ``finally``: the user's model leaves
bit-identical, whatever happens.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tfnb_debug.diagnostics.consistency import (
    CheckpointObservation,
    ConsistencyThresholds,
    ExportObservation,
    InferenceObservation,
    TrainGapObservation,
    checkpoint_incomplete,
    export_mismatch,
    nondeterministic_inference,
    train_inference_gap,
)
from tfnb_debug.ground.reports import Finding, Report, Table, sort_findings
from tfnb_debug.ground.text import first_line

__all__ = ["ConsistencyReport", "ConsistencyThresholds", "check_consistency"]

_MAX_ABLATED_LAYERS = 64


@dataclass(frozen=True, kw_only=True, repr=False)
class ConsistencyReport(Report):
    """What ``%tfconsistency`` shows; every field is a plain value."""

    model_name: str
    inference: InferenceObservation
    train_gap: TrainGapObservation
    exports: tuple[ExportObservation, ...] = ()
    checkpoints: tuple[CheckpointObservation, ...] = ()


def check_consistency(
    model: Any,
    x: Any,
    *,
    export: bool = False,
    thresholds: ConsistencyThresholds | None = None,
) -> ConsistencyReport:
    """Check that ``model`` gives the same outputs on ``x`` in every way it can be run.

    ``x`` is a batch of inputs (array, tensor, list or dict) or a ``tf.data.Dataset``
    (its first batch is used).  With ``export=True`` also compare a ``.keras``
    round trip and a SavedModel export (C02) and check two checkpoint round
    trips (C04).  The model's variables, optimizer state and Keras' global seed
    generator are bit-identical afterwards.
    """
    import tensorflow as tf

    from tfnb_debug.collect._patching import preserved
    from tfnb_debug.collect.keras_access import build_from_data
    from tfnb_debug.collect.snapshot import require_keras_model
    from tfnb_debug.ground.errors import TfnbDebugError

    thresholds = thresholds or ConsistencyThresholds()
    model = require_keras_model(model, built=False)
    if isinstance(x, tf.data.Dataset):
        from tfnb_debug.collect.snapshot import first_batch

        x, _ = first_batch(x, what="X")
    build_from_data(model, x)  # a model without an Input, as its first call would build it
    model = require_keras_model(model)
    with preserved(model) as snapshot:
        try:
            reference = model(x, training=False)
        except Exception as err:
            raise TfnbDebugError(
                f"calling {model.name!r} on X raised {type(err).__name__}: {first_line(err)}; "
                "check X's shape and structure with %tfshape"
            ) from None
        inference = _inference_observation(model, x, reference)
        snapshot.restore()
        gap = _train_gap_observation(model, x, reference)
        snapshot.restore()
        exports: list[ExportObservation] = []
        checkpoints: list[CheckpointObservation] = []
        if export:
            with (
                tempfile.TemporaryDirectory(prefix="tfnb_consistency_") as folder,
                warnings.catch_warnings(),
            ):
                # Keras' own saving code warns (NumPy 2 __array__ copy=); under an
                # error filter that would read as a failed round trip.
                warnings.simplefilter("ignore", DeprecationWarning)
                keras_export, keras_ckpt = _keras_round_trip(model, x, reference, folder)
                exports.append(keras_export)
                snapshot.restore()
                exports.append(_saved_model_round_trip(model, x, reference, folder))
                snapshot.restore()
                checkpoints.append(keras_ckpt)
                checkpoints.append(_tf_checkpoint_round_trip(model, folder))

    findings: list[Finding] = []
    findings += nondeterministic_inference(inference, thresholds)
    findings += train_inference_gap(gap, thresholds)
    for obs in exports:
        findings += export_mismatch(obs, thresholds)
    for ckpt in checkpoints:
        findings += checkpoint_incomplete(ckpt)
    return ConsistencyReport(
        title=f"tfnb_debug consistency check of {model.name!r}",
        summary=_summary(export),
        findings=sort_findings(findings),
        tables=(_comparison_table(inference, gap, exports, checkpoints, thresholds),),
        model_name=model.name,
        inference=inference,
        train_gap=gap,
        exports=tuple(exports),
        checkpoints=tuple(checkpoints),
    )


# -- collectors -------------------------------------------------------------------------


def _seed_states(model: Any) -> list[tuple[str, Any]]:
    """``(layer path, seed-state variable)`` for every layer that owns a Keras SeedGenerator."""
    from keras.random import SeedGenerator

    from tfnb_debug.collect.snapshot import layer_paths

    found: list[tuple[str, Any]] = []
    for path, layer in [(model.name, model), *layer_paths(model)]:
        gens = list(getattr(layer, "_seed_generators", []) or [])
        gens += [v for v in vars(layer).values() if isinstance(v, SeedGenerator)]
        seen: set[int] = set()
        for gen in gens:
            if id(gen) not in seen:
                seen.add(id(gen))
                found.append((path, gen.state))
    return found


def _inference_observation(model: Any, x: Any, reference: Any) -> InferenceObservation:
    from tfnb_debug.collect.snapshot import global_seed_generator, relative_difference

    seeds = _seed_states(model)
    before = [state.numpy().tobytes() for _, state in seeds]
    gen = global_seed_generator()
    global_before = gen.state.numpy().tobytes() if gen is not None else None
    from tfnb_debug.collect.random_ops import random_op_calls

    with random_op_calls(model) as calls:
        second = model(x, training=False)
    max_abs, rel = relative_difference(second, reference)
    moved: list[str] = []
    for (path, state), old in zip(seeds, before, strict=True):
        if state.numpy().tobytes() != old and path not in moved:
            moved.append(path)
    gen = global_seed_generator()
    global_used = gen is not None and gen.state.numpy().tobytes() != global_before
    return InferenceObservation(max_abs, rel, tuple(moved), bool(global_used), tuple(calls))


def _training_dependent_layers(model: Any) -> list[tuple[str, Any]]:
    """Leaf layers that act differently in training: moving statistics, random ops, custom code.

    Built-in layers such as Dense also accept ``training`` but ignore it; they are skipped.
    """
    from tfnb_debug.collect.keras_access import direct_sublayers, layer_paths

    out = []
    for path, layer in layer_paths(model):
        leaf = not direct_sublayers(layer)
        if not (leaf and getattr(layer, "_call_has_training_arg", False)):
            continue
        custom = not type(layer).__module__.startswith("keras.")
        random = bool(getattr(layer, "_seed_generators", None))
        moving = hasattr(layer, "moving_mean") or hasattr(layer, "moving_variance")
        if custom or random or moving:
            out.append((path, layer))
    return out[:_MAX_ABLATED_LAYERS]


@contextlib.contextmanager
def _inference_mode(layer: Any) -> Iterator[None]:
    """Run ``layer`` with ``training=False`` whatever it is called with; removed on exit."""
    from tfnb_debug.collect._patching import patched

    original = layer.call

    def call(*args: Any, **kwargs: Any) -> Any:
        if "training" in kwargs:
            kwargs["training"] = False
        return original(*args, **kwargs)

    with patched((layer, "call", call)):
        yield


def _train_gap_observation(model: Any, x: Any, reference: Any) -> TrainGapObservation:
    from tfnb_debug.collect.snapshot import relative_difference

    _, gap = relative_difference(model(x, training=True), reference)
    rows = []
    for path, layer in _training_dependent_layers(model):
        with _inference_mode(layer):
            _, left = relative_difference(model(x, training=True), reference)
        rows.append((path, type(layer).__name__, left))
    return TrainGapObservation(gap, tuple(rows))


def _keras_round_trip(
    model: Any, x: Any, reference: Any, folder: str
) -> tuple[ExportObservation, CheckpointObservation]:
    import keras

    from tfnb_debug.collect.snapshot import relative_difference

    kind = ".keras round trip"
    steps = _optimizer_steps(model)
    path = os.path.join(folder, "model.keras")
    skipped = "not checked: the .keras file did not round-trip (see C02)"
    unregistered = _unregistered_layers(model)
    try:
        model.save(path)
    except Exception as err:
        msg = f"model.save raised {type(err).__name__}: {first_line(err)}"
        return (
            ExportObservation(kind, None, None, msg, unregistered),
            CheckpointObservation(".keras file", 0, (), steps, skipped=skipped),
        )
    ckpt_error = ""
    opt = getattr(model, "optimizer", None)
    if opt is not None and not opt.built:
        # an optimizer that never stepped is saved without state; Keras warns that it
        # skips loading it into the reloaded one, which has nothing to restore either
        warnings.filterwarnings("ignore", "Skipping variable loading for optimizer")
    try:
        loaded = keras.models.load_model(path, compile=True)
    except Exception as err:
        ckpt_error = f"load_model raised {type(err).__name__}: {first_line(err)}"
        try:
            loaded = keras.models.load_model(path, compile=False)
        except Exception as err2:
            msg = f"load_model raised {type(err2).__name__}: {first_line(err2)}"
            return (
                ExportObservation(kind, None, None, msg, unregistered),
                CheckpointObservation(".keras file", 0, (), steps, skipped=skipped),
            )
    try:
        max_abs, rel = relative_difference(loaded(x, training=False), reference)
        export_obs = ExportObservation(kind, rel, max_abs)
    except Exception as err:
        export_obs = ExportObservation(
            kind,
            None,
            None,
            f"calling the reloaded model raised {type(err).__name__}: {first_line(err)}",
        )
    if ckpt_error:
        return export_obs, CheckpointObservation(".keras file", 0, (), steps, ckpt_error)
    return export_obs, _compare_state(model, loaded, ".keras file", steps)


def _unregistered_layers(model: Any) -> tuple[str, ...]:
    """Custom layer classes in ``model`` that ``load_model`` cannot find by their registered name."""
    import keras

    from tfnb_debug.collect.snapshot import layer_paths

    names: list[str] = []
    for _, layer in layer_paths(model):
        cls = type(layer)
        if cls.__module__.startswith("keras.") or isinstance(layer, keras.Model):
            continue
        registered = keras.saving.get_registered_object(keras.saving.get_registered_name(cls))
        if registered is not cls and cls.__name__ not in names:
            names.append(cls.__name__)
    return tuple(names)


def _compare_state(model: Any, loaded: Any, kind: str, steps: int) -> CheckpointObservation:
    """Variables of ``model`` (and its optimizer) that ``loaded`` lacks or holds differently."""
    pairs: list[tuple[Any, Any | None]] = []
    mine = [v for v in model.variables if not _is_seed_state(v)]
    theirs = [v for v in loaded.variables if not _is_seed_state(v)]
    pairs += list(zip(mine, theirs + [None] * (len(mine) - len(theirs)), strict=False))
    opt = getattr(model, "optimizer", None)
    if opt is not None and opt.variables:
        other = getattr(loaded, "optimizer", None)
        other_vars = list(other.variables) if other is not None else []
        pairs += list(
            zip(
                opt.variables,
                other_vars + [None] * (len(opt.variables) - len(other_vars)),
                strict=False,
            )
        )
    lost = tuple(_var_path(a) for a, b in pairs if b is None or not _same(a, b))
    return CheckpointObservation(kind, len(pairs), lost, steps)


def _tf_checkpoint_round_trip(model: Any, folder: str) -> CheckpointObservation:
    """Write a ``tf.train.Checkpoint`` of model and optimizer, overwrite everything, read it back."""
    import tensorflow as tf

    from tfnb_debug.collect.snapshot import VariableSnapshot

    kind = "tf.train.Checkpoint"
    steps = _optimizer_steps(model)
    objects: dict[str, Any] = {"model": model}
    opt = getattr(model, "optimizer", None)
    if opt is not None:
        objects["optimizer"] = opt
    variables = [v for v in model.variables if not _is_seed_state(v)]
    if opt is not None:
        variables += list(opt.variables)
    saved = VariableSnapshot.take(variables)
    try:
        ckpt = tf.train.Checkpoint(**objects)
        path = ckpt.write(os.path.join(folder, "ckpt", "state"))
        for var in variables:  # a sentinel every restored variable must overwrite
            var.assign(var + tf.ones_like(var))
        ckpt.read(path).expect_partial()
    except Exception as err:
        return CheckpointObservation(kind, 0, (), steps, f"{type(err).__name__}: {first_line(err)}")
    return CheckpointObservation(kind, len(variables), tuple(saved.changed()), steps)


def _saved_model_round_trip(model: Any, x: Any, reference: Any, folder: str) -> ExportObservation:
    import contextlib as _cl
    import io

    import tensorflow as tf

    from tfnb_debug.collect.snapshot import relative_difference

    kind = "SavedModel (model.export)"
    first_error = ""
    # The signature is read from X, as the caller would write it: Keras' own guess for a
    # model without declared inputs is float32, which int token ids cannot be bound to,
    # and the check would then fail on its own export call, not on the model.  A model
    # built for one batch size (a stateful RNN) gets X's exact shape.
    for i, batch in enumerate((None, "exact")):
        path = os.path.join(folder, f"saved_model_{i}")
        signature = _input_signature(x, batch=batch)
        try:
            with _cl.redirect_stdout(io.StringIO()):
                model.export(path, format="tf_saved_model", input_signature=signature)
            restored = tf.saved_model.load(path)
            outputs = restored.serve(x)
        except Exception as err:
            if not first_error:
                first_error = (
                    f"model.export(input_signature={_signature_text(signature)}) or its "
                    f"serve(X) raised {type(err).__name__}: {first_line(err)}"
                )
            continue
        max_abs, rel = relative_difference(outputs, reference)
        return ExportObservation(kind, rel, max_abs)
    return ExportObservation(kind, None, None, first_error)


def _input_signature(x: Any, *, batch: str | None) -> list[Any]:
    """``model.export``'s ``input_signature`` for inputs like ``x``: each leaf's dtype and
    shape, the batch axis left open (``batch=None``) or as in ``x`` (``"exact"``)."""
    import tensorflow as tf

    def spec(leaf: Any) -> Any:
        value = tf.convert_to_tensor(leaf)
        shape = value.shape.as_list()
        if batch is None and shape:
            shape[0] = None
        return tf.TensorSpec(shape, value.dtype)

    return [tf.nest.map_structure(spec, x)]


def _signature_text(signature: list[Any]) -> str:
    import tensorflow as tf

    leaves = tf.nest.flatten(signature)
    return ", ".join(f"{leaf.dtype.name}{tuple(leaf.shape.as_list())}" for leaf in leaves)


# -- helpers ----------------------------------------------------------------------------


def _is_seed_state(var: Any) -> bool:
    return "seed_generator_state" in str(getattr(var, "path", getattr(var, "name", "")))


def _var_path(var: Any) -> str:
    return str(getattr(var, "path", getattr(var, "name", "?")))


def _same(a: Any, b: Any) -> bool:
    left, right = a.numpy(), b.numpy()
    return bool(left.shape == right.shape and left.tobytes() == right.tobytes())


def _optimizer_steps(model: Any) -> int:
    opt = getattr(model, "optimizer", None)
    if opt is None or not opt.variables:
        return 0
    try:
        return int(opt.iterations.numpy())
    except Exception:
        return 0


def _summary(export: bool) -> tuple[str, ...]:
    lines = [
        "inference twice, training vs inference mode"
        + (
            ", .keras, SavedModel and checkpoint round trips"
            if export
            else " (add --export for save/reload checks)"
        )
    ]
    lines.append("the model's variables, optimizer state and RNG state are restored afterwards")
    return tuple(lines)


def _comparison_table(
    inference: InferenceObservation,
    gap: TrainGapObservation,
    exports: list[ExportObservation],
    checkpoints: list[CheckpointObservation],
    thresholds: ConsistencyThresholds,
) -> Table:
    rows: list[tuple[Any, ...]] = []
    marks: list[str] = []

    def add(check: str, value: str, limit: str, bad: bool, mark: str) -> None:
        rows.append((check, value, limit, "differs" if bad else "ok"))
        marks.append(mark if bad else "")

    sampler_only = bool(inference.random_ops) and all(
        kind == "sampler" for *_, kind in inference.random_ops
    )
    add(
        "inference twice (C01)",
        f"{inference.rel_diff:.3g}",
        f"{thresholds.inference_rtol:g}",
        inference.rel_diff > thresholds.inference_rtol,
        "warning" if sampler_only else "error",
    )
    add(
        "training=True vs False (C03)",
        f"{gap.rel_gap:.3g}",
        f"{thresholds.train_gap:g}",
        gap.rel_gap > thresholds.train_gap,
        "warning",
    )
    for e in exports:
        value = e.error if e.error else f"{e.rel_diff:.3g}"
        bad = bool(e.error) or (e.rel_diff is not None and e.rel_diff > thresholds.export_rtol)
        add(f"{e.kind} (C02)", value, f"{thresholds.export_rtol:g}", bad, "error")
    for c in checkpoints:
        if c.skipped:
            rows.append((f"{c.kind} round trip (C04)", c.skipped, "bit-identical", "not checked"))
            marks.append("")
            continue
        value = c.error if c.error else f"{len(c.lost)} of {c.compared} variables lost/changed"
        add(f"{c.kind} round trip (C04)", value, "bit-identical", bool(c.error or c.lost), "error")
    return Table(
        "comparisons",
        ("check", "relative difference / result", "tolerance", "verdict"),
        tuple(rows),
        tuple(marks),
    )
