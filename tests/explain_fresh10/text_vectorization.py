"""Family ``text_vectorization``: Keras' text and lookup preprocessing layers and the ids they produce.

APIs: ``keras.layers.TextVectorization`` (``adapt`` takes strings only, an array or a
dataset of *texts*, so a dataset of ``(text, label)`` pairs must be mapped to its texts
first; ``output_mode="int"`` gives token ids, padded or cut to ``output_sequence_length``
when it is set and of the longest text of the batch otherwise, or a ``RaggedTensor`` with
``ragged=True``; ``vocabulary_size()`` counts the padding and OOV tokens and is only
meaningful after ``adapt`` or ``set_vocabulary``), ``StringLookup``/``IntegerLookup``
(index 0 is the mask token when ``mask_token`` is set, then ``num_oov_indices`` OOV
indices, then the vocabulary, so the ids run up to ``vocabulary_size() - 1``; with
``num_oov_indices=0`` an unknown value is an error; ``invert=True`` maps ids back to
tokens and so takes integers), ``Hashing`` (ids in ``[0, num_bins)``) and the
``Embedding`` those ids index (``input_dim`` must exceed the largest id).

Evidence a diagnosis needs: the layer that produced the ids and its vocabulary size,
``num_bins``, mask and OOV settings, the ``input_dim`` of the Embedding (or the number
of classes of the output) that the ids index, when the size was read (before ``adapt``),
the dtype each layer received against the one it takes, and the element structure of a
dataset given to ``adapt``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: cannot compute Pack as input #1(zero-based) was expected to be a
    #   string tensor but is a int64 tensor [Op:Pack] name: packed
    Case(
        name="f10_text_vectorization_adapted_on_text_label_pairs",
        family="text_vectorization",
        code="""
reviews = np.array(["good movie", "bad plot", "great acting", "awful"])
labels = np.array([1, 0, 1, 0])
train_ds = tf.data.Dataset.from_tensor_slices((reviews, labels)).batch(2)
vectorizer = keras.layers.TextVectorization(max_tokens=100, output_sequence_length=4)
vectorizer.adapt(train_ds)
""",
        expect="S12",
        must=("map",),
        must_not=("tf.cast", "astype"),
        fix="vectorizer.adapt(train_ds.map(lambda text, label: text))",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... indices[..] = 7 is not in [0, 2) [[{{node sequential_1/embedding_1/GatherV2}}]]
    Case(
        name="f10_embedding_sized_by_vocabulary_size_read_before_adapt",
        family="text_vectorization",
        code="""
texts = ["good movie", "bad plot here", "great acting", "awful ending twist"]
labels = [1, 0, 1, 0]
vectorizer = keras.layers.TextVectorization(max_tokens=100, output_sequence_length=4)
vocab_size = vectorizer.vocabulary_size()
vectorizer.adapt(texts)
model = keras.Sequential([
    keras.Input((1,), dtype="string"),
    vectorizer,
    keras.layers.Embedding(vocab_size, 8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
ds = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(2)
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S09",
        must=("adapt",),
        must_not=("re-index",),
        fix="read vectorizer.vocabulary_size() after adapt (here 12)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... indices[..] = ... is not in [0, 64) [[{{node sequential_1/embedding_1/GatherV2}}]]
    Case(
        name="f10_hashing_into_1000_bins_feeds_a_64_row_embedding",
        family="text_vectorization",
        code="""
tags = tf.constant([["sports"], ["news"], ["tech"], ["sports"]])
model = keras.Sequential([
    keras.Input((1,), dtype="string"),
    keras.layers.Hashing(num_bins=1000),
    keras.layers.Embedding(64, 4),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(tags, np.zeros(4), epochs=1, verbose=0)
""",
        expect="S09",
        must=("num_bins",),
        must_not=("mask_zero",),
        fix="Embedding(1000, 4) (input_dim = num_bins), or Hashing(num_bins=64)",
    ),
    # UnimplementedError: Exception encountered when calling StringLookup.call().
    #   {{function_node __wrapped__Cast_device_...}} Cast string to int64 is not supported [Op:Cast]
    Case(
        name="f10_inverted_string_lookup_given_the_animal_names",
        family="text_vectorization",
        code="""
vocab = ["cat", "dog", "bird"]
to_ids = keras.layers.StringLookup(vocabulary=vocab)
to_names = keras.layers.StringLookup(vocabulary=vocab, invert=True)
predicted = np.array(["dog", "cat"])
print(to_names(predicted))
""",
        expect="S11",
        must=("invert",),
        must_not=('astype("float32")',),
        fix="give the inverted lookup integer ids (to_names(to_ids(...)) or the argmax ids)",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    #   dimensions). Received: shape=(None, 1) for variable path='sequential/dense/kernel'
    Case(
        name="f10_flatten_after_text_vectorization_without_sequence_length",
        family="text_vectorization",
        code="""
vectorizer = keras.layers.TextVectorization(max_tokens=50)
vectorizer.adapt(["the cat sat", "a dog ran fast today"])
model = keras.Sequential([
    keras.Input((1,), dtype="string"),
    vectorizer,
    keras.layers.Embedding(50, 4),
    keras.layers.Flatten(),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("output_sequence_length",),
        must_not=("input_shape",),
        fix="TextVectorization(..., output_sequence_length=N), or GlobalAveragePooling1D instead of Flatten",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... Received a label value of 3 which is outside the valid range of [0, 3).  Label values: ...
    Case(
        name="f10_string_lookup_label_ids_shifted_by_the_oov_index",
        family="text_vectorization",
        code="""
sentiment = tf.constant(["pos", "neg", "neu", "pos", "neg", "neu"])
label_lookup = keras.layers.StringLookup()
label_lookup.adapt(sentiment)
y = label_lookup(sentiment)
model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(np.random.rand(6, 2).astype("float32"), y, epochs=1, verbose=0)
""",
        expect="P12",
        must=("num_oov_indices",),
        must_not=("dense(4",),
        fix="StringLookup(num_oov_indices=0) for the labels",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... assertion failed: [The matrices in `a` and `b` may not be ragged in their innermost dimension.] ...
    Case(
        name="f10_ragged_token_ids_given_to_a_dense_model",
        family="text_vectorization",
        code="""
vectorizer = keras.layers.TextVectorization(max_tokens=50, ragged=True)
sentences = ["the cat sat", "a dog ran fast today"]
vectorizer.adapt(sentences)
ids = vectorizer(sentences)
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ids, np.zeros(2), epochs=1, verbose=0)
""",
        expect="S13",
        must=("ragged",),
        must_not=("batch_size=1",),
        fix="ids.to_tensor(shape=(None, 5)), or output_sequence_length=5 without ragged=True",
    ),
    # InvalidArgumentError: Exception encountered when calling StringLookup.call().
    #   Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'When
    #   `num_oov_indices=0` all inputs should be in vocabulary, found OOV values ["bird"], consider
    #   setting `num_oov_indices=1`.'
    Case(
        name="f10_string_lookup_without_oov_meets_an_unknown_animal",
        family="text_vectorization",
        code="""
lookup = keras.layers.StringLookup(vocabulary=["cat", "dog"], num_oov_indices=0)
print(lookup(tf.constant(["cat", "bird"])))
""",
        expect=None,
        unexplained="the message names the OOV value and says to set num_oov_indices=1",
        fix="num_oov_indices=1 (or add the value to the vocabulary)",
    ),
]
