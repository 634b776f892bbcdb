"""Fresh set 27: a blind test set of real mistakes that raise, in five families new to the sets.

The families: distributed training with ``tf.distribute`` on one CPU (strategy scopes,
``strategy.run``, distributed datasets, ``strategy.reduce``, per-replica losses), code written
for ``tf.keras`` 2.x run on Keras 3 (removed and renamed APIs, saving, the structure of
``compile``'s arguments, unbuilt Sequential models), numeric checks and debugging asserts
(``tf.debugging.check_numerics``, ``assert_*``, ``tf.ensure_shape``, ``TerminateOnNaN``),
attention and transformer blocks (``MultiHeadAttention``, ``Attention``, positional
embeddings, residual widths, ``LayerNormalization`` axes, custom blocks and their
``get_config``), and the dataset builders and helpers of ``keras.utils``
(``to_categorical``, ``split_dataset``, ``image_dataset_from_directory``,
``text_dataset_from_directory``, ``pad_sequences``) where their outputs meet a model.

This set is HELD OUT: those who improve the diagnosis only run its score
(``python -m tests.explain_fresh27``) and never read its cases, so that the score stays a
measure of generalization.

Written on 2026-12-05 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports (StackOverflow / GitHub issue
style mistakes), by a writer who did not read the diagnosis (``tfnb_debug/``), its docs,
nor the cases of the corpus, the family sets and the earlier fresh sets (only their names,
so that no name repeats; every name here starts with ``f27_``).  Each family module's
docstring writes the family down: the APIs, their documented contract, and the evidence a
diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the documentation
and from the exception each case actually raises (checked with Keras 3 / TensorFlow as
installed in ``/work/main/.venv``, on CPU after ``PRELUDE``; each case's comment gives
the exception type and its first line), before any score was seen.  ``expect=None`` marks a
case whose own message already says what to do.

``python -m tests.explain_fresh27 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(27))
