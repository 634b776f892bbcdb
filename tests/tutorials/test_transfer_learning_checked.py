"""Transfer learning and fine-tuning, continued: ``%%tfcheck`` on the tutorial's first
training and ``%%tfmem`` on its fine-tuning (each traces the MobileNetV2 step anew, the
check with a guard on every one of its layers: a module of its own keeps each under a
minute).  The notebook is :mod:`tests.tutorials.test_transfer_learning`'s."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tutorials._notebook import Notebook, severe
from tests.tutorials.test_transfer_learning import (
    EVALUATE,
    FINE_TUNE,
    FIT,
    FIT_FINE,
    SETUP,
    cats_and_dogs,  # noqa: F401  (the photos, a fixture)
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def nb(notebook: Notebook, cats_and_dogs: Path) -> Notebook:  # noqa: F811
    notebook.ns["PATH"] = str(cats_and_dogs)
    notebook.cell(SETUP)
    return notebook


def test_tfcheck_on_fit_then_tfmem_on_fine_tuning(nb: Notebook) -> None:
    report = nb.magic("%%tfcheck", FIT)
    assert severe(report) == set(), report.to_text()
    nb.cell(FINE_TUNE)
    report = nb.magic("%%tfmem --model model", FIT_FINE)
    assert severe(report) == set(), report.to_text()
    nb.cell(EVALUATE)
    assert nb.ns["predictions"].shape == (4,)
