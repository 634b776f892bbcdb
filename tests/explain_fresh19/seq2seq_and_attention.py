"""Family ``seq2seq_and_attention``: encoder-decoder RNNs, attention layers and per-token outputs.

APIs and contract: ``LSTM``/``GRU(return_state=True)`` return ``[output, *states]``
(two states ``h, c`` for an LSTM, one ``h`` for a GRU), and only then can they be
unpacked; ``return_sequences=True`` keeps the time axis ``(B, T, units)``, without it the
output is ``(B, units)``; ``initial_state`` takes the list of states of the decoder's own
kind, each ``(B, units)`` of the *decoder's* units.  Teacher forcing feeds the decoder
``target[:, :-1]`` and trains it on ``target[:, 1:]`` (shifted by one, same length).
RNNs take ``(B, T, features)``: integer token ids go through an ``Embedding`` first, whose
``input_dim`` must exceed the largest id.  ``Attention``/``AdditiveAttention`` take
``[query, value(, key)]``, each of rank 3 ``(B, T, dim)`` with the same ``dim``;
``MultiHeadAttention(query, value, key=None, attention_mask=None, use_causal_mask=False)``
needs ``value`` (``value=query`` for self-attention) and an ``attention_mask`` of shape
``(B, T_query, T_value)``.  ``TimeDistributed`` needs an input with a time axis.  The
per-token loss compares ``(B, T, V)`` scores with ``(B, T)`` ids (sparse) or ``(B, T, V)``
one-hot targets.

Evidence a diagnosis needs: which layer produced the tensor (an RNN without
``return_sequences``/``return_state``, the kind and units of the encoder whose states are
passed), the rank and length of the decoder input against the targets, the largest token
id against the ``Embedding``'s ``input_dim``, and the shapes of query, value and mask at
the attention layer.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # NotImplementedError: Iterating over a symbolic KerasTensor is not supported.
    Case(
        name="f19_encoder_lstm_states_unpacked_without_return_state",
        family="seq2seq_and_attention",
        code="""
enc_in = keras.Input(shape=(None, 16))
_, state_h, state_c = keras.layers.LSTM(32)(enc_in)
dec_in = keras.Input(shape=(None, 16))
dec_out = keras.layers.LSTM(32, return_sequences=True)(dec_in, initial_state=[state_h, state_c])
""",
        expect="S12",
        must=("return_state",),
        must_not=("return_sequences=false", "run_eagerly"),
        fix="keras.layers.LSTM(32, return_state=True)",
    ),
    # ValueError: `TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, received: (None, 16)
    Case(
        name="f19_timedistributed_softmax_after_gru_without_sequences",
        family="seq2seq_and_attention",
        code="""
