"""Fresh blind set 22: forty user mistakes in first models, callbacks, sequences, evaluation and multi-I/O models.

The five families are: ``beginner_first_models`` (tutorial-style first classifiers on
MNIST/Fashion-MNIST/CIFAR-like NumPy arrays), ``callbacks_and_checkpoints`` (callbacks,
checkpoints, saving and loading models and weights), ``sequence_layers_and_embeddings``
(Embedding, recurrent layers, TextVectorization, padding), ``evaluation_and_prediction``
(``evaluate``/``predict``/``__call__``, standalone metrics, comparing predictions with
labels) and ``multi_input_multi_output_models`` (functional models with several named
inputs and outputs, the structures passed to ``compile``/``fit``/``evaluate``).

This set is a DEVELOPMENT set: those who improve the diagnosis read its cases and build
mechanisms from its misses; its sibling set 23, written the same way by another writer, is
held out.

Written on 2026-12-05 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports (StackOverflow / GitHub issue
style mistakes), by a writer who did not read the diagnosis (``tfnb_debug/``), its docs,
nor the cases of the corpus, the family sets and the earlier fresh sets (only their names,
so that no name repeats; every name here starts with ``f22_``).  Each family module's
docstring writes the family down: the APIs, their documented contract, and the evidence a
diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the documentation
and from the exception each case actually raises (checked with Keras 3 / TensorFlow as
installed in ``/work/main/.venv``, on CPU after ``PRELUDE``; each case's comment gives
the exception type and its first line), before any score was seen.  ``expect=None`` marks a
case whose own message already says what to do.

``python -m tests.explain_fresh22 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(22))
