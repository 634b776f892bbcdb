"""%%tfgrad and %tfgrad through a real InteractiveShell; the HTML and plots."""

from __future__ import annotations

import matplotlib
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from keras.src.optimizers.base_optimizer import BaseOptimizer

from tests._support import run_magic
from tfnb_debug.collect.gradients import active_capture
from tfnb_debug.features.gradients import GradientReport

APPLY = BaseOptimizer.__dict__["apply"]

SETUP = """
import numpy as np, keras, tensorflow as tf
rng = np.random.default_rng(0)
x = rng.normal(size=(32, 4)).astype("float32"); y = rng.integers(0, 3, 32)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu", name="d1"),
                          keras.layers.Dense(3, name="out")], name="nb_model")
model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
"""


@pytest.fixture
def nb(shell: InteractiveShell) -> InteractiveShell:
    shell.run_cell(SETUP)
    return shell


def test_cell_magic_records_fit_and_shows_plots(nb: InteractiveShell) -> None:
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()  # another test's user cell may have left one open
    shown = run_magic(
        nb, "%%tfgrad --every 2", cell="h = model.fit(x, y, batch_size=8, epochs=2, verbose=0)"
    )
    assert shown.result is None  # the cell's own value (an assignment) is None
    assert "Gradients of model 'nb_model': 4 recorded step(s)" in shown.text
    assert shown.html.count('aria-label="gradient histogram of') == 2  # one panel a layer
    assert shown.html.count('alt="gradient norm heatmap') == 1
    assert shown.html.count('aria-label="loss over steps"') == 1
    assert "grad norm (last)" in shown.html
    assert plt.get_fignums() == open_before  # never pyplot
    assert nb.user_ns["h"].history["loss"]  # the cell really ran
    assert BaseOptimizer.__dict__["apply"] is APPLY and active_capture() is None
    assert matplotlib.get_backend()  # the user's backend untouched


def test_quiet_output_and_var(nb: InteractiveShell) -> None:
    shown = run_magic(
        nb, "%%tfgrad -q -o -v rep --max-steps 3", cell="model.fit(x, y, batch_size=8, verbose=0)"
    )
    report = shown.result
    assert isinstance(report, GradientReport) and shown.outputs == []
    assert nb.user_ns["rep"] is report
    assert report.recorded_steps == 3 and report.total_steps == 4
    assert report.for_layer("out").variables == ("nb_model/out/kernel", "nb_model/out/bias")


def test_cell_value_is_returned_without_o(nb: InteractiveShell) -> None:
    shown = run_magic(nb, "%%tfgrad -q", cell="model.train_on_batch(x[:8], y[:8])\n1 + 1")
    assert shown.result == 2


@pytest.mark.slow
def test_user_error_reaches_the_user_after_the_partial_report(nb: InteractiveShell) -> None:
    cell = (
        "class Boom(keras.callbacks.Callback):\n"
        "    def on_train_batch_end(self, batch, logs=None):\n"
        "        if batch == 1: raise RuntimeError('user boom')\n"
        "model.fit(x, y, batch_size=8, verbose=0, callbacks=[Boom()])\n"
    )
    with pytest.raises(RuntimeError, match="user boom"):
        run_magic(nb, "%%tfgrad", cell=cell)
    assert BaseOptimizer.__dict__["apply"] is APPLY and active_capture() is None
    # the run through the shell shows the partial report before the traceback, and says so
    with capture_output() as captured:
        result = nb.run_cell("%%tfgrad\n" + cell)
    assert isinstance(result.error_in_exec, RuntimeError)
    text = "\n".join(o.data.get("text/plain", "") for o in captured.outputs)
    assert "Gradients of model 'nb_model': 2 recorded step(s)" in text
    assert "partial report: the cell failed after 2 recorded step(s)" in text
    assert text.index("partial report") < text.index("optimizer step(s) taken")


def test_keyboard_interrupt_in_the_cell_restores_everything(nb: InteractiveShell) -> None:
    cell = (
        "class Stop(keras.callbacks.Callback):\n"
        "    def on_train_batch_end(self, batch, logs=None):\n"
        "        raise KeyboardInterrupt\n"
        "model.fit(x, y, batch_size=8, verbose=0, callbacks=[Stop()])\n"
    )
    before = nb.user_ns["model"].train_function
    with pytest.raises(KeyboardInterrupt):
        run_magic(nb, "%%tfgrad -q", cell=cell)
    assert BaseOptimizer.__dict__["apply"] is APPLY and active_capture() is None
    assert nb.user_ns["model"].train_function is before


def test_cell_without_an_optimizer_step_says_so(nb: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="took no optimizer step"):
        run_magic(nb, "%%tfgrad", cell="model.predict(x, verbose=0)")


