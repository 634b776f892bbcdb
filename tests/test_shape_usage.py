"""%tfshape's help and one-line refusals; a failing trace states the framework's error once."""

from __future__ import annotations

import textwrap

import keras
import numpy as np
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests._support import run_magic
from tfnb_debug.features.shapes import trace_shapes
from tfnb_debug.ground.errors import TfnbDebugError

GAN = textwrap.dedent(
    """
    import keras
    import numpy as np
    class GAN(keras.Model):
        def __init__(self, discriminator, generator, latent_dim):
            super().__init__(name="gan")
            self.discriminator = discriminator
            self.generator = generator
            self.latent_dim = latent_dim

        def compile(self, d_optimizer, g_optimizer, loss_fn):
            super().compile()
            self.d_optimizer, self.g_optimizer, self.loss_fn = d_optimizer, g_optimizer, loss_fn

        def train_step(self, real_images):
            return {}

    generator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8)], name="generator")
    discriminator = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1)], name="discriminator")
    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=4)
    gan.compile(keras.optimizers.Adam(), keras.optimizers.Adam(), keras.losses.BinaryCrossentropy())
    """
)


def test_usage_line_shows_model_and_input(shell: InteractiveShell) -> None:
    doc = shell.find_line_magic("tfshape").__doc__ or ""
    usage = doc.split("\n\n")[1]
    assert "%tfshape [--input-shape SHAPE]" in usage and usage.splitlines()[0].endswith(
        "MODEL [INPUT]"
    )
    assert "%%tfshape [--no-stats] [--inspect] [--mem]" in usage


def test_model_without_call_gets_one_line_naming_its_sub_models(shell: InteractiveShell) -> None:
    assert shell.run_cell(GAN, silent=True).success
    for line in ("%tfshape gan", "%tfshape gan np.zeros((2, 8), 'float32')"):
        with pytest.raises(UsageError) as caught:
            run_magic(shell, line)
        message = str(caught.value)
        assert "\n" not in message
        assert message == (
            "model 'gan' defines no call(), so it cannot be traced: trace its sub-models "
            "instead: %tfshape gan.discriminator, %tfshape gan.generator"
        )
    # through the shell: the user sees that line, not a traceback from tfnb_debug, and no S01
    with capture_output() as out:
        result = shell.run_cell("%tfshape gan")
    assert isinstance(result.error_in_exec, UsageError)
    assert "tfnb_debug/features/shapes.py" not in out.stdout + out.stderr
    assert not any("S01" in o.data.get("text/plain", "") for o in out.outputs)
    with pytest.raises(TfnbDebugError, match="model 'gan' defines no call"):
        trace_shapes(shell.user_ns["gan"], np.zeros((2, 8), "float32"))


def test_failing_trace_states_the_error_once() -> None:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(3, name="d")], name="m")
    report = trace_shapes(model, np.zeros((2, 5), "float32"))
    assert report.failed and report.codes() == ["S01"]
    text = report.to_text(width=400)
    assert text.count(report.error) == 1, text
    assert "FAILED in 'm/d' (Dense): ValueError, see the failing layer and S01 below" in text
    assert "m/d (Dense) raised ValueError on these inputs:" in text
    assert "input 0: (2, 5) float32 from input" in text
    html = report.to_html()
    from html import escape

    assert html.count(escape(report.error)) == 1
