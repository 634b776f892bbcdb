"""Family: attention layers and transformer blocks (Keras 3).

The APIs and their documented contract:

- ``keras.layers.MultiHeadAttention(num_heads, key_dim, value_dim=None, ...)`` called as
  ``mha(query, value, key=None, attention_mask=None, return_attention_scores=False,
  use_causal_mask=False)``: ``query`` is ``(B, T, dim)``, ``value`` ``(B, S, dim)``, ``key``
  (default ``value``) must have the same shape as ``value`` except the last axis; the
  widths of query and value may differ (each is projected to ``key_dim``/``value_dim`` per
  head); the output is ``(B, T, query dim)``.  The inputs need a sequence axis: a pooled
  ``(B, dim)`` vector is not a sequence.  ``attention_mask`` is a boolean (or 0/1) tensor
  of shape ``(B, T, S)`` (broadcastable over the heads): 1/True = may attend.  A padding
  mask of shape ``(B, S)`` must first become ``(B, 1, S)``; with ``return_attention_scores=True``
  the call returns a TUPLE ``(output, scores)`` with scores ``(B, heads, T, S)``;
  ``use_causal_mask=True`` builds the causal mask itself.
- ``keras.layers.Attention`` / ``AdditiveAttention`` are called on a LIST
  ``[query, value]`` or ``[query, value, key]`` (a single tensor raises); dot-product
  ``Attention`` needs query and key of the same width.
- Positional embeddings: ``Embedding(maxlen, d)(range(seq_len))`` added to the token
  embedding ``(B, seq_len, d)``: both widths must be ``d`` and every position id must be
  ``< maxlen`` (the Embedding's ``input_dim``); on CPU an id ``>= input_dim`` raises
  "indices[32] = 32 is not in [0, 32)" (the first bad id, not the largest; a sequence of
  length 40 needs ``maxlen >= 40``), on a GPU it silently gives zeros.
- Residual connections ``Add()([x, f(x)])`` need equal shapes: the last ``Dense`` of a
  feed-forward block must project back to ``d_model``.
- ``keras.layers.LayerNormalization(axis=-1)`` normalizes over the features; ``gamma`` and
  ``beta`` have the size of the normalized axes, so those axes must be known at build time
  (``axis=1`` over a ``None`` time axis cannot build, and is the wrong axis for a
  transformer anyway).
- A transformer block as a custom layer creates its sublayers ONCE (in ``__init__`` or
  ``build``), never in ``call`` (``call`` runs on every step inside a ``tf.function``, and
  new variables there fail).  To be saved and loaded (``.keras``) it must be registered
  (``@keras.saving.register_keras_serializable()``) and ``get_config`` must return every
  constructor argument, since ``from_config`` calls ``cls(**config)``.

The evidence a diagnosis needs to name the cause: the failing layer and the shapes (and
dtypes) it received, and which layer or argument produced each (the mask's shape against
``(B, T, S)``, a tuple from ``return_attention_scores``, the FFN ``Dense`` width against
``d_model``, the largest position id (sequence length - 1) against ``maxlen``, the normalized axis of unknown
size); for save/load, the class and the constructor argument ``get_config`` leaves out; for
variables created per call, the sublayer created inside ``call``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "attention_and_transformer_blocks"

CASES = [
    # InvalidArgumentError: Exception encountered when calling MultiHeadAttention.call().  (... Incompatible shapes: [4,2,6,6] vs. [1,1,4,6] [Op:LogicalAnd])
    Case(
        name="f27_mha_padding_mask_passed_as_batch_by_seq",
        family=FAMILY,
        code="""
ids = np.array([
    [5, 3, 9, 2, 0, 0],
    [7, 2, 4, 0, 0, 0],
    [1, 1, 1, 1, 1, 0],
    [8, 6, 0, 0, 0, 0],
])
emb = keras.layers.Embedding(10, 16)(ids)
padding_mask = ids != 0
mha = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8, name="self_attn")
out = mha(emb, emb, attention_mask=padding_mask)
""",
        expect="S01",
        must=("attention_mask",),
        must_not=("key_dim",),
        fix="attention_mask=padding_mask[:, None, :] (shape (B, 1, S))",
    ),
    # ValueError: Attention layer must be called on a list of inputs, namely [query, value] or [query, value, key]. Received: inputs=(None, 6, 16).
    Case(
        name="f27_attention_layer_called_on_query_only",
        family=FAMILY,
        code="""
decoder_states = keras.Input((6, 16))
encoder_states = keras.Input((9, 16))
context = keras.layers.Attention()(decoder_states)
""",
        expect=None,
        unexplained="the message says the layer takes a list [query, value] (or "
        "[query, value, key]) and shows what it received",
        fix="keras.layers.Attention()([decoder_states, encoder_states])",
    ),
    # InvalidArgumentError: Graph execution error:  (... indices[32] = 32 is not in [0, 32), node .../positional_embedding_1/embedding_1_2/GatherV2)
    Case(
        name="f27_position_ids_run_past_maxlen",
        family=FAMILY,
        code="""
