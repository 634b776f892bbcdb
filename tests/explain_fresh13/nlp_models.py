"""Family ``nlp_models``: text classification and sequence models.

APIs: ``keras.layers.TextVectorization`` (strings in, integer ids out, ``max_tokens``
ids in ``[0, max_tokens)``), ``Embedding(input_dim, output_dim, mask_zero=...)`` (ids
must lie in ``[0, input_dim)``; ``input_dim`` is the vocabulary size plus any reserved
padding/OOV ids), ``LSTM``/``GRU`` (3-D ``(batch, time, features)`` in; a 2-D last state
out unless ``return_sequences=True``, which a following recurrent layer or a per-token
head needs), ``Conv1D`` (3-D in: token ids need an ``Embedding`` first),
``GlobalAveragePooling1D``, ``MultiHeadAttention`` (called as ``mha(query, value)``;
self-attention passes the same tensor twice), ``keras.utils.pad_sequences`` (lists of
different lengths become one rectangular array), ``tf.strings.split`` +
``StringLookup`` (give ``tf.RaggedTensor`` ids, which ``fit`` cannot batch as a dense
array until ``.to_tensor()`` pads them), encoder-decoder models with two inputs.

Evidence a diagnosis needs: the dtype and rank of what reaches the first layer (raw
strings where ids were expected, 2-D ids where 3-D embeddings were expected, a ragged
or unpadded list), the ids' range against ``Embedding.input_dim``, the recurrent layer's
``return_sequences`` against what the next layer or the labels need, and the number of
inputs a model declares against the arrays passed.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: Graph execution error:
    #   ... indices[2,3] = 9 is not in [0, 9)
    Case(
        name="f13_embedding_sized_to_word_index_starting_at_one",
        family="nlp_models",
        code="""