def test_probe_line_magic(nb: InteractiveShell) -> None:
    before = [w.copy() for w in nb.user_ns["model"].get_weights()]
    shown = run_magic(nb, "%tfgrad -q -o model x[:8] y[:8]")
    assert isinstance(shown.result, GradientReport) and shown.result.source == "probe"
    after = nb.user_ns["model"].get_weights()
    assert all((a == b).all() for a, b in zip(before, after, strict=True))
    shown = run_magic(nb, "%tfgrad model x y --loss sparse_categorical_crossentropy")
    assert "M02" in shown.text  # a linear output read as probabilities by this loss
    # one step: histograms only
    assert "gradient histogram of" in shown.html and "heatmap" not in shown.html


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("%tfgrad nope x y", "'nope' is not defined"),
        ("%tfgrad model x", "usage: %tfgrad MODEL X Y"),
        ("%tfgrad model x y --loss nosuchloss", "unknown loss"),
        ("%tfgrad x x y", "needs a Keras model"),
    ],
)
def test_probe_bad_input_is_one_line(nb: InteractiveShell, line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        run_magic(nb, line)


def test_cell_magic_bad_options(nb: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="every"):
        run_magic(nb, "%%tfgrad --every 0", cell="pass")
    with pytest.raises(UsageError, match="takes no names"):
        run_magic(nb, "%%tfgrad model", cell="pass")


def test_cell_code_is_not_variable_expanded(nb: InteractiveShell) -> None:
    shown = run_magic(
        nb,
        "%%tfgrad -q -o",
        cell="s = '{x} $y'\nmodel.train_on_batch(x[:8], y[:8])",
    )
    assert nb.user_ns["s"] == "{x} $y"
    assert shown.result.total_steps == 1


MODELS = """
import numpy as np, keras, tensorflow as tf
rng = np.random.default_rng(0)
x = rng.normal(size=(32, 8)).astype("float32"); y = x @ rng.normal(size=(8, 1)).astype("float32")
inp = keras.Input((8,))
net = keras.Model(
    inp, keras.layers.Dense(1, name="out")(keras.layers.Dense(4, name="hidden")(inp)), name="net"
)
seq = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, name="hidden")], name="seq")
class Sub(keras.Model):
    def __init__(self):
        super().__init__(name="sub")
        self.hidden = keras.layers.Dense(1, name="hidden")
    def call(self, x):
        return self.hidden(x)
sub = Sub(); sub(x)
opt = keras.optimizers.SGD(0.01)
def step(model, xb, yb, opt):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(yb - model(xb, training=True)))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
"""


def test_custom_loop_report_names_the_model_the_cell_trains(shell: InteractiveShell) -> None:
    """A Functional model's variable paths start with a layer's name ('hidden/kernel'): the
    title names the model whose trainable variables were updated, never that layer."""
    shell.run_cell(MODELS)
    for model in ("net", "seq", "sub"):
        cell = (
            f"for i in range(2):\n"
            f"    with tf.GradientTape() as tape:\n"
            f"        loss = tf.reduce_mean(tf.square(y[:, :1] - {model}(x, training=True)[:, :1]))\n"
            f"    grads = tape.gradient(loss, {model}.trainable_variables)\n"
            f"    keras.optimizers.SGD(0.01, name='o_{model}').apply_gradients("
            f"zip(grads, {model}.trainable_variables))\n"
        )
        report = run_magic(shell, "%%tfgrad -q -o", cell=cell).result
        assert report.title.startswith(f"Gradients of model '{model}':"), report.title
        assert report.model_name == model
    # a model created in the cell (not in the notebook before it) is found where it steps
    cell = "fresh = keras.Sequential([keras.layers.Dense(1, name='hidden')], name='fresh')\n"
    cell += "fresh(x)\nstep(fresh, x, y, keras.optimizers.SGD(0.01))"
    report = run_magic(shell, "%%tfgrad -q -o", cell=cell).result
    assert report.model_name == "fresh"
    # a bare layer trained without any model: no model name rather than the layer's
    cell = "lin = keras.layers.Dense(1, name='lin'); lin(x)\n"
    cell += "with tf.GradientTape() as tape:\n    loss = tf.reduce_mean(lin(x))\n"
    cell += "opt.apply_gradients(zip(tape.gradient(loss, lin.trainable_variables), lin.trainable_variables))"
    report = run_magic(shell, "%%tfgrad -q -o", cell=cell).result
    assert report.model_name is None
    assert report.title.startswith("Gradients of the trained variables:")


def test_two_models_trained_in_one_cell_are_both_named(shell: InteractiveShell) -> None:
    shell.run_cell(MODELS)
    shell.run_cell(
        "gen = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, name='g')], name='generator')\n"
        "disc = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, name='d')], name='discriminator')\n"
        "gan = keras.Sequential([gen, disc], name='gan')\n"
    )
    cell = (
        "g_opt, d_opt = keras.optimizers.Adam(1e-3), keras.optimizers.Adam(1e-3)\n"
        "for i in range(2):\n"
        "    with tf.GradientTape() as tape:\n"
        "        d_loss = tf.reduce_mean(disc(x) - disc(gen(x)))\n"
        "    d_opt.apply_gradients(zip(tape.gradient(d_loss, disc.trainable_variables), disc.trainable_variables))\n"
        "    with tf.GradientTape() as tape:\n"
        "        g_loss = -tf.reduce_mean(gan(x))\n"
        "    g_opt.apply_gradients(zip(tape.gradient(g_loss, gen.trainable_variables), gen.trainable_variables))\n"
    )
    report = run_magic(shell, "%%tfgrad -q -o", cell=cell).result
    assert report.model_name is None  # no single model: layer names keep their model's prefix
    assert report.title.startswith("Gradients of models 'discriminator' and 'generator':")
    assert "generator/g" in report.layer_names() and "discriminator/d" in report.layer_names()
    groups = next(n for n in report.notes if "optimizer/variable groups" in n)
    assert "model 'discriminator' (" in groups and "model 'generator' (" in groups
    # a layer inspector of either model finds this report, and its layer's gradients in it
    from tfnb_debug.widgets.linking import find_gradient_report, gradient_info

    assert report.models == ("discriminator", "generator")
    for name in report.models:
        assert find_gradient_report(name, shell.user_ns, shell) is report
    info, _ = gradient_info(report, shell.user_ns["gen"].layers[0].weights)
    assert info is not None and info.source.startswith(
        "%tfgrad report of 'discriminator' and 'generator'"
    )
