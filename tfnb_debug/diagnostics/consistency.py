"""Rules C01-C04: train vs inference vs export consistency (``%tfconsistency``).

Each rule takes plain observations collected by :mod:`tfnb_debug.features.consistency`
and returns findings; nothing here touches TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tfnb_debug.ground.errors import TfnbDebugError
from tfnb_debug.ground.reports import Finding, finding

__all__ = [
    "CheckpointObservation",
    "ConsistencyThresholds",
    "ExportObservation",
    "InferenceObservation",
    "TrainGapObservation",
    "checkpoint_incomplete",
    "export_mismatch",
    "nondeterministic_inference",
    "train_inference_gap",
]


@dataclass(frozen=True)
class ConsistencyThresholds:
    """Tolerances of ``%tfconsistency``; pass ``thresholds=ConsistencyThresholds(...)`` to change.

    Relative differences are ``max|a - b| / max|b|`` over all outputs.
    """

    inference_rtol: float = 1e-4  # C01: two inference calls
    export_rtol: float = 1e-4  # C02: reloaded / exported model vs in-memory model
    train_gap: float = 0.1  # C03: training=True vs training=False
    layer_share: float = 0.25  # C03: a layer is named when it explains this share of the gap

    def __post_init__(self) -> None:
        for name in ("inference_rtol", "export_rtol", "train_gap", "layer_share"):
            value = getattr(self, name)
            if not 0 <= value < float("inf"):
                raise TfnbDebugError(
                    f"ConsistencyThresholds.{name} must be a finite number >= 0, got {value!r}"
                )


@dataclass(frozen=True)
class InferenceObservation:
    """Two ``training=False`` calls on the same input."""

    max_abs: float
    rel_diff: float
    random_layers: tuple[str, ...]  # layers whose seed generator advanced during the calls
    global_rng_used: bool  # an unseeded keras.random op ran (Keras' global seed generator moved)
    # (layer path, layer class, keras.random op, kind) for each random op called in inference;
    # kind is "dropout" (a Dropout/augmentation layer left active) or "sampler" (a custom
    # layer that draws random numbers in its own call, e.g. a VAE's sampling layer)
    random_ops: tuple[tuple[str, str, str, str], ...] = ()


@dataclass(frozen=True)
class TrainGapObservation:
    """``training=True`` vs ``training=False``, and how much each training-dependent layer explains."""

    rel_gap: float
    # (layer path, class name, relative gap left when only that layer runs in inference mode)
    layers: tuple[tuple[str, str, float], ...]


@dataclass(frozen=True)
class ExportObservation:
    kind: str  # ".keras round trip" or "SavedModel (model.export)"
    rel_diff: float | None  # None when the round trip itself failed
    max_abs: float | None
    error: str = ""
    unregistered: tuple[str, ...] = ()  # custom layer classes Keras cannot find by name on load


@dataclass(frozen=True)
class CheckpointObservation:
    kind: str  # ".keras file" or "tf.train.Checkpoint"
    compared: int  # variables compared
    lost: tuple[str, ...]  # variables changed or missing after the round trip
    optimizer_steps: int  # optimizer.iterations of the original
    error: str = ""
    skipped: str = ""  # why the round trip was not checked (its cause is reported elsewhere)


def nondeterministic_inference(
    obs: InferenceObservation, thresholds: ConsistencyThresholds
) -> list[Finding]:
    """C01: two inference calls on the same input differ.

    Dropout or augmentation left active is an error.  A custom layer that draws
    random numbers in its own ``call`` (a sampler, random on purpose) gets a
    warning that says how to make its inference repeatable.
    """
    if not obs.rel_diff > thresholds.inference_rtol:
        return []
    evidence = (
        f"relative difference {obs.rel_diff:.3g} > {thresholds.inference_rtol:g}, "
        f"max |diff| {obs.max_abs:.3g}"
    )
    dropout = [op for op in obs.random_ops if op[3] == "dropout"]
    samplers = [op for op in obs.random_ops if op[3] == "sampler"]
    if samplers and not dropout:
        return [_sampler_finding(samplers, evidence)]
    if dropout:
        place = ", ".join(dict.fromkeys(path for path, *_ in dropout))
        ops = ", ".join(
            dict.fromkeys(f"{path} ({cls}: keras.random.{op})" for path, cls, op, _ in dropout)
        )
        cause = f"layer(s) {ops} drew random numbers with training=False"
    elif obs.random_layers:
        place = ", ".join(obs.random_layers)
        cause = f"layer(s) {place} drew random numbers with training=False"
    elif obs.global_rng_used:
        place = "model"
        cause = "an unseeded keras.random op ran with training=False"
    else:
        place = "model"
        cause = "the randomness does not come from a Keras seed generator (tf.random.* in a custom layer?)"
    return [
        finding(
            "C01",
            f"two inference calls (training=False) on the same input differ: {cause}",
            place=place,
            evidence=evidence,
            hint="do not pass training=True to Dropout/augmentation layers inside the model; "
            "let Keras pass `training` down, or move augmentation into the tf.data pipeline",
        )
    ]


def _sampler_finding(samplers: list[tuple[str, str, str, str]], evidence: str) -> Finding:
    """C01 as a warning: a custom layer samples in inference, by design."""
    what = ", ".join(
        dict.fromkeys(
            f"layer '{path}' ({cls}) calls keras.random.{op}" for path, cls, op, _ in samplers
        )
    )
    classes = ", ".join(dict.fromkeys(cls for _, cls, _, _ in samplers))
    found = finding(
        "C01",
        f"two inference calls (training=False) on the same input differ: {what} with "
        "training=False, so its output is random at every inference call (a sampler by design, "
        "as in a VAE?)",
        place=", ".join(dict.fromkeys(path for path, *_ in samplers)),
        evidence=evidence,
        hint=f"if random outputs at inference are intended, nothing is wrong; for repeatable "
        f"inference give {classes}.call a `training` argument and return the mean when it is "
        "False, or draw with a fixed integer seed (seed=<int>) where outputs must repeat",
    )
    return replace(found, severity="warning")


def train_inference_gap(
    obs: TrainGapObservation, thresholds: ConsistencyThresholds
) -> list[Finding]:
    """C03: outputs in training mode differ strongly from inference mode."""
    if not obs.rel_gap > thresholds.train_gap:
        return []
    responsible = [
        (path, cls, left)
        for path, cls, left in obs.layers
        if obs.rel_gap - left >= thresholds.layer_share * obs.rel_gap
    ]
    if responsible:
        names = ", ".join(
            f"{path} ({cls}: gap {obs.rel_gap:.3g} -> {left:.3g} in inference mode)"
            for path, cls, left in responsible
        )
        place = ", ".join(path for path, _, _ in responsible)
    elif obs.layers:
        names = "no single layer; together: " + ", ".join(p for p, _, _ in obs.layers)
        place = ", ".join(p for p, _, _ in obs.layers)
    else:
        names = "no BatchNormalization/Dropout-like layer found (a custom layer using `training`?)"
        place = "model"
    has_bn = any("Normalization" in cls for _, cls, _ in responsible)
    hint = (
        "expected while a model is untrained or uses dropout; if it persists after training, "
        "BatchNormalization moving statistics may not match the data (small batches, "
        "momentum too high, frozen BN during fine-tuning)"
        if has_bn
        else "expected with dropout/noise layers; compare your metrics in inference mode "
        "(model.evaluate) rather than the training loss"
    )
    return [
        finding(
            "C03",
            f"outputs with training=True and training=False differ strongly; responsible: {names}",
            place=place,
            evidence=f"relative difference {obs.rel_gap:.3g} > {thresholds.train_gap:g}",
            hint=hint,
        )
    ]


def export_mismatch(obs: ExportObservation, thresholds: ConsistencyThresholds) -> list[Finding]:
    """C02: the reloaded / exported model does not reproduce the in-memory outputs."""
    if obs.error:
        if obs.unregistered:
            names = ", ".join(obs.unregistered)
            each = "it" if len(obs.unregistered) == 1 else "each"
            hint = (
                f"decorate {names} with @keras.saving.register_keras_serializable() and give "
                f"{each} a get_config() returning every constructor argument (or pass "
                "custom_objects= to load_model)"
            )
        elif obs.kind.startswith("SavedModel"):
            # no registration involved: the export traces call() with X's own signature
            hint = (
                "run the same model.export(path, input_signature=[...]) for the full "
                "traceback: the traced call() (no eager values such as .numpy(), no Python "
                "branch on a tensor's value) is what failed"
            )
        else:
            hint = (
                "register custom layers, losses and functions with "
                "@keras.saving.register_keras_serializable() and give custom layers a "
                "complete get_config()"
            )
        return [
            finding(
                "C02",
                f"the {obs.kind} failed, so the saved model cannot reproduce this one",
                place=obs.kind,
                evidence=obs.error,
                hint=hint,
            )
        ]
    if obs.rel_diff is None or not obs.rel_diff > thresholds.export_rtol:
        return []
    return [
        finding(
            "C02",
            f"the {obs.kind} gives different outputs from the in-memory model on the same input",
            place=obs.kind,
            evidence=f"relative difference {obs.rel_diff:.3g} > {thresholds.export_rtol:g}, "
            f"max |diff| {obs.max_abs:.3g}",
            hint="some state lives outside the saved weights and config: put every constructor "
            "argument and attribute that changes the output into get_config() or a weight "
            "(add_weight)",
        )
    ]


def checkpoint_incomplete(obs: CheckpointObservation) -> list[Finding]:
    """C04: a checkpoint round trip loses optimizer state or changes weights."""
    if obs.skipped:
        return []
    if obs.error:
        return [
            finding(
                "C04",
                f"the {obs.kind} round trip could not restore the training state",
                place=obs.kind,
                evidence=f"{obs.error}; optimizer has taken {obs.optimizer_steps} step(s)",
                hint="register custom losses, metrics and layers with "
                "@keras.saving.register_keras_serializable() so that load_model can recompile "
                "and restore the optimizer",
            )
        ]
    if not obs.lost:
        return []
    shown = ", ".join(obs.lost[:5]) + (
        f" and {len(obs.lost) - 5} more" if len(obs.lost) > 5 else ""
    )
    return [
        finding(
            "C04",
            f"after a {obs.kind} round trip {len(obs.lost)} of {obs.compared} variables are "
            f"missing or changed: {shown}",
            place=obs.kind,
            evidence=f"optimizer has taken {obs.optimizer_steps} step(s)",
            hint="create state with add_weight() (not plain tf.Variable or NumPy attributes) and "
            "checkpoint the optimizer together with the model",
        )
    ]
