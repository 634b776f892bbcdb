"""A fourth blind set of real mistakes that raise, to measure the diagnosis held out.

Written on 2026-12-04 from the Keras 3 / TensorFlow API documentation, the
catalog of finding codes (``/work/shared/DIAGNOSTICS.md``) and typical user
reports (Stack Overflow questions, GitHub issues, the TensorFlow tutorials'
own pitfalls), without reading the diagnosis rules (``tfnb_debug/``), the
family sets (``tests/explain_families``) or the cases of the corpus
(``tests/explain_corpus``) and of the three earlier fresh sets
(``tests/explain_fresh``, ``tests/explain_fresh2``, ``tests/explain_fresh3``);
only their names were listed, so that no mistake here repeats one of theirs.
Its families (dtypes, tracing, saving, data, training) differ from the
earlier sets' emphasis.  ``expect``, ``must`` and ``must_not`` were decided
from the documentation and from the exception each case actually raises
(checked one case per process with Keras 3.15.1 / TensorFlow 2.21.0 on CPU,
in an IPython shell after ``PRELUDE``), before any score was seen.

Each case uses the corpus's :class:`~tests.explain_corpus.Case` format and runs
after the same ``PRELUDE``.  ``python -m tests.explain_fresh4`` scores every
case in a real IPython shell with the scorer of ``tests.explain_fresh``.
One module per family (its docstring writes the family down); each exports
``CASES``.  Names are unique here and collide neither with the corpus nor with
the three earlier fresh sets.
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
