"""Fresh blind set 28: ragged/sparse inputs, GANs and custom train steps, lookup layers, Conv1D/Conv3D and pooling, tf.data generators and element structures.

Five families, one module each: ``ragged_and_sparse_inputs`` (``tf.RaggedTensor`` and
``tf.SparseTensor`` meeting Keras layers and TensorFlow ops), ``gans_and_custom_train_steps``
(models that override ``train_step``, GANs with a generator, a discriminator and their
optimizers, metric trackers), ``lookup_and_categorical_features`` (``StringLookup``,
``IntegerLookup``, ``Hashing``, ``HashedCrossing``, ``CategoryEncoding``, ``Discretization``
and the embeddings and two-tower models fed by them), ``conv1d_conv3d_and_pooling``
(``Conv1D`` on signals and sequences, ``Conv3D`` on volumes, separable and grouped
convolutions, pooling, padding and the output lengths they produce) and
``tf_data_generators_and_structures`` (``Dataset.from_generator``, ``zip``, ``padded_batch``,
``unbatch``, nested element structures meeting ``fit``, ``keras.utils.PyDataset``).

This set is a DEVELOPMENT set: those who improve the diagnosis read its cases and build
mechanisms from its misses; its sibling set 29, written the same way by another writer, is
held out.

Written on 2026-12-05 from the Keras 3 / TensorFlow API documentation (and the sources of
the libraries installed in ``/work/main/.venv``), the catalog of finding codes
(``/work/shared/DIAGNOSTICS.md``) and typical user reports (StackOverflow / GitHub issue
style mistakes), by a writer who did not read the diagnosis (``tfnb_debug/``), its docs,
nor the cases of the corpus, the family sets and the earlier fresh sets (only their names,
so that no name repeats; every name here starts with ``f28_``).  Each family module's
docstring writes the family down: the APIs, their documented contract, and the evidence a
diagnosis needs.  ``expect``, ``must`` and ``must_not`` were decided from the documentation
and from the exception each case actually raises (checked with Keras 3 / TensorFlow as
installed in ``/work/main/.venv``, on CPU after ``PRELUDE``; each case's comment gives
the exception type and its first line), before any score was seen.  ``expect=None`` marks a
case whose own message already says what to do.

``python -m tests.explain_fresh28 [--family F] [--case NAME] [--full]`` scores
the cases in a real IPython shell with the scorer of ``tests.explain_fresh``.
"""

from __future__ import annotations

from tests.explain_corpus import PRELUDE, Case

__all__ = ["PRELUDE", "Case", "all_cases"]


def all_cases() -> list[Case]:
    """Every case of every family module, in a stable order; no name an earlier set used."""
    from tests.explain_fresh import family_cases, sets_before

    return family_cases(__name__, __path__, sets_before(28))
