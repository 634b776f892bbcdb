"""An optimizer setting other than the learning rate far outside what it is for: read from the
optimizer, judged against its class's default and the recorded gradients, tried back at
the default on a copy, and named when the trial confirms it."""

from __future__ import annotations

import dataclasses
from typing import Any

import keras
import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.collect.model_config import optimizer_settings
from tfnb_debug.diagnostics.trials import planned_changes, unusual_settings
from tfnb_debug.ground.reports import finding
from tfnb_debug.records.gradients import (
    HIST_EDGES,
    MAX_ABS,
    NAN,
    NORM,
    STAT_COLUMNS,
    GradientHistory,
    VariableMeta,
)
from tfnb_debug.records.trials import Setting


def _compiled(optimizer: Any) -> keras.Model:
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=optimizer, loss="mse")
    return model


def _settings(optimizer: Any) -> dict[str, Setting]:
    return {s.name: s for s in optimizer_settings(_compiled(optimizer))}


def test_settings_are_read_with_their_class_defaults() -> None:
    sgd = _settings(keras.optimizers.SGD(0.05, momentum=0.999))
    assert sgd["momentum"] == Setting("SGD", "momentum", 0.999, 0.0)
    assert "learning_rate" not in sgd and "nesterov" not in sgd  # the rate and booleans are not
    adam = _settings(keras.optimizers.Adam(epsilon=10.0, clipnorm=1e-5))
    assert adam["epsilon"] == Setting("Adam", "epsilon", 10.0, 1e-7)
    assert adam["clipnorm"] == Setting("Adam", "clipnorm", 1e-5, None)  # a clip is off by default
    assert "clipvalue" not in adam  # unset
    assert _settings(keras.optimizers.AdamW())["weight_decay"].default == 0.004


def _judged(*settings: Setting, rate: float = 0.01, history: Any = None) -> list[str]:
    return [c.setting for c in unusual_settings(settings, rate, history)]


@pytest.mark.parametrize(
    ("name", "value", "default", "unusual"),
    [
        ("momentum", 0.9, 0.0, False),  # the usual momentum: an average over 10 steps
        ("momentum", 0.999, 0.0, True),  # over 1000
        ("momentum", 1.0, 0.0, True),  # never forgets
        ("beta_1", 0.5, 0.9, False),  # a GAN's usual beta_1
        ("beta_2", 0.99, 0.999, False),
        ("beta_2", 0.9, 0.999, True),  # 10 steps against 1000
        ("rho", 0.95, 0.9, False),
        ("epsilon", 1e-4, 1e-7, True),
        ("epsilon", 1e-8, 1e-7, False),
        ("epsilon", 1e-6, 1e-7, False),
        ("epsilon", 1e-12, 1e-7, True),  # Adadelta's step starts from sqrt(epsilon)
        ("initial_accumulator_value", 100.0, 0.1, True),
        ("initial_accumulator_value", 1.0, 0.1, False),
        ("ema_momentum", 0.99, 0.99, False),
    ],
)
def test_decay_rates_and_offsets_are_judged_against_the_default(
    name: str, value: float, default: float, unusual: bool
) -> None:
    assert _judged(Setting("Opt", name, value, default)) == ([name] if unusual else [])


def _history(norms: float, max_abs: float, steps: int = 20) -> GradientHistory:
    stats = np.zeros((steps, 2, len(STAT_COLUMNS)))
    stats[:, :, NORM] = norms
    stats[:, :, MAX_ABS] = max_abs
    return GradientHistory(
        variables=tuple(
            VariableMeta(f"d/v{i}", "d", f"v{i}", (3,), "float32", "Opt") for i in range(2)
        ),
        steps=np.arange(steps),
        loss=np.zeros(steps),
        loss_known=np.ones(steps, dtype=bool),
        stats=stats,
        hist=np.zeros((steps, 2, len(HIST_EDGES) - 1)),
        total_steps=steps,
    )


