"""A nineteenth blind set, HELD OUT: raising mistakes in five families, for the diagnosis under a failing cell.

It measures how far the diagnosis generalizes to mistakes nobody wrote it for: pandas
DataFrames and NumPy tables fed to Keras models and preprocessing layers
(``tabular_inputs``), subclassed ``keras.layers.Layer``/``keras.Model`` against their
``__init__``/``build``/``call``/config contracts (``custom_layers_and_models``), U-Net style
encoder/decoders and per-pixel masks and losses (``segmentation_and_dense_prediction``),
encoder-decoder RNNs and attention layers (``seq2seq_and_attention``) and what
``evaluate``/``predict`` return and how users compare it with labels
(``evaluation_and_prediction``), eight cases each.

This set is HELD OUT: those who improve the diagnosis only run its score
(``python -m tests.explain_fresh19``) and never read its cases, so that the score stays a
measure of generalization.

Written on 2026-12-04 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports (StackOverflow / GitHub issue
style mistakes), by a writer who did not read the diagnosis (``tfnb_debug/``), its docs,
nor the cases of the corpus, the family sets and the earlier fresh sets (only their names,
so that no name repeats; every name here starts with ``f19_``).  Each family module's
docstring writes the family down: the APIs, their documented contract, and the evidence a
diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the documentation
and from the exception each case actually raises (checked with Keras 3.15 / TensorFlow 2.21
as installed in ``/work/main/.venv``, on CPU after ``PRELUDE``; each case's comment gives
the exception type and its first line), before any score was seen.  ``expect=None`` marks a
case whose own message already says what to do.

``python -m tests.explain_fresh19 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(19))
