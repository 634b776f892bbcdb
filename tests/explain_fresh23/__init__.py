"""Fresh set 23: forty held-out mistakes of first models, callbacks, sequences, evaluation and multi-I/O models.

Five families: ``beginner_first_models`` (first Sequential image classifiers as tutorials
teach them: channel axes, output size vs classes, the loss that fits the label encoding,
unbuilt models, validation data), ``callbacks_and_checkpoints`` (ModelCheckpoint and
ReduceLROnPlateau contracts, custom callbacks and ``self.model``, ``load_model`` /
``load_weights`` with custom objects and unbuilt models), ``sequence_layers_and_embeddings``
(Embedding index ranges, 3-D RNN input, ``return_sequences`` / ``return_state``,
TextVectorization, padding of variable-length sequences), ``evaluation_and_prediction``
(what ``evaluate`` / ``predict`` / ``__call__`` take, comparing predictions with labels,
datasets and generators at inference) and ``multi_input_multi_output_models`` (named inputs
and outputs, dict / list / nested-tuple structures, per-output losses, merging branches).

This set is HELD OUT: those who improve the diagnosis only run its score
(``python -m tests.explain_fresh23``) and never read its cases, so that the score stays a
measure of generalization.

Written on 2026-12-05 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports (StackOverflow / GitHub issue
style mistakes), by a writer who did not read the diagnosis (``tfnb_debug/``), its docs,
nor the cases of the corpus, the family sets and the earlier fresh sets (only their names,
so that no name repeats; every name here starts with ``f23_``).  Each family module's
docstring writes the family down: the APIs, their documented contract, and the evidence a
diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the documentation
and from the exception each case actually raises (checked with Keras 3 / TensorFlow as
installed in ``/work/main/.venv``, on CPU after ``PRELUDE``; each case's comment gives
the exception type and its first line), before any score was seen.  ``expect=None`` marks a
case whose own message already says what to do.

``python -m tests.explain_fresh23 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(23))
