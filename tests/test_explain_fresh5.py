"""The fifth blind set (tests/explain_fresh5) as the regression test of the mechanisms built on it,
and the sixth (tests/explain_fresh6, written after them to measure them held out) held at its
floor: every case raises and no finding gives advice the case's evidence contradicts; the
seventh (tests/explain_fresh7, five new families) held at the same floor.

Its 50 cases were written before the five families' mechanisms were built (saved-file custom
objects, what ``tape.gradient`` was asked for, gradient/variable pairs, preprocessing state,
merge and attention contracts, spatial chains) and scored 15 right / 24 generic / 7 silent /
4 wrong then; each must now be scored right, except the few listed below as strict xfails
with the reason (once one is scored right, its entry must go).  ``python -m
tests.explain_fresh5`` prints the scores.
"""

from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from tests.explain_corpus import Case
from tests.explain_fresh._score import run_case, wrong_lines
from tests.explain_fresh5 import PRELUDE, all_cases
from tests.explain_fresh6 import all_cases as held_out_cases
from tests.explain_fresh7 import all_cases as seventh_cases

# right cause and fix, another code than the case's writer chose: a layer called with the wrong
# structure (a list for MultiHeadAttention, one state for an LSTM) is S12 here, S01 there
# (the first blind set's writer chose S12 for the same mistakes)
NOT_RIGHT: dict[str, str] = {
    "multi_head_cross_attention_given_a_query_value_list": "S12 for a call's structure",
    "lstm_decoder_seeded_with_a_gru_encoder_state": "S12 for a call's structure",
    "one_adam_reused_for_pretraining_and_the_classifier": (
        "Keras' message says to recreate the optimizer; the finding adds which model owns it"
    ),
    "text_vectorization_mapped_per_example_without_sequence_length": (
        "the ragged batch is named, not the TextVectorization in the map that made it"
    ),
}

PARAMS = [
    pytest.param(
        c,
        id=c.name,
        marks=[pytest.mark.xfail(strict=True, reason=NOT_RIGHT[c.name])]
        if c.name in NOT_RIGHT
        else [],
    )
    for c in all_cases()
]


@pytest.mark.slow
@pytest.mark.parametrize("case", PARAMS)
def test_fresh5_case_is_explained_right(shell: InteractiveShell, case: Case) -> None:
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False)
    result = run_case(shell, case)
    assert result.raised is not None, f"{case.name}: the cell did not raise"
    assert not wrong_lines(case, result.findings), f"{case.name}: wrong advice {result.findings}"
    assert result.verdict == "right", f"{case.name}: {result.verdict} {result.findings}"


@pytest.mark.slow
@pytest.mark.parametrize("case", held_out_cases(), ids=lambda c: c.name)
def test_fresh6_case_raises_without_wrong_advice(shell: InteractiveShell, case: Case) -> None:
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False)
    result = run_case(shell, case)
    assert result.raised is not None, f"{case.name}: the cell did not raise"
    assert not wrong_lines(case, result.findings), f"{case.name}: wrong advice {result.findings}"


@pytest.mark.slow
@pytest.mark.parametrize("case", seventh_cases(), ids=lambda c: c.name)
def test_fresh7_case_raises_without_wrong_advice(shell: InteractiveShell, case: Case) -> None:
    with capture_output():
        shell.run_cell(PRELUDE, store_history=False)
    result = run_case(shell, case)
    assert result.raised is not None, f"{case.name}: the cell did not raise"
    assert not wrong_lines(case, result.findings), f"{case.name}: wrong advice {result.findings}"
