"""A fifteenth blind set, HELD OUT: raising mistakes in five families, for the diagnosis under a failing cell.

It measures how far the diagnosis generalizes to mistakes nobody wrote it for: saving,
reloading and exporting models (``saving_and_export``), ``keras.applications`` bases
reused for new tasks (``transfer_learning``), images through ``tf.data``, ``tf.image``
and ``image_dataset_from_directory`` (``image_pipelines``), text models from
vectorization to recurrent and attention layers (``nlp_models``) and mixed precision
and dtypes in layers, custom loops and variables (``mixed_precision_and_dtypes``),
eight cases each.

This set is HELD OUT: those who improve the diagnosis run only its score
(``python -m tests.explain_fresh15``) and never read its cases, so that the score stays
a measure of generalization.  Case names start with ``f15_``.

Written on 2026-12-04 from the Keras 3 / TensorFlow API documentation and the sources of
Keras 3 / TensorFlow as installed in ``/work/main/.venv``, the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports, by a writer who did not read
the diagnosis (``tfnb_debug/``), its docs, nor the cases of the corpus, the family sets
and the earlier fresh sets (only their names, so that no name repeats).  Each family
module's docstring writes the family down: the APIs, their documented contract, and the
evidence a diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the
documentation and from the exception each case actually raises (checked with Keras 3.15
/ TensorFlow 2.21 on CPU after ``PRELUDE``; each case's comment gives the exception type
and its first line), before any score was seen, and are not to be changed afterwards.
``expect=None`` marks a case whose own message already says what to do.

``python -m tests.explain_fresh15 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(15))
