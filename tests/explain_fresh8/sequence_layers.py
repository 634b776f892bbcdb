"""Family ``sequence_layers``: Keras sequence layers called against their input and state contracts.

APIs: ``keras.layers.LSTM``/``GRU``/``SimpleRNN`` (input ``(batch, timesteps, features)``,
rank 3; with ``return_sequences=False``, the default, the output is ``(batch, units)``, so a
second recurrent layer on top needs ``return_sequences=True`` below it; with
``return_state=True`` an LSTM returns ``[output, h, c]`` but a GRU/SimpleRNN returns
``[output, h]``; ``initial_state`` is a list with one tensor per state, each
``(batch, units)``), ``Bidirectional`` (wraps a recurrent layer; its
``return_sequences`` decides the rank of the output, which the loss must match),
``TimeDistributed`` (needs at least rank 3), ``Embedding`` (ids must lie in
``[0, input_dim)``; with ``mask_zero=True`` index 0 is padding, so a vocabulary of V words
numbered 1..V needs ``input_dim=V + 1``), ``MultiHeadAttention`` (``call(query, value,
key=None, attention_mask=None)``: ``value`` is required even for self-attention, and
``attention_mask`` has shape ``(B, T, S)`` -- a ``(B, S)`` padding mask must be expanded to
``(B, 1, S)``) and ``Conv1D`` (input ``(batch, steps, channels)``, rank 3).

Evidence a diagnosis needs: the rank and shape the layer received against the rank it
requires, and where that tensor came from (an RNN below without ``return_sequences``, a
feature matrix without a channel axis, integer ids without an ``Embedding``); for
``Embedding`` the largest id against ``input_dim``; for attention which argument
(``attention_mask``, ``value``) has which shape; for recurrent states the width of the
``initial_state`` tensors against ``units`` and the number of states the cell has.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'lstm_...' is incompatible with the layer:
    #   expected ndim=3, found ndim=2. Full shape received: (None, 32)
    Case(
        name="second_lstm_stacked_on_lstm_without_return_sequences",
        family="sequence_layers",
        code="""
x = np.random.rand(8, 12, 4).astype("float32")
y = np.random.rand(8, 1).astype("float32")
model = keras.Sequential([
    keras.Input((12, 4)),
    keras.layers.LSTM(32),
    keras.layers.LSTM(16),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "add an axis to the data"),
        fix="keras.layers.LSTM(32, return_sequences=True) for the first LSTM",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv1d' is incompatible with the layer:
    #   expected min_ndim=3, found ndim=2. Full shape received: (None, 100)
    Case(
        name="conv1d_on_signal_input_without_channel_axis",
        family="sequence_layers",
        code="""
signals = np.random.rand(16, 100).astype("float32")
labels = np.random.randint(0, 3, size=16)
inputs = keras.Input(shape=(100,))
h = keras.layers.Conv1D(16, 5, activation="relu")(inputs)
h = keras.layers.GlobalMaxPooling1D()(h)
outputs = keras.layers.Dense(3, activation="softmax")(h)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("conv1d",),
        must_not=("return_sequences",),
        fix="keras.Input(shape=(100, 1)) and signals[..., None]",
    ),
    # InvalidArgumentError: Exception encountered when calling Embedding.call().
    #   ... indices[0,4] = 5 is not in [0, 5) [Op:GatherV2]
    Case(
        name="mask_zero_embedding_sized_to_vocab_ids_starting_at_one",
        family="sequence_layers",
        code="""
vocab = ["the", "cat", "sat", "on", "mat"]
word_to_id = {w: i + 1 for i, w in enumerate(vocab)}
ids = np.array([[word_to_id[w] for w in "the cat sat on mat".split()],
                [word_to_id[w] for w in "mat on the cat".split()] + [0]])
model = keras.Sequential([
    keras.layers.Embedding(input_dim=len(vocab), output_dim=8, mask_zero=True),
    keras.layers.LSTM(4),
    keras.layers.Dense(1, activation="sigmoid"),
])
model(ids)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("mask_zero=false",),
        fix="Embedding(input_dim=len(vocab) + 1, ...)",
    ),
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().
    #   ... Incompatible shapes: [2,2,6,6] vs. [1,1,2,6] [Op:LogicalAnd]
    Case(
        name="padding_mask_of_rank_two_as_attention_mask",
        family="sequence_layers",
        code="""
tokens = np.random.rand(2, 6, 16).astype("float32")
lengths = np.array([4, 3])
pad_mask = np.arange(6)[None, :] < lengths[:, None]
mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
out = mha(tokens, tokens, attention_mask=pad_mask)
""",
        expect="S01",
        must=("attention_mask",),
        must_not=("num_heads", "key_dim="),
        fix="attention_mask=pad_mask[:, None, :] (shape (B, 1, S))",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`.
    #   Received: target.shape=(None,), output.shape=(None, 10, 4)
    Case(
        name="bidirectional_lstm_returning_sequences_into_per_text_labels",
        family="sequence_layers",
        code="""
x = np.random.randint(1, 50, size=(8, 10))
y = np.random.randint(0, 4, size=(8,))
model = keras.Sequential([
    keras.layers.Embedding(50, 8),
    keras.layers.Bidirectional(keras.layers.LSTM(8, return_sequences=True)),
    keras.layers.Dense(4, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="S07",
        must=("return_sequences",),
        must_not=("to_categorical", "categorical_crossentropy"),
        fix="LSTM(8) without return_sequences (or add GlobalMaxPooling1D)",
    ),
    # TypeError: missing a required argument: 'value'
    Case(
        name="multi_head_self_attention_called_with_query_only",
        family="sequence_layers",
        code="""
tokens = keras.Input((20, 32))
attn = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)
ctx = attn(tokens)
""",
        expect=None,
        unexplained="the message names the missing 'value' argument of MultiHeadAttention",
        fix="attn(tokens, tokens) for self-attention",
    ),
    # InvalidArgumentError: Exception encountered when calling LSTMCell.call().
    #   ... Matrix size-incompatible: In[0]: [3,16], In[1]: [8,32] [Op:MatMul]
    Case(
        name="lstm_initial_state_wider_than_units",
        family="sequence_layers",
        code="""
encoded = np.random.rand(3, 5, 4).astype("float32")
h0 = np.zeros((3, 16), "float32")
c0 = np.zeros((3, 16), "float32")
decoder = keras.layers.LSTM(8)
out = decoder(encoded, initial_state=[h0, c0])
""",
        expect="S01",
        must=("initial_state",),
        must_not=("transpose",),
        fix="LSTM(16), or initial states of width 8",
    ),
    # ValueError: not enough values to unpack (expected 3, got 2)
    Case(
        name="gru_return_state_unpacked_like_an_lstm",
        family="sequence_layers",
        code="""
enc_in = keras.Input((10, 6))
seq, state_h, state_c = keras.layers.GRU(16, return_sequences=True, return_state=True)(enc_in)
""",
        expect="S12",
        must=("gru",),
        must_not=("return_sequences=false",),
        fix="seq, state = GRU(..., return_state=True)(enc_in): a GRU has one state",
    ),
]
