"""The training-fault benchmark itself (tests/fault_bench), checked without tfnb_debug's verdicts.

Each case's buggy version, fitted plainly, must fail the way its report says
(``Case.bug``) and its correct version must really learn (``Case.learns``); the
scorer must run one case end to end and print its table.  Nothing here asserts what
tfnb_debug reports: the benchmark measures that, it does not test it.
"""

from __future__ import annotations

import re

import pytest

from tests.fault_bench import FAMILIES, all_cases
from tests.fault_bench._case import run_plain

CASES = all_cases()


def test_cases_are_well_formed() -> None:
    assert len(CASES) >= 22
    assert {c.family for c in CASES} == set(FAMILIES)
    for case in CASES:
        assert case.codes and case.symptom_codes and case.places and case.fixes, case.name
        assert all(re.fullmatch(r"[A-Z]\d\d", code) for code in case.codes | case.symptom_codes)
        assert all(fix == fix.lower() for fix in case.fixes), case.name
        assert (case.correct_setup, case.correct_train) != (case.setup, case.train), case.name
        assert "model.fit(" in case.train and "model.fit(" in case.correct_train, case.name
        assert case.bug_summary and case.source, case.name


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_versions_behave_as_described(case) -> None:
    buggy = run_plain(case, buggy=True)
    failed, seen = case.bug(buggy)
    assert failed, f"the buggy version of {case.name} does not fail as described: {seen}"
    correct = run_plain(case, buggy=False)
    learned, seen = case.learns(correct)
    assert learned, f"the correct version of {case.name} does not learn: {seen}"


@pytest.mark.slow
def test_scorer_runs_one_case(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.fault_bench.__main__ import main

    assert main(["--case", "sgd_lr_too_low", "--magic", "both"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^sgd_lr_too_low +[Y-] +[Y-] +[Y-] +[Y-] ", out, re.M), out
    assert "| family | cases | identified | localized | symptom | fix | correct-silent |" in out
    assert re.search(r"^\| \*\*total\*\* \| 1 \| ", out, re.M), out
    assert "False alarms on correct versions" in out
