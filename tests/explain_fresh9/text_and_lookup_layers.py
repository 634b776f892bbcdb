"""Family ``text_and_lookup_layers``: text and categorical ids through Keras preprocessing layers.

APIs: ``keras.layers.TextVectorization`` learns a vocabulary with ``adapt(data)``, where
``data`` holds only the texts (a dataset of ``(text, label)`` pairs must be mapped to its
texts first); with ``output_mode="int"`` it returns token ids, padded or cut to
``output_sequence_length`` when that is set and otherwise as long as the longest text in
the batch (an unknown length, so ``Flatten`` + ``Dense`` after it cannot be built); with
``"multi_hot"``/``"count"``/``"tf_idf"`` it returns one column per vocabulary entry, i.e.
``vocabulary_size()`` columns, and ``max_tokens`` columns only with
``pad_to_max_tokens=True``.  ``StringLookup``/``IntegerLookup`` map a vocabulary to ids
and reserve the first ``num_oov_indices`` ids (1 by default, plus a mask id when
``mask_token`` is set) for out-of-vocabulary values, so the ids of a vocabulary of V
words run up to V and an ``Embedding`` after them needs ``input_dim =
lookup.vocabulary_size()`` (V + 1); ``invert=True`` maps ids back to words, so it takes
integer ids, not strings.  ``Hashing(num_bins=N)`` outputs ids in ``[0, N)``.
``Embedding(input_dim)`` accepts ids in ``[0, input_dim)``.  ``Dense`` and the other
weighted layers take numbers: raw strings must be vectorized first.  Sequences of
different lengths (lists of token lists, ``tf.RaggedTensor``) must be padded into a
rectangular tensor (``keras.utils.pad_sequences``, ``ragged.to_tensor()``) before
recurrent layers.

Evidence a diagnosis needs: which preprocessing layer produced the tensor that failed and
its configuration (vocabulary size and reserved OOV/mask ids, ``num_bins``,
``output_mode``, ``output_sequence_length``, ``max_tokens``/``pad_to_max_tokens``,
``invert``), the largest id against ``input_dim``, the dtype (string vs integer) the
layer received, the element structure of the dataset given to ``adapt``, and whether the
sequences were ragged.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # UnimplementedError: Graph execution error:
    #   Detected at node sequential_1/Cast ...  Cast string to float is not supported
    Case(
        name="f9_dense_classifier_fit_on_raw_review_strings",
        family="text_and_lookup_layers",
        code="""
