"""The README's gallery: screenshots of notebooks/gallery.ipynb's outputs in a real JupyterLab.

The browser test copies the gallery notebook into a temporary folder, opens it
in JupyterLab 4 in headless Chromium, runs every cell, and photographs each
output the README shows: the ``%tfshape`` table, the ``%%tfgrad`` live view
while the cell runs and its report afterwards, the ``%tfpipeline`` batch grid,
the ``%%tfmem`` plot and the diagnosis under the failing cell.  Each picture is
cropped to what the output draws.  With ``TFNB_UPDATE_GALLERY=1`` the pictures
replace ``docs/images/gallery-*.png``; otherwise they go to a temporary folder
(and ``test-artifacts/``) and are only checked: each exists, has a plausible
size, and the output it shows holds the expected text; the live view was taken
mid-run, and the failing cell is the only one with a traceback.

A quick test (no browser) checks that the README shows every committed picture
and that the committed pictures are the ones this test makes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.browser_lab import (
    ARTIFACTS,
    KERNEL_NAME,
    browser_problem,
    chromium_page,
    open_notebook,
    running_lab,
    screenshot,
    wait_idle,
)

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "notebooks" / "gallery.ipynb"
IMAGES = ROOT / "docs" / "images"
README = ROOT / "README.md"
UPDATE = os.environ.get("TFNB_UPDATE_GALLERY") == "1"
MAX_BYTES = 300_000


@dataclass(frozen=True)
class Shot:
    """One picture: the cell (its ``gallery`` metadata), what to crop, what it must say."""

    name: str
    cell: str
    selector: str
    texts: tuple[str, ...]
    section: str | None = None  # crop to the <h4> section that starts with this text


SHOTS = (
    Shot(
        "shape", "shape", ".tfnb-report", ("Shape trace of 'digits_cnn'", "output shape", "Conv2D")
    ),
    Shot(
        "live", "grad", ".tfnb-live", ("%%tfgrad (live, every 0.25 s)", "gradient norm per layer")
    ),
    Shot(
        "grad",
        "grad",
        ".tfnb-report",
        (
            "Gradients of model 'digits_cnn'",
            "Gradient histograms",
            "log10 gradient norm: layers x steps",
        ),
    ),
    Shot(
        "pipeline",
        "pipeline",
        ".tfnb-report",
        ("tf.data pipeline train_ds", "images [0]"),
        "images",
    ),
    Shot(
        "memory",
        "memory",
        ".tfnb-report",
        ("%%tfmem", "host RSS", "memory over time", "training steps"),
    ),
    Shot(
        "diagnosis",
        "diagnosis",
        ".tfnb-explain",
        ("why this cell failed", "M05 label-encoding-mismatch"),
    ),
)

# Bounding box of what the output draws, plus a small margin, in the page coordinates
# Playwright clips with.  Block elements span the output area's whole width, so the
# right edge comes from the content (text, images, drawings, tables), unless the
# output draws a box with a right border.
DRAWN_BOX = """(root, section) => {
  let parts = [root];
  if (section) {
    const heads = [...root.querySelectorAll('h4')];
    const head = heads.find(h => h.textContent.trim().startsWith(section));
    if (!head) return null;
    parts = [head];
    for (let e = head.nextElementSibling; e && e.tagName !== 'H4'; e = e.nextElementSibling) parts.push(e);
  }
  const outer = parts.map(p => p.getBoundingClientRect());
  const content = [];
  for (const part of parts) {
    const walker = document.createTreeWalker(part, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      content.push(...range.getClientRects());
    }
    const drawn = 'img, svg, canvas, table';
    for (const e of [part, ...part.querySelectorAll(drawn)]) {
      if (e.matches(drawn)) content.push(e.getBoundingClientRect());
    }
  }
  const all = [...outer, ...content].filter(r => r.width > 0 && r.height > 0);
  const top = Math.min(...all.map(r => r.top)), left = Math.min(...all.map(r => r.left));
  const bottom = Math.max(...all.map(r => r.bottom));
  const boxed = parseFloat(getComputedStyle(root).borderRightWidth) > 0;
  const right = boxed ? root.getBoundingClientRect().right : Math.max(...content.map(r => r.right));
  const pad = 8;
  const panel = root.closest('.jp-WindowedPanel-outer').getBoundingClientRect();
  // Never above this output: the one before it (a traceback) is not part of the picture.
  const y = Math.max(top - pad, root.closest('.jp-OutputArea-child').getBoundingClientRect().top);
  return {x: Math.max(0, left - pad), y: y,
          width: right - left + 2 * pad, height: bottom + pad - y,
          panelTop: panel.top, panelBottom: panel.bottom};
}"""

# The output a little below the top of the notebook's scrolling panel, whole and clear of
# the toolbar above it.
SCROLL_TO = """e => {
  e.scrollIntoView({block: 'start'});
  e.closest('.jp-WindowedPanel-outer').scrollTop -= 24;
}"""


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return int(width), int(height)


def cell_indices() -> dict[str, int]:
    """Which cell (index among all cells) each ``gallery`` tag names."""
    cells = json.loads(GALLERY.read_text(encoding="utf-8"))["cells"]
    return {c["metadata"]["gallery"]: i for i, c in enumerate(cells) if "gallery" in c["metadata"]}


def notebook_copy(folder: Path) -> Path:
    """The gallery notebook in ``folder``, on the browser tests' kernel."""
    nb = json.loads(GALLERY.read_text(encoding="utf-8"))
    nb["metadata"]["kernelspec"] = {
        "name": KERNEL_NAME,
        "display_name": "tfnb_debug browser tests",
        "language": "python",
    }
    path = folder / GALLERY.name
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def output_of(page: Any, cell: int, selector: str) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(selector).first


