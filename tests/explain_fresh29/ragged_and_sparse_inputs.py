"""Ragged and sparse inputs: ``tf.RaggedTensor`` and ``tf.SparseTensor`` meeting Keras and
TensorFlow ops.

The family, written down from the TensorFlow / Keras 3 documentation before the cases:

* A ``tf.Tensor`` is rectangular.  ``tf.constant``/``tf.convert_to_tensor`` (and ``fit``,
  which converts its arguments) refuse a Python list of rows of different lengths
  ("Can't convert non-rectangular Python sequence to Tensor"); NumPy refuses it too
  ("inhomogeneous shape").  Variable-length sequences are either padded to one length
  (``keras.utils.pad_sequences(seqs, maxlen=..., padding="post")``, ``rt.to_tensor()``,
  ``padded_batch``) or kept ragged (``tf.ragged.constant``, ``ragged_batch``).
* ``tf.RaggedTensor``: ``tf.ragged.constant(pylist)``; ``RaggedTensor.from_row_lengths(values,
  row_lengths)`` needs ``sum(row_lengths) == len(values)`` (likewise ``from_row_splits``:
  the last split equals ``len(values)``), otherwise ``InvalidArgumentError`` "Arguments to
  ... do not form a valid RaggedTensor" with the two numbers compared.  ``rt.to_tensor(
  default_value=0, shape=None)`` pads every row to the LONGEST row of this tensor (not to a
  length a model declared) unless ``shape=[None, L]`` is given.  ``row_lengths()``,
  ``flat_values`` belong to ragged tensors only.  A dataset made with
  ``Dataset.from_tensor_slices(ragged)`` yields ``RaggedTensorSpec`` elements:
  ``padded_batch`` refuses them (it only pads ``TensorSpec`` elements); ``ragged_batch(n)``
  batches them (and ``.to_tensor()`` in a ``map`` pads each batch).
* ``tf.sparse.SparseTensor(indices, values, dense_shape)``: ``indices`` is an int64 ``[N,
  rank]`` matrix, ``values`` has N entries, every index must lie inside ``dense_shape``
  (``0 <= index < dense_shape``), and most sparse ops (``tf.sparse.to_dense``, reductions)
  require the indices in canonical row-major order; ``tf.sparse.reorder`` returns an ordered
  copy.  For bag-of-words / multi-hot features the column index is a token id, so
  ``dense_shape[1]`` must be the vocabulary size (largest id + 1).
* Dense-only ops refuse ``SparseTensor``: ``tf.matmul``, ``tf.concat``, ``tf.reshape``
  raise "Attempt to convert a value (SparseTensor(...)) with an unsupported type"; the sparse
  versions are ``tf.sparse.sparse_dense_matmul``, ``tf.sparse.concat``,
  ``tf.sparse.reshape``, or ``tf.sparse.to_dense`` first.
* ``keras.Input(shape=(d,), sparse=True)`` accepts a ``SparseTensor`` whose dense width is
  ``d``; the functional model checks the width like any input ("expected shape=(None, d),
  found shape=(None, d')").  ``keras.Input(..., ragged=True)`` keeps ragged batches ragged.

Evidence a diagnosis needs: which tensor is ragged or sparse and where it came from; for a
conversion, that the rows have different lengths (two lengths) and that the fix is padding or
a ragged pipeline; for a sparse tensor, the offending index against ``dense_shape`` or the
order of the indices; for an op that refuses a ``SparseTensor``, the ``tf.sparse``
counterpart; for a width or length mismatch, both numbers and what produced the data
(``to_tensor`` pads to the longest row, a vectorizer's vocabulary size).
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "ragged_and_sparse_inputs"

CASES = [
    # ValueError: Can't convert non-rectangular Python sequence to Tensor.
    Case(
        name="f29_ragged_token_lists_to_constant_for_fit",
        family=FAMILY,
        code="""
