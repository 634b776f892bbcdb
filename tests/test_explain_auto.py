"""The automatic diagnosis: under the traceback, never altering it, switchable, removed on unload."""

from __future__ import annotations

import io
import sys
from dataclasses import replace
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

import tfnb_debug
from tests._support import run_magic
from tfnb_debug import explain
from tfnb_debug.explain import ExplainReport, NextStep, explain_exception
from tfnb_debug.ground.reports import finding

FAILING = "import tensorflow as tf\nx = tf.ones((4, 3))\ntf.add(x, tf.ones((4, 2)))\n"


def run_cell(shell: InteractiveShell, code: str) -> tuple[Any, str, list[dict[str, Any]]]:
    with capture_output() as captured:
        result = shell.run_cell(code, store_history=False)
    return result, captured.stdout, [o.data for o in captured.outputs]


def boxes(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in outputs if "tfnb-explain" in o.get("text/html", "")]


def test_box_comes_after_the_traceback_and_the_cell_still_fails(shell: InteractiveShell) -> None:
    events: list[tuple[str, Any]] = []

    class Recorder(io.StringIO):
        def write(self, text: str) -> int:
            events.append(("stdout", text))
            return len(text)

    with capture_output():
        sys.stdout = Recorder()  # capture_output puts the real stdout back on exit
        shell.display_pub.publish = lambda data, *a, **k: events.append(("display", data))  # type: ignore[method-assign]
        result = shell.run_cell(FAILING, store_history=False)
    assert result.success is False
    assert type(result.error_in_exec).__name__ == "InvalidArgumentError"
    kinds = [kind for kind, _ in events]
    assert "display" in kinds
    first_display = kinds.index("display")
    printed = "".join(text for kind, text in events[:first_display] if kind == "stdout")
    assert "InvalidArgumentError" in printed and "Incompatible shapes" in printed
    assert all(kind == "display" for kind in kinds[first_display:])  # nothing printed after the box
    data = events[first_display][1]
    assert data["text/plain"].splitlines()[1].startswith("S07 incompatible-op-shapes (error)")
    assert 'data-code="S07"' in data["text/html"]


