"""Fresh set 30: forty blind cases of real user mistakes, for the diagnosis under a failing cell.

Five families, eight cases each: tabular inputs and feature preprocessing (pandas
DataFrames and NumPy tables given to Keras, lookups, normalization, dict inputs),
evaluation, prediction and metrics (``evaluate``/``predict`` outputs, ``keras.metrics``
objects, confusion matrices, scikit-learn reports on Keras outputs), numeric stability
and checks (NaN/Inf made by user code and caught by ``tf.debugging`` checks or
``TerminateOnNaN``), Keras 2 code on Keras 3 (removed arguments, saving paths, unbuilt
models, input names), and custom losses and metrics code (``Loss``/``Metric``
subclasses, signatures, state, graph-mode Python, serialization).

This set is a DEVELOPMENT set: those who improve the diagnosis read its cases and build
mechanisms from its misses; its sibling set 31, written the same way by another writer, is
held out.

Written on 2026-12-05 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports (StackOverflow / GitHub issue
style mistakes), by a writer who did not read the diagnosis (``tfnb_debug/``), its docs,
nor the cases of the corpus, the family sets and the earlier fresh sets (only their names,
so that no name repeats; every name here starts with ``f30_``).  Each family module's
docstring writes the family down: the APIs, their documented contract, and the evidence a
diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the documentation
and from the exception each case actually raises (checked with Keras 3 / TensorFlow as
installed in ``/work/main/.venv``, on CPU after ``PRELUDE``; each case's comment gives
the exception type and its first line), before any score was seen.  ``expect=None`` marks a
case whose own message already says what to do.

``python -m tests.explain_fresh30 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(30))