tokens = keras.Input(shape=(None,), dtype="int32")
x = keras.layers.Embedding(50, 8)(tokens)
x = keras.layers.GRU(16)(x)
tags = keras.layers.TimeDistributed(keras.layers.Dense(50, activation="softmax"))(x)
tagger = keras.Model(tokens, tags)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape"),
        fix="keras.layers.GRU(16, return_sequences=True)",
    ),
    # ValueError: Exception encountered when calling LSTMCell.call().
    #   Dimensions must be equal, but are 64 and 128 for '{{node functional_11_1/lstm_2_1/lstm_cell_1/MatMul_1}} = MatMul[T=DT_FLOAT, grad_a=false, grad_b=fal
    Case(
        name="f19_decoder_lstm_wider_than_the_encoder_states",
        family="seq2seq_and_attention",
        code="""
enc_in = keras.Input(shape=(None, 20))
_, h, c = keras.layers.LSTM(64, return_state=True)(enc_in)
dec_in = keras.Input(shape=(None, 20))
dec_seq = keras.layers.LSTM(128, return_sequences=True)(dec_in, initial_state=[h, c])
out = keras.layers.Dense(20, activation="softmax")(dec_seq)
model = keras.Model([enc_in, dec_in], out)
model.compile(optimizer="adam", loss="categorical_crossentropy")
src = np.random.rand(4, 7, 20).astype("float32")
tgt = np.random.rand(4, 6, 20).astype("float32")
model.fit([src, tgt], tgt, epochs=1, verbose=0)
""",
        expect="S01",
        must=("128",),
        must_not=("return_sequences", "batch axis"),
        fix="give the decoder LSTM 64 units (the encoder's)",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape up until the last dimension: target.shape=(None, 11), output.shape=(None, 10, 30)
    Case(
        name="f19_teacher_forcing_targets_not_shifted_to_decoder_length",
        family="seq2seq_and_attention",
        code="""
vocab = 30
seqs = np.random.randint(1, vocab, size=(8, 11))
dec_input = seqs[:, :-1]
inputs = keras.Input(shape=(10,), dtype="int32")
x = keras.layers.Embedding(vocab, 16)(inputs)
x = keras.layers.GRU(32, return_sequences=True)(x)
outputs = keras.layers.Dense(vocab)(x)
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam",
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(dec_input, seqs, epochs=1, verbose=0)
""",
        expect="S07",
        must=("1:]",),
        must_not=("return_sequences", "one-hot"),
        fix="train on seqs[:, 1:] (targets shifted by one, 10 steps)",
    ),
    # TypeError: missing a required argument: 'value'
    Case(
        name="f19_multihead_self_attention_called_with_query_only",
        family="seq2seq_and_attention",
        code="""
tokens = keras.Input(shape=(20, 32))
mha = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)
attended = mha(tokens)
""",
        expect=None,
        must=("value",),
        must_not=("return_sequences",),
        unexplained="Python's message names the missing argument 'value' of MultiHeadAttention.call",
        fix="mha(tokens, tokens) (value=query for self-attention)",
    ),
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().
    #   {{function_node __wrapped__LogicalAnd_device_/job:localhost/replica:0/task:0/device:CPU:0}} Incompatible shapes: [3,2,6,6] vs. [1,1,3,6] [Op:LogicalAn
    Case(
        name="f19_padding_mask_of_shape_batch_by_time_as_attention_mask",
        family="seq2seq_and_attention",
        code="""
ids = np.array([[5, 8, 2, 0, 0, 0], [7, 3, 9, 4, 1, 0], [6, 2, 0, 0, 0, 0]])
emb = keras.layers.Embedding(10, 16)(ids)
pad_mask = ids != 0
mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
out = mha(emb, emb, attention_mask=pad_mask)
""",
        expect="S01",
        must=("attention_mask",),
        must_not=("use_causal_mask",),
        fix="attention_mask=pad_mask[:, None, :] (shape (B, T_q, T_v)), or mask_zero=True",
    ),
    # ValueError: Exception encountered when calling Attention.call().
    #   Dimensions must be equal, but are 32 and 64 for '{{node functional_13_1/attention_1/MatMul}} = BatchMatMulV2[T=DT_FLOAT, adj_x=false, adj_y=false, gra
    Case(
        name="f19_luong_attention_query_and_value_of_different_widths",
        family="seq2seq_and_attention",
        code="""
enc_in = keras.Input(shape=(15, 10))
enc_seq = keras.layers.LSTM(64, return_sequences=True)(enc_in)
dec_in = keras.Input(shape=(12, 10))
dec_seq = keras.layers.LSTM(32, return_sequences=True)(dec_in)
context = keras.layers.Attention()([dec_seq, enc_seq])
model = keras.Model([enc_in, dec_in], context)
ctx = model.predict([np.random.rand(2, 15, 10), np.random.rand(2, 12, 10)], verbose=0)
""",
        expect="S01",
        must=("32",),
        must_not=("return_sequences", "batch"),
        fix="same units for encoder and decoder (or Dense(64) on the query)",
    ),
    # InvalidArgumentError: Graph execution error:
    #   ... indices[1,4] = 7 is not in [0, 7)
    Case(
        name="f19_decoder_embedding_input_dim_smaller_than_target_vocab",
        family="seq2seq_and_attention",
        code="""
target_vocab = ["<pad>", "<start>", "<end>", "le", "chat", "noir", "dort", "ici"]
dec_ids = np.array([[1, 3, 4, 5, 2], [1, 3, 4, 6, 7]])
dec_in = keras.Input(shape=(None,), dtype="int32")
x = keras.layers.Embedding(input_dim=len(target_vocab) - 1, output_dim=8, mask_zero=True)(dec_in)
x = keras.layers.LSTM(16, return_sequences=True)(x)
logits = keras.layers.Dense(len(target_vocab))(x)
decoder = keras.Model(dec_in, logits)
scores = decoder.predict(dec_ids, verbose=0)
""",
        expect="S09",
        must=("input_dim",),
        must_not=("mask_zero=false", "return_sequences"),
        fix="input_dim=len(target_vocab) (8): the largest id is 7",
    ),
]
