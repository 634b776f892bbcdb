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

import functools
from collections.abc import Callable, Iterable, Mapping

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases", "family_cases", "sets_before"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order."""
    from tests.explain_corpus import all_cases as corpus_cases

    return family_cases(__name__, __path__, {"tests/explain_corpus": corpus_cases})


def family_cases(
    package: str, path: Iterable[str], taken: Mapping[str, Callable[[], list[Case]]]
) -> list[Case]:
    """The ``CASES`` of every family module of ``package`` (not ``_``-prefixed), in module
    order; names unique among them and unused in each set of ``taken``."""
    import importlib
    import pkgutil

    cases: list[Case] = []
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        cases.extend(module.CASES)
    names = [c.name for c in cases]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, f"duplicate case names: {sorted(duplicates)}"
    for where, others in taken.items():
        used = {c.name for c in others()} & set(names)
        assert not used, f"names already used in {where}: {sorted(used)}"
    return cases


@functools.cache
def _cases_of(package: str) -> tuple[Case, ...]:
    """A set's cases, read once per process (each set checks its names against all before it)."""
    import importlib

    return tuple(importlib.import_module(package).all_cases())


def sets_before(number: int) -> dict[str, Callable[[], list[Case]]]:
    """Every set written before ``tests/explain_fresh<number>``, for ``family_cases``' ``taken``:
    the corpus, the family sets, and ``tests/explain_fresh`` .. ``tests/explain_fresh<number - 1>``."""
    packages = [
        "tests.explain_corpus",
        "tests.explain_families",
        "tests.explain_fresh",
        *(f"tests.explain_fresh{k}" for k in range(2, number)),
    ]
    return {p.replace(".", "/"): functools.partial(_list_of, p) for p in packages}


def _list_of(package: str) -> list[Case]:
    return list(_cases_of(package))
