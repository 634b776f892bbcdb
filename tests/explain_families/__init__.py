"""The cases each rule family of the diagnosis was measured on when its mechanism was built.

Before a family's mechanism was built (2026-12-03), its cases were written from
the API's documentation and common user reports, run against the rules as they
were, and the counts (right, generic, silent, wrong) recorded in the issue's
note; the mechanism was then built and the cases run again.  Unlike the blind
sets (``tests/explain_fresh*``), these cases are the mechanisms' regression
tests: ``tests/test_explain_families.py`` asserts each is scored right.  Each
module's docstring writes its family down.  ``python -m tests.explain_families``
scores them like the other sets.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case
from tests.explain_fresh import family_cases

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, names unique across all the case sets."""
    from tests.explain_corpus import all_cases as corpus_cases
    from tests.explain_fresh import all_cases as fresh_cases
    from tests.explain_fresh2 import all_cases as fresh2_cases
    from tests.explain_fresh3 import all_cases as fresh3_cases

    return family_cases(
        __name__,
        __path__,
        {
            "tests/explain_corpus": corpus_cases,
            "tests/explain_fresh": fresh_cases,
            "tests/explain_fresh2": fresh2_cases,
            "tests/explain_fresh3": fresh3_cases,
        },
    )
