"""Every mistake in the corpus, raised for real in a real shell, gets the right finding or none.

A case with an expected code must get that finding with every ``must`` word
and none of the ``must_not`` words; a case left unexplained on purpose must get
no diagnosis box at all (saying less beats saying something wrong).  The
user's exception always reaches them unchanged and the kernel stays usable.
"""

from __future__ import annotations

import re
import textwrap

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests.explain_corpus import PRELUDE, Case, all_cases

CASES = all_cases()
FINDING_LINE = re.compile(r"^[A-Z]\d\d [a-z0-9-]+ \((error|warning|info)\)")


# The same rules explain the failure under the magics that run the cell: plain (the box under
# the traceback), %%tfshape (the shape report's findings) and %%tfcheck.
MAGICS = ("", "%%tfshape", "%%tfcheck")


def diagnosis(shell: InteractiveShell, case: Case, magic: str = "") -> tuple[bool, list[str], str]:
    """Run the case's code; (success, the finding lines shown, the printed text)."""
    code = textwrap.dedent(case.code).strip("\n")
    with capture_output() as captured:
        result = shell.run_cell(f"{magic}\n{code}" if magic else code, store_history=False)
    shown = [o.data for o in captured.outputs if "text/plain" in o.data]
    text = "\n".join(box["text/plain"] for box in shown)
    lines = [line for line in text.splitlines() if FINDING_LINE.match(line)]
    return bool(result.success), lines, captured.stdout + text


@pytest.fixture
def corpus_shell(shell: InteractiveShell) -> InteractiveShell:
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False)
    return shell


@pytest.mark.slow
@pytest.mark.parametrize("magic", MAGICS, ids=["plain", "tfshape", "tfcheck"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus_case(corpus_shell: InteractiveShell, case: Case, magic: str) -> None:
    success, lines, printed = diagnosis(corpus_shell, case, magic)
    assert not success, f"{case.name}: the cell did not fail, so it tests nothing"
    if case.expect is None:
        assert case.unexplained, f"{case.name}: say why it is left unexplained"
        assert lines == [], f"{case.name}: expected no diagnosis, got {lines}"
        return
    found = [line for line in lines if line.startswith(case.expect + " ")]
    assert len(found) == 1 or magic, f"{case.name}: {case.expect} shown {len(found)} times"
    assert found, f"{case.name}: no {case.expect} in the diagnosis:\n{printed[-3000:]}"
    line = found[0].lower()
    missing = [word for word in case.must if word.lower() not in line]
    assert not missing, f"{case.name}: {case.expect} lacks {missing}:\n{found[0]}"
    wrong = [word for word in case.must_not if word.lower() in line]
    assert not wrong, (
        f"{case.name}: {case.expect} says {wrong}, which the evidence contradicts:\n{found[0]}"
    )
    others = [line for line in lines if not line.startswith(case.expect + " ")]
    for other in others:
        bad = [word for word in case.must_not if word.lower() in other.lower()]
        assert not bad, f"{case.name}: another finding says {bad}:\n{other}"


def test_corpus_is_large_and_covers_every_family() -> None:
    assert len(CASES) >= 80
    families = {c.family for c in CASES}
    assert {"shapes", "labels", "data", "dtypes", "tape", "saving"} <= families


def test_docs_table_lists_every_case_with_its_code() -> None:
    """docs/diagnostics.md's coverage table is the corpus (regenerate: python -m tests.explain_corpus)."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "diagnostics.md").read_text()
    table = doc.split("<!-- corpus-table:start -->")[1].split("<!-- corpus-table:end -->")[0]
    rows = [r.split(" | ") for r in table.strip().splitlines()[2:]]
    listed = [(r[0].lstrip("| "), r[1], r[3].split(":")[0]) for r in rows]
    expected = [(c.family, c.name.replace("_", " "), c.expect or "none") for c in CASES]
    assert listed == expected
