"""End to end in a real browser: JupyterLab 4 and Notebook 7, headless Debian Chromium via Playwright.

A notebook loads the extension and shows the inspector of a small CNN.  The
test clicks a box in the model graph and checks that the details pane shows
that layer (name, kernel shape, parameter arithmetic, histograms and feature
maps); then the keyboard, with the focus inside the widget: ArrowDown/ArrowUp
move the selection without moving the notebook's active cell, ``/`` opens the
filter, a name and Enter select the first match; then a click in the list.
Screenshots go to ``test-artifacts/``.  The notebook as the frontend saved it
(no widget state, the default) is exported with nbconvert, and the export shows
the static graph and the table.

Notebook 7 is reached as a user does: its file browser (``/tree``), then a
click on the notebook, which opens in a new tab.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.browser_lab import ARTIFACTS, notebook_in_browser, run_all_cells, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    "%load_ext tfnb_debug",
    """import keras
import numpy as np

L = keras.layers
keras.utils.set_random_seed(0)
inputs = keras.Input((16, 16, 1), name="image")
pooled = L.MaxPooling2D(name="pool")(L.Conv2D(8, 3, activation="relu", padding="same", name="conv_a")(inputs))
main = L.Conv2D(16, 3, activation="relu", padding="same", name="conv_b")(pooled)
skip = L.Conv2D(16, 1, name="skip")(pooled)
flat = L.Flatten(name="flat")(L.Add(name="add")([main, skip]))
dead = L.Dense(8, activation="relu", bias_initializer=keras.initializers.Constant(-50.0), name="dead")(flat)
model = keras.Model(inputs, L.Dense(4, name="head")(dead), name="small_cnn")
x = np.random.default_rng(0).normal(size=(8, 16, 16, 1)).astype("float32")""",
    "%tfshape --inspect model x",
]
# Row indices of the trace: 0 the model, then its layers in call order.
ROWS = {"conv_a": 1, "pool": 2, "conv_b": 3, "skip": 4, "add": 5, "flat": 6, "dead": 7, "head": 8}

WIDGET = ".tfnb-aw"
DETAILS = ".tfnb-aw-details .tfnb-details"


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


def pane(page: Any, layer: str) -> Any:
    locator = page.locator(f"{DETAILS}[data-layer='small_cnn/{layer}']")
    locator.wait_for(timeout=60_000)
    return locator


def active_cell(page: Any) -> int:
    return int(page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCellIndex"))


def drive_the_inspector(page: Any, tag: str) -> None:
    run_all_cells(page, timeout_ms=180_000)
    page.wait_for_selector(f"{WIDGET} svg.tfnb-graph", timeout=60_000)
    # JupyterLab and Notebook 7 render an error output as application/vnd.jupyter.stderr (the
    # gallery test relies on the same selector to find its one deliberate traceback).
    stderr = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    tracebacks = [text for text in stderr.all_inner_texts() if "Traceback" in text]
    assert not tracebacks, tracebacks

    # The residual branch side by side; the dead ReLU layer (N02) in the report's amber.
    graph = page.locator(f"{WIDGET} svg.tfnb-graph")
    assert graph.locator(".tfnb-node").count() == len(ROWS) + 1  # and the input
    dead = graph.locator(f".tfnb-node[data-row='{ROWS['dead']}']")
    assert dead.get_attribute("data-severity") == "warning"

    # A click on the conv_b box in the graph.
    box = page.locator(f"{WIDGET} .tfnb-node[data-row='{ROWS['conv_b']}']")
    assert "conv_b" in (box.text_content() or "")
    box.click()
    text = pane(page, "conv_b").inner_text()
    assert "small_cnn/conv_b" in text and "Conv2D" in text
    assert "(3, 3, 8, 16)" in text  # the kernel shape
    assert "(3*3*8 + 1) * 16 = 1168" in text
    assert page.locator(f"{DETAILS} .tfnb-feature-maps img").count() == 1
    # the histograms (kernel, bias, output) as inline SVG, drawn with a size in the pane
    histograms = page.locator(f'{DETAILS} svg[aria-label^="histogram of"]')
    assert histograms.count() == 3
    box_of = histograms.first.bounding_box()
    assert box_of is not None and box_of["width"] > 200 and box_of["height"] > 100
    assert "tfnb-selected" in (box.get_attribute("class") or "")

    # The keyboard, focus inside the widget (the click put it there).
    cell = active_cell(page)
    page.keyboard.press("ArrowDown")
    pane(page, "skip")
    page.keyboard.press("ArrowUp")
    pane(page, "conv_b")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    pane(page, "add")
    assert active_cell(page) == cell  # the notebook did not take the arrow keys
    assert page.locator(".jp-Notebook.jp-mod-editMode").count() == 0
    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.className") == "tfnb-aw-filter"
    page.keyboard.type("conv_a")
    assert page.locator(f"{WIDGET} .tfnb-node.tfnb-dim").count() >= 4  # others dimmed
    page.keyboard.press("Enter")
    pane(page, "conv_a")
    page.keyboard.press("Escape")
    assert page.locator(f"{WIDGET} .tfnb-node.tfnb-dim").count() == 0
    assert active_cell(page) == cell
    assert page.locator(".jp-Notebook.jp-mod-editMode").count() == 0

    # The list view: a click on a row.
    page.locator(f"{WIDGET} .tfnb-aw-tab", has_text="List").click()
    page.locator(f"{WIDGET} .tfnb-aw-row[data-row='{ROWS['pool']}']").click()
    pane(page, "pool")
    page.keyboard.press("ArrowDown")
    pane(page, "conv_b")
    page.locator(f"{WIDGET} .tfnb-aw-tab", has_text="Graph").click()
    page.wait_for_selector(f"{WIDGET} .tfnb-node.tfnb-selected[data-row='{ROWS['conv_b']}']")
    page.locator(f"{WIDGET} .tfnb-node[data-row='{ROWS['conv_b']}']").click()

    if tag == "lab":  # without the file browser, as the screenshot in the docs
        page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
    page.keyboard.press("ArrowDown")  # the branch: conv_b -> skip, the details of a 1x1 conv
    pane(page, "skip")
    page.set_viewport_size({"width": 1300, "height": 1500})
    page.locator(WIDGET).scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    screenshot(page, f"inspector-{tag}.png")
    # What the docs show: the cell's output from its top, in a 1300x900 window.
    page.set_viewport_size({"width": 1300, "height": 900})
    page.locator(WIDGET).evaluate("e => e.closest('.jp-Cell').scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifact(f"inspector-{tag}-docs.png")))
    page.locator(WIDGET).screenshot(path=str(artifact(f"inspector-{tag}-widget.png")))

    # Save as the frontend saves it (without widget state) for the export below.
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=30_000)


def check_export(notebook: Path, tag: str) -> None:
    saved = json.loads(notebook.read_text())
    outputs = [o for cell in saved["cells"] for o in cell.get("outputs", [])]
    bundle = next(o["data"] for o in outputs if "text/html" in o.get("data", {}))
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "text/plain" in bundle

    import nbformat
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_notebook_node(nbformat.read(notebook, as_version=4))
    assert "small_cnn/conv_b" in html and "Shape trace of" in html  # the static table
    assert '<svg class="tfnb-graph"' in html  # the static graph
    assert html.count('class="tfnb-node"') == len(ROWS) + 1  # the input and the layers
    assert 'type="application/vnd.jupyter.widget-view+json"' not in html  # not a dead widget
    artifact(f"inspector-{tag}-export.html").write_text(html, encoding="utf-8")


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_graph_click_keyboard_and_export(app: str, tmp_path: Path) -> None:
    tag = "lab" if app == "lab" else "notebook7"
    failure = f"inspector-{tag}-failure.png"
    with notebook_in_browser(tmp_path, app, CELLS, "inspector.ipynb", failure) as (page, notebook):
        drive_the_inspector(page, tag)
    check_export(notebook, tag)