def test_a_clip_is_judged_against_what_the_recorded_gradients_reach() -> None:
    clip = Setting("Opt", "clipnorm", 0.01, None)
    assert _judged(clip, history=_history(norms=1.0, max_abs=0.5)) == ["clipnorm"]
    assert _judged(clip, history=_history(norms=0.05, max_abs=0.02)) == []  # binds rarely
    value = Setting("Opt", "clipvalue", 0.01, None)
    assert _judged(value, history=_history(norms=1.0, max_abs=0.05)) == []  # elements small
    assert _judged(value, history=_history(norms=1.0, max_abs=0.5)) == ["clipvalue"]
    glob = Setting("Opt", "global_clipnorm", 0.5, None)
    assert _judged(glob, history=_history(norms=4.0, max_abs=1.0)) == ["global_clipnorm"]
    assert _judged(clip) == []  # no recording: only a clip of 1e-3 or less is suspected
    assert _judged(Setting("Opt", "clipnorm", 1e-5, None)) == ["clipnorm"]


def test_a_loss_scale_is_suspected_only_when_the_gradients_became_non_finite() -> None:
    scale = Setting("Adam", "loss_scale_factor", 2.0**24, None)
    finite = _history(norms=1.0, max_abs=0.5)
    assert _judged(scale, history=finite) == []
    stats = finite.stats.copy()
    stats[3, 0, NAN] = 5
    broken = dataclasses.replace(finite, stats=stats)
    assert _judged(scale, history=broken) == ["loss_scale_factor"]
    assert unusual_settings([scale], 1e-3, broken)[0].value is None  # removed on the copy


def test_weight_decay_is_judged_per_step_and_accumulation_against_the_run() -> None:
    decay = Setting("AdamW", "weight_decay", 10.0, 0.004)
    assert _judged(decay, rate=1e-3) == ["weight_decay"]  # 1% of each weight per step
    assert _judged(Setting("AdamW", "weight_decay", 0.01, 0.004), rate=1e-3) == []
    change = unusual_settings([decay], 1e-3)[0]
    assert change.value == 0.004 and "AdamW's default" in change.label
    acc = Setting("SGD", "gradient_accumulation_steps", 64.0, None)
    assert _judged(acc, history=_history(1.0, 1.0, steps=40)) == ["gradient_accumulation_steps"]
    assert _judged(acc, history=_history(1.0, 1.0, steps=1000)) == []


def test_a_setting_is_planned_only_with_a_training_fault_and_the_farthest_first() -> None:
    settings = [
        Setting("Adam", "beta_2", 0.9, 0.999),  # 100x shorter
        Setting("Adam", "epsilon", 10.0, 1e-7),  # 1e8x
        Setting("Adam", "beta_1", 0.9999, 0.9),  # 1000x longer
    ]
    stuck = finding("G07", "the loss does not fall", place="steps 0-99")
    none = planned_changes([], 1e-3, (), settings=settings)
    assert none == ()
    planned = planned_changes([stuck], 1e-3, (), settings=settings)
    tried = [c.setting for c in planned if c.kind == "optimizer"]
    assert tried == ["epsilon", "beta_1"]  # two at most, the farthest first
    epsilon = next(c for c in planned if c.setting == "epsilon")
    assert epsilon.value == 1e-7 and epsilon.label == "epsilon=1e-07 (Adam's default; was 10)"
    assert "1e+08 times the default" in epsilon.cause


def test_an_output_that_ignores_its_input_tries_the_settings_and_nothing_else() -> None:
    """P16 (after fit the prediction does not depend on the input) has many causes; of the
    changes, only an optimizer setting far from its default is tried for it."""
    ignores = finding("P16", "the model predicts one class for every input", place="model")
    settings = [Setting("RMSprop", "epsilon", 1.0, 1e-7), Setting("RMSprop", "rho", 0.9, 0.9)]
    planned = planned_changes([ignores], 1e-3, ("hidden",), settings=settings)
    assert [(c.kind, c.setting) for c in planned] == [("optimizer", "epsilon")]
    assert planned_changes([ignores], 1e-3, ("hidden",), settings=settings[1:]) == ()


