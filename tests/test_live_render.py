"""The live view's drawing: the heatmap strip's PNG decodes to the colours of the norms."""

from __future__ import annotations

import numpy as np

from tests._support import decode_png as decode
from tfnb_debug.records.live import LivePart, LiveState
from tfnb_debug.render.live import _EMPTY, MAX_LAYERS, heatmap_strip, live_html, live_text


def strip_image(html: str) -> np.ndarray:
    return decode(html.split('src="', 1)[1].split('"', 1)[0])


def test_the_strip_is_one_pixel_per_layer_and_record() -> None:
    norms = np.array([[1e-8, 1e-3, 1e3], [np.nan, np.inf, 1.0]])
    image = strip_image(heatmap_strip(("dense", "out"), norms))
    assert image.shape == (2, 3, 3)
    assert tuple(image[1, 1]) == (228, 0, 43)  # NaN/Inf gradient: red
    assert tuple(image[1, 0]) == tuple(_EMPTY)  # not recorded: grey
    assert tuple(image[0, 0]) == (0x44, 0x01, 0x54)  # smallest: the dark end
    assert tuple(image[0, 2]) == (0xFD, 0xE7, 0x25)  # largest: the yellow end
    brightness = image[0].astype(int).sum(axis=1)
    assert brightness[0] < brightness[1] < brightness[2]


def test_the_strip_shows_at_most_max_layers_and_says_how_many_more() -> None:
    layers = tuple(f"layer_{i}" for i in range(MAX_LAYERS + 5))
    norms = np.ones((len(layers), 4))
    state = LiveState(
        title="%%tfgrad",
        elapsed=1.0,
        updates=3,
        interval=2.0,
        part=LivePart(step=7, loss=0.5, layers=layers, norms=norms),
    )
    html = live_html(state)
    assert strip_image(html).shape == (MAX_LAYERS, 4, 3)
    assert "5 more layer(s) not shown" in html and 'data-updates="3"' in html
    assert live_text(state) == "%%tfgrad live: step 7 · loss 0.5 · 1.0 s"


def test_no_strip_before_the_first_record() -> None:
    assert heatmap_strip((), None) == ""
    assert heatmap_strip(("a",), np.zeros((1, 0))) == ""
