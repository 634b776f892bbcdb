"""Issue 28.4: when the user's code fails under a magic, the traceback IPython prints shows
the user's frames and exception, and no frame from inside tfnb_debug.

Each failing cell runs through ``shell.run_cell`` in a real shell and the printed
traceback is read back as text.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import tfnb_debug

# tfnb_debug's own files, by their directory: a clone folder named tfnb_debug puts
# "tfnb_debug/" in every path (the .venv's too), so the name alone proves nothing
OURS = str(Path(tfnb_debug.__file__).parent) + "/"

SETUP = """
import numpy as np, keras, tensorflow as tf

def user_helper(t):
    raise ValueError("user boom")

class Boom(keras.layers.Layer):
    def compute_output_shape(self, shape):
        return shape
    def call(self, t):
        return user_helper(t)

x = np.zeros((4, 4), "float32")
y = np.zeros((4, 3), "float32")
boom = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), Boom()])
boom.compile("sgd", "mse")
inp = keras.Input((4,))
wide = keras.Model(inp, keras.layers.Dense(3)(keras.layers.Dense(5)(inp)))
wide.compile("sgd", "mse")
x5 = np.zeros((4, 5), "float32")
opt = keras.optimizers.SGD()

@tf.function
def step(xb, yb):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((wide(xb) - yb) ** 2)
    grads = tape.gradient(loss, wide.trainable_variables)
    opt.apply_gradients(zip(grads, wide.trainable_variables))
    return loss

@tf.function
def pick(t):
    return tf.gather(t, [10])  # fails when it runs: "Detected at node ... defined at"
"""

ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: (cell, text of the user's own frame or line that must be shown)
FAILING = {
    "user layer in fit": ("boom.fit(x, y, verbose=0)", 'raise ValueError("user boom")'),
    "user layer called": ("boom(x)", "return user_helper(t)"),
    "keras shape error in fit": ("wide.fit(x5, y, verbose=0)", "wide.fit(x5, y, verbose=0)"),
    "tf.function loop": ("step(x5, y)", "loss = tf.reduce_mean((wide(xb) - yb) ** 2)"),
    "plain raise": ("user_helper(1)", 'raise ValueError("user boom")'),
    "op fails at run time": ("pick(tf.zeros(4))", "pick(tf.zeros(4))"),
}

CELL_MAGICS = ["%%tfshape", "%%tfgrad --no-live", "%%tfcheck --no-live", "%%tfmem --no-live"]


@pytest.fixture
def ready(shell: InteractiveShell) -> InteractiveShell:
    assert shell.run_cell(SETUP).success
    return shell


def printed_traceback(shell: InteractiveShell, source: str) -> tuple[str, BaseException]:
    with capture_output() as captured:
        result = shell.run_cell(source)
    assert not result.success and result.error_in_exec is not None
    return ANSI.sub("", captured.stdout), result.error_in_exec


def assert_only_user_frames(text: str, own: str, err: BaseException) -> None:
    assert "Traceback (most recent call last)" in text
    assert OURS not in text, text
    assert own in text
    assert f"{type(err).__name__}: " in text  # the exception line
    assert OURS not in str(err)  # not in TensorFlow's 'in user code:' list either


@pytest.mark.parametrize("magic", CELL_MAGICS)
@pytest.mark.parametrize("case", list(FAILING))
def test_a_failing_cell_shows_only_the_users_frames(
    ready: InteractiveShell, magic: str, case: str
) -> None:
    code, own = FAILING[case]
    text, err = printed_traceback(ready, f"{magic}\n{code}")
    assert_only_user_frames(text, own, err)
    assert any(s in text for s in ("user boom", "incompatible", "Detected at node"))
    from tensorflow.python.util import tf_stack, traceback_utils

    package = str(Path(tfnb_debug.__file__).parent)
    assert not any(p.rstrip("/").startswith(package) for p in traceback_utils._EXCLUDED_PATHS)
    filters = tf_stack._source_filter_stacks[threading.get_ident()]
    assert [type(f).__name__ for f in filters] == ["SentinelFilter"]  # popped


@pytest.mark.parametrize(
    ("line", "own"),
    [("%tfshape boom x", 'raise ValueError("user boom")'), ("%tfshape wide x5", "incompatible")],
)
def test_line_tfshape_shows_the_table_then_only_the_users_frames(
    ready: InteractiveShell, line: str, own: str
) -> None:
    with capture_output() as captured:
        result = ready.run_cell(line)
    assert result.error_in_exec is not None
    assert_only_user_frames(ANSI.sub("", captured.stdout), own, result.error_in_exec)
    shown = [o.data.get("text/plain", "") for o in captured.outputs]
    assert any("FAILED in" in text and "S01" in text for text in shown)  # the table came too


def test_the_users_exception_object_reaches_them_unchanged(ready: InteractiveShell) -> None:
    ready.run_cell("mine = KeyError('mine')\ndef fail():\n    raise mine")
    for magic in CELL_MAGICS:
        text, err = printed_traceback(ready, f"{magic}\nfail()")
        assert err is ready.user_ns["mine"]
        assert_only_user_frames(text, "raise mine", err)


def test_xmode_show_still_shows_every_frame(ready: InteractiveShell) -> None:
    ready.run_line_magic("xmode", "--show")
    try:
        text, _ = printed_traceback(ready, "%%tfcheck --no-live\nwide.fit(x5, y, verbose=0)")
    finally:
        ready.run_line_magic("xmode", "--hide")
    assert OURS in text  # the user asked for hidden frames: nothing was cut


@pytest.mark.parametrize("magic", [*CELL_MAGICS, "%%tfpipeline"])
def test_a_syntax_error_is_shown_like_ipythons_and_nothing_runs(
    ready: InteractiveShell, magic: str
) -> None:
    with capture_output() as captured:
        result = ready.run_cell(f"{magic}\nran = True\ndef broken(:\n    pass")
    text = ANSI.sub("", captured.stdout + captured.stderr)
    assert OURS not in text, text
    assert "Cell In[" in text and "def broken(:" in text and "SyntaxError: " in text
    assert "UsageError: the cell has a syntax error (shown above)" in text
    assert not result.success and "ran" not in ready.user_ns
    assert captured.outputs == []  # no partial report: nothing was recorded


def test_tfoverfit_lets_the_users_error_through_without_its_frames(
    ready: InteractiveShell,
) -> None:
    ready.run_cell(
        "class TrainBoom(keras.layers.Layer):\n"
        "    def call(self, t, training=None):\n"
        "        return user_helper(t) if training else t\n"
        "trainboom = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), TrainBoom()])\n"
        "trainboom.compile('sgd', 'mse')\n"
        "y1 = np.ones((4, 3), 'float32')"  # zeros would be fit before any step (no training)
    )
    text, err = printed_traceback(ready, "%tfoverfit trainboom (x,y1) --steps 2")
    assert_only_user_frames(text, 'raise ValueError("user boom")', err)
    # data the model cannot take at all is bad input: one line, no traceback
    text, err = printed_traceback(ready, "%tfoverfit wide (x5,y) --steps 2")
    assert "Traceback" not in text and "cannot take DATA" in str(err)
