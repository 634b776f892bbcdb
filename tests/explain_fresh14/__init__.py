"""A fourteenth fresh set, a DEV set: raising mistakes in five families, for the diagnosis under a failing cell.

It measures how far the diagnosis generalizes to mistakes nobody wrote it for, and, being a
DEV set, it is meant to be read by those who improve the diagnosis, so that they build
general mechanisms from its misses (never rules for one case).  Families: saving, loading
and exporting models (``saving_and_export``), ``keras.applications`` bases with new heads
(``transfer_learning``), images through ``tf.data``/``tf.image`` and
``image_dataset_from_directory`` (``image_pipelines``), text preprocessing, embeddings and
sequence models (``nlp_models``) and mixed-precision policies and dtypes in custom layers and
loops (``mixed_precision_and_dtypes``), eight cases each.

Written on 2026-12-04 from the Keras 3 / TensorFlow API documentation (and the installed
libraries' source, Keras 3 / TensorFlow as installed in ``/work/main/.venv``), the catalog of
finding codes (``/work/shared/DIAGNOSTICS.md``) and typical user reports, by a writer who did
not read the diagnosis (``tfnb_debug/``), its docs, nor the cases of the corpus, the family
sets and the earlier fresh sets (only their names are checked, so that no name repeats; every
name here starts with ``f14_``).  Each family module's docstring writes the family down: the
APIs, their documented contract, and the evidence a diagnosis needs.  ``expect``, ``must``
and ``must_not`` were decided from the documentation and from the exception each case
actually raises (checked with Keras 3.15 / TensorFlow 2.21 on CPU after ``PRELUDE``; each
case's comment gives the exception type and its first line; numbered layer names in
them are those of one process running all the cases in order), before any score was seen.
``expect=None`` marks a case whose own message already says what to do.

``python -m tests.explain_fresh14 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(14))
