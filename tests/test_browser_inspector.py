"""End to end in a real browser: JupyterLab + Debian's headless Chromium driven by Playwright.

A notebook loads the extension, traces a small CNN with the inspector, and the
test clicks a conv layer in the layer list and checks the details pane shows
that layer's name and kernel shape; the arrow keys move the selection.  A
screenshot goes to ``test-artifacts/``.  The notebook as JupyterLab saved it
(no widget state, JupyterLab's default) is then exported with nbconvert, and
the export still shows the table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser_lab import (
    ARTIFACTS,
    browser_problem,
    chromium_page,
    run_all_cells,
    running_lab,
    screenshot,
    write_notebook,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    "%load_ext tfnb_debug",
    """import keras
import numpy as np

keras.utils.set_random_seed(0)
model = keras.Sequential(
    [
        keras.Input((16, 16, 1)),
        keras.layers.Conv2D(8, 3, activation="relu", name="conv_a"),
        keras.layers.MaxPooling2D(name="pool"),
        keras.layers.Conv2D(16, 3, activation="relu", name="conv_b"),
        keras.layers.Flatten(name="flat"),
        keras.layers.Dense(4, name="head"),
    ],
    name="small_cnn",
)
x = np.random.default_rng(0).normal(size=(2, 16, 16, 1)).astype("float32")""",
    "%tfshape --inspect model x",
]

DETAILS = ".tfnb-inspector-details .tfnb-details"


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


@pytest.fixture(scope="module")
def problem() -> None:
    reason = browser_problem()
    if reason is not None:
        pytest.fail(f"the browser test cannot run: {reason}")


def test_click_a_conv_layer_in_jupyterlab(problem: None, tmp_path: Path) -> None:
    notebook = write_notebook(tmp_path / "inspector.ipynb", CELLS)
    with running_lab(tmp_path) as lab, chromium_page() as page:
        page.goto(lab.notebook_url(notebook.name))
        try:
            run_all_cells(page, timeout_ms=180_000)
            page.wait_for_selector(".tfnb-inspector-list select", timeout=60_000)
            errors = page.locator(".jp-OutputArea-output[data-mime-type*='error']")
            assert errors.count() == 0, errors.all_inner_texts()

            # Click the conv layer in the list.
            option = page.locator(".tfnb-inspector-list select option", has_text="conv_b")
            option.click()
            pane = page.locator(f"{DETAILS}[data-layer='small_cnn/conv_b']")
            pane.wait_for(timeout=60_000)
            text = pane.inner_text()
            assert "small_cnn/conv_b" in text and "Conv2D" in text
            assert "(3, 3, 8, 16)" in text  # the kernel shape
            assert "(3*3*8 + 1) * 16 = 1168" in text
            assert page.locator(f"{DETAILS} .tfnb-feature-maps img").count() == 1
            assert page.locator(f"{DETAILS} img").count() >= 4  # histograms and maps
            selected = page.locator(".tfnb-inspector-list select").input_value()
            assert option.get_attribute("value") == selected  # highlighted in the list

            # The arrow keys move the selection (on the slider beside the list: JupyterLab
            # keeps arrow keys on a focused <select> for its own cell navigation).
            page.locator(".tfnb-inspector-keys .noUi-handle").click()
            page.keyboard.press("ArrowDown")
            page.locator(f"{DETAILS}[data-layer='small_cnn/flat']").wait_for(timeout=60_000)
            assert "flat" in page.locator(".tfnb-inspector-list select").input_value()
            page.keyboard.press("ArrowUp")
            page.locator(f"{DETAILS}[data-layer='small_cnn/conv_b']").wait_for(timeout=60_000)
            # A tall window without the file browser, so the artifact shows the whole pane.
            page.evaluate(
                "() => window.jupyterapp.commands.execute('application:toggle-left-area')"
            )
            page.set_viewport_size({"width": 1500, "height": 2600})
            page.locator(".tfnb-inspector").scroll_into_view_if_needed()
            page.wait_for_timeout(500)
            screenshot(page, "inspector.png")

            # Save as JupyterLab saves it (without widget state) for the export below.
            page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
            page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=30_000)
        except Exception:
            screenshot(page, "inspector-failure.png")
            print(lab.log_tail())
            raise

    saved = json.loads(notebook.read_text())
    outputs = [o for cell in saved["cells"] for o in cell.get("outputs", [])]
    bundle = next(o["data"] for o in outputs if "text/html" in o.get("data", {}))
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "text/plain" in bundle

    import nbformat
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_notebook_node(nbformat.read(notebook, as_version=4))
    assert "small_cnn/conv_b" in html and "Shape trace of" in html  # the static table
    assert 'type="application/vnd.jupyter.widget-view+json"' not in html  # not a dead widget
    artifact("inspector-export.html").write_text(html, encoding="utf-8")
