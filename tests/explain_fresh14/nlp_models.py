"""Family ``nlp_models``: text preprocessing, embeddings and sequence models over token ids.

APIs: ``keras.layers.TextVectorization`` (``adapt`` builds a vocabulary; ``output_mode="int"``
gives ids in ``[0, vocabulary_size())``, with 0 for padding and 1 for OOV; without
``output_sequence_length`` the sequence axis is ``None``, so a ``Flatten``/``Dense`` after it
cannot be built), ``StringLookup``/``IntegerLookup`` (reserve index 0 for OOV by default, so
the ids run to ``len(vocabulary)``: an ``Embedding`` needs
``input_dim=lookup.vocabulary_size()``), ``keras.layers.Embedding`` (ids must lie in
``[0, input_dim)``; its input is integer ids, never strings; it is what turns rank-2 ids
into the rank-3 sequence an RNN needs), ``keras.utils.pad_sequences`` (makes ragged Python
lists of ids rectangular), ``LSTM``/``GRU``/``Bidirectional`` (``return_sequences=True``
gives one output per token, ``False`` one per sequence; the labels must match: per-sequence
labels ``(B,)`` against ``(B, T, C)`` outputs, or per-token tags ``(B, T)`` against ``(B, C)``
outputs, do not fit) and ``MultiHeadAttention`` (``query`` and ``value`` are both required;
self-attention is ``mha(x, x)``).

Evidence a diagnosis needs: the vocabulary size of the lookup/vectorizer against the
``Embedding``'s ``input_dim`` and the largest id, the dtype of the data reaching the first
layer (strings), whether sequences were padded (ragged lists), the rank of what reaches an
RNN and whether an ``Embedding`` precedes it, ``return_sequences`` of the last RNN against the
labels' rank, and ``output_sequence_length`` of a vectorizer feeding a ``Flatten``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: Graph execution error:
    # (its last line: indices[0,2] = 20 is not in [0, 20) [[{{node sequential_1/embedding_1/GatherV2}}]] ...)
    Case(
        name="f14_text_vectorization_vocab_larger_than_embedding_input_dim",
        family="nlp_models",
        code="""
reviews = np.array(["great plot and great actors", "boring", "the worst film of the year",
                    "a fine cast in a fine story", "loved every minute", "not my kind of movie at all"])
labels = np.array([1, 0, 0, 1, 1, 0])
vectorize = keras.layers.TextVectorization(output_mode="int", output_sequence_length=8)
vectorize.adapt(reviews)
token_ids = vectorize(reviews)
model = keras.Sequential([
    keras.layers.Embedding(input_dim=20, output_dim=8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(token_ids, labels, epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("pad_sequences", "label"),
        fix="Embedding(input_dim=vectorize.vocabulary_size(), ...)",
    ),
    # ValueError: Invalid dtype: str480
    Case(
        name="f14_raw_strings_fit_into_embedding_lstm",
        family="nlp_models",
        code="""
texts = np.array(["free money now", "meeting at noon", "win a prize", "lunch tomorrow?"])
spam = np.array([1, 0, 1, 0])
model = keras.Sequential([
    keras.layers.Embedding(input_dim=1000, output_dim=16),
    keras.layers.LSTM(8),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(texts, spam, epochs=1, verbose=0)
""",
        expect="S11",
        must=("vectoriz",),
        must_not=("float32",),
        fix="TextVectorization adapted on texts, as the first layer or applied to texts",
    ),
    # ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (4,) + inhomogeneous part.
    Case(
        name="f14_token_id_lists_of_different_lengths_without_padding",
        family="nlp_models",
        code="""
sequences = [[4, 12, 7], [9, 2], [15, 3, 8, 1, 6], [5]]
labels = np.array([0, 1, 1, 0])
model = keras.Sequential([
    keras.layers.Embedding(input_dim=20, output_dim=8),
    keras.layers.GRU(8),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(np.array(sequences, dtype="int32"), labels, epochs=1, verbose=0)
""",
        expect="S13",
        must=("pad_sequences",),
        must_not=("reshape",),
        fix="keras.utils.pad_sequences(sequences) before fit",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None,), output.shape=(None, 12, 3)
    Case(
        name="f14_lstm_return_sequences_with_one_sentiment_per_review",
        family="nlp_models",
        code="""
x = np.random.randint(1, 50, size=(8, 12))
sentiment = np.random.randint(0, 3, size=(8,))
inputs = keras.Input((12,))
h = keras.layers.Embedding(50, 16)(inputs)
h = keras.layers.LSTM(16, return_sequences=True)(h)
outputs = keras.layers.Dense(3, activation="softmax")(h)
model = keras.Model(inputs, outputs)
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, sentiment, epochs=1, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("to_categorical",),
        fix="LSTM(16) without return_sequences (or pool over time) for one label per sequence",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 10), output.shape=(None, 4)
    Case(
        name="f14_bidirectional_lstm_tagger_without_return_sequences",
        family="nlp_models",
        code="""
tokens = np.random.randint(1, 30, size=(6, 10))
tags = np.random.randint(0, 4, size=(6, 10))
model = keras.Sequential([
    keras.Input((10,)),
    keras.layers.Embedding(30, 8, mask_zero=True),
    keras.layers.Bidirectional(keras.layers.LSTM(8)),
    keras.layers.Dense(4, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(tokens, tags, epochs=1, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("to_categorical", "flatten"),
        fix="Bidirectional(LSTM(8, return_sequences=True)) for one tag per token",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm_3' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 6)
    Case(
        name="f14_padded_token_ids_straight_into_lstm",
        family="nlp_models",
        code="""
ids = keras.utils.pad_sequences([[3, 8, 1], [4, 4], [9, 2, 7, 5]], maxlen=6)
y = np.array([1, 0, 1])
model = keras.Sequential([
    keras.Input((6,)),
    keras.layers.LSTM(16),
    keras.layers.Dense(1, activation="sigmoid"),
])
""",
        expect="S01",
        must=("embedding",),
        must_not=("expand_dims",),
        fix="keras.layers.Embedding(input_dim=10, output_dim=16) before the LSTM",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None` dimensions). Received: shape=(None, 1) for variable path='dense_16/kernel'
    Case(
        name="f14_text_vectorization_without_sequence_length_then_flatten",
        family="nlp_models",
        code="""
corpus = ["the cat sat", "the dog ran far away", "birds fly", "fish swim in the sea"]
vectorizer = keras.layers.TextVectorization(max_tokens=100)
vectorizer.adapt(corpus)
text_in = keras.Input(shape=(1,), dtype="string")
x = vectorizer(text_in)
x = keras.layers.Embedding(100, 8)(x)
x = keras.layers.Flatten()(x)
out = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(text_in, out)
""",
        expect="S01",
        must=("output_sequence_length",),
        must_not=("input_dim",),
        fix="TextVectorization(max_tokens=100, output_sequence_length=8) (or GlobalAveragePooling1D)",
    ),
    # TypeError: missing a required argument: 'value'
    Case(
        name="f14_multi_head_self_attention_called_with_query_only",
        family="nlp_models",
        code="""
x = keras.Input((10, 32))
mha = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)
attended = mha(x)
""",
        expect=None,
        unexplained="the message names the missing argument 'value'; self-attention passes x as query and value",
        fix="mha(x, x)",
    ),
]