class PositionalEmbedding(keras.layers.Layer):
    def __init__(self, maxlen, vocab_size, dim, **kwargs):
        super().__init__(**kwargs)
        self.token_emb = keras.layers.Embedding(vocab_size, dim)
        self.pos_emb = keras.layers.Embedding(maxlen, dim)

    def call(self, x):
        positions = tf.range(tf.shape(x)[-1])
        return self.token_emb(x) + self.pos_emb(positions)

tokens = keras.Input((40,), dtype="int32")
x = PositionalEmbedding(maxlen=32, vocab_size=100, dim=16)(tokens)
model = keras.Model(tokens, keras.layers.GlobalAveragePooling1D()(x))
model.predict(np.random.RandomState(0).randint(0, 100, size=(2, 40)), verbose=0)
""",
        expect="S09",
        must=("40",),
        must_not=("vocab",),
        fix="maxlen >= sequence length (40), or truncate the tokens to maxlen",
    ),
    # ValueError: Inputs have incompatible shapes. Received shapes (10, 32) and (10, 128)
    Case(
        name="f27_ffn_output_width_differs_from_residual",
        family=FAMILY,
        code="""
d_model = 32
inputs = keras.Input((10, d_model))
attn = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(inputs, inputs)
x = keras.layers.LayerNormalization()(keras.layers.Add()([inputs, attn]))
ff = keras.layers.Dense(128, activation="relu")(x)
ff = keras.layers.Dense(128)(ff)
x = keras.layers.Add(name="ffn_residual")([x, ff])
""",
        expect="S01",
        must=("ffn_residual", "128"),
        must_not=("key_dim",),
        fix="the FFN's last Dense projects back to d_model (Dense(32))",
    ),
    # ValueError: Layer "global_average_pooling1d_1" expects 1 input(s), but it received 2 input tensors. Inputs received: [<KerasTensor shape=(None, 10, 32), ...>, <KerasTensor shape=(None, 4, 10, 10), ...>]
    Case(
        name="f27_mha_scores_tuple_fed_to_pooling",
        family=FAMILY,
        code="""
inputs = keras.Input((10, 32))
x = keras.layers.MultiHeadAttention(num_heads=4, key_dim=8)(
    inputs, inputs, return_attention_scores=True
)
x = keras.layers.GlobalAveragePooling1D()(x)
outputs = keras.layers.Dense(1)(x)
""",
        expect="S01",
        must=("return_attention_scores",),
        must_not=("concatenate",),
        fix="x, scores = mha(..., return_attention_scores=True)",
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f27_transformer_block_get_config_drops_init_args",
        family=FAMILY,
        code="""
import os, tempfile

@keras.saving.register_keras_serializable()
class TransformerBlock(keras.layers.Layer):
    def __init__(self, d_model, num_heads, ff_dim, **kwargs):
        super().__init__(**kwargs)
        self.att = keras.layers.MultiHeadAttention(num_heads=num_heads, key_dim=d_model // num_heads)
        self.ffn = keras.Sequential([keras.layers.Dense(ff_dim, activation="relu"), keras.layers.Dense(d_model)])
        self.norm1 = keras.layers.LayerNormalization()
        self.norm2 = keras.layers.LayerNormalization()

    def call(self, x):
        x = self.norm1(x + self.att(x, x))
        return self.norm2(x + self.ffn(x))

    def get_config(self):
        return super().get_config()

inputs = keras.Input((8, 16))
model = keras.Model(inputs, TransformerBlock(16, 2, 32)(inputs))
path = os.path.join(tempfile.mkdtemp(), "encoder.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        expect="C05",
        must=("d_model",),
        must_not=("register_keras_serializable",),
        fix="get_config returns d_model, num_heads and ff_dim",
    ),
    # ValueError: Exception encountered when calling EncoderBlock.call().  (... tf.function only supports singleton tf.Variables created on the first call. ...)
    Case(
        name="f27_encoder_block_creates_attention_in_call",
        family=FAMILY,
        code="""
class EncoderBlock(keras.layers.Layer):
    def call(self, x):
        attention = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)
        norm = keras.layers.LayerNormalization()
        return norm(x + attention(x, x))

inputs = keras.Input((8, 16))
outputs = keras.layers.Dense(1)(EncoderBlock()(inputs))
model = keras.Model(inputs, outputs)
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(8, 8, 16), np.random.rand(8, 8, 1), epochs=1, verbose=0)
""",
        expect="T03",
        must=("__init__",),
        must_not=("persistent=true",),
        fix="create the MultiHeadAttention and LayerNormalization in __init__",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None` dimensions). Received: shape=(None,) for variable path='ln_time/gamma'
    Case(
        name="f27_layernorm_axis1_over_variable_length_time",
        family=FAMILY,
        code="""
inputs = keras.Input((None, 16))
x = keras.layers.Dense(16)(inputs)
x = keras.layers.LayerNormalization(axis=1, name="ln_time")(x)
x = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
model = keras.Model(inputs, x)
""",
        expect="S01",
        must=("axis",),
        must_not=("pad",),
        fix="LayerNormalization(axis=-1)",
    ),
]
