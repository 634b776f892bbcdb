"""Family: ragged and sparse values meeting Keras layers and TensorFlow ops.

The APIs and their documented contract:

- ``tf.ragged.constant(pylist)`` builds a ``tf.RaggedTensor`` from nested lists of different
  lengths; ``tf.constant``/``tf.convert_to_tensor``/``np.array`` need rectangular data and
  refuse such lists ("Can't convert non-rectangular Python sequence", NumPy: "inhomogeneous
  shape").  A ragged tensor has a ``shape`` with ``None`` on its ragged axes (``(2, None)``),
  ``row_lengths()`` (only on a ``RaggedTensor``), ``to_tensor(default_value=, shape=)`` that
  pads to a dense tensor, and factory methods such as
  ``tf.RaggedTensor.from_row_lengths(values, row_lengths)``, whose ``row_lengths`` must sum to
  ``len(values)`` (checked at run time: "do not form a valid RaggedTensor").
- Keras 3: ``keras.Input(shape=(None,), ragged=True)`` declares a ragged input, but most
  layers only take dense tensors.  Recurrent layers (``LSTM``/``GRU``) in Keras 3 do not take
  ragged sequences ("Cannot index into an inner ragged dimension"); the documented way is to
  pad (``rt.to_tensor()``, ``keras.utils.pad_sequences``) and mask (``Embedding(mask_zero=True)``).
  ``Dense`` needs a defined last axis.
- ``tf.sparse.SparseTensor(indices, values, dense_shape)``: ``indices`` is an int64 ``[N, rank]``
  matrix (an int32 tensor is refused: "Tensor conversion requested dtype int64"), ``values`` has
  ``N`` entries, ``dense_shape`` is the full shape; every index must lie inside ``dense_shape``
  (``tf.sparse.to_dense``: "is out of bounds: need 0 <= index < [..]") and, by convention, the
  indices are in canonical row-major order; a tensor built by hand with unsorted indices must go
  through ``tf.sparse.reorder`` first ("is out of order. Many sparse ops require sorted
  indices").  Keras' data adapters slice a sparse ``x`` by rows and need the same order.
- Dense ops do not take sparse operands: ``tf.matmul``, ``tf.reduce_sum``, ``tf.nn.*`` convert
  their arguments to dense tensors and fail on a ``SparseTensor`` ("Attempt to convert a value
  (SparseTensor(...)) with an unsupported type"); the sparse counterparts are
  ``tf.sparse.sparse_dense_matmul``, ``tf.sparse.reduce_sum``, or ``tf.sparse.to_dense``.
- Bag-of-words / multi-hot features given as a ``SparseTensor`` to
  ``keras.Input(shape=(V,), sparse=True)`` and a ``Dense`` layer: the width ``V`` declared in
  the ``Input`` must equal the sparse tensor's ``dense_shape[1]`` (the vocabulary size); token
  ids must be ``< dense_shape[1]``.

Evidence a diagnosis needs: which value is ragged or sparse and where it came from (the
``tf.ragged.constant``, ``Input(ragged=True)``, ``SparseTensor`` construction, or lists of
different lengths and two of their lengths), the op or layer that refuses it, the
``dense_shape`` versus the largest index or the declared ``Input`` width, the order of the
indices, the sum of ``row_lengths`` versus the number of values, and the fix that fits:
pad/``to_tensor``, the ``tf.sparse`` op, ``tf.sparse.reorder``, a ``dense_shape``/``Input``
width that matches the vocabulary.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "ragged_and_sparse_inputs"

CASES = [
    # ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. ...
    Case(
        name="f28_token_lists_of_unequal_length_to_np_array",
        family=FAMILY,
        code="""