token_ids = [[3, 1, 4], [1, 5], [9, 2, 6, 5]]
labels = np.array([0, 1, 0])
model = keras.Sequential([
    keras.Input(shape=(None,)),
    keras.layers.Embedding(10, 4),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(tf.constant(token_ids), labels, epochs=1, verbose=0)
""",
        expect="S13",
        must=("pad",),
        must_not=("tuple",),
        fix="keras.utils.pad_sequences(token_ids, padding='post') (or a ragged pipeline)",
    ),
    # TypeError: `padded_batch` is only supported for datasets that produce tensor elements
    # but type spec of elements in the input dataset is not a subclass of TensorSpec:
    # `RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)`.
    Case(
        name="f29_padded_batch_on_ragged_slices",
        family=FAMILY,
        code="""
sentences = tf.ragged.constant([[3, 1, 4], [1, 5], [9, 2, 6, 5, 3], [2]])
ds = tf.data.Dataset.from_tensor_slices(sentences)
ds = ds.padded_batch(2, padded_shapes=[None])
for batch in ds:
    print(batch.shape)
""",
        expect="S13",
        must=("ragged_batch",),
        must_not=("resize",),
        fix="ds.ragged_batch(2).map(lambda b: b.to_tensor())",
    ),
    # InvalidArgumentError: {{function_node __wrapped__SparseToDense_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} indices[1] = [0,2] is out of order. Many sparse ops
    # require sorted indices.
    Case(
        name="f29_sparse_indices_out_of_order_to_dense",
        family=FAMILY,
        code="""
clicks = tf.sparse.SparseTensor(
    indices=[[1, 0], [0, 2]], values=[1.0, 2.0], dense_shape=[2, 3]
)
dense_clicks = tf.sparse.to_dense(clicks)
""",
        expect=None,
        must_not=("dense_shape",),
        unexplained="the message says the indices are out of order and names tf.sparse.reorder",
        fix="tf.sparse.to_dense(tf.sparse.reorder(clicks))",
    ),
    # InvalidArgumentError: {{function_node __wrapped__SparseToDense_device_/job:localhost/
    # replica:0/task:0/device:CPU:0}} indices[3] = [1,7] is out of bounds: need 0 <= index <
    # [2,5] [Op:SparseToDense] name:
    Case(
        name="f29_bag_of_words_ids_beyond_dense_shape",
        family=FAMILY,
        code="""
docs = [[0, 3], [1, 7]]          # token ids per document, vocabulary of 8 tokens
indices = [[row, tok] for row, toks in enumerate(docs) for tok in toks]
bow = tf.sparse.SparseTensor(indices=indices, values=[1.0] * len(indices), dense_shape=[2, 5])
features = tf.sparse.to_dense(bow)
""",
        expect="S09",
        must=("dense_shape",),
        must_not=("reorder",),
        fix="dense_shape=[len(docs), vocab_size] with vocab_size = max id + 1 (8)",
    ),
    # ValueError: Attempt to convert a value (SparseTensor(indices=tf.Tensor(
    Case(
        name="f29_matmul_sparse_features_with_dense_weights",
        family=FAMILY,
        code="""
features = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[2, 3])
weights = tf.Variable(tf.random.normal((3, 4)))
scores = tf.matmul(features, weights)
""",
        expect="S11",
        must=("tf.sparse",),
        must_not=("astype", "tf.cast"),
        fix="tf.sparse.sparse_dense_matmul(features, weights)",
    ),
    # ValueError: Input 0 with name 'input_layer' of layer 'functional' is incompatible with
    # the layer: expected shape=(None, 1000), found shape=(None, 500)
    Case(
        name="f29_sparse_multi_hot_width_vs_input_shape",
        family=FAMILY,
        code="""
vocab_size = 500                    # the vectorizer kept 500 tokens
multi_hot = tf.sparse.SparseTensor(
    indices=[[0, 1], [0, 42], [1, 499]], values=[1.0, 1.0, 1.0], dense_shape=[2, vocab_size]
)
inp = keras.Input(shape=(1000,), sparse=True)
out = keras.layers.Dense(1, activation="sigmoid")(inp)
model = keras.Model(inp, out)
model.compile("adam", "binary_crossentropy")
model.fit(multi_hot, np.array([0.0, 1.0]), epochs=1, verbose=0)
""",
        expect="S01",
        must=("500", "1000"),
        must_not=("reshape", "flatten"),
        fix="keras.Input(shape=(vocab_size,), sparse=True)",
    ),
    # InvalidArgumentError: Arguments to _from_row_partition do not form a valid RaggedTensor
    Case(
        name="f29_row_lengths_sum_not_values_length",
        family=FAMILY,
        code="""
tokens = tf.constant([4, 8, 15, 16, 23])      # all tokens of 3 sentences, flattened
sentence_lengths = [2, 2, 2]
sentences = tf.RaggedTensor.from_row_lengths(tokens, row_lengths=sentence_lengths)
""",
        expect="S07",
        must=("row_length",),
        must_not=("padded_batch",),
        fix="row_lengths must sum to len(values) (here [2, 2, 1])",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # (Input 0 ... of layer 'dense' is incompatible with the layer: expected axis -1 of input
    # shape to have value 20, but received input with shape (3, 16))
    Case(
        name="f29_ragged_to_tensor_shorter_than_input",
        family=FAMILY,
        code="""
reviews = tf.ragged.constant([[1, 2, 3], [4, 5], [6, 7, 8, 9]])
x = reviews.to_tensor()
model = keras.Sequential([
    keras.Input(shape=(5,)),
    keras.layers.Embedding(10, 4),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
scores = model.predict(x, verbose=0)
""",
        expect="S01",
        must=("pad",),
        must_not=("input_dim",),
        fix="pad to the declared length: reviews.to_tensor(shape=[None, 5])",
    ),
]
