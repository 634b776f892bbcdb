"""The pictures of %tfpipeline, %tfoverfit and the inspector, drawn without matplotlib.

Hand-made records (no TensorFlow): golden files of the HTML/SVG (refresh with
``TFNB_UPDATE_GOLDEN=1``) plus invariants: the pixels sent are the image's own,
a bar is as tall as its count, a curve's points follow the losses.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np

from tests._support import check_golden, decode_png
from tfnb_debug.records.pipeline import Picture
from tfnb_debug.render.overfit import loss_section, loss_svg
from tfnb_debug.render.pipeline import MAX_SIDE, image_uri, picture_section
from tfnb_debug.render.svg import histogram_svg

RNG = np.random.default_rng(0)
IMAGES = RNG.random((6, 4, 4, 1)).astype("float32")
LABELS = np.array([0, 1, 2, 1, 1, 0])
NAMES = ["cat", "dog", "a very long class name indeed"]


def uris(html: str) -> list[str]:
    return re.findall(r'src="(data:image/png;base64,[^"]+)"', html)


def test_image_grid_sends_each_image_as_is_under_its_label() -> None:
    picture = Picture("images [0]", "grid", "6 image(s)", images=IMAGES, labels=LABELS)
    section = picture_section(picture, NAMES)
    check_golden("pipeline_grid.html", section.html + "\n")
    sent = [decode_png(uri) for uri in uris(section.html)]
    assert len(sent) == 6
    for image, pixels in zip(IMAGES, sent, strict=True):
        expected = np.repeat((image * 255).round().astype(np.uint8), 3, axis=-1)
        np.testing.assert_array_equal(pixels, expected)  # values in [0, 1] are shown as they are
    captions = re.findall(r'white-space:nowrap">([^<]*)</div>', section.html)
    assert captions == [NAMES[v] for v in LABELS]
    assert 'width="72" height="72"' in section.html  # 4x4 pixels, enlarged 18x, unsmoothed
    assert "pixelated" in section.html and "matplotlib" not in section.html


def test_a_large_image_is_reduced_to_block_means_before_it_is_sent() -> None:
    photo = RNG.integers(0, 256, (300, 200, 3)).astype("uint8")
    uri, width, height = image_uri(photo)
    pixels = decode_png(uri)
    factor = int(np.ceil(300 / MAX_SIDE))
    assert pixels.shape == (300 // factor, 200 // factor, 3) == (height, width, 3)
    block = photo[:factor, :factor].reshape(-1, 3).mean(axis=0)
    np.testing.assert_allclose(pixels[0, 0], block, atol=1)


def test_label_chart_bars_are_as_tall_as_their_counts() -> None:
    picture = Picture("label distribution", "labels", "", labels=LABELS)
    section = picture_section(picture, NAMES)
    check_golden("pipeline_labels.html", section.html + "\n")
    heights = [float(h) for h in re.findall(r'<rect [^>]*height="([\d.]+)"', section.html)]
    counts = np.bincount(LABELS)
    assert np.allclose(np.array(heights) / heights[0], counts / counts[0], atol=0.01)
    assert "<title>dog: 3</title>" in section.html
    assert re.search(r">dog</td><td[^>]*>3</td>", section.html)  # and the table


def test_before_after_pairs_the_rows() -> None:
    after = 1 - IMAGES
    section = picture_section(
        Picture("augmentation at stage 1", "augment", "", images=IMAGES, after=after), None
    )
    sent = [decode_png(uri) for uri in uris(section.html)]
    assert len(sent) == 12  # six before, then six after
    np.testing.assert_array_equal(sent[6][..., 0], ((1 - IMAGES[0, ..., 0]) * 255).round())
    assert section.html.index(">before<") < section.html.index(">after<")


def test_loss_curve_is_svg_on_a_log_axis_with_its_points() -> None:
    losses = [2.0, 1.0, 0.5, 0.01, 0.001]
    svg = loss_svg(losses)
    check_golden("overfit_loss.svg", svg + "\n")
    assert svg.startswith("<svg") and svg.count("<circle") == 5
    assert ">1</text>" in svg and ">0.01</text>" in svg  # decades on the y axis
    points = re.search(r'<polyline points="([^"]+)"', svg)
    assert points is not None
    ys = [float(p.split(",")[1]) for p in points.group(1).split()]
    assert ys == sorted(ys)  # the loss falls: each point lower (larger pixel row)
    gaps = np.diff(ys)
    assert gaps[2] > gaps[0]  # 0.5 -> 0.01 is further on a log axis than 2 -> 1
    # a non-finite step is a cross, a negative loss gives a linear axis
    odd = loss_svg([0.5, float("nan"), -0.2], "g_loss")
    assert "x: non-finite" in odd and "training g_loss" in odd and odd.count("<circle") == 2
    assert loss_section(losses, draw=False).html == ""


def test_histogram_is_deterministic_svg() -> None:
    svg = histogram_svg([1, 4, 2], [-1.0, 0.0, 1.0, 2.0], title="kernel (3, 2)", label="h")
    check_golden("inspector_histogram.svg", svg + "\n")
    assert svg == histogram_svg([1, 4, 2], [-1.0, 0.0, 1.0, 2.0], title="kernel (3, 2)", label="h")


def test_gradient_norm_curve_uses_a_log_axis_only_for_positive_norms() -> None:
    from tfnb_debug.widgets.render import norm_svg

    svg = norm_svg([0, 1, 2], [10.0, 1.0, 0.1])
    assert ">10</text>" in svg and ">0.1</text>" in svg and "gradient norm per step" in svg
    flat = norm_svg([0, 1], [0.0, 1.0])  # a zero norm: a linear axis, both points drawn
    assert flat.count("<circle") == 2


def test_axis_ticks_are_the_ones_matplotlib_would_pick() -> None:
    from matplotlib.ticker import MaxNLocator

    from tfnb_debug.render.svg import _ticks

    rng = np.random.default_rng(0)
    for _ in range(500):
        lo = float(rng.normal() * 10.0 ** rng.integers(-5, 6))
        hi = lo + float(rng.random() * 10.0 ** rng.integers(-5, 6))
        for count, integer in ((5, False), (3, False), (4, True)):
            span = hi - lo
            theirs = [
                float(v)
                for v in MaxNLocator(nbins=count, integer=integer).tick_values(lo, hi)
                if lo - 1e-9 * span <= v <= hi + 1e-9 * span
            ]
            mine = _ticks(lo, hi, count, integer=integer)
            assert len(mine) == len(theirs), (lo, hi, count, integer)
            np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-6 * span)


def test_drawing_the_pictures_imports_no_matplotlib_plotting() -> None:
    """In a fresh interpreter: the pictures a report shows never load matplotlib."""
    code = """
import sys
import numpy as np
from tfnb_debug.records.pipeline import Picture
from tfnb_debug.render.overfit import loss_section
from tfnb_debug.render.pipeline import picture_section
from tfnb_debug.widgets.render import norm_svg
images = np.random.default_rng(0).random((4, 6, 6, 3))
picture_section(Picture("g", "grid", "", images=images, labels=np.arange(4)), None)
picture_section(Picture("l", "labels", "", labels=np.arange(4)), None)
picture_section(Picture("a", "augment", "", images=images, after=images), None)
loss_section([1.0, 0.5])
norm_svg([0, 1], [1.0, 0.5])
print(sorted(m for m in sys.modules if m.startswith(("matplotlib", "PIL"))))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
