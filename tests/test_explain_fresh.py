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

# Cases whose finding gives advice the evidence contradicts (python -m tests.explain_fresh
# marks them "wrong"), as strict xfails: once the advice is fixed the xfail fails and the
# entry must go.  None at present (random_crop_size_without_channels and
# sequence_windows_padded_differently_from_the_input were fixed in fa53cbc).
KNOWN_WRONG: dict[str, str] = {}

CASES = all_cases()
PARAMS = [
    pytest.param(
        c,
        id=c.name,
        marks=[pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[c.name])]
        if c.name in KNOWN_WRONG
        else [],
    )
    for c in CASES
]


@pytest.mark.slow
@pytest.mark.parametrize("case", PARAMS)
def test_fresh_case_raises_without_wrong_advice(shell: InteractiveShell, case: Case) -> None:
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False)
    result = run_case(shell, case)
    assert result.raised is not None, f"{case.name}: the cell did not raise"
    wrong = wrong_lines(case, result.findings)
    assert not wrong, f"{case.name}: advice the evidence contradicts: {wrong}"
