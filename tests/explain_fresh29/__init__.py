"""Fresh set 29: blind cases of ragged/sparse inputs, GANs and custom train steps, lookup
layers, Conv1D/Conv3D/pooling, and tf.data generators and structures.

Five families, eight cases each: ``ragged_and_sparse_inputs`` (``tf.RaggedTensor`` and
``tf.SparseTensor`` meeting Keras and TensorFlow ops), ``gans_and_custom_train_steps``
(``train_step``/``test_step`` overrides, generators and discriminators, two optimizers),
``lookup_and_categorical_features`` (``StringLookup``, ``IntegerLookup``, ``Hashing``,
``CategoryEncoding``, ``Discretization``, embeddings fed with lookup ids, two-tower models),
``conv1d_conv3d_and_pooling`` (``Conv1D``/``Conv3D``/depthwise and separable convolutions,
pooling, output lengths) and ``tf_data_generators_and_structures``
(``Dataset.from_generator``, ``padded_batch``, ``zip``, ``unbatch``, nested structures and
``keras.utils.PyDataset`` meeting ``fit``).

This set is HELD OUT: those who improve the diagnosis only run its score
(``python -m tests.explain_fresh29``) and never read its cases, so that the score stays a
measure of generalization.

Written on 2026-12-05 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports (StackOverflow / GitHub issue
style mistakes), by a writer who did not read the diagnosis (``tfnb_debug/``), its docs,
nor the cases of the corpus, the family sets and the earlier fresh sets (only their names,
so that no name repeats; every name here starts with ``f29_``).  Each family module's
docstring writes the family down: the APIs, their documented contract, and the evidence a
diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the documentation
and from the exception each case actually raises (checked with Keras 3 / TensorFlow as
installed in ``/work/main/.venv``, on CPU after ``PRELUDE``; each case's comment gives
the exception type and its first line), before any score was seen.  ``expect=None`` marks a
case whose own message already says what to do.

``python -m tests.explain_fresh29 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(29))
