"""Family ``layer_calls``: the call contracts of Keras layers that take several inputs or states.

APIs and their documented contracts (Keras 3 docstrings):

* ``keras.layers.Attention`` / ``AdditiveAttention``: "inputs: List of the following
  tensors: query ``(batch_size, Tq, dim)``, value ``(batch_size, Tv, dim)``, key (optional)";
  "mask: List of the following tensors: query_mask ``(batch_size, Tq)``, value_mask
  ``(batch_size, Tv)``".  ``Attention`` is a dot-product attention, so the query and the key
  (the value when no key is given) must have the same last width ``dim``.
* ``keras.layers.MultiHeadAttention``: ``call(query, value, key=None, query_mask=None,
  value_mask=None, key_mask=None, attention_mask=None, ...)``: query and value are separate
  arguments (not a list), and "attention_mask: a boolean mask of shape ``(B, T, S)``
  ... Broadcasting can happen for the missing batch dimensions and the head dimension", so a
  ``(B, S)`` padding mask is read as ``(T, S)``.
* RNN layers: ``initial_state`` is "List of initial state tensors to be passed to the first
  call of the cell"; an ``LSTM`` has two states ``[h, c]``, a ``GRU`` one, each of width
  ``units``.  With ``return_state=True`` an ``LSTM`` returns ``[output, h, c]``, a ``GRU``
  ``[output, h]``, and ``Bidirectional`` returns the output followed by the forward states
  and then the backward states (five tensors for an LSTM).
* Merging layers: ``Add``/``Multiply``/``Subtract`` take a list of tensors "all of the same
  shape"; ``Concatenate(axis=-1)`` needs "inputs with matching shapes except for the
  concatenation axis"; ``Dot(axes=...)``: "the size of the two selected axes must match", and
  the axis must exist in inputs of that rank (the docs use ``Dot(axes=1)`` for ``(batch, n)``
  vectors).
* ``Embedding`` turns ``(batch, n)`` ids into ``(batch, n, dim)``: with one id per example the
  output keeps a length-1 axis that a layer taking ``(batch, features)`` does not accept.

Evidence a diagnosis needs: what the layer was called with (how many tensors or states, their
shapes, and which layer produced each) against the signature above: a single tensor where a
list is taken, a list where separate arguments are taken, one state where two are taken, a
mask of another rank, two widths that the layer requires to be equal, an axis beyond the
input's rank, or a rank-3 tensor from an ``Embedding`` or an RNN with ``return_sequences``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_FAMILY = "layer_calls"

CASES = [
    # ValueError: AdditiveAttention layer must be called on a list of inputs, namely
    # [query, value] or [query, value, key]. Received: inputs=(None, 10, 16).
    Case(
        name="additive_attention_called_on_the_encoder_sequence_alone",
        family=_FAMILY,
        code="""
tokens = keras.Input((10,), dtype="int32")
seq = keras.layers.Embedding(500, 16)(tokens)
seq = keras.layers.LSTM(16, return_sequences=True)(seq)
context = keras.layers.AdditiveAttention()(seq)
pooled = keras.layers.GlobalAveragePooling1D()(context)
model = keras.Model(tokens, keras.layers.Dense(1, activation="sigmoid")(pooled))
""",
        expect=None,
        unexplained=(
            "the message says the layer must be called on a list [query, value] and shows the "
            "single (None, 10, 16) tensor it received: pass [seq, seq] for self-attention"
        ),
        fix="call it on [seq, seq]",
    ),
    # ValueError: Exception encountered when calling Attention.call().
    # Attention layer mask must be a list, namely [query_mask, value_mask]. Received: mask=[[ True ...
    Case(
        name="dot_attention_mask_given_as_the_value_padding_alone",
        family=_FAMILY,
        code="""
query = np.random.rand(2, 5, 8).astype("float32")
value = np.random.rand(2, 7, 8).astype("float32")
value_padding = np.array([[True] * 7, [True] * 4 + [False] * 3])
context = keras.layers.Attention()([query, value], mask=value_padding)
""",
        expect=None,
        unexplained=(
            "the message says the mask must be a list [query_mask, value_mask]: "
            "mask=[None, value_padding]"
        ),
        fix="mask=[None, value_padding]",
    ),
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().
    # {{function_node __wrapped__LogicalAnd_...}} Incompatible shapes: [4,2,10,10] vs. [1,1,4,10]
    Case(
        name="multi_head_self_attention_with_a_batch_by_keys_padding_mask",
        family=_FAMILY,
        code="""
tokens = np.random.randint(1, 50, size=(4, 10))
tokens[:, 7:] = 0
x = keras.layers.Embedding(50, 16)(tokens)
padding = tokens != 0
mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
y = mha(x, x, attention_mask=padding)
""",
        expect="S01",
        must=("attention_mask",),
        must_not=("labels",),
        fix="attention_mask=padding[:, None, :] (shape (B, T, S))",
    ),
    # TypeError: missing a required argument: 'value'
    Case(
        name="multi_head_cross_attention_given_a_query_value_list",
        family=_FAMILY,
        code="""
