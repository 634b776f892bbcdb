"""Family: attention and transformer blocks.

API: ``keras.layers.MultiHeadAttention(num_heads, key_dim, output_shape=...)`` called as
``mha(query, value, key=None, attention_mask=None, use_causal_mask=False,
return_attention_scores=False)``; ``keras.layers.Attention`` / ``AdditiveAttention``
called on a list ``[query, value]`` or ``[query, value, key]`` (with ``mask=[query_mask,
value_mask]``); ``LayerNormalization``; the residual ``Add`` (or ``+``) of a block's input
and its output; a positional ``Embedding(maxlen, d)`` added to the token embedding;
``Embedding(mask_zero=True)``; a transformer encoder block written as a subclassed
``Layer``; ``GlobalAveragePooling1D`` over the token axis; a learned [CLS] token
prepended to the sequence, and the ``x[:, 0]`` slice that reads it back.

Contract (documented): query is ``(B, T, dim)``, value and key ``(B, S, dim)``;
``attention_mask`` is a boolean ``(B, T, S)`` tensor (broadcastable; a padding mask of
shape ``(B, S)`` needs a query axis, ``mask[:, None, :]``, or comes for free from
``Embedding(mask_zero=True)``); ``use_causal_mask=True`` builds the causal mask for the
actual lengths; MultiHeadAttention projects back to the query's width unless
``output_shape`` says otherwise, and with ``return_attention_scores=True`` returns a tuple
``(output, scores)`` with scores ``(B, num_heads, T, S)``.  ``Attention`` (dot product)
and ``AdditiveAttention`` (Bahdanau, no projections of their own) need query and key of
the same width.  A residual sum needs the block's output width to equal its input width
(the FFN's last Dense has ``embed_dim`` units, not ``ff_dim``).  A positional table of
``maxlen`` rows covers positions ``0 .. maxlen-1`` only, so every sequence must be padded
or truncated to at most ``maxlen``.  ``LayerNormalization`` builds its gamma/beta for the
width of the first input it sees.  ``GlobalAveragePooling1D`` takes ``(B, T, d)``; a [CLS]
slice is already ``(B, d)``.  A learned [CLS] weight of shape ``(1, 1, d)`` must be
broadcast (``tf.repeat``/``ops.broadcast_to``) to the batch before it is concatenated.

Evidence a diagnosis could read at the failure: each layer's config (``num_heads``,
``key_dim``, ``output_shape``, units, ``input_dim`` of each Embedding, the layer names),
the shapes and dtypes of query/value/key and of ``attention_mask`` as received (Keras
lists them under "Arguments received by MultiHeadAttention.call()"), the sequence length
and the model-width chain from the Embedding through the block, the layer that produced
each input of the failing layer, the largest position id against the positional
table's ``input_dim``, and the Python type of what reached a layer (a tuple).

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "attention_blocks"

CASES = [
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().
    # ... Incompatible shapes: [8,4,12,12] vs. [1,1,8,12] [Op:LogicalAnd]
    # (a (B, S) padding mask passed as attention_mask, which must be (B, T, S))
    Case(
        "at_mha_padding_mask_without_query_axis",
        FAMILY,
        """
tokens = np.random.randint(1, 100, (8, 12))
tokens[:, 9:] = 0  # padded sentences
emb = keras.layers.Embedding(100, 32)(tokens)
padding_mask = tokens != 0
self_attn = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8, name="self_attn")
out = self_attn(emb, emb, attention_mask=padding_mask)
""",
        "S01",
        must=("attention_mask",),
        must_not=("key_dim", "hard-code"),
        fix="padding_mask[:, None, :] or mask_zero=True",
    ),
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().
    # ... Incompatible shapes: [16,4,12,12] vs. [1,1,10,10] [Op:LogicalAnd]
    # (a causal mask built once for seq_len=10, the windows are 12 steps long)
    Case(
        "at_mha_causal_mask_built_for_old_length",
        FAMILY,
        """
seq_len = 10
causal_mask = tf.linalg.band_part(tf.ones((seq_len, seq_len)), -1, 0)
x = np.random.rand(16, 12, 32).astype("float32")  # windows re-cut to 12 steps
decoder_attn = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8, name="decoder_attn")
out = decoder_attn(x, x, attention_mask=causal_mask)
""",
        "S01",
        must=("attention_mask", "10"),
        must_not=("batch axis", "key_dim"),
        fix="use_causal_mask=True",
    ),
    # ValueError: Exception encountered when calling TransformerBlock.call().
    # Could not automatically infer the output shape / dtype of 'encoder_block' ...
    # Dimensions must be equal, but are 32 and 64 for '{{node add_1}} = AddV2 ...
    # (the FFN's last Dense has ff_dim units, the residual needs embed_dim)
    Case(
        "at_encoder_block_ffn_returns_ff_dim",
        FAMILY,
        """
