"""A ``tf.function`` of the user's code that the cell's names do not lead to (held in a dict, a
closure, a module's attribute, or defined in the recorded cell itself) is still traced afresh,
hooked, when the cell calls it under ``%%tfgrad`` or ``%%tfcheck``; afterwards it runs the
graphs it had, and a plain call after the cell trains as it would have without the magic.

Before the call-time sweep in ``collect/retrace.py`` the dict-held step of the first case
ran its cached graph unseen, and ``%%tfgrad`` refused after the whole cell had run ("the
optimizer stepped inside a tf.function traced before recording began")."""

from __future__ import annotations

import sys
import textwrap

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tfnb_debug.collect import _patching
from tfnb_debug.collect.retrace import functions_in

pytestmark = pytest.mark.slow

SETUP = """
import numpy as np, tensorflow as tf, keras
rng = np.random.default_rng(0)
x = rng.normal(size=(64, 4)).astype("float32")
y = rng.normal(size=(64, 1)).astype("float32")
model = keras.Sequential(
    [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)],
    name="reach",
)
opt = keras.optimizers.SGD(0.01)
loss_fn = keras.losses.MeanSquaredError()

def make_step():
    @tf.function
    def step(a, b):
        with tf.GradientTape() as tape:
            loss = loss_fn(b, model(a, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step
"""

MODULE = """
import tensorflow as tf

model = opt = loss_fn = None

@tf.function
def step(a, b):
    with tf.GradientTape() as tape:
        loss = loss_fn(b, model(a, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss
"""

# how the step is held: (the cell that defines it, the call the cells make, the tf.function)
HOLDERS = {
    "dict": ("steps = {'train': make_step()}", "steps['train']", "steps['train']"),
    "closure": (
        "def make_train():\n"
        "    step = make_step()\n"
        "    def train(a, b):\n"
        "        return step(a, b)\n"
        "    return train\n"
        "train = make_train()",
        "train",
        "train.__closure__[0].cell_contents",
    ),
    "module": (
        "import reach_steps_module as steps_module\n"
        "steps_module.model, steps_module.opt, steps_module.loss_fn = model, opt, loss_fn",
        "steps_module.step",
        "steps_module.step",
    ),
}


def run(shell: InteractiveShell, code: str):  # type: ignore[no-untyped-def]
    with capture_output() as out:
        result = shell.run_cell(textwrap.dedent(code).strip("\n"), store_history=False)
    assert result.success, f"{result.error_in_exec!r}\n{out.stdout[-2000:]}"
    return result, out


@pytest.fixture
def steps_module(tmp_path):  # type: ignore[no-untyped-def]
    (tmp_path / "reach_steps_module.py").write_text(MODULE)
    sys.path.insert(0, str(tmp_path))
    try:
        yield
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("reach_steps_module", None)


def traced_before(shell: InteractiveShell, holder: str) -> str:
    """Define and trace the step the ``holder`` way; the call expression the cells use."""
    define, call, _ = HOLDERS[holder]
    run(shell, SETUP)
    run(shell, define)
    run(shell, f"{call}(x[:8], y[:8])")  # traced (and one step taken) before any magic
    return call


def loop(call: str) -> str:
    return f"for i in range(0, 64, 8):\n    {call}(x[i:i + 8], y[i:i + 8])"


@pytest.mark.parametrize("holder", sorted(HOLDERS))
def test_tfgrad_records_a_step_the_cells_names_do_not_reach(
    shell: InteractiveShell, steps_module: None, holder: str
) -> None:
    call = traced_before(shell, holder)
    function = eval(HOLDERS[holder][2], shell.user_ns)  # noqa: S307 (the test's own expression)
    # the cell's names do not lead there: only the call-time sweep finds it
    assert functions_in(loop(call), shell.user_ns) == []
    traces = function.experimental_get_tracing_count()
    for _ in range(2):
        result, _ = run(shell, "%%tfgrad -q -o\n" + loop(call))
        assert result.result.history.total_steps == 8
    assert function.experimental_get_tracing_count() == traces  # its own graphs are back
    assert not _patching.is_patched()
    before = int(shell.user_ns["opt"].iterations.numpy())
    run(shell, f"plain = float({call}(x[:8], y[:8]))")  # the plain call after the cells
    assert int(shell.user_ns["opt"].iterations.numpy()) == before + 1
    assert function.experimental_get_tracing_count() == traces  # no new trace either


