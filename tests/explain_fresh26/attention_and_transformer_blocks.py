"""Family: attention layers and transformer blocks.

The APIs and their documented contract:

* ``keras.layers.MultiHeadAttention(num_heads, key_dim, value_dim=None, dropout=0.0,
  use_bias=True, output_shape=None, ...)``: ``key_dim`` is a positive int (the size of each
  head for query and key).  Called as ``mha(query, value, key=None, query_mask=None,
  value_mask=None, key_mask=None, attention_mask=None, return_attention_scores=False,
  training=None, use_causal_mask=False)``; ``query`` is ``(B, T, dim)``, ``value``
  ``(B, S, dim)`` (``key`` defaults to ``value``; self-attention is ``mha(x, x)``).  The
  output is ``(B, T, E)`` with ``E`` the last dim of the query unless ``output_shape`` says
  otherwise; with ``return_attention_scores=True`` the call returns a TUPLE ``(output,
  scores)`` with scores ``(B, num_heads, T, S)``.  ``attention_mask`` is a boolean (or 0/1)
  tensor of shape ``(B, T, S)`` (broadcastable: ``(B, 1, S)`` for a padding mask, ``(T, S)``
  / ``(1, T, S)`` for a causal mask), combined with the Keras masks by ``logical_and``
  against ``(B, num_heads, T, S)``; a padding mask of shape ``(B, S)`` does not broadcast,
  nor does a causal mask built for ``maxlen`` on a shorter sequence.  ``use_causal_mask=True``
  builds the right-sized causal mask itself.
* ``keras.layers.Attention(use_scale=False, score_mode="dot")`` and
  ``keras.layers.AdditiveAttention()`` take a LIST ``[query, value]`` or ``[query, value,
  key]`` (``(B, T, dim)``, ``(B, S, dim)``); the dot-product scores ``query @ key^T``
  require query and key to have the same last dim.
* Positional embeddings: a token ``Embedding(vocab, d)`` of ``(B, L, d)`` plus a position
  ``Embedding(maxlen, d)`` of ``ops.arange(L)`` (``(L, d)``): broadcasting needs the same
  length ``L`` (the actual sequence length, not a larger ``maxlen``) and the same width
  ``d``.
* ``keras.layers.LayerNormalization(axis=-1, epsilon=1e-3)`` normalizes over the given axes
  of the input; residual additions (``Add()([x, f(x)])`` or ``x + f(x)``) need identical
  last dims: a feed-forward block ``Dense(ff_dim) -> Dense(embed_dim)`` must project back to
  the model width before the residual.
* A transformer block written as a ``keras.layers.Layer`` subclass creates its sublayers in
  ``__init__`` (or ``build``), and, to be saved and reloaded from ``.keras``, returns EVERY
  ``__init__`` argument from ``get_config`` (``from_config`` calls ``cls(**config)``).

Evidence a diagnosis needs: the shapes of query, value/key and ``attention_mask`` the layer
received and the shape the mask must broadcast to; the two widths (and lengths) an add
combined and the layer that produced each (a ``Dense(ff_dim)`` without the projection, a
positional embedding built for ``maxlen``); that an MHA output is a tuple because of
``return_attention_scores=True``; the ``__init__`` argument missing from ``get_config``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "attention_and_transformer_blocks"

CASES = [
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().  (... Incompatible shapes: [4,2,10,10] vs. [1,1,4,10] [Op:LogicalAnd])
    Case(
        name="f26_mha_padding_mask_batch_by_seq",
        family=FAMILY,
        code="""
tokens = np.random.randint(1, 50, (4, 10))
tokens[:, 7:] = 0  # padding
x = keras.layers.Embedding(50, 16)(tokens)
padding_mask = tokens != 0  # (batch, seq)
mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
out = mha(x, x, attention_mask=padding_mask)
""",
        expect="S01",
        must=("attention_mask",),
        must_not=("key_dim",),
        fix="attention_mask=padding_mask[:, None, :] (batch, 1, seq), or Embedding(mask_zero=True)",
    ),
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().  (... Incompatible shapes: [2,2,20,20] vs. [1,1,50,50] [Op:LogicalAnd])
    Case(
        name="f26_causal_mask_built_for_maxlen",
        family=FAMILY,
        code="""
MAXLEN = 50
causal_mask = tf.linalg.band_part(tf.ones((MAXLEN, MAXLEN)), -1, 0)[None, :, :]
decoder_attention = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
x = tf.random.normal((2, 20, 16))  # a batch of 20-token sequences
y = decoder_attention(x, x, attention_mask=causal_mask)
""",
        expect="S01",
        must=("attention_mask", "20"),
        must_not=("key_dim",),
        fix="use_causal_mask=True, or slice the mask to [:20, :20]",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (10, 32) and (10, 128)
    Case(
        name="f26_ffn_residual_without_projection_back",
        family=FAMILY,
        code="""
