"""A third blind set of real mistakes that raise, to measure the diagnosis held out.

Written on 2026-12-03 from the Keras 3 / TensorFlow API documentation and from
typical user reports (Stack Overflow questions, GitHub issues), without
reading the diagnosis rules (``tfnb_debug/``) or the cases of the corpus
(``tests/explain_corpus``) and of the two earlier fresh sets
(``tests/explain_fresh``, ``tests/explain_fresh2``); only their names were
listed, so that no mistake here repeats one of theirs.  ``expect``, ``must``
and ``must_not`` were decided from the documentation and from the exception
each case actually raises, before any score was seen.

Each case uses the corpus's :class:`~tests.explain_corpus.Case` format and runs
after the same ``PRELUDE``.  ``python -m tests.explain_fresh3`` scores every
case in a real IPython shell with the scorer of ``tests.explain_fresh``.
One module per family (its docstring writes the family down); each exports
``CASES``.  Names are unique here and collide neither with the corpus nor with
the two earlier fresh sets.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order."""
    from tests.explain_corpus import all_cases as corpus_cases
    from tests.explain_fresh import all_cases as fresh_cases
    from tests.explain_fresh import family_cases
    from tests.explain_fresh2 import all_cases as fresh2_cases

    return family_cases(
        __name__,
        __path__,
        {
            "tests/explain_corpus": corpus_cases,
            "tests/explain_fresh": fresh_cases,
            "tests/explain_fresh2": fresh2_cases,
        },
    )