MIN_WIDTH = 250  # px: a picture narrower than this was taken before its output laid out
IMAGES_DECODED = """(el) => Promise.all([...el.querySelectorAll('img')].map(
  (img) => (img.complete && img.naturalWidth) ? null : img.decode().catch(() => null)))"""


def photograph(page: Any, element: Any, shot: Shot, folder: Path, *, settle_ms: int = 300) -> Path:
    """Crop the screenshot to what the output draws (scrolled to the top of the notebook first)."""
    element.evaluate(SCROLL_TO, timeout=5_000)
    # every image of the output decoded (on a loaded machine a grid of data-URI images can
    # still be laying out: the first crop of the batch grid came out 87 px wide)
    element.evaluate(IMAGES_DECODED, timeout=30_000)
    page.wait_for_timeout(settle_ms)  # layout settled
    box = element.evaluate(DRAWN_BOX, shot.section, timeout=5_000)
    for _ in range(10):  # a grid still laying out measures narrow: give it time, measure again
        if box is None or box["width"] >= MIN_WIDTH or shot.name == "live":
            break
        page.wait_for_timeout(500)
        box = element.evaluate(DRAWN_BOX, shot.section, timeout=5_000)
    assert box is not None, f"{shot.name}: no section {shot.section!r} in the output"
    inside = box["panelTop"] <= box["y"] and box["y"] + box["height"] <= box["panelBottom"]
    assert inside, f"{shot.name} does not fit in the notebook's panel: {box}"
    path = folder / f"gallery-{shot.name}.png"
    clip = {k: box[k] for k in ("x", "y", "width", "height")}
    page.screenshot(path=str(path), clip=clip)
    return path


LIVE_STATE = """(i) => {
  const live = document.querySelectorAll('.jp-Notebook .jp-Cell')[i].querySelector('.tfnb-live');
  if (!live) return null;
  return {updates: Number(live.dataset.updates), text: live.innerText,
          strip: live.querySelectorAll('img').length};
}"""


def catch_the_live_view(page: Any, cell: int, folder: Path) -> tuple[Path, str]:
    """While the %%tfgrad cell runs: once its live view shows steps and the strip, photograph it."""
    from playwright.sync_api import Error as PlaywrightError

    live = output_of(page, cell, ".tfnb-live")
    shot = next(s for s in SHOTS if s.name == "live")
    deadline = time.monotonic() + 240
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        state = page.evaluate(LIVE_STATE, cell)
        if (
            state
            and state["updates"] >= 3
            and state["strip"]
            and re.search(r"step \d", state["text"])
        ):
            try:
                return photograph(page, live, shot, folder, settle_ms=50), state["text"]
            except PlaywrightError as error:
                # the live view re-renders while it is measured: the element the locator
                # resolved to is detached ("Cannot read properties of null"); the next update
                # is measured instead (seen once on a loaded 2-core machine)
                last_error = error
        page.wait_for_timeout(100)
    if last_error is not None:
        raise AssertionError(f"the live view could not be photographed: {last_error}")
    raise AssertionError("the %%tfgrad cell showed no live view with a step")