embed_dim, ff_dim = 32, 128
inputs = keras.Input((10, embed_dim))
attn = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(inputs, inputs)
x = keras.layers.LayerNormalization()(keras.layers.Add()([inputs, attn]))
ffn = keras.layers.Dense(ff_dim, activation="relu")(x)
x = keras.layers.LayerNormalization()(keras.layers.Add()([x, ffn]))
model = keras.Model(inputs, x)
""",
        expect="S01",
        must=("128",),
        must_not=("flatten",),
        fix="add Dense(embed_dim) after Dense(ff_dim) before the residual Add",
    ),
    # ValueError: Cannot broadcast shape, the failure dim has value 40, which cannot be broadcasted to 50. Input shapes are: [None, 40, 16] and [50, 16].
    Case(
        name="f26_position_embedding_longer_than_tokens",
        family=FAMILY,
        code="""
maxlen, vocab_size, embed_dim = 50, 100, 16
inputs = keras.Input((40,), dtype="int32")
token_emb = keras.layers.Embedding(vocab_size, embed_dim)(inputs)
positions = keras.ops.arange(maxlen)
pos_emb = keras.layers.Embedding(maxlen, embed_dim)(positions)
x = token_emb + pos_emb
""",
        expect="S07",
        must=("40", "50"),
        must_not=("embed_dim",),
        fix="positions = keras.ops.arange(40) (the input length), or Input((maxlen,))",
    ),
    # InvalidArgumentError: Exception encountered when calling TokenAndPositionEmbedding.call().  (... Incompatible shapes: [2,20,64] vs. [20,32] [Op:AddV2])
    Case(
        name="f26_position_embedding_width_differs",
        family=FAMILY,
        code="""
class TokenAndPositionEmbedding(keras.layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim, **kwargs):
        super().__init__(**kwargs)
        self.token_emb = keras.layers.Embedding(vocab_size, embed_dim)
        self.pos_emb = keras.layers.Embedding(maxlen, 32)
    def call(self, x):
        positions = tf.range(tf.shape(x)[-1])
        return self.token_emb(x) + self.pos_emb(positions)

layer = TokenAndPositionEmbedding(maxlen=20, vocab_size=100, embed_dim=64)
out = layer(np.random.randint(0, 100, (2, 20)))
""",
        expect="S01",
        must=("token_and_position_embedding",),
        must_not=("pad_sequences",),
        fix="Embedding(maxlen, embed_dim) for the positions",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (10, 32) and ((None, 4, 10, 10),)
    Case(
        name="f26_residual_add_with_attention_scores_tuple",
        family=FAMILY,
        code="""
inputs = keras.Input((10, 32))
mha = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)
attn = mha(inputs, inputs, return_attention_scores=True)
x = keras.layers.Add()([inputs, attn])
x = keras.layers.LayerNormalization()(x)
""",
        expect="S01",
        must=("return_attention_scores",),
        must_not=("dense(",),
        fix="attn, scores = mha(..., return_attention_scores=True); add attn only",
    ),
    # InvalidArgumentError: Exception encountered when calling Attention.call().  (... Matrix size-incompatible: In[0]: [2,10,16], In[1]: [2,32,12] [Op:BatchMatMulV2])
    Case(
        name="f26_dot_attention_query_value_widths",
        family=FAMILY,
        code="""
query = tf.random.normal((2, 10, 16))  # decoder states
value = tf.random.normal((2, 12, 32))  # encoder outputs (bidirectional, 2 x 16)
context = keras.layers.Attention()([query, value])
""",
        expect="S01",
        must=("16", "32"),
        must_not=("attention_mask",),
        fix="project to one width first (Dense(16) on value, or Dense(32) on query)",
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. ... (deep inside: TransformerBlock.__init__() missing 1 required positional argument: 'ff_dim')
    Case(
        name="f26_transformer_block_get_config_misses_ff_dim",
        family=FAMILY,
        code="""
import os, tempfile

class TransformerBlock(keras.layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, **kwargs):
        super().__init__(**kwargs)
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.att = keras.layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim // num_heads)
        self.ffn = keras.Sequential([keras.layers.Dense(ff_dim, activation="relu"), keras.layers.Dense(embed_dim)])
    def call(self, x):
        x = x + self.att(x, x)
        return x + self.ffn(x)
    def get_config(self):
        return {**super().get_config(), "embed_dim": self.embed_dim, "num_heads": self.num_heads}

inputs = keras.Input((6, 16))
model = keras.Model(inputs, TransformerBlock(16, 2, 32)(inputs))
path = os.path.join(tempfile.mkdtemp(), "block.keras")
model.save(path)
keras.models.load_model(path, custom_objects={"TransformerBlock": TransformerBlock})
""",
        expect="C05",
        must=("ff_dim",),
        must_not=("explicitly deserialized",),
        fix="store ff_dim and return it from get_config",
    ),
]
