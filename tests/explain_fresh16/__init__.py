"""A sixteenth fresh set, a DEV set: raising mistakes in five families, for building general mechanisms from its misses.

Unlike the blind sets, this one is meant to be read by those who improve the diagnosis:
its misses show which mechanisms are missing.  Its cases are still written blind, so they
measure how far the diagnosis generalizes to mistakes nobody wrote it for: hand-written
losses and metrics (``custom_losses_and_metrics``), pandas DataFrames, columns and
preprocessing layers for tables (``tabular_inputs``), windows cut from series for RNN and
Conv1D models (``time_series_windows``), code traced by ``tf.function`` and Keras'
compiled train step (``tf_function_and_tracing``), and reading data from CSV, TFRecord,
text directories, generators, ``PyDataset`` and ``.npz`` files (``data_loading``), eight
cases each.

Written on 2026-12-04 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports, by a writer who did not read
the diagnosis (``tfnb_debug/``), its docs, nor the cases of the corpus, the family sets and
the earlier fresh sets (only their names, so that no name repeats; every name here starts
with ``f16_``).  Each family module's docstring writes the family down: the APIs, their
documented contract, and the evidence a diagnosis needs.  ``expect``, ``must`` and
``must_not`` were decided from the documentation and from the exception each case
actually raises (checked with Keras 3.15 / TensorFlow 2.21 on CPU after ``PRELUDE``; each
case's comment gives the exception type and its first line), before any score was seen.
``expect=None`` marks a case whose own message already says what to do.

``python -m tests.explain_fresh16 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(16))
