"""The coverage table of raise sites: current for the installed Keras, and honest about coverage."""

from __future__ import annotations

from pathlib import Path

from tfnb_debug.explain.coverage import API_PATHS, RaiseSite, coverage_table, raise_sites

DOC = Path(__file__).resolve().parents[1] / "docs" / "diagnostics.md"


def test_docs_table_is_current_for_the_installed_keras() -> None:
    sites, missing = raise_sites()
    assert not missing, f"APIs not found in the installed versions: {missing}"
    table = coverage_table(sites)
    text = DOC.read_text(encoding="utf-8")
    assert table in text, (
        "docs/diagnostics.md's raise-site table is out of date for the installed Keras and "
        "TensorFlow: run .venv/bin/python scripts/explain_coverage.py --write"
    )


def test_every_api_reaches_its_raise_sites_and_known_sites_are_covered() -> None:
    sites, _ = raise_sites()
    by_api = {api: [s for s in sites if s.api == api] for api, _ in API_PATHS}
    assert by_api["keras.layers.Layer.__call__"], "the reader found no raise site in Layer.__call__"
    # The Attention layer's "must be called on a list of inputs" is a contract's
    assert any(
        s.covered_by == "contract" and "list of inputs" in s.message
        for s in by_api["keras.layers.Attention.call"]
    )
    # a message no rule knows stays uncovered
    assert any(not s.covered_by for s in sites)


def test_a_new_raise_site_shows_as_uncovered_not_as_an_error() -> None:
    """An API whose code the reader has never seen (here: a function defined in this test)."""

    def new_api(x: int) -> int:
        if x < 0:
            raise ValueError(f"a message no rule or contract knows: {x}")
        return x

    from tfnb_debug.explain import coverage

    found = coverage._sites_of(new_api, 2, set())
    assert [(exc, message) for _, _, exc, message in found] == [
        ("ValueError", "a message no rule or contract knows: {...}")
    ]
    site = RaiseSite("new", "f.py", 1, "ValueError", found[0][3], "")
    assert "| `new` | 1 | 0 | 0 | 1 |" in coverage_table([site], (("new", "x"),))