def test_tfcheck_checks_a_dict_held_step(shell: InteractiveShell, steps_module: None) -> None:
    call = traced_before(shell, "dict")
    _, out = run(shell, "%%tfcheck\n" + loop(call))
    text = "\n".join(o.data.get("text/plain", "") for o in out.outputs)
    assert "over 8 optimizer step(s)" in text and "NOTHING CHECKED" not in text, text[:1500]
    run(shell, f"plain = float({call}(x[:8], y[:8]))")


def test_a_step_defined_in_the_recorded_cell_runs_plainly_afterwards(
    shell: InteractiveShell,
) -> None:
    run(shell, SETUP)
    result, _ = run(shell, "%%tfgrad -q -o\nfresh_step = make_step()\n" + loop("fresh_step"))
    assert result.result.history.total_steps == 8
    step = shell.user_ns["fresh_step"]
    assert step.experimental_get_tracing_count() == 0  # the hooked graph left with the cell
    before = int(shell.user_ns["opt"].iterations.numpy())
    run(shell, "plain = float(fresh_step(x[:8], y[:8]))")
    assert int(shell.user_ns["opt"].iterations.numpy()) == before + 1


def test_library_functions_are_not_swept(shell: InteractiveShell) -> None:
    """Keras' own compiled train function is left to the magic that remakes it: the model's
    plain ``train_function`` is the same object, with the same traces, after the cell."""
    run(shell, SETUP)
    run(shell, "model.compile(optimizer=opt, loss='mse'); model.fit(x, y, verbose=0)")
    plain = shell.user_ns["model"].train_function
    run(shell, "%%tfgrad -q\nmodel.fit(x, y, verbose=0)")
    assert shell.user_ns["model"].train_function is plain


def test_a_concrete_function_is_named_before_the_cell_runs(shell: InteractiveShell) -> None:
    """A concrete function's graph cannot take the hook: ``%%tfgrad`` says so before the cell
    runs, runs it as it is, and does not refuse afterwards."""
    run(shell, SETUP)
    run(shell, "step = make_step()\ngraph = step.get_concrete_function(x[:8], y[:8])")
    before = int(shell.user_ns["opt"].iterations.numpy())
    result, out = run(shell, "%%tfgrad -q\n" + loop("graph") + "\nprint('cell ran')")
    assert int(shell.user_ns["opt"].iterations.numpy()) == before + 8  # it trained
    note = out.stdout.index("%%tfgrad: 'graph' is a concrete function")
    assert note < out.stdout.index("cell ran")  # said before the run
    assert "not recorded" in out.stdout and result.result is None
    _, out = run(shell, "%%tfcheck\n" + loop("graph"))
    assert "%%tfcheck: 'graph' is a concrete function" in out.stdout
    assert "not checked" in out.stdout


def test_record_gradients_in_a_script_sweeps_a_warmed_up_step(shell: InteractiveShell) -> None:
    """The public API sweeps too: a custom loop that warmed its step up before the block."""
    run(shell, SETUP)
    run(shell, "step = make_step(); step(x[:8], y[:8])")
    result, _ = run(
        shell,
        "import tfnb_debug\n"
        "with tfnb_debug.record_gradients(watch=[model, opt]) as rec:\n"
        "    " + loop("step").replace("\n", "\n    ") + "\n"
        "rec.result()",
    )
    assert result.result.history.total_steps == 8
    run(shell, "plain = float(step(x[:8], y[:8]))")
