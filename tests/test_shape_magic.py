"""%tfshape / %%tfshape through a real InteractiveShell."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests._support import run_magic
from tfnb_debug.collect import _patching
from tfnb_debug.features.shapes import ShapeReport
from tfnb_debug.magics.shape import split_model_input, split_options

SETUP = """
import keras, numpy as np
L = keras.layers
a = keras.Input((4,), name="a"); b = keras.Input((4,), name="b")
dual = keras.Model({"a": a, "b": b}, L.Dense(2, name="head")(L.Concatenate(name="cat")([a, b])), name="dual")
seq = keras.Sequential([keras.Input((4,)), L.Dense(3, name="d")], name="seq")
bad = keras.Sequential([L.Conv2D(2, 3, name="conv"), L.LSTM(3, name="lstm")], name="bad")
class Sub(keras.Model):
    def __init__(self):
        super().__init__(name="sub"); self.d = L.Dense(2, name="d")
    def call(self, x):
        return self.d(x)
sub = Sub()
x4 = np.ones((2, 4), "float32")
"""


def setup(shell: InteractiveShell) -> None:
    result = shell.run_cell(SETUP, silent=True)
    assert result.success, result.error_in_exec


def test_split_helpers_keep_code_verbatim() -> None:
    assert split_options("-q -o --input-shape 2,4 model") == ("-q -o --input-shape 2,4", "model")
    assert split_options("-v rep -- -model") == ("-v rep", "-model")
    assert split_model_input("m {'a': x,  'b': y}") == ("m", "{'a': x,  'b': y}")
    assert split_model_input("models['a b'] np.zeros((2, 4))") == (
        "models['a b']",
        "np.zeros((2, 4))",
    )
    with pytest.raises(UsageError, match="MODEL \\[INPUT\\]"):
        split_model_input("m x y")


def test_line_magic_outputs_and_options(shell: InteractiveShell) -> None:
    setup(shell)
    shown = run_magic(shell, "%tfshape seq")
    assert shown.result is None
    assert "seq/d" in shown.text and "seq/d" in shown.html
    quiet = run_magic(shell, "%tfshape -q -o -v rep seq np.zeros((2, 4), 'float32')")
    assert quiet.outputs == [] and isinstance(quiet.result, ShapeReport)
    assert shell.user_ns["rep"] is quiet.result
    assert quiet.result.total_params == shell.user_ns["seq"].count_params()
    braces = run_magic(shell, "%tfshape -q -o dual {'a': x4, 'b': x4}")
    assert [c.path for c in braces.result.calls] == ["dual", "dual/cat", "dual/head"]
    shaped = run_magic(shell, "%tfshape -q -o --input-shape 3,5 sub")
    assert shaped.result.calls[0].inputs[0].shape == (3, 5)


def test_unbuilt_model_gives_s04_with_the_line_to_type(shell: InteractiveShell) -> None:
    setup(shell)
    shell.run_cell("fresh = Sub()", silent=True)
    shown = run_magic(shell, "%tfshape -o fresh")
    assert shown.result.codes() == ["S04"]
    assert "%tfshape fresh --input-shape 2," in shown.text


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("%tfshape nothing_here", "'nothing_here' is not defined"),
        ("%tfshape x4", "must be a Keras 3 model or layer, got ndarray"),
        ("%tfshape dual x4", "takes a dict of inputs"),
        ("%tfshape seq {'a': 1}", "must be an array or tensor"),
        ("%tfshape --input-shape 2,a seq", "not a list of integers"),
        ("%tfshape", "no model given"),
    ],
)
def test_bad_input_is_one_line_usage_error(
    shell: InteractiveShell, line: str, message: str
) -> None:
    setup(shell)
    with pytest.raises(UsageError, match=message) as err:
        run_magic(shell, line)
    assert "\n" not in str(err.value)
    assert not _patching.is_patched()


def test_failure_shows_partial_table_then_raises_the_user_error(shell: InteractiveShell) -> None:
    setup(shell)
    with (
        capture_output() as captured,
        pytest.raises(ValueError, match="expected ndim=3, found ndim=4"),
    ):
        shell.run_line_magic("tfshape", "bad np.zeros((2, 8, 8, 1), 'float32')")
    (shown,) = [o.data for o in captured.outputs]
    assert "bad/lstm" in shown["text/plain"] and "!!" in shown["text/plain"]
    assert 'class="tfnb-row tfnb-error"' in shown["text/html"]
    assert "background:#fde2e2" in shown["text/html"]
    assert "S01 shape-mismatch" in shown["text/plain"]
    assert not _patching.is_patched()


def test_cell_magic_records_construction_and_calls(shell: InteractiveShell) -> None:
    setup(shell)
    shown = run_magic(
        shell,
        "%%tfshape -o",
        cell="inp = keras.Input((3,))\nm = keras.Model(inp, L.Dense(2, name='h')(inp), name='cm')\nm(np.ones((2, 3), 'float32'))\n",
    )
    report = shown.result
    assert [(c.path, c.mode) for c in report.calls] == [
        ("h", "symbolic"),
        ("cm", "eager"),
        ("cm/h", "eager"),
    ]
    assert "cm (Functional)" in shown.text
    value = run_magic(shell, "%%tfshape -q", cell="seq(x4).shape")
    assert tuple(value.result) == (2, 3)


def test_cell_failure_is_reported_and_the_cell_fails(shell: InteractiveShell) -> None:
    setup(shell)
    with capture_output() as captured:
        result = shell.run_cell("%%tfshape\nseq(x4)\nbad(np.zeros((2, 8, 8, 1), 'float32'))\n")
    assert not result.success
    assert isinstance(result.error_in_exec, ValueError)
    assert "expected ndim=3" in str(result.error_in_exec)
    text = "\n".join(o.data.get("text/plain", "") for o in captured.outputs)
    assert "FAILED in 'bad/lstm'" in text
    assert "seq/d" in text
    assert not _patching.is_patched()


def test_bad_var_name_is_refused_before_the_cell_runs(shell: InteractiveShell) -> None:
    """A bad -v must not run the cell, nor replace the cell's own exception afterwards."""
    shell.user_ns["ran"] = []
    with pytest.raises(UsageError, match="-v needs a Python variable name"):
        run_magic(shell, "%%tfshape -q -v 1bad", cell="ran.append(1)\nraise ValueError('mine')")
    assert shell.user_ns["ran"] == []
    assert not _patching.is_patched()


