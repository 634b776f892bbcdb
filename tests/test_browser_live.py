"""End to end in a real browser: the %%tfgrad live view in JupyterLab 4 and Notebook 7.

A notebook fits a small model for about six seconds (a callback sleeps 40 ms a
step) under ``%%tfgrad --live-interval 0.3``.  While the cell runs, the test
polls the page: the cell's output area holds exactly one live view
(``.tfnb-live``), its update counter and its step number climb, and it shows
the heatmap strip.  When the cell ends, the report has taken the live view's
place in the same output area.  A second cell is interrupted from the
frontend (the kernel's interrupt, as the stop button does) in the middle of
its fit: its output keeps a partial report that states how many steps were
recorded, above the KeyboardInterrupt.  Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.browser_lab import notebook_in_browser, screenshot, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETUP = """import time
import numpy as np, keras
keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu", name="hidden"),
                          keras.layers.Dense(1, name="out")], name="mlp")
model.compile("sgd", "mse")
x = np.random.rand(1024, 8).astype("float32"); y = np.random.rand(1024, 1).astype("float32")
class Slow(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        time.sleep(0.04)"""
CELLS = [
    "%load_ext tfnb_debug",
    SETUP,
    "%%tfgrad --live-interval 0.3\n"
    "model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[Slow()])",
    "%%tfgrad --live-interval 0.3\n"
    "model.fit(x, y, batch_size=8, epochs=3, verbose=0, callbacks=[Slow()])",
]
LIVE_CELL, INTERRUPTED_CELL = 2, 3


def cell_outputs(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-CodeCell").nth(index).locator(".jp-OutputArea-output")


def run_cell(page: Any, index: int) -> None:
    page.evaluate(
        "(i) => { const nb = window.jupyterapp.shell.currentWidget.content;"
        " nb.activeCellIndex = i; window.jupyterapp.commands.execute('notebook:run-cell'); }",
        index,
    )


def wait_cell(page: Any, index: int, timeout_ms: int = 180_000) -> None:
    """Wait until cell ``index`` shows an execution count and the kernel is idle."""
    page.wait_for_function(
        "(i) => { const w = window.jupyterapp.shell.currentWidget;"
        " const k = w.sessionContext.session && w.sessionContext.session.kernel;"
        " const cell = document.querySelectorAll('.jp-Notebook .jp-CodeCell')[i];"
        " const prompt = cell.querySelector('.jp-InputArea-prompt');"
        " return k && k.status === 'idle' && /\\[\\d+\\]/.test(prompt.textContent); }",
        arg=index,
        timeout=timeout_ms,
    )


def live_state(page: Any, index: int) -> dict[str, Any]:
    """What the cell's output area shows now: how many live views, their counter and text."""
    return page.evaluate(
        "(i) => { const cell = document.querySelectorAll('.jp-Notebook .jp-CodeCell')[i];"
        " const live = [...cell.querySelectorAll('.tfnb-live')];"
        " const outputs = cell.querySelectorAll('.jp-OutputArea-output').length;"
        " return {count: live.length, outputs,"
        "  updates: live.length ? Number(live[0].dataset.updates) : null,"
        "  text: live.length ? live[0].innerText : '',"
        "  strip: live.length ? live[0].querySelectorAll('img').length : 0}; }",
        index,
    )


def watch_live(page: Any, index: int, timeout: float = 120.0) -> list[dict[str, Any]]:
    """Poll the cell every 100 ms until it has an execution count; every state seen."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = live_state(page, index)
        if state["count"]:
            seen.append(state)
        prompt = page.locator(".jp-Notebook .jp-CodeCell").nth(index)
        if re.search(r"\[\d+\]", prompt.locator(".jp-InputArea-prompt").inner_text()):
            return seen
        page.wait_for_timeout(100)
    raise AssertionError(f"the cell did not end within {timeout:.0f} s")


def step_of(text: str) -> int | None:
    """The step the live view shows (None in its first state, before a step is recorded)."""
    match = re.search(r"step (\d[\d,]*)", text)
    return int(match.group(1).replace(",", "")) if match else None


def drive_the_live_view(page: Any, tag: str) -> None:
    for index in (0, 1):
        run_cell(page, index)
        wait_cell(page, index)

    run_cell(page, LIVE_CELL)
    seen = watch_live(page, LIVE_CELL)
    assert len(seen) >= 4, seen  # ~6 s of fit, an update every 0.3 s
    assert all(state["count"] == 1 for state in seen)  # one live view, never a second one
    assert all(state["outputs"] == 1 for state in seen)  # updated in place, nothing appended
    counters = [state["updates"] for state in seen]
    assert counters == sorted(counters) and counters[-1] - counters[0] >= 3, counters
    steps = [step for state in seen if (step := step_of(state["text"])) is not None]
    assert len(steps) >= 3 and steps == sorted(steps) and steps[-1] > steps[0], steps
    assert all(state["text"].startswith("%%tfgrad (live, every 0.3 s)") for state in seen)
    assert any(state["strip"] >= 1 for state in seen)  # the heatmap strip
    wait_cell(page, LIVE_CELL)
    final = live_state(page, LIVE_CELL)
    texts = cell_outputs(page, LIVE_CELL).all_inner_texts()
    # The report took the live view's place; the cell's own value (fit's History) follows.
    assert final["count"] == 0 and final["outputs"] == 2, texts
    assert texts[0].startswith("Gradients of model 'mlp'") and "History" in texts[1], texts
    assert "128 recorded step(s)" in texts[0], texts
    # The heatmap keeps one 12 px row per layer whatever the front end's image styles
    # (JupyterLab gives output images height: auto), and the charts are drawn.
    heatmap = cell_outputs(page, LIVE_CELL).first.locator('img[alt="gradient norm heatmap"]')
    assert heatmap.evaluate("img => img.getBoundingClientRect().height") == 2 * 12
    assert cell_outputs(page, LIVE_CELL).first.locator("svg").count() == 3  # 2 layers, loss
    cell_outputs(page, LIVE_CELL).first.scroll_into_view_if_needed()
    screenshot(page, f"live-{tag}-report.png")

    # The stop button: interrupt the kernel once the live view has updated twice.
    run_cell(page, INTERRUPTED_CELL)
    page.wait_for_function(
        "() => { const cell = document.querySelectorAll('.jp-Notebook .jp-CodeCell')[3];"
        " const live = cell.querySelector('.tfnb-live');"
        " return live && Number(live.dataset.updates) >= 2; }",
        timeout=120_000,
    )
    cell_outputs(page, INTERRUPTED_CELL).first.scroll_into_view_if_needed()
    screenshot(page, f"live-{tag}-running.png")
    page.evaluate("() => window.jupyterapp.commands.execute('kernelmenu:interrupt')")
    wait_idle(page, timeout_ms=120_000)  # every cell has run now
    outputs = cell_outputs(page, INTERRUPTED_CELL)
    texts = outputs.all_inner_texts()
    assert live_state(page, INTERRUPTED_CELL)["count"] == 0
    assert any("KeyboardInterrupt" in t for t in texts), texts
    partial = next(t for t in texts if t.startswith("Gradients of model 'mlp'"))
    match = re.search(r"partial report: the cell failed after (\d+) recorded step\(s\)", partial)
    assert match and int(match.group(1)) >= 1, partial
    screenshot(page, f"live-{tag}-interrupted.png")


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_live_view_updates_in_place_in_the_browser(app: str, tmp_path: Path) -> None:
    tag = "lab" if app == "lab" else "notebook7"
    with notebook_in_browser(tmp_path, app, CELLS, "live.ipynb", f"live-{tag}-failure.png") as (
        page,
        _,
    ):
        page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
            " && window.jupyterapp.shell.currentWidget.sessionContext.session"
            " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
            " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
            ".status === 'idle'",
            timeout=120_000,
        )
        drive_the_live_view(page, tag)
