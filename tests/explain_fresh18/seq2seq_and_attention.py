"""Family ``seq2seq_and_attention``: encoder-decoder sequence models, attention layers, masking and per-token losses.

APIs: ``LSTM``/``GRU`` with ``return_state=True`` (an LSTM returns ``[output, h, c]``, a
GRU ``[output, h]``) and ``initial_state`` (a list with one tensor per state of THAT cell,
each of the decoder's ``units``: an LSTM decoder needs ``[h, c]``), ``return_sequences``
(without it a recurrent layer returns only the last step, rank 2; ``TimeDistributed`` and
per-token outputs need rank 3); teacher forcing: the decoder is fed ``target[:, :-1]`` and
trained to predict ``target[:, 1:]``, so inputs and targets have the same length;
``Embedding(input_dim, ..., mask_zero=True)`` (ids must lie in ``[0, input_dim)``; with a
1-based tokenizer vocabulary ``input_dim = len(word_index) + 1``); ``Attention`` and
``AdditiveAttention`` (called on a LIST ``[query, value]`` or ``[query, value, key]``;
dot-product scores need the query's and the value's last dimensions to match);
``MultiHeadAttention(query, value, key=None, attention_mask=None, use_causal_mask=False)``
(``attention_mask`` has shape ``(B, T, S)``, a padding mask ``(B, S)`` needs an axis:
``mask[:, None, :]``); per-token losses: ``sparse_categorical_crossentropy`` takes integer
targets ``(B, T)`` against outputs ``(B, T, V)``, ``categorical_crossentropy`` one-hot
``(B, T, V)``.

Evidence a diagnosis needs: which state tensors (how many, of how many units) reach
``initial_state`` and where they came from (a GRU or an LSTM encoder), the lengths of the
decoder input and the target arrays (one of them not shifted), the rank of the tensor
reaching ``TimeDistributed`` and the recurrent layer before it, the last dimensions of the
query and value of an attention layer (the encoder's and decoder's ``units``), the shape of
``attention_mask`` against ``(B, T, S)``, the largest token id against ``input_dim``, and
the targets' encoding against the loss.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # IndexError: Exception encountered when calling LSTM.call().
    #   list index out of range
    Case(
        name="f18_gru_encoder_state_into_lstm_decoder_initial_state",
        family="seq2seq_and_attention",
        code="""
L = keras.layers
V = 30
src = np.random.randint(1, V, (8, 6))
tgt = np.random.randint(1, V, (8, 7))
enc_in = keras.Input((None,), dtype="int32")
dec_in = keras.Input((None,), dtype="int32")
_, enc_h = L.GRU(32, return_state=True)(L.Embedding(V, 16)(enc_in))
dec_seq = L.LSTM(32, return_sequences=True)(L.Embedding(V, 16)(dec_in), initial_state=[enc_h])
out = L.Dense(V, activation="softmax")(dec_seq)
model = keras.Model([enc_in, dec_in], out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit([src, tgt[:, :-1]], tgt[:, 1:], epochs=1, verbose=0)
""",
        expect="S01",
        must=("initial_state", "gru"),
        must_not=("return_sequences", "index"),
        fix="a GRU decoder, or an LSTM encoder passing [h, c]",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape up until the last dimension: target.shape=(None, 10), output.shape=(None, 9, 20)
    Case(
        name="f18_decoder_targets_not_shifted_by_one_token",
        family="seq2seq_and_attention",
        code="""
L = keras.layers
V = 20
src = np.random.randint(1, V, (8, 6))
tgt = np.random.randint(1, V, (8, 10))
dec_input = tgt[:, :-1]
enc_in = keras.Input((None,), dtype="int32")
dec_in = keras.Input((None,), dtype="int32")
_, h, c = L.LSTM(32, return_state=True)(L.Embedding(V, 16)(enc_in))
d = L.LSTM(32, return_sequences=True)(L.Embedding(V, 16)(dec_in), initial_state=[h, c])
out = L.Dense(V, activation="softmax")(d)
model = keras.Model([enc_in, dec_in], out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit([src, dec_input], tgt, epochs=1, verbose=0)
""",
        expect="S07",
        must=("[:, 1:]",),
        must_not=("return_sequences", "categorical_crossentropy'"),
        fix="train on tgt[:, 1:] as the targets",
    ),
    # ValueError: Attention layer must be called on a list of inputs, namely [query, value] or [query, value, key]. Received: inputs=(None, 12, 16).
    Case(
        name="f18_attention_layer_called_on_query_alone",
        family="seq2seq_and_attention",
        code="""
L = keras.layers
tokens = keras.Input((12,), dtype="int32")
h = L.LSTM(16, return_sequences=True)(L.Embedding(50, 16)(tokens))
context = L.Attention()(h)
""",
        expect=None,
        unexplained="the message says Attention must be called on a list [query, value] (or [query, value, key])",
        fix="L.Attention()([h, h])",
    ),
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().
    #   {{function_node __wrapped__LogicalAnd_device_/...}} Incompatible shapes: [2,2,6,6] vs. [1,1,2,6] [Op:LogicalAnd] name:
    Case(
        name="f18_mha_padding_mask_passed_as_attention_mask_without_axis",
        family="seq2seq_and_attention",
        code="""
L = keras.layers
x = np.random.rand(2, 6, 16).astype("float32")
pad_mask = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0]], dtype=bool)
mha = L.MultiHeadAttention(num_heads=2, key_dim=8)
y = mha(x, x, attention_mask=pad_mask)
""",
        expect="S01",
        must=("attention_mask",),
        must_not=("key_dim", "num_heads"),
        fix="attention_mask=pad_mask[:, None, :] (shape (B, 1, S), or (B, T, S))",
    ),
    # ValueError: Exception encountered when calling Attention.call().
    #   Dimensions must be equal, but are 32 and 16 for '{{node .../MatMul}} = BatchMatMulV2[...](...)'
    #   with input shapes: [?,6,32], [?,16,6].
    Case(
        name="f18_luong_attention_between_32_unit_decoder_and_16_unit_encoder",
        family="seq2seq_and_attention",
        code="""
