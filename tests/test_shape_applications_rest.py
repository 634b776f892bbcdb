"""The other 25 keras.applications models (weights=None): no finding (see test_shape_applications).

A file of its own so that pytest-xdist (``--dist loadfile``) runs it beside
the smallest-of-each-family test instead of after it (about 320 s on 2 cores).
"""

from __future__ import annotations

from collections.abc import Iterator

import keras
import pytest

from tests.test_shape_applications import REST, no_findings_on


@pytest.fixture
def fresh_session() -> Iterator[None]:
    yield
    keras.backend.clear_session()


@pytest.mark.slow
@pytest.mark.parametrize("name", REST)
def test_every_other_application_has_no_findings(name: str, fresh_session: None) -> None:
    no_findings_on(name)
