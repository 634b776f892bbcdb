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
    """Every case of every family module, in a stable order."""
    from tests.explain_corpus import all_cases as corpus_cases
    from tests.explain_families import all_cases as family_set_cases
    from tests.explain_fresh import all_cases as fresh_cases
    from tests.explain_fresh import family_cases
    from tests.explain_fresh2 import all_cases as fresh2_cases
    from tests.explain_fresh3 import all_cases as fresh3_cases
    from tests.explain_fresh4 import all_cases as fresh4_cases
    from tests.explain_fresh5 import all_cases as fresh5_cases
    from tests.explain_fresh6 import all_cases as fresh6_cases
    from tests.explain_fresh7 import all_cases as fresh7_cases
    from tests.explain_fresh8 import all_cases as fresh8_cases
    from tests.explain_fresh9 import all_cases as fresh9_cases
    from tests.explain_fresh10 import all_cases as fresh10_cases
    from tests.explain_fresh11 import all_cases as fresh11_cases
    from tests.explain_fresh12 import all_cases as fresh12_cases
    from tests.explain_fresh13 import all_cases as fresh13_cases

    return family_cases(
        __name__,
        __path__,
        {
            "tests/explain_corpus": corpus_cases,
            "tests/explain_families": family_set_cases,
            "tests/explain_fresh": fresh_cases,
            "tests/explain_fresh2": fresh2_cases,
            "tests/explain_fresh3": fresh3_cases,
            "tests/explain_fresh4": fresh4_cases,
            "tests/explain_fresh5": fresh5_cases,
            "tests/explain_fresh6": fresh6_cases,
            "tests/explain_fresh7": fresh7_cases,
            "tests/explain_fresh8": fresh8_cases,
            "tests/explain_fresh9": fresh9_cases,
            "tests/explain_fresh10": fresh10_cases,
            "tests/explain_fresh11": fresh11_cases,
            "tests/explain_fresh12": fresh12_cases,
            "tests/explain_fresh13": fresh13_cases,
        },
    )