class TransformerBlock(keras.layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, **kw):
        super().__init__(**kw)
        self.att = keras.layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential(
            [keras.layers.Dense(ff_dim, activation="relu"), keras.layers.Dense(ff_dim)]
        )
        self.norm1 = keras.layers.LayerNormalization(epsilon=1e-6)
        self.norm2 = keras.layers.LayerNormalization(epsilon=1e-6)

    def call(self, inputs):
        out1 = self.norm1(inputs + self.att(inputs, inputs))
        return self.norm2(out1 + self.ffn(out1))

inputs = keras.Input((20,), dtype="int32")
x = keras.layers.Embedding(500, 32)(inputs)
x = TransformerBlock(embed_dim=32, num_heads=2, ff_dim=64, name="encoder_block")(x)
x = keras.layers.GlobalAveragePooling1D()(x)
model = keras.Model(inputs, keras.layers.Dense(2, activation="softmax")(x))
""",
        "S01",
        must=("encoder_block", "64"),
        must_not=("return_sequences", "batch axis"),
        fix="last FFN Dense(embed_dim)",
    ),
    # InvalidArgumentError: Graph execution error: Detected at node
    # functional_1/token_and_position_embedding_1/pos_emb_1/GatherV2 ...
    # indices[50] = 50 is not in [0, 50)
    # (pad_sequences without maxlen pads to the longest review, 61 > maxlen=50)
    Case(
        "at_position_table_shorter_than_padding",
        FAMILY,
        """
maxlen = 50

class TokenAndPositionEmbedding(keras.layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = keras.layers.Embedding(vocab_size, embed_dim, name="token_emb")
        self.pos_emb = keras.layers.Embedding(maxlen, embed_dim, name="pos_emb")

    def call(self, x):
        positions = tf.range(0, tf.shape(x)[-1])
        return self.token_emb(x) + self.pos_emb(positions)

reviews = [np.random.randint(1, 1000, n) for n in (34, 61, 48, 12) * 8]
x_train = keras.utils.pad_sequences(reviews, padding="post")
y_train = np.random.randint(0, 2, len(reviews))
inputs = keras.Input((None,), dtype="int32")
h = TokenAndPositionEmbedding(maxlen, 1000, 32)(inputs)
h = keras.layers.MultiHeadAttention(num_heads=2, key_dim=16)(h, h)
h = keras.layers.GlobalAveragePooling1D()(h)
model = keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(h))
model.compile("adam", "binary_crossentropy")
model.fit(x_train, y_train, epochs=1, verbose=0)
""",
        "S09",
        must=("pos_emb", "50"),
        must_not=("token_emb", "mask_zero"),
        fix="pad_sequences(maxlen=maxlen)",
    ),
    # ValueError: Exception encountered when calling AdditiveAttention.call().
    # Dimensions must be equal, but are 32 and 64 for '{{node functional_1/bahdanau_1/add}}
    # = AddV2 ...' with input shapes: [?,15,1,32], [?,1,20,64].
    # (Bahdanau attention between a 32-unit decoder and a 64-unit encoder, no projection)
    Case(
        "at_additive_attention_encoder_decoder_units",
        FAMILY,
        """
enc_in = keras.Input((20, 8))
dec_in = keras.Input((15, 8))
enc = keras.layers.LSTM(64, return_sequences=True, name="encoder_lstm")(enc_in)
dec = keras.layers.LSTM(32, return_sequences=True, name="decoder_lstm")(dec_in)
ctx = keras.layers.AdditiveAttention(name="bahdanau")([dec, enc])
out = keras.layers.Dense(5, activation="softmax")(keras.layers.Concatenate()([dec, ctx]))
model = keras.Model([enc_in, dec_in], out)
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(
    [np.random.rand(16, 20, 8), np.random.rand(16, 15, 8)],
    np.random.randint(0, 5, (16, 15)),
    epochs=1,
    verbose=0,
)
""",
        "S01",
        must=("bahdanau", "32", "64"),
        must_not=("return_sequences",),
        fix="same units, or Dense-project one side",
    ),
    # ValueError: Attention layer must be called on a list of inputs, namely [query, value]
    # or [query, value, key]. Received: inputs=(None, 10, 16).
    Case(
        "at_attention_layer_single_tensor",
        FAMILY,
        """
