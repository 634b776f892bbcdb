"""Helpers for tests: run a magic in a real shell and capture what it displays."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

GOLDEN = Path(__file__).parent / "golden"


@dataclass
class Shown:
    """What a magic displayed and returned."""

    result: Any
    stdout: str
    outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(o.get("text/plain", "") for o in self.outputs)

    @property
    def html(self) -> str:
        return "\n".join(o.get("text/html", "") for o in self.outputs)


def run_magic(shell: InteractiveShell, line: str, cell: str | None = None) -> Shown:
    """Run ``%name args`` (or ``%%name args`` with a cell) and capture what it shows."""
    name, _, args = line.lstrip("%").partition(" ")
    with capture_output() as captured:
        if cell is None:
            result = shell.run_line_magic(name, args)
        else:
            result = shell.run_cell_magic(name, args, cell)
    return Shown(result, captured.stdout, [o.data for o in captured.outputs])


def check_golden(name: str, text: str) -> None:
    """Compare ``text`` with ``tests/golden/NAME``; ``TFNB_UPDATE_GOLDEN=1`` rewrites the file."""
    path = GOLDEN / name
    if os.environ.get("TFNB_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with TFNB_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8")


def decode_png(uri: str) -> Any:
    """A PNG data URI as an (h, w, 3) uint8 array (read with matplotlib, not our writer)."""
    import base64
    import io

    import matplotlib.image as mpimg
    import numpy as np

    assert uri.startswith("data:image/png;base64,")
    image = mpimg.imread(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])), format="png")
    return (image[..., :3] * 255).round().astype(np.uint8)


#: a model whose own ``train_step`` computes an MSE with ``keras.ops`` (no loss object):
#: ``{reshape}`` is "" (targets (B,) against predictions (B, 1): S08) or a reshape of them
REGRESSION_TRAIN_STEP = """
class Reg(keras.Model):
    def train_step(self, data):
        xb, yb = data{reshape}
        with tf.GradientTape() as tape:
            pred = self(xb, training=True)
            loss = keras.ops.mean(keras.ops.square(yb - pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {{"loss": loss}}
inp = keras.Input((4,)); out = keras.layers.Dense(1, name="out")(keras.layers.Dense(8)(inp))
model = Reg(inp, out, name="reg_step")
model.compile(optimizer="adam")
"""


@contextlib.contextmanager
def extension_unloaded(shell: InteractiveShell) -> Iterator[None]:
    """``%unload_ext tfnb_debug`` for the block, loaded again afterwards."""
    with capture_output():
        shell.run_line_magic("unload_ext", "tfnb_debug")
    try:
        yield
    finally:
        with capture_output():
            shell.run_line_magic("load_ext", "tfnb_debug")


@functools.lru_cache(maxsize=1)
def tiny_run_folder() -> str:
    """A run folder of one worker and three recorded steps, written by the run writer from
    hand-made statistics (no training): a good ``%tfrun`` argument (made once per session)."""
    import tempfile

    import numpy as np

    from tfnb_debug.collect.run_writer import StepTimes, WorkerIdentity
    from tfnb_debug.features.gradient_report import build_report
    from tfnb_debug.features.run_saving import save_worker
    from tfnb_debug.records.gradients import HIST_BINS, STAT_COLUMNS, GradientHistory, VariableMeta

    variables = (VariableMeta("m/dense/kernel", "m/dense", "kernel", (4, 1), "float32", "sgd"),)
    stats = np.full((3, 1, len(STAT_COLUMNS)), 0.5, np.float32)
    stats[:, :, 3:5] = 0
    history = GradientHistory(
        variables=variables,
        steps=np.arange(3),
        loss=np.array([1.0, 0.9, 0.8]),
        loss_known=np.ones(3, bool),
        stats=stats,
        hist=np.ones((3, 1, HIST_BINS), np.float32),
        total_steps=3,
    )
    report = build_report(history, source="custom loop", model_name="m", max_steps=3)
    times = StepTimes(start=[0.0, 0.1, 0.2], end=[0.05, 0.15, 0.25], steps=[1, 1, 1])
    folder = tempfile.mkdtemp(prefix="tfnb_tiny_run_")
    save_worker(folder, report, WorkerIdentity(0, 1, "worker", 0), times)
    return folder