reviews = tf.constant(["great movie", "awful plot", "loved it", "boring"])
labels = np.array([1, 0, 1, 0])
ds = tf.data.Dataset.from_tensor_slices((reviews, labels)).batch(2)
model = keras.Sequential([
    keras.Input(shape=(1,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(ds, epochs=1, verbose=0)
""",
        expect="S11",
        must=("textvectorization",),
        must_not=("astype", "tf.cast"),
        fix="vectorize the text first (TextVectorization, then Embedding/Dense)",
    ),
    # UnimplementedError: Exception encountered when calling StringLookup.call().
    #   {{function_node __wrapped__Cast_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   Cast string to int64 is not supported [Op:Cast] name:
    Case(
        name="f9_inverted_string_lookup_given_color_words",
        family="text_and_lookup_layers",
        code="""
to_color = keras.layers.StringLookup(vocabulary=["red", "green", "blue"], invert=True)
colors = to_color(tf.constant(["red", "blue"]))
""",
        expect="S11",
        must=("invert",),
        must_not=("tf.cast", "float32"),
        fix="pass ids to the inverted lookup (or invert=False to map words to ids)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... indices[i,0] = 4 is not in [0, 4)  (the row i depends on the shuffle)
    Case(
        name="f9_embedding_rows_counted_without_string_lookup_oov",
        family="text_and_lookup_layers",
        code="""
vocab = ["sun", "rain", "snow", "fog"]
lookup = keras.layers.StringLookup(vocabulary=vocab)
ids = lookup(tf.constant([["sun"], ["rain"], ["snow"], ["fog"]]))
y = np.array([1, 0, 0, 1])
model = keras.Sequential([
    keras.layers.Embedding(input_dim=len(vocab), output_dim=4),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(ids, y, epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("mask_zero",),
        fix="Embedding(input_dim=lookup.vocabulary_size())",
    ),
    # InvalidArgumentError: Exception encountered when calling Embedding.call().
    #   {{function_node __wrapped__GatherV2_device_/job:localhost/replica:0/task:0/device:CPU:0}}
    #   indices[0,0] = 25 is not in [0, 16) [Op:GatherV2]
    Case(
        name="f9_hashing_bins_outnumber_embedding_rows",
        family="text_and_lookup_layers",
        code="""
hasher = keras.layers.Hashing(num_bins=64)
ids = hasher(tf.constant([["apple"], ["kiwi"], ["plum"], ["fig"]]))
embed = keras.layers.Embedding(input_dim=16, output_dim=4)
vectors = embed(ids)
""",
        expect="S09",
        must=("num_bins",),
        must_not=("oov",),
        fix="Embedding(input_dim=64), or Hashing(num_bins=16)",
    ),
    # InvalidArgumentError: cannot compute Pack as input #1(zero-based) was expected to be
    #   a string tensor but is a int32 tensor [Op:Pack] name: packed
    Case(
        name="f9_text_vectorization_adapted_on_text_label_pairs",
        family="text_and_lookup_layers",
        code="""
texts = ["good", "bad", "fine", "poor"]
train_ds = tf.data.Dataset.from_tensor_slices((texts, [1, 0, 1, 0])).batch(2)
vectorizer = keras.layers.TextVectorization(max_tokens=50)
vectorizer.adapt(train_ds)
""",
        expect="S12",
        must=("label",),
        must_not=("tf.cast", "astype"),
        fix="vectorizer.adapt(train_ds.map(lambda text, label: text))",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    #   dimensions). Received: shape=(None, 1) for variable path='dense_5/kernel'
    Case(
        name="f9_text_vectorization_without_sequence_length_before_flatten",
        family="text_and_lookup_layers",
        code="""
vectorizer = keras.layers.TextVectorization(max_tokens=30)
vectorizer.adapt(["one two", "three four five six"])
inp = keras.Input(shape=(), dtype="string")
h = vectorizer(inp)
h = keras.layers.Embedding(30, 4)(h)
h = keras.layers.Flatten()(h)
out = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model(inp, out)
""",
        expect="S01",
        must=("output_sequence_length",),
        must_not=("input_shape", "build("),
        fix="TextVectorization(max_tokens=30, output_sequence_length=N) (or GlobalAveragePooling1D)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense' is incompatible with the layer: expected
    #   axis -1 of input shape to have value 1000, but received input with shape (None, 14)
    Case(
        name="f9_multi_hot_width_taken_to_be_max_tokens",
        family="text_and_lookup_layers",
        code="""
vectorizer = keras.layers.TextVectorization(max_tokens=1000, output_mode="multi_hot")
vectorizer.adapt(["cheap flights to rome", "win a free cruise", "meeting at noon", "free tickets now"])
x = vectorizer(tf.constant(["win free flights", "meeting at noon", "cheap cruise", "tickets to rome"]))
y = np.array([1, 0, 1, 1])
model = keras.Sequential([
    keras.Input((1000,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("max_tokens",),
        must_not=("output_sequence_length",),
        fix="TextVectorization(..., pad_to_max_tokens=True), or Input((vectorizer.vocabulary_size(),))",
    ),
    # ValueError: Exception encountered when calling LSTM.call().
    #   Cannot index into an inner ragged dimension.
    Case(
        name="f9_ragged_token_ids_straight_into_lstm",
        family="text_and_lookup_layers",
        code="""
token_ids = tf.ragged.constant([[3, 8, 1], [4, 2], [9, 9, 9, 5, 6]])
y = np.array([0, 1, 1])
model = keras.Sequential([
    keras.layers.Embedding(20, 8),
    keras.layers.LSTM(4),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(token_ids, y, epochs=1, verbose=0)
""",
        expect="S13",
        must=("pad",),
        must_not=("return_sequences",),
        fix="token_ids.to_tensor() (pad with 0), or keras.utils.pad_sequences, with Embedding(mask_zero=True)",
    ),
]