seqs = [[3, 7, 1], [4, 2], [9, 5, 8, 6]]
labels = np.array([0, 1, 0])
model = keras.Sequential([
    keras.Input(shape=(None,)),
    keras.layers.Embedding(10, 4),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(np.array(seqs), labels, epochs=1, verbose=0)
""",
        expect="S13",
        must=("pad",),
        must_not=("dtype=object", "astype"),
        fix="keras.utils.pad_sequences(seqs) (or tf.ragged.constant + to_tensor)",
    ),
    # ValueError: Exception encountered when calling LSTM.call().  (Cannot index into an inner ragged dimension.)
    Case(
        name="f28_ragged_input_fed_to_lstm",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(None,), dtype="int32", ragged=True)
x = keras.layers.Embedding(20, 4)(inp)
x = keras.layers.LSTM(8)(x)
out = keras.layers.Dense(1)(x)
model = keras.Model(inp, out)
reviews = tf.ragged.constant([[1, 2, 3], [4, 5]])
model.predict(reviews, verbose=0)
""",
        expect="S01",
        must=("ragged",),
        must_not=("return_sequences",),
        fix="pad (reviews.to_tensor()) with Embedding(mask_zero=True) and a dense Input",
    ),
    # ValueError: Attempt to convert a value (SparseTensor(indices=tf.Tensor(
    Case(
        name="f28_tf_matmul_with_sparse_bag_of_words",
        family=FAMILY,
        code="""
bow = tf.sparse.SparseTensor(indices=[[0, 1], [1, 2]], values=[1.0, 1.0], dense_shape=[2, 3])
w = tf.ones((3, 4))
hidden = tf.matmul(bow, w)
""",
        expect="S11",
        must=("tf.sparse",),
        must_not=("astype",),
        fix="tf.sparse.sparse_dense_matmul(bow, w)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (expected axis -1 of input shape to have value 40, but received input with shape (2, 50))
    Case(
        name="f28_sparse_multi_hot_wider_than_input",
        family=FAMILY,
        code="""
vocab_size = 50
rows = [[0, 3], [0, 7], [1, 12], [2, 49], [3, 1]]
x = tf.sparse.SparseTensor(indices=rows, values=[1.0] * 5, dense_shape=[4, vocab_size])
y = np.array([0, 1, 1, 0])
model = keras.Sequential([
    keras.Input(shape=(40,), sparse=True),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, batch_size=2, epochs=1, verbose=0)
""",
        expect="S01",
        must=("50",),
        must_not=("batch size",),
        fix="keras.Input(shape=(vocab_size,), sparse=True)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__SparseToDense_...}} indices[3] = [1,5] is out of bounds: need 0 <= index < [2,5] [Op:SparseToDense] name:
    Case(
        name="f28_sparse_bow_token_id_past_dense_shape",
        family=FAMILY,
        code="""
vocab_size = 5
docs = [[0, 2], [1, 5]]
idx = [[i, t] for i, d in enumerate(docs) for t in d]
bow = tf.sparse.SparseTensor(indices=idx, values=[1.0] * len(idx), dense_shape=[2, vocab_size])
dense = tf.sparse.to_dense(bow)
""",
        expect="S09",
        must=("dense_shape",),
        must_not=("reorder",),
        fix="dense_shape=[2, max token id + 1] (vocab_size = 6)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__SparseToDense_...}} indices[1] = [0,2] is out of order. Many sparse ops require sorted indices.
    Case(
        name="f28_sparse_unsorted_indices_to_dense",
        family=FAMILY,
        code="""
sp = tf.sparse.SparseTensor(indices=[[1, 0], [0, 2]], values=[1.0, 2.0], dense_shape=[2, 3])
dense = tf.sparse.to_dense(sp)
""",
        expect=None,
        unexplained=(
            "the message names the index out of order and says to use `tf.sparse.reorder` to "
            "create a correctly ordered copy"
        ),
        fix="tf.sparse.to_dense(tf.sparse.reorder(sp))",
    ),
    # InvalidArgumentError: Arguments to from_value_rowids do not form a valid RowPartition.
    Case(
        name="f28_sparse_unsorted_indices_fed_to_fit",
        family=FAMILY,
        code="""
vocab_size = 10
rows = [[1, 3], [0, 7], [0, 2], [2, 9], [3, 1]]
x = tf.sparse.SparseTensor(indices=rows, values=[1.0] * 5, dense_shape=[4, vocab_size])
y = np.array([0, 1, 1, 0])
model = keras.Sequential([
    keras.Input(shape=(vocab_size,), sparse=True),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, batch_size=2, epochs=1, verbose=0)
""",
        expect="S12",
        must=("reorder",),
        must_not=("dense_shape=",),
        fix="x = tf.sparse.reorder(x) before fit",
    ),
    # InvalidArgumentError: Arguments to _from_row_partition do not form a valid RaggedTensor
    Case(
        name="f28_ragged_row_lengths_do_not_sum_to_values",
        family=FAMILY,
        code="""
tokens = tf.constant([3, 1, 4, 1, 5, 9, 2])
sentences = tf.RaggedTensor.from_row_lengths(tokens, row_lengths=[2, 3, 3])
""",
        expect="S07",
        must=("row_lengths",),
        must_not=("reorder",),
        fix="row_lengths that sum to len(tokens) (e.g. [2, 3, 2])",
    ),
]