def take_pictures(page: Any, folder: Path) -> dict[str, str]:
    """Run the gallery notebook; each picture's path in ``folder`` and its output's text."""
    cells = cell_indices()
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
        " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
        ".status === 'idle'",
        timeout=120_000,
    )
    # No file browser beside the notebook: the outputs get the window's width.
    page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    texts: dict[str, str] = {}
    _, texts["live"] = catch_the_live_view(page, cells["grad"], folder)
    wait_idle(page, timeout_ms=240_000)
    # One traceback, the failing cell's, which the diagnosis is about (JupyterLab renders
    # an error output as application/vnd.jupyter.stderr).
    tracebacks = page.locator(".jp-Notebook .jp-Cell").evaluate_all(
        "cells => cells.map(c => [...c.querySelectorAll("
        "'[data-mime-type=\"application/vnd.jupyter.stderr\"]')]"
        ".filter(e => e.textContent.includes('Traceback')).length)"
    )
    assert [i for i, n in enumerate(tracebacks) if n] == [cells["diagnosis"]], tracebacks
    for shot in SHOTS:
        if shot.name == "live":
            continue
        element = output_of(page, cells[shot.cell], shot.selector)
        element.wait_for(timeout=30_000)
        photograph(page, element, shot, folder)
        # After the scroll: JupyterLab skips rendering cells out of view, innerText included.
        texts[shot.name] = element.inner_text()
    return texts


def check_pictures(folder: Path, texts: dict[str, str]) -> None:
    for shot in SHOTS:
        path = folder / f"gallery-{shot.name}.png"
        assert path.is_file() and path.stat().st_size > 2_000, path
        assert path.stat().st_size <= MAX_BYTES, f"{path.name}: {path.stat().st_size} bytes"
        width, height = png_size(path)
        assert MIN_WIDTH <= width <= 1300 and 60 <= height <= 1500, (path.name, width, height)
        for text in shot.texts:
            assert text in texts[shot.name], (shot.name, text, texts[shot.name][:500])
    # The live view was taken mid-run: at a step before the report's last one.
    live_step = number_after("step ", texts["live"])
    assert 0 < live_step < number_after("model.fit), ", texts["grad"]), texts


def number_after(prefix: str, text: str) -> int:
    match = re.search(re.escape(prefix) + r"(\d[\d,]*)", text)
    assert match, (prefix, text[:300])
    return int(match.group(1).replace(",", ""))


@pytest.mark.browser
@pytest.mark.slow
def test_gallery_pictures_from_jupyterlab(tmp_path: Path) -> None:
    reason = browser_problem("lab")
    if reason is not None:
        pytest.fail(f"the browser test cannot run: {reason}")
    notebook = notebook_copy(tmp_path)
    folder = tmp_path / "pictures"
    folder.mkdir()
    with running_lab(tmp_path) as lab, chromium_page(width=1100, height=1500) as first:
        page = first
        try:
            page = open_notebook(first, lab, notebook.name)
            texts = take_pictures(page, folder)
        except Exception:
            screenshot(page, "gallery-failure.png")
            print(lab.log_tail())
            raise
    check_pictures(folder, texts)
    ARTIFACTS.mkdir(exist_ok=True)
    for shot in SHOTS:
        picture = folder / f"gallery-{shot.name}.png"
        shutil.copyfile(picture, ARTIFACTS / picture.name)
        if UPDATE:
            shutil.copyfile(picture, IMAGES / picture.name)


def test_readme_shows_every_gallery_picture() -> None:
    readme = README.read_text(encoding="utf-8")
    shown = set(re.findall(r'src="docs/images/(gallery-[a-z]+\.png)"', readme))
    committed = {p.name for p in IMAGES.glob("gallery-*.png")}
    made = {f"gallery-{shot.name}.png" for shot in SHOTS}
    assert shown == committed == made
    for name in made:
        assert re.search(rf'src="docs/images/{name}" alt="[^"]+"', readme), name
        assert (IMAGES / name).stat().st_size <= MAX_BYTES, name
    # Each picture comes from a cell of the gallery notebook.
    assert {shot.cell for shot in SHOTS} <= set(cell_indices())
