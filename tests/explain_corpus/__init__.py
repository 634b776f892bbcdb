"""A corpus of real mistakes that raise, for the diagnosis printed under a failing cell.

Each :class:`Case` is a few lines of notebook code that fail the way users'
code fails (built from the ``raise`` sites of Keras 3 and TensorFlow and from
questions users ask), with the finding the diagnosis must give, words its
line must contain, and words it must NOT contain (advice that would send the
user the wrong way).  ``tests/test_explain_corpus.py`` runs every case in a
real IPython shell; ``docs/diagnostics.md``'s coverage table is generated from
the same cases (``python -m tests.explain_corpus --table``).

The cases live in one module per family; each module exports ``CASES``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """One provoked mistake.

    ``code`` runs after ``PRELUDE`` (numpy as np, tensorflow as tf, keras) in a
    fresh namespace and must raise.  ``expect`` is the code of the finding the
    diagnosis gives; ``None`` marks a mistake left unexplained on purpose, with
    ``unexplained`` saying why (its own message already states the fix).
    ``must`` and ``must_not`` are matched, case-insensitively, against the
    finding's text line (message, evidence and hint).
    """

    name: str
    family: str
    code: str
    expect: str | None
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()
    unexplained: str = ""
    fix: str = ""  # the fix in a few words, for the docs' coverage table


PRELUDE = """
import numpy as np
import tensorflow as tf
import keras
"""


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order."""
    import importlib
    import pkgutil

    cases: list[Case] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(module.CASES)
    names = [c.name for c in cases]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, f"duplicate case names: {sorted(duplicates)}"
    return cases
