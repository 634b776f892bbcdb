"""Issue 28.3: option errors name the real problem, with the magic's usage line.

Every magic is called in a real IPython shell; the messages are the ones a user sees.
"""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from tests._support import run_magic
from tfnb_debug.magics import magic_classes
from tfnb_debug.magics.grad import GradMagics

SETUP = """
import numpy as np, keras
x = np.random.RandomState(0).rand(8, 4).astype("float32")
x3 = np.random.RandomState(1).rand(8, 3, 4).astype("float32")
y = np.arange(8) % 3
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="head")])
model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
"""


def usage_error(shell: InteractiveShell, line: str, cell: str | None = None) -> str:
    with pytest.raises(UsageError) as caught:
        run_magic(shell, line, cell)
    message = str(caught.value)
    assert "\n" not in message.strip()  # one line
    return message


@pytest.fixture
def ready(shell: InteractiveShell) -> InteractiveShell:
    shell.run_cell(SETUP)
    return shell


def test_an_option_after_model_and_input_is_named_as_unknown(ready: InteractiveShell) -> None:
    message = usage_error(ready, "%tfshape model x --bogus")
    assert message.startswith("unknown option --bogus; usage: %tfshape ")
    assert "MODEL [INPUT]" in message
    assert "not defined" not in message  # not read as the input `x - (-bogus)`


def test_an_unknown_option_before_the_model_is_named(ready: InteractiveShell) -> None:
    message = usage_error(ready, "%tfshape --bogus model x")
    assert message.startswith("unknown option --bogus; usage: %tfshape ")
    assert "cannot read" not in message


def test_tfshape_options_after_the_code_and_minus_signs_inside_it(ready: InteractiveShell) -> None:
    shown = run_magic(ready, "%tfshape model x3[:, -1] -q -o")
    assert shown.outputs == []  # -q after the code was read as an option
    head = shown.result.calls[-1]
    assert (head.name, head.inputs[0].shape, head.outputs[0].shape) == ("head", (8, 4), (8, 3))
    # `--` inside brackets is Python, `--` on its own ends the options
    for line in ("%tfshape -q -o model x3[:, --1]", "%tfshape -q -o -- model x3[:, -1]"):
        assert run_magic(ready, line).result.calls[-1].outputs[0].shape == (8, 3)


def test_tfnb_alone_lists_its_settings(ready: InteractiveShell) -> None:
    message = usage_error(ready, "%tfnb")
    assert message == "missing auto; usage: %tfnb auto [on|off|status]"
    assert "bogus" in usage_error(ready, "%tfnb auto bogus")


def test_tfgrad_usage_shows_model_x_y(ready: InteractiveShell) -> None:
    line_form = usage_error(ready, "%tfgrad model x y --bogus")
    assert line_form.startswith("unknown option --bogus; usage: %tfgrad ")
    assert "MODEL X Y" in line_form and "names" not in line_form
    cell_form = usage_error(ready, "%%tfgrad --bogus", "model.fit(x, y, verbose=0)")
    assert "usage: %%tfgrad [--every N]" in cell_form and "MODEL X Y" not in cell_form
    help_text = GradMagics.tfgrad.parser.format_help()  # type: ignore[attr-defined]
    assert "MODEL X Y" in help_text and "[names" not in help_text


def test_options_for_the_other_form_are_refused(ready: InteractiveShell) -> None:
    probe = usage_error(ready, "%tfgrad model x y --every 2 --mem")
    assert probe.startswith("--every, --mem are for recording a training cell with %%tfgrad")
    assert "--loss" in usage_error(ready, "%%tfgrad --loss mse", "model.fit(x, y, verbose=0)")
    assert "--input-shape" in usage_error(ready, "%%tfshape --input-shape 2,4", "model(x)")
    assert ready.user_ns["model"].optimizer.iterations.numpy() == 0  # nothing ran


def test_extra_words_are_named_as_unexpected(ready: InteractiveShell) -> None:
    message = usage_error(ready, "%tfconsistency model x extra")
    assert message.startswith("unexpected argument extra; usage: %tfconsistency ")
    assert usage_error(ready, "%tfconsistency model").startswith("missing x; usage: ")


MAGICS = [
    (kind, name)
    for cls in magic_classes()
    for kind in ("line", "cell")
    for name in sorted(cls.magics[kind])
]


@pytest.mark.parametrize(("kind", "name"), MAGICS, ids=[f"{k}-{n}" for k, n in MAGICS])
@pytest.mark.parametrize("where", ["first", "last"])
def test_every_magic_names_an_unknown_option_with_its_usage(
    ready: InteractiveShell, kind: str, name: str, where: str
) -> None:
    prefix = "%" if kind == "line" else "%%"
    arguments = {"tfnb": "auto", "tfconsistency": "model x", "tfoverfit": "model x"}
    arguments |= {"tflint": "model", "tfshape": "model x", "tfpipeline": "x", "tfrun": "runs/x"}
    rest = arguments.get(name, "") if kind == "line" else ""
    words = f"--bogus {rest}" if where == "first" else f"{rest} --bogus"
    cell = "z = 1" if kind == "cell" else None
    message = usage_error(ready, f"{prefix}{name} {words}", cell)
    assert message.startswith("unknown option --bogus; usage: ")
    assert f"usage: {prefix}{name} " in message
    assert "z" not in ready.user_ns  # refused before the cell ran
