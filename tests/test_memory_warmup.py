"""R01 judges the steady part of a run: a freshly started process climbs while TensorFlow
starts up and the first step traces, and that climb is not a leak."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfnb_debug.collect.memory import HOST_SERIES, MemoryRecording, SeriesRecord
from tfnb_debug.collect.memory_steps import StepMark
from tfnb_debug.diagnostics.memory import MemoryThresholds
from tfnb_debug.features.memory import build_memory_report

MiB = 2**20
ROOT = Path(__file__).resolve().parents[1]


def _recording(memory: list[float], step_times: list[float]) -> MemoryRecording:
    """Host RSS sampled every 50 ms (``memory`` in MiB); a training step ends at each of
    ``step_times`` (fewer than 8: R01 fits over time)."""
    times = tuple(round(i * 0.05, 3) for i in range(len(memory)))
    current = tuple(int(m * MiB) for m in memory)

    def at(t: float) -> int:
        return current[max(i for i, s in enumerate(times) if s <= t)]

    steps = tuple(StepMark(i, t, "fit", ((HOST_SERIES, at(t)),)) for i, t in enumerate(step_times))
    series = SeriesRecord(HOST_SERIES, "host", None, times, current, (None,) * len(times))
    return MemoryRecording(0.05, times[-1], (series,), steps, (), 0)


def _codes(recording: MemoryRecording) -> list[str]:
    report = build_memory_report(recording, interval_ms=50, thresholds=MemoryThresholds())
    return report.codes()


def test_the_start_up_before_the_first_step_is_left_out() -> None:
    """As measured on a fresh kernel: 25 MiB in the 0.5 s before a 5-step fit's first step
    ended (TensorFlow's start-up, the trace), then flat: not a leak."""
    memory = [625 + 25 * min(i, 11) / 11 for i in range(13)]
    first_step = 0.5
    recording = _recording(memory, [first_step + 0.01 * i for i in range(5)])
    report = build_memory_report(recording, interval_ms=50, thresholds=MemoryThresholds())
    assert "R01" not in report.codes()
    assert any("from the end of the first step on (0.50 s" in line for line in report.summary)
    # the same readings with no step seen: nothing tells the start-up apart, R01 judges them all
    assert "R01" in _codes(_recording(memory, []))


def test_a_climb_after_the_first_step_still_fires_over_time() -> None:
    """Five steps over 2 s, memory climbing 12 MiB a second after the first one: a leak."""
    memory = [650.0] * 4 + [650 + 0.6 * i for i in range(40)]
    recording = _recording(memory, [0.2, 0.6, 1.0, 1.4, 1.8])
    report = build_memory_report(recording, interval_ms=50, thresholds=MemoryThresholds())
    found = [f for f in report.findings if f.code == "R01"]
    assert len(found) == 1
    assert "after the first training step (5 step(s) seen, fewer than 8" in found[0].message


_FRESH_KERNEL = """
import json, numpy as np
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
shell = InteractiveShell.instance()
with capture_output():
    shell.run_line_magic("load_ext", "tfnb_debug")
    shell.run_cell("import numpy as np, keras\\n"
                   "x = np.random.default_rng(0).normal(size=(160, 32)).astype('float32')\\n"
                   "y = (x[:, 0] > 0).astype('int32')")
    report = shell.run_cell_magic("tfmem", "-o --no-live", '''
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, epochs=1, batch_size=32, verbose=0)
''')
print(json.dumps({"codes": report.codes(), "summary": list(report.summary)}))
"""


@pytest.mark.slow
def test_the_first_tfmem_cell_of_a_fresh_kernel_is_not_a_leak() -> None:
    """A new kernel whose first cell trains a new model for 5 steps under %%tfmem: its memory
    climbs while TensorFlow starts and the step traces (24 MiB, R^2 0.85, measured), which
    R01 used to call a leak."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _FRESH_KERNEL],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert "5 training step(s) seen via fit" in shown["summary"][0]
    assert any("from the end of the first step on" in line for line in shown["summary"])
    assert "R01" not in shown["codes"]
