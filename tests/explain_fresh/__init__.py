"""A fresh set of real mistakes that raise, to measure how the diagnosis generalizes.

These cases were written from the Keras 3 and TensorFlow API documentation
and from user reports (Stack Overflow questions, GitHub issues) *before*
looking at the diagnosis rules, and none of them was tuned to what a rule
matches.  The corpus in ``tests/explain_corpus`` is what the rules were
built against; this set measures what they do on mistakes they were never
written for: how often the finding is right, generic, silent, or wrong
(advice the evidence contradicts).

Each case uses the corpus's :class:`~tests.explain_corpus.Case` format and
runs after the same ``PRELUDE``.  ``python -m tests.explain_fresh`` scores
every case in a real IPython shell; ``tests/test_explain_fresh.py`` checks
only that every cell raises and that no finding gives wrong advice.

The cases live in one module per family (its docstring writes the family
down: the API, the contract, the evidence a diagnosis needs); each module
exports ``CASES``.  Names are unique here and do not collide with the corpus.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order."""
    import importlib
    import pkgutil

    from tests.explain_corpus import all_cases as corpus_cases

    cases: list[Case] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(module.CASES)
    names = [c.name for c in cases]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, f"duplicate case names: {sorted(duplicates)}"
    taken = {c.name for c in corpus_cases()} & set(names)
    assert not taken, f"names already used in tests/explain_corpus: {sorted(taken)}"
    return cases