def test_traceback_is_exactly_what_ipython_prints_without_the_extension(
    bare_shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, plain_out, plain_displays = run_cell(bare_shell, FAILING)
    assert plain.success is False and plain_displays == []
    with capture_output():
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
    try:
        working, working_out, working_displays = run_cell(bare_shell, FAILING)
        assert len(boxes(working_displays)) == 1
        assert working_out == plain_out

        def broken(exc: BaseException, **kwargs: Any) -> None:
            raise RuntimeError("diagnoser bug")

        monkeypatch.setattr(explain, "explain_exception", broken)
        failed, failed_out, failed_displays = run_cell(bare_shell, FAILING)
        assert failed.success is False
        assert failed_out == plain_out
        assert failed_displays == []
        assert "diagnoser bug" not in failed_out
    finally:
        with capture_output():
            bare_shell.run_line_magic("unload_ext", "tfnb_debug")


def test_a_rendering_bug_stays_silent(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_html(self: ExplainReport) -> str:
        raise ValueError("renderer bug")

    monkeypatch.setattr(ExplainReport, "to_html", broken_html)
    result, out, displays = run_cell(shell, FAILING)
    assert result.success is False and displays == []
    assert "renderer bug" not in out and "Incompatible shapes" in out


def test_errors_it_does_not_know_get_no_box(shell: InteractiveShell) -> None:
    for code in ("1 / 0", "raise ValueError('my own check failed')", "undefined_name"):
        result, out, displays = run_cell(shell, code)
        assert result.success is False and displays == [], code


def test_auto_off_on_and_status(shell: InteractiveShell) -> None:
    try:
        shown = run_magic(shell, "%tfnb auto off")
        assert "automatic error diagnosis is off" in shown.stdout
        _, _, displays = run_cell(shell, FAILING)
        assert displays == []
        assert "is off" in run_magic(shell, "%tfnb auto status").stdout
        assert "is off" in run_magic(shell, "%tfnb auto").stdout
        assert "is on" in run_magic(shell, "%tfnb auto on").stdout
        _, _, displays = run_cell(shell, FAILING)
        assert len(boxes(displays)) == 1
    finally:
        run_magic(shell, "%tfnb auto on")
    with pytest.raises(UsageError):
        shell.run_line_magic("tfnb", "auto maybe")
    with pytest.raises(UsageError):
        shell.run_line_magic("tfnb", "")


def test_reload_shows_one_box_and_unload_removes_it(bare_shell: InteractiveShell) -> None:
    with capture_output():
        bare_shell.run_line_magic("load_ext", "tfnb_debug")
        bare_shell.run_line_magic("reload_ext", "tfnb_debug")
    try:
        _, _, displays = run_cell(bare_shell, FAILING)
        assert len(boxes(displays)) == 1
    finally:
        with capture_output():
            bare_shell.run_line_magic("unload_ext", "tfnb_debug")
    result, _, displays = run_cell(bare_shell, FAILING)
    assert result.success is False and displays == []


def test_an_exception_a_magic_already_reported_gets_no_second_box(shell: InteractiveShell) -> None:
    code = (
        "from tfnb_debug.magics.auto import mark_reported\n"
        "import tensorflow as tf\n"
        "try:\n"
        "    tf.add(tf.ones((4, 3)), tf.ones((4, 2)))\n"
        "except Exception as err:\n"
        "    mark_reported(err)\n"
        "    raise\n"
    )
    result, out, displays = run_cell(shell, code)
    assert result.success is False and "Incompatible shapes" in out
    assert displays == []


def test_keyboard_interrupt_is_not_explained() -> None:
    assert explain_exception(KeyboardInterrupt()) is None


def test_explain_exception_on_a_real_gpu_oom_error_object() -> None:
    """The GPU allocator's message, on TensorFlow's own exception class (no GPU here to raise it)."""
    import tensorflow as tf

    err = tf.errors.ResourceExhaustedError(
        None,
        None,
        "OOM when allocating tensor with shape[256,64,224,224] and type float on "
        "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
    )
    report = explain_exception(err)
    assert report is not None and report.codes() == ["R03"]
    r03 = report.findings[0]
    assert r03.place == "GPU:0"
    assert "3.1 GiB" in r03.evidence and "GPU_0_bfc" in r03.evidence
    assert r03.hint.index("smaller batch") < r03.hint.index("mixed precision")
    assert "tfnb_debug: why this cell failed (ResourceExhaustedError)" in report.to_text()


def test_resource_exhausted_that_is_not_memory_is_not_r03() -> None:
    import tensorflow as tf

    err = tf.errors.ResourceExhaustedError(None, None, "Quota of 10 requests per minute exceeded")
    assert explain_exception(err) is None


def test_next_step_uses_the_magic_only_when_it_is_registered() -> None:
    step = NextStep(text="re-run with `%%tfshape`", magic="tfshape", fallback="print x.shape")
    base = ExplainReport(
        title="t",
        error_type="ValueError",
        findings=(finding("S01", "m", place="layer 'd'"),),
        next_steps=(step,),
    )
    assert "Next: re-run with `%%tfshape`" in base.to_text()  # unknown: show the magic
    without = replace(base, available_magics=frozenset({"tfenv"}))
    assert "Next: print x.shape" in without.to_text() and "tfshape" not in without.to_text()
    assert (
        "<code>%%tfshape</code>" in replace(base, available_magics=frozenset({"tfshape"})).to_html()
    )
    assert step.command() == "%%tfshape"


def test_public_names() -> None:
    assert tfnb_debug.explain_exception is explain_exception
    assert tfnb_debug.ExplainReport is ExplainReport


def _report_with_step(magic: str) -> ExplainReport:
    return ExplainReport(
        title="t",
        error_type="ValueError",
        findings=(finding("S01", "m", place="layer 'd'"),),
        next_steps=(
            NextStep(text=f"re-run with `%%{magic}`", magic=magic, fallback="print shapes"),
        ),
        available_magics=frozenset({magic}),
    )


def test_rerun_button_runs_the_failed_cell_under_the_magic(shell: InteractiveShell) -> None:
    from tfnb_debug.ground.state import state_for
    from tfnb_debug.magics.auto import WIDGET, close_widget, rerun_button

    calls: list[tuple[str, str]] = []

    def probe(line: str, cell: str) -> None:
        calls.append((line, cell))
        if "boom" in cell:
            raise ValueError("the magic failed")

    shell.register_magic_function(probe, "cell", "tfnb_probe")
    try:
        report = _report_with_step("tfnb_probe")
        view = rerun_button(shell, report, "x = 1\n")
        assert view is not None
        first = state_for(shell).settings[WIDGET]
        assert view["application/vnd.jupyter.widget-view+json"]["model_id"] == first.model_id
        button = first.children[0]
        assert button.description == "Re-run this cell with %%tfnb_probe"
        with capture_output():
            button.click()
        assert calls == [("", "x = 1\n")]

        assert rerun_button(shell, report, "boom\n") is not None
        assert first.comm is None, "the previous button is closed"
        second = state_for(shell).settings[WIDGET]
        with capture_output() as out:
            second.children[0].click()  # the magic's error is shown, not raised into the frontend
        assert calls[-1] == ("", "boom\n") and "the magic failed" in out.stdout

        assert rerun_button(shell, report, "%%time\nx = 1\n") is None
        unregistered = replace(report, available_magics=frozenset({"tfenv"}))
        assert rerun_button(shell, unregistered, "x = 1\n") is None
        close_widget(shell)
        assert second.comm is None and WIDGET not in state_for(shell).settings
    finally:
        shell.magics_manager.magics["cell"].pop("tfnb_probe", None)
        close_widget(shell)


FRAGMENTS = [
    "Incompatible shapes: [4,3] vs. [",
    "Dimensions must be equal, but are 3 and 2 for '{{node a/b}} = Sub[T=DT_FLOAT](x, y)' with input shapes: [?,3], [?,2].",
    "Received a label value of 9 which is outside the valid range of [0, 0).  Label values: ",
    "OOM when allocating tensor with shape[0,,3] and type weird on /device:GPU:0 by allocator x",
    "Input 0 of layer 'd' is incompatible with the layer: expected axis -1 of input shape to have value 0, but received input with shape ()",
    "expected min_ndim=4, found ndim=0. Full shape received: ()",
    "A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 0, 3), (None, 4, 3)]",
    "Inputs have incompatible shapes. Received shapes (0, 2) and (3,)",
    " : Tensor had NaN values",
    "'SymbolicTensor' object has no attribute 'numpy'",
    'in user code:\n    File "<ipython-input-1-ab>", line 2, in f  *\n',
    "Arguments `target` and `output` must have the same shape. Received: target.shape=(), output.shape=(None, 0)",
    "cannot compute Sub as input #1(zero-based) was expected to be a int32 tensor but is a float tensor",
    "Value for attr 'Tlabels' of float is not in the list of allowed values: int32",
    'Detected at node loss/x defined at (most recent call last):\n  File "/x.py", line 3, in f\n',
    "[Op:AddV2] name: ",
]


def test_explain_exception_never_raises_on_odd_messages() -> None:
    """Fragments of every pattern, cut and combined: a report or None, never an exception."""
    import tensorflow as tf
    from hypothesis import given, settings
    from hypothesis import strategies as st

    kinds = st.sampled_from(
        [
            ValueError,
            TypeError,
            AttributeError,
            tf.errors.InvalidArgumentError,
            tf.errors.ResourceExhaustedError,
        ]
    )
    pieces = st.lists(
        st.sampled_from(FRAGMENTS).flatmap(lambda f: st.integers(0, len(f)).map(lambda n: f[:n]))
        | st.text(max_size=20),
        max_size=5,
    )

    @settings(max_examples=100, deadline=None)
    @given(kinds, pieces)
    def check(kind: type[BaseException], parts: list[str]) -> None:
        message = "\n".join(parts)
        if issubclass(kind, tf.errors.OpError):
            exc: BaseException = kind(None, None, message)
        else:
            exc = kind(message)
        report = explain_exception(exc)
        if report is not None:
            assert report.findings and report.to_text() and report.to_html()

    check()


def test_a_scalar_target_shape_in_the_loss_check_message_is_explained_without_raising() -> None:
    """The case the fuzzing above once found: Keras' target/output check naming a scalar
    target shape (no axis to compare) must still give a finding, not an IndexError."""
    from tfnb_debug.explain import explain_exception

    try:
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. Received: "
            "target.shape=(), output.shape=(None, 0)"
        )
    except ValueError as err:
        report = explain_exception(err)
    assert report is not None and report.findings
