"""A Sequential that fails while Keras builds it from its layer list (constructor, add()).

The most common beginner error: a layer in the list cannot take what the layer
before it gives.  Keras raises inside ``keras.Sequential([...])`` itself, while
it calls each layer on a symbolic tensor.
"""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import tfnb_debug
from tfnb_debug.collect import _patching
from tfnb_debug.features.shapes import record_shapes

BAD = (
    "model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, name='dense'), "
    "keras.layers.Reshape((3, 3), name='reshape')], name='net')\n"
)


def test_failing_constructor_under_the_cell_magic_gets_the_table_and_s01(
    shell: InteractiveShell,
) -> None:
    shell.run_cell("import keras", silent=True)
    with capture_output() as out:
        result = shell.run_cell("%%tfshape -v rep\n" + BAD)
    # the user's own exception reaches them unchanged, after the partial report
    assert result.success is False and isinstance(result.error_in_exec, ValueError)
    assert "total size of the tensor must be unchanged" in str(result.error_in_exec)
    shown = "\n".join(o.data.get("text/plain", "") for o in out.outputs)
    assert "0 layer call(s) recorded" not in shown and "already traced" not in shown
    report = shell.user_ns["rep"]
    assert [(c.path, c.status) for c in report.calls] == [
        ("net", "aborted"),
        ("net/dense", "ok"),
        ("net/reshape", "failed"),
    ]
    assert "FAILED: ValueError" in shown
    s01 = next(line for line in shown.splitlines() if line.startswith("S01 "))
    assert "at net/reshape" in s01
    assert "received (None, 4) float32 from net/dense" in s01
    assert "holds 9 values per example but 'net/dense' gives 4" in s01
    assert not any("why this cell failed" in o.data.get("text/plain", "") for o in out.outputs)
    assert not _patching.is_patched()


def test_failing_constructor_without_a_magic_gets_s01_naming_the_layer(
    shell: InteractiveShell,
) -> None:
    shell.run_cell("import keras", silent=True)
    with capture_output() as out:
        result = shell.run_cell(BAD)
    assert result.success is False and isinstance(result.error_in_exec, ValueError)
    boxes = [o.data["text/plain"] for o in out.outputs if "why this cell failed" in str(o.data)]
    assert len(boxes) == 1, out.stdout[-1500:]
    s01 = next(line for line in boxes[0].splitlines() if line.startswith("S01 "))
    assert "at layer 'reshape'" in s01
    assert "Reshape 'reshape' raised while Keras built Sequential 'net'" in s01
    assert "received (None, 4) float32 from layer 'dense'" in s01
    assert "built before it: input (None, 8) -> dense (Dense) (None, 4)" in s01
    assert "multiply to 4" in s01
    assert "%%tfshape" in boxes[0]


def test_add_of_a_bad_layer_is_recorded_and_good_builds_leave_no_rows() -> None:
    import keras

    with record_shapes() as rec:
        model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(4, name="d1")])
        model.add(keras.layers.Dense(2, name="d2"))  # rebuilds the whole graph: no rows
    assert rec.report.calls == ()
    try:
        with record_shapes() as rec:
            model.add(keras.layers.Conv2D(2, 3, name="conv"))
    except ValueError as err:
        assert "expected min_ndim=4" in str(err)
    else:
        raise AssertionError("Keras accepted a Conv2D after a Dense")
    report = rec.report
    assert [c.path for c in report.calls] == [
        model.name,
        f"{model.name}/d1",
        f"{model.name}/d2",
        f"{model.name}/conv",
    ]
    assert [c.status for c in report.calls] == ["aborted", "ok", "ok", "failed"]
    assert report.calls[0].inputs[0].producer == "input"
    assert report.codes() == ["S01"]
    s01 = report.findings[0]
    assert s01.place == f"{model.name}/conv" and f"from {model.name}/d2" in s01.evidence
    assert not _patching.is_patched()


def test_nested_sequential_inside_a_failing_sequential_keeps_its_path(
    shell: InteractiveShell,
) -> None:
    code = textwrap.dedent(
        """
        import keras
        block = keras.Sequential([keras.layers.Dense(3, name="inner")], name="block")
        model = keras.Sequential(
            [keras.Input((5,)), block, keras.layers.Reshape((2, 2), name="r")], name="outer"
        )
        """
    )
    with capture_output() as out:
        result = shell.run_cell("%%tfshape\n" + code)
    assert result.success is False
    shown = "\n".join(o.data.get("text/plain", "") for o in out.outputs)
    assert "outer/block" in shown and "outer/r" in shown
    assert "S01 shape-mismatch (error) at outer/r" in shown


def test_partial_report_comes_first_then_the_users_own_traceback(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    shell.run_cell("import keras", silent=True)
    events: list[str] = []
    show_traceback = shell.showtraceback

    def recorded_traceback(*args: Any, **kwargs: Any) -> Any:
        events.append("traceback")
        return show_traceback(*args, **kwargs)

    monkeypatch.setattr(shell, "showtraceback", recorded_traceback)
    with capture_output() as out:
        publish = shell.display_pub.publish

        def recorded_publish(*args: Any, **kwargs: Any) -> Any:
            events.append("report")
            return publish(*args, **kwargs)

        monkeypatch.setattr(shell.display_pub, "publish", recorded_publish)
        result = shell.run_cell("%%tfshape\n" + BAD)
    assert events == ["report", "traceback"]
    error = result.error_in_exec
    assert type(error) is ValueError and "Exception encountered when calling Reshape" in str(error)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout)
    assert "----> 1 model = keras.Sequential(" in plain  # the user's line
    assert "compute_reshape_output_shape" in plain  # down to where Keras raised
    # no frame of tfnb_debug's: told by the package's directory, since the clone (and the
    # .venv with Keras in it) may itself live in a folder named tfnb_debug
    assert str(Path(tfnb_debug.__file__).parent) + os.sep not in plain
