"""Family ``nlp_models``: text models from vectorization to recurrent and attention layers.

APIs: ``keras.layers.TextVectorization`` (after ``adapt`` its vocabulary, padding
``0`` and OOV ``1`` included, has ``vocabulary_size()`` entries, so an ``Embedding``
after it needs ``input_dim >= vocabulary_size()``), ``StringLookup`` / ``IntegerLookup``
(one OOV index by default, ``num_oov_indices=1``, placed at index 0, so the looked-up
ids run from 1 to the vocabulary size: as class labels they need
``num_oov_indices=0``); ``Embedding(input_dim, output_dim)`` (integer ids in
``[0, input_dim)``, a model's first layer for token ids: recurrent layers need a 3-D
``(batch, time, features)`` input); ``keras.utils.pad_sequences`` (turns a list of
token lists of different lengths into one rectangular array; Keras does not accept a
ragged Python list as ``x``); ``LSTM``/``GRU``/``Bidirectional`` (return only the last
step unless ``return_sequences=True``: a stacked recurrent layer or a per-token output
needs the whole sequence); ``MultiHeadAttention`` (``call(query, value, key=None,
...)``: self-attention passes the same tensor as query and value); string tensors
cannot reach ``Embedding`` or any numeric layer without a vectorization step.

Evidence a diagnosis needs: the vocabulary size of the lookup or vectorization layer
against ``Embedding.input_dim`` and the largest id in the data; the dtype of the data
that reached the first layer (strings, objects); the ``return_sequences`` of the
recurrent layer that produced a 2-D tensor and what consumed it (a recurrent layer, a
per-token loss with labels of shape ``(batch, time)``); the arguments a layer call
received against its signature; the label range against the output units.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: Graph execution error:
    # (... indices[i,j] = N is not in [0, 10), N = 10 or more, at the Embedding's GatherV2)
    Case(
        name="f15_embedding_input_dim_below_adapted_vocabulary",
        family="nlp_models",
        code="""
texts = np.array([
    "the movie was great fun",
    "a dull and boring plot",
    "great acting and a great plot",
    "boring",
])
labels = np.array([1, 0, 1, 0])
vectorize = keras.layers.TextVectorization(output_sequence_length=6)
vectorize.adapt(texts)
ids = vectorize(texts)
model = keras.Sequential([
    keras.layers.Embedding(input_dim=10, output_dim=8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(ids, labels, epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("pad_sequences",),
        fix="Embedding(input_dim=vectorize.vocabulary_size(), ...)",
    ),
    # ValueError: Invalid dtype: str416
    Case(
        name="f15_raw_review_strings_fit_on_embedding_lstm",
        family="nlp_models",
        code="""
texts = np.array(["good service", "terrible food", "lovely staff", "never again"])
labels = np.array([1, 0, 1, 0])
model = keras.Sequential([
    keras.layers.Embedding(1000, 16),
    keras.layers.LSTM(8),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(texts, labels, epochs=1, verbose=0)
""",
        expect="S11",
        must=("textvectorization",),
        must_not=("astype",),
        fix="vectorize the text first: TextVectorization(...).adapt(texts), fit on vectorize(texts)",
    ),
    # ValueError: Unrecognized data type: x=[[3, 17, 9], [5, 2], [8, 8, 1, 4, 12], [7]] (of type <class 'list'>)
    Case(
        name="f15_ragged_token_lists_passed_to_fit_unpadded",
        family="nlp_models",
        code="""
sequences = [[3, 17, 9], [5, 2], [8, 8, 1, 4, 12], [7]]
labels = np.array([0, 1, 1, 0])
model = keras.Sequential([
    keras.layers.Embedding(20, 8),
    keras.layers.GRU(4),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(sequences, labels, epochs=1, verbose=0)
""",
        expect="S13",
        must=("pad_sequences",),
        must_not=("dtype=object",),
        fix='keras.utils.pad_sequences(sequences, padding="post")',
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 10), output.shape=(None, 5)
    Case(
        name="f15_bilstm_tagger_returns_last_step_for_per_token_tags",
        family="nlp_models",
        code="""
tokens = np.random.randint(1, 50, (6, 10))
tags = np.random.randint(0, 5, (6, 10))
inputs = keras.Input((10,), dtype="int32")
x = keras.layers.Embedding(50, 16)(inputs)
x = keras.layers.Bidirectional(keras.layers.LSTM(8))(x)
outputs = keras.layers.Dense(5, activation="softmax")(x)
tagger = keras.Model(inputs, outputs)
tagger.compile("adam", "sparse_categorical_crossentropy")
tagger.fit(tokens, tags, epochs=1, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("to_categorical",),
        fix="LSTM(8, return_sequences=True) inside the Bidirectional",
    ),
    # ValueError: Input 0 with name 'None' of layer 'summary_lstm' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 32)
    Case(
        name="f15_second_lstm_stacked_on_last_step_output",
        family="nlp_models",
        code="""
model = keras.Sequential([
    keras.Input((12,)),
    keras.layers.Embedding(100, 16),
    keras.layers.LSTM(32, name="encoder_lstm"),
    keras.layers.LSTM(16, name="summary_lstm"),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape"),
        fix="LSTM(32, return_sequences=True) for the first LSTM",
    ),
    # ValueError: Input 0 with name 'None' of layer 'bigru' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 5)
    Case(
        name="f15_padded_token_ids_into_bidirectional_gru_without_embedding",
        family="nlp_models",
        code="""
x = keras.utils.pad_sequences([[4, 9, 2], [7, 1], [3, 3, 8, 5]], maxlen=5)
y = np.array([1, 0, 1])
model = keras.Sequential([
    keras.Input((5,)),
    keras.layers.Bidirectional(keras.layers.GRU(8), name="bigru"),
    keras.layers.Dense(1, activation="sigmoid"),
])
""",
        expect="S01",
        must=("embedding",),
        must_not=("return_sequences",),
        fix="keras.layers.Embedding(vocab_size, 16) between the Input and the GRU",
    ),
    # TypeError: Exception encountered when calling Encoder.call().
    # (missing a required argument: 'value')
    Case(
        name="f15_self_attention_called_with_query_only",
        family="nlp_models",
        code="""
class Encoder(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.emb = keras.layers.Embedding(30, 16)
        self.mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
    def call(self, ids):
        x = self.emb(ids)
        return self.mha(x)
enc = Encoder()
enc(np.random.randint(0, 30, (2, 7)))
""",
        expect="S12",
        must=("value",),
        must_not=("return_sequences",),
        fix="self.mha(x, x) (query and value) for self-attention",
    ),
    # InvalidArgumentError: Graph execution error:
    # (... Received a label value of 3 which is outside the valid range of [0, 3). ...)
    Case(
        name="f15_string_lookup_labels_shifted_by_oov_index",
        family="nlp_models",
        code="""
texts = np.array(["win money now", "meeting at noon", "cheap pills",
                  "lunch tomorrow?", "free prize", "notes attached"])
categories = np.array(["spam", "ham", "spam", "ham", "promo", "ham"])
to_id = keras.layers.StringLookup()
to_id.adapt(categories)
y = to_id(categories)
vec = keras.layers.TextVectorization(max_tokens=50, output_mode="tf_idf")
vec.adapt(texts)
model = keras.Sequential([keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(vec(texts), y, epochs=1, verbose=0)
""",
        expect="P12",
        must=("oov",),
        must_not=("dense(4",),
        fix="StringLookup(num_oov_indices=0) for the labels",
    ),
]