texts = ["the food was great", "the service was slow", "great food great price", "slow and cold"]
words = sorted({w for t in texts for w in t.split()})
word_index = {w: i + 1 for i, w in enumerate(words)}  # 0 kept for padding
seqs = keras.utils.pad_sequences([[word_index[w] for w in t.split()] for t in texts], maxlen=5)
labels = np.array([1, 0, 1, 0])
model = keras.Sequential([
    keras.Input(shape=(5,)),
    keras.layers.Embedding(input_dim=len(word_index), output_dim=8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(seqs, labels, epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("batch axis", "from_logits"),
        fix="Embedding(input_dim=len(word_index) + 1, ...)",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm_1' is incompatible with the layer: expected ndim=3, found ndim=2. Full shape received: (None, 32)
    Case(
        name="f13_stacked_lstm_without_return_sequences",
        family="nlp_models",
        code="""
x = np.random.randint(1, 200, size=(16, 20))
y = np.random.randint(0, 2, size=(16,))
model = keras.Sequential([
    keras.Input(shape=(20,)),
    keras.layers.Embedding(200, 16),
    keras.layers.LSTM(32),
    keras.layers.LSTM(16),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape"),
        fix="LSTM(32, return_sequences=True)",
    ),
    # ValueError: Invalid dtype: str576
    Case(
        name="f13_raw_review_strings_into_embedding_model",
        family="nlp_models",
        code="""
reviews = np.array(["loved every minute", "a waste of time", "solid acting", "fell asleep"])
labels = np.array([1, 0, 1, 0])
model = keras.Sequential([
    keras.Input(shape=(1,)),
    keras.layers.Embedding(1000, 16),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(reviews, labels, epochs=1, verbose=0)
""",
        expect="S11",
        must=("textvectorization",),
        must_not=('astype("float32")', "input_dim"),
        fix="a TextVectorization layer (adapted on the reviews) before the Embedding",
    ),
    # ValueError: setting an array element with a sequence. The requested array has an inhomogeneous shape after 1 dimensions. The detected shape was (4,) + inhomogeneo ...
    Case(
        name="f13_unpadded_token_lists_passed_to_fit",
        family="nlp_models",
        code="""
sequences = [[12, 7, 99], [5, 18, 3, 41, 8, 2], [66, 1], [9, 9, 23, 4]]
labels = np.array([0, 1, 0, 1])
model = keras.Sequential([
    keras.layers.Embedding(100, 8),
    keras.layers.GRU(8),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(np.array(sequences), labels, epochs=1, verbose=0)
""",
        expect="S13",
        must=("pad",),
        must_not=("input_dim", 'astype("float32")'),
        fix="keras.utils.pad_sequences(sequences, padding='post')",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv1d' is incompatible with the layer: expected min_ndim=3, found ndim=2. Full shape received: (None, 40)
    Case(
        name="f13_conv1d_on_token_ids_without_embedding",
        family="nlp_models",
        code="""
ids = np.random.randint(1, 500, size=(12, 40))
topics = np.random.randint(0, 4, size=(12,))
inputs = keras.Input(shape=(40,), dtype="int32")
x = keras.layers.Conv1D(32, 5, activation="relu")(inputs)
x = keras.layers.GlobalMaxPooling1D()(x)
outputs = keras.layers.Dense(4, activation="softmax")(x)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("embedding",),
        must_not=("expand_dims", "batch axis"),
        fix="keras.layers.Embedding(500, 32) between the Input and the Conv1D",
    ),
    # TypeError: missing a required argument: 'value'
    Case(
        name="f13_multihead_self_attention_called_with_one_tensor",
        family="nlp_models",
        code="""
inputs = keras.Input(shape=(10,), dtype="int32")
x = keras.layers.Embedding(300, 16)(inputs)
x = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(x)
x = keras.layers.GlobalAveragePooling1D()(x)
outputs = keras.layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
""",
        expect=None,
        unexplained="the message says call() is missing its 'value' argument (self-attention: mha(x, x))",
        fix="keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)",
    ),
    # ValueError: Exception encountered when calling LSTM.call().
    #   ... Cannot index into an inner ragged dimension.
    Case(
        name="f13_ragged_string_lookup_ids_into_fit",
        family="nlp_models",
        code="""
texts = tf.constant(["spam offer now", "meeting at noon today", "win cash", "lunch?"])
labels = np.array([1, 0, 1, 0])
lookup = keras.layers.StringLookup()
tokens = tf.strings.split(texts)
lookup.adapt(tokens)
ids = lookup(tokens)
model = keras.Sequential([
    keras.layers.Embedding(lookup.vocabulary_size(), 8),
    keras.layers.LSTM(8),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(ids, labels, epochs=1, verbose=0)
""",
        expect="S13",
        must=("ragged",),
        must_not=("input_dim", "astype"),
        fix="model.fit(ids.to_tensor(), labels, ...)",
    ),
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['encoder_tokens', 'decoder_tokens'], but it received 1 input tensors. Pass inputs as a dict, e. ...
    Case(
        name="f13_seq2seq_fit_given_only_encoder_tokens",
        family="nlp_models",
        code="""
src = np.random.randint(1, 50, size=(8, 6))
tgt_in = np.random.randint(1, 60, size=(8, 7))
tgt_out = np.random.randint(1, 60, size=(8, 7))
enc_in = keras.Input(shape=(6,), name="encoder_tokens")
dec_in = keras.Input(shape=(7,), name="decoder_tokens")
_, h, c = keras.layers.LSTM(16, return_state=True)(keras.layers.Embedding(50, 8)(enc_in))
d = keras.layers.LSTM(16, return_sequences=True)(keras.layers.Embedding(60, 8)(dec_in), initial_state=[h, c])
out = keras.layers.Dense(60, activation="softmax")(d)
model = keras.Model([enc_in, dec_in], out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(src, tgt_out, epochs=1, verbose=0)
""",
        expect="S12",
        must=("decoder_tokens",),
        must_not=("return_sequences", "input_dim"),
        fix="model.fit([src, tgt_in], tgt_out, ...)",
    ),
]