inputs = keras.Input((10, 16))
attended = keras.layers.Attention(name="self_attention")(inputs)
""",
        None,
        unexplained="Keras's message says to call Attention on a list [query, value].",
        fix="Attention()([x, x])",
    ),
    # ValueError: Input 0 with name 'None' of layer 'pool' is incompatible with the layer:
    # expected ndim=3, found ndim=2. Full shape received: (None, 32)
    # (the [CLS] slice already removed the token axis that the pooling averages over)
    Case(
        "at_cls_slice_then_global_pooling",
        FAMILY,
        """
inputs = keras.Input((16,), dtype="int32")
x = keras.layers.Embedding(300, 32)(inputs)
x = keras.layers.MultiHeadAttention(num_heads=2, key_dim=16)(x, x)
cls = x[:, 0, :]
x = keras.layers.GlobalAveragePooling1D(name="pool")(cls)
out = keras.layers.Dense(3, activation="softmax")(x)
""",
        "S01",
        must=("pool",),
        must_not=("return_sequences", "batch axis"),
        fix="either the [CLS] slice or the pooling",
    ),
    # ValueError: Exception encountered when calling AddCLSToken.call().
    # Dimension 0 in both shapes must be equal, but are 1 and 8. Shapes are [1] and [8].
    # for '{{node functional_1/add_cls_1/concat}} = ConcatV2 ...
    # (the (1, 1, d) [CLS] weight is concatenated without broadcasting it to the batch)
    Case(
        "at_cls_token_not_broadcast_to_batch",
        FAMILY,
        """
class AddCLSToken(keras.layers.Layer):
    def build(self, input_shape):
        self.cls_token = self.add_weight(
            shape=(1, 1, input_shape[-1]), initializer="zeros", name="cls_token"
        )

    def call(self, patches):
        return tf.concat([self.cls_token, patches], axis=1)

patches = keras.Input((16, 48))
x = keras.layers.Dense(64)(patches)
x = AddCLSToken(name="add_cls")(x)
x = keras.layers.MultiHeadAttention(num_heads=4, key_dim=16)(x, x)
model = keras.Model(patches, keras.layers.Dense(10)(x[:, 0]))
model.predict(np.random.rand(8, 16, 48).astype("float32"), verbose=0)
""",
        "S01",
        must=("add_cls",),
        must_not=("key_dim", "num_heads"),
        fix="tf.repeat the cls_token over the batch",
    ),
    # InvalidArgumentError: Exception encountered when calling LayerNormalization.call().
    # ... Input to reshape is a tensor with 12 values, but the requested shape has 64
    # [Op:Reshape]
    # (one LayerNormalization instance, built for the 12 raw features, reused at width 64)
    Case(
        "at_layernorm_reused_at_new_width",
        FAMILY,
        """
class PreNormBlock(keras.layers.Layer):
    def __init__(self, d_model, **kw):
        super().__init__(**kw)
        self.norm = keras.layers.LayerNormalization(name="pre_norm")
        self.proj = keras.layers.Dense(d_model)
        self.attn = keras.layers.MultiHeadAttention(num_heads=4, key_dim=d_model // 4)

    def call(self, x):
        h = self.proj(self.norm(x))
        h = h + self.attn(self.norm(h), self.norm(h))
        return h

sensors = np.random.rand(8, 20, 12).astype("float32")
y = PreNormBlock(64, name="block")(sensors)
""",
        "S01",
        must=("pre_norm", "12", "64"),
        must_not=("batch axis", "key_dim"),
        fix="a separate LayerNormalization per width",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (20, 32) and
    # ((None, 4, 20, 20),)
    # (return_attention_scores=True returns (output, scores); the tuple went into Add)
    Case(
        "at_attention_scores_tuple_into_residual",
        FAMILY,
        """
inputs = keras.Input((20, 32))
mha = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8, name="mha")
attn_out = mha(inputs, inputs, return_attention_scores=True)  # keep scores to plot them
x = keras.layers.Add(name="residual")([inputs, attn_out])
x = keras.layers.LayerNormalization()(x)
""",
        "S12",
        must=("return_attention_scores",),
        must_not=("key_dim", "output_shape"),
        fix="attn_out, scores = mha(...)",
    ),
]
