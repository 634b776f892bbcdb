"""Fresh set 24: forty blind cases of real user mistakes in five families of Keras programs.

The five families: autoencoders and variational autoencoders (``autoencoders_and_vaes``),
``keras.ops`` / ``tf`` tensor manipulation inside models (``keras_ops_and_tensor_manipulation``),
image augmentation and preprocessing (``image_augmentation_and_preprocessing``), regression
and time-series forecasting (``regression_and_forecasting``), and fine-tuning
``keras.applications`` bases with frozen layers (``fine_tuning_and_layer_freezing``).

This set is a DEVELOPMENT set: those who improve the diagnosis read its cases and build
mechanisms from its misses; its sibling set 25, written the same way by another writer, is
held out.

Written on 2026-12-05 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports (StackOverflow / GitHub issue
style mistakes), by a writer who did not read the diagnosis (``tfnb_debug/``), its docs,
nor the cases of the corpus, the family sets and the earlier fresh sets (only their names,
so that no name repeats; every name here starts with ``f24_``).  Each family module's
docstring writes the family down: the APIs, their documented contract, and the evidence a
diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the documentation
and from the exception each case actually raises (checked with Keras 3 / TensorFlow as
installed in ``/work/main/.venv``, on CPU after ``PRELUDE``; each case's comment gives
the exception type and its first line), before any score was seen.  ``expect=None`` marks a
case whose own message already says what to do.

``python -m tests.explain_fresh24 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(24))