decoder_seq = keras.Input((6, 16))
encoder_seq = keras.Input((9, 16))
cross = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
context = cross([decoder_seq, encoder_seq])
""",
        expect="S01",
        must=("list",),
        must_not=("self-attention",),
        fix="cross(decoder_seq, encoder_seq): query and value as two arguments",
    ),
    # ValueError: Exception encountered when calling Attention.call(). Dimensions must be
    # equal, but are 16 and 32 for '{{node functional_1/attention_1/MatMul}} = BatchMatMulV2...'
    # with input shapes: [?,6,16], [?,32,9].  (raised by fit)
    Case(
        name="dot_attention_query_narrower_than_the_bidirectional_encoder",
        family=_FAMILY,
        code="""
enc_in = keras.Input((9, 4))
dec_in = keras.Input((6, 4))
encoded = keras.layers.Bidirectional(keras.layers.LSTM(16, return_sequences=True))(enc_in)
decoded = keras.layers.LSTM(16, return_sequences=True)(dec_in)
context = keras.layers.Attention()([decoded, encoded])
merged = keras.layers.Concatenate()([decoded, context])
model = keras.Model([enc_in, dec_in], keras.layers.Dense(1)(merged))
model.compile("adam", "mse")
model.fit([np.random.rand(4, 9, 4), np.random.rand(4, 6, 4)], np.random.rand(4, 6, 1),
          verbose=0)
""",
        expect="S01",
        must=("query",),
        must_not=("labels",),
        fix="decoder LSTM(32) (or project the query with Dense(32), or AdditiveAttention)",
    ),
    # IndexError: Exception encountered when calling LSTM.call(). list index out of range
    Case(
        name="lstm_decoder_seeded_with_a_gru_encoder_state",
        family=_FAMILY,
        code="""
enc_in = keras.Input((10, 4))
dec_in = keras.Input((7, 4))
_, enc_state = keras.layers.GRU(32, return_state=True)(enc_in)
decoded = keras.layers.LSTM(32, return_sequences=True)(dec_in, initial_state=[enc_state])
model = keras.Model([enc_in, dec_in], keras.layers.Dense(1)(decoded))
model.compile("adam", "mse")
model.fit([np.random.rand(8, 10, 4), np.random.rand(8, 7, 4)], np.random.rand(8, 7, 1),
          verbose=0)
""",
        expect="S01",
        must=("initial_state",),
        must_not=("input_dim", "embedding"),
        fix="a GRU decoder, or an LSTM encoder whose [h, c] seed the LSTM",
    ),
    # ValueError: too many values to unpack (expected 3)
    Case(
        name="bidirectional_lstm_return_state_unpacked_into_three",
        family=_FAMILY,
        code="""
enc_in = keras.Input((10, 4))
bilstm = keras.layers.Bidirectional(keras.layers.LSTM(16, return_state=True))
encoded, state_h, state_c = bilstm(enc_in)
""",
        expect="S12",
        must=("backward",),
        must_not=("return_sequences",),
        fix="encoded, fh, fc, bh, bc = bilstm(enc_in)",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (10, 64) and (10, 32)
    Case(
        name="feature_gate_multiply_with_a_narrower_dense",
        family=_FAMILY,
        code="""
features = keras.Input((10, 64))
gate = keras.layers.Dense(32, activation="sigmoid")(features)
gated = keras.layers.Multiply()([features, gate])
""",
        expect="S01",
        must=("units",),
        must_not=("reshape",),
        fix="Dense(64, activation='sigmoid') for the gate",
    ),
    # IndexError: tuple index out of range
    Case(
        name="dot_axes_two_on_flattened_user_item_embeddings",
        family=_FAMILY,
        code="""
user = keras.Input((1,), dtype="int32")
item = keras.Input((1,), dtype="int32")
u = keras.layers.Flatten()(keras.layers.Embedding(100, 16)(user))
i = keras.layers.Flatten()(keras.layers.Embedding(50, 16)(item))
score = keras.layers.Dot(axes=2)([u, i])
""",
        expect="S01",
        must=("axes=1",),
        must_not=("input_dim",),
        fix="Dot(axes=1) on the (batch, 16) vectors",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the
    # concatenation axis. Received: input_shape=[(None, 1, 8), (None, 3)]
    Case(
        name="store_id_embedding_concatenated_with_numeric_columns",
        family=_FAMILY,
        code="""
store_id = keras.Input((1,), dtype="int32")
numeric = keras.Input((3,))
store_vec = keras.layers.Embedding(20, 8)(store_id)
x = keras.layers.Concatenate()([store_vec, numeric])
""",
        expect="S01",
        must=("flatten",),
        must_not=("return_sequences",),
        fix="Flatten() (or Reshape((8,))) the embedding before concatenating",
    ),
]