L = keras.layers
V = 30
src = np.random.randint(1, V, (8, 6))
tgt = np.random.randint(1, V, (8, 7))
enc_in = keras.Input((None,), dtype="int32")
dec_in = keras.Input((None,), dtype="int32")
enc_seq = L.LSTM(16, return_sequences=True)(L.Embedding(V, 16)(enc_in))
dec_seq = L.LSTM(32, return_sequences=True)(L.Embedding(V, 16)(dec_in))
ctx = L.Attention()([dec_seq, enc_seq])
out = L.Dense(V, activation="softmax")(L.Concatenate()([dec_seq, ctx]))
model = keras.Model([enc_in, dec_in], out)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit([src, tgt[:, :-1]], tgt[:, 1:], epochs=1, verbose=0)
""",
        expect="S01",
        must=("units",),
        must_not=("batch", "transpose"),
        fix="give encoder and decoder LSTMs the same units (or Dense(32) on enc_seq)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   Detected at node sequential_.../embedding_.../GatherV2 ...
    #   indices[...] = 5 is not in [0, 5)
    Case(
        name="f18_embedding_input_dim_equal_to_one_based_vocab_size",
        family="seq2seq_and_attention",
        code="""
L = keras.layers
word_index = {"<start>": 1, "the": 2, "cat": 3, "sat": 4, "<end>": 5}
V = len(word_index)
seqs = np.array([[1, 2, 3, 4, 5], [1, 3, 4, 5, 0]])
model = keras.Sequential([
    keras.Input((4,)),
    L.Embedding(V, 8, mask_zero=True),
    L.LSTM(8, return_sequences=True),
    L.Dense(V + 1, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(seqs[:, :-1], seqs[:, 1:], epochs=1, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("mask_zero=false", "batch size"),
        fix="Embedding(len(word_index) + 1, 8, mask_zero=True)",
    ),
    # ValueError: `TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, received: (None, 16)
    Case(
        name="f18_time_distributed_dense_after_lstm_without_return_sequences",
        family="seq2seq_and_attention",
        code="""
L = keras.layers
model = keras.Sequential([
    keras.Input((12, 4)),
    L.LSTM(16),
    L.TimeDistributed(L.Dense(3, activation="softmax")),
])
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape"),
        fix="LSTM(16, return_sequences=True)",
    ),
    # ValueError: Argument `output` must have rank (ndim) `target.ndim - 1`. Received: target.shape=(None, 7, 12), output.shape=(None, 7, 12)
    Case(
        name="f18_one_hot_token_targets_with_sparse_loss",
        family="seq2seq_and_attention",
        code="""
L = keras.layers
V = 12
x = np.random.randint(1, V, (8, 7))
y = keras.utils.to_categorical(np.random.randint(1, V, (8, 7)), V)
model = keras.Sequential([
    keras.Input((7,)),
    L.Embedding(V, 8),
    L.GRU(16, return_sequences=True),
    L.Dense(V, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, epochs=1, verbose=0)
""",
        expect="M05",
        must=("one-hot",),
        must_not=("return_sequences", "flatten"),
        fix="loss='categorical_crossentropy', or integer targets (y.argmax(-1))",
    ),
]
