"""The fresh cases (tests/explain_fresh): every cell raises, and no finding gives wrong advice.

Right-ness is measured by ``python -m tests.explain_fresh``, not asserted here:
these cases were written from the API documentation and user reports without
looking at the rules, and this test only holds the floor (no advice that the
case's evidence contradicts).
"""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests.explain_corpus import Case
from tests.explain_fresh import PRELUDE, all_cases
from tests.explain_fresh._score import run_case, wrong_lines

CASES = all_cases()


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fresh_case_raises_without_wrong_advice(shell: InteractiveShell, case: Case) -> None:
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False)
    result = run_case(shell, case)
    assert result.raised is not None, f"{case.name}: the cell did not raise"
    wrong = wrong_lines(case, result.findings)
    assert not wrong, f"{case.name}: advice the evidence contradicts: {wrong}"