SETUP = """
import numpy as np, keras
keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(512, 8)).astype("float32")
y = (x[:, 0] + x[:, 1] > 0).astype("int32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(OPT, "binary_crossentropy")
"""


@pytest.mark.slow
def test_a_huge_epsilon_is_named_and_its_default_confirmed_on_a_copy(
    shell: InteractiveShell,
) -> None:
    assert shell.run_cell(SETUP.replace("OPT", "keras.optimizers.Adam(epsilon=10.0)")).success
    before = [w.copy() for w in shell.user_ns["model"].get_weights()]
    run_magic(shell, "%%tfgrad -o -v rep --no-live", "model.fit(x, y, epochs=5, verbose=0)")
    report = shell.user_ns["rep"]
    fault = next(f for f in report.findings if "a trial on a copy points at" in f.message)
    assert "the optimizer's epsilon (10:" in fault.message
    assert fault.hint.startswith("epsilon=1e-07 (Adam's default; was 10): confirmed on a copy")
    model = shell.user_ns["model"]
    assert model.optimizer.epsilon == 10.0  # the user's optimizer is as it was
    assert any(not np.array_equal(a, b) for a, b in zip(before, model.get_weights(), strict=True))


@pytest.mark.slow
def test_a_usual_momentum_that_trains_gets_no_optimizer_change(shell: InteractiveShell) -> None:
    opt = "keras.optimizers.SGD(0.05, momentum=0.9)"
    assert shell.run_cell(SETUP.replace("OPT", opt)).success
    run_magic(shell, "%%tfgrad -o -v rep --no-live", "model.fit(x, y, epochs=5, verbose=0)")
    report = shell.user_ns["rep"]
    assert all("momentum" not in f.message + f.hint for f in report.findings), report.to_text()


def test_a_schedule_is_read_over_the_run_and_tried_at_its_first_rate_when_it_stalled() -> None:
    from tfnb_debug.collect.model_config import schedule_over_run
    from tfnb_debug.records.trials import Schedule

    fast = keras.optimizers.schedules.ExponentialDecay(0.05, decay_steps=1, decay_rate=0.9)
    read = schedule_over_run(_compiled(keras.optimizers.SGD(learning_rate=fast)), 152)
    assert read is not None and read.name == "ExponentialDecay"
    assert read.step_arguments == (("decay_steps", "1"),)
    assert read.first == pytest.approx(0.05) and read.last == pytest.approx(0.05 * 0.9**151)
    assert schedule_over_run(_compiled(keras.optimizers.SGD(0.05)), 152) is None  # a number
    stuck = finding("G07", "the loss does not fall", place="steps 0-151")
    planned = planned_changes([stuck], None, (), schedule=read)
    assert [c.kind for c in planned] == ["schedule"] and planned[0].value == read.first
    assert "decay_steps=1 counts optimizer steps" in planned[0].cause
    slow = Schedule("CosineDecay", 0.05, 0.01, 152, (("decay_steps", "1000"),))  # 5x: fine
    assert planned_changes([stuck], None, (), schedule=slow) == ()
    blew_up = finding("G05", "the loss became nan at step 3", place="step 3")
    assert planned_changes([blew_up], None, (), schedule=read) == ()  # not a stall
    warm = keras.optimizers.schedules.CosineDecay(
        0.0, decay_steps=12, warmup_target=0.003, warmup_steps=1
    )
    warmed = schedule_over_run(_compiled(keras.optimizers.Adam(learning_rate=warm)), 190)
    assert warmed is not None and warmed.first == pytest.approx(0.003)  # the peak, not step 0
    held = planned_changes([stuck], None, (), schedule=warmed)
    assert held[0].value == pytest.approx(0.003)
    assert "then set decay_steps and warmup_steps in batches" in held[0].label