def test_failing_tfshape_cell_is_not_explained_twice(shell: InteractiveShell) -> None:
    """%%tfshape already showed S01 with the table: the automatic diagnosis stays out of it."""
    shell.run_cell(
        "import keras\n"
        "_i = keras.Input((16, 16, 3))\n"
        "_a = keras.layers.Conv2D(8, 3, padding='same', name='c_a')(_i)\n"
        "_b = keras.layers.Conv2D(8, 3, strides=2, padding='same', name='c_b')(_a)\n"
    )
    with capture_output() as out:
        result = shell.run_cell("%%tfshape\nkeras.layers.Concatenate(name='fuse')([_a, _b])\n")
    assert result.success is False and isinstance(result.error_in_exec, ValueError)
    shown = [o.data.get("text/plain", "") for o in out.outputs]
    assert any("S01 shape-mismatch" in text and "from c_a" in text for text in shown)
    assert not any("why this cell failed" in text for text in shown)
    # the same error outside the magic still gets the automatic diagnosis
    with capture_output() as plain:
        again = shell.run_cell("keras.layers.Concatenate(name='fuse2')([_a, _b])\n")
    assert again.success is False
    assert any("why this cell failed" in o.data.get("text/plain", "") for o in plain.outputs)


def test_a_failing_display_never_replaces_the_users_exception(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken renderer (our own code, made to fail) must not mask the cell's error."""
    import tfnb_debug.magics.shape as shape_magic

    def broken_emit(*args: object, **kwargs: object) -> None:
        raise RuntimeError("renderer broke")

    monkeypatch.setattr(shape_magic, "emit", broken_emit)
    with pytest.raises(ZeroDivisionError):
        shell.run_cell_magic("tfshape", "", "1 / 0\n")
    assert not _patching.is_patched()
    # when the cell itself succeeded, the renderer's failure is reported, not hidden
    with pytest.raises(RuntimeError, match="renderer broke"):
        shell.run_cell_magic("tfshape", "", "_ok = 1\n")
