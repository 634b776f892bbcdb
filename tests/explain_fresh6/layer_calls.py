"""Family ``layer_calls``: layers that take several inputs or states, called against their contract.

APIs: ``keras.layers.Attention`` / ``AdditiveAttention`` (called on ``[query, value]`` or
``[query, value, key]``, all rank 3 ``(batch, steps, dim)``; the output has the query's
steps), ``MultiHeadAttention`` (``query``, ``value``, optional ``key``; ``key`` must have
the same shape as ``value`` except for the last axis, it defaults to ``value``), the RNN
layers' ``initial_state`` (a list with one tensor per state of the cell: ``[h, c]`` for
``LSTM``, ``[h]`` for ``GRU`` and ``SimpleRNN``, each of width ``units``) and
``return_state`` results (``Bidirectional`` returns the forward and backward states in
turn), the merge layers (``Add``/``Multiply``/... need equal shapes, ``Concatenate``
equal shapes except on ``axis``, ``Dot`` equal sizes on the two ``axes``),
``TimeDistributed`` (applies its layer to every slice along axis 1, so the input needs a
time axis in front of what the inner layer takes) and ``Embedding`` (its output adds a
feature axis to the ids' shape: ``(batch, steps)`` ids give ``(batch, steps, dim)``).

Evidence a diagnosis needs: which layer raised, the number of tensors or states it was
called with and their shapes, and which layer produced each of them (an LSTM without
``return_sequences``, the two states of an LSTM encoder, two embeddings of different
``output_dim``, a Dense that changed the width of a residual branch, an Embedding that
received ids with a trailing axis) against the layer's documented signature.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: `TimeDistributed` Layer should be passed an `input_shape` with at least 3
    # dimensions, received: (None, 64)
    Case(
        name="luong_decoder_lstm_without_return_sequences_before_attention",
        family="layer_calls",
        code="""
from keras import layers
vocab = 40
enc_in = keras.Input((12,), dtype="int32")
dec_in = keras.Input((9,), dtype="int32")
enc_seq = layers.LSTM(32, return_sequences=True)(layers.Embedding(vocab, 16)(enc_in))
dec_seq = layers.LSTM(32)(layers.Embedding(vocab, 16)(dec_in))
context = layers.Attention()([dec_seq, enc_seq])
merged = layers.Concatenate()([dec_seq, context])
probs = layers.TimeDistributed(layers.Dense(vocab, activation="softmax"))(merged)
model = keras.Model([enc_in, dec_in], probs)
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims", "reshape"),
        fix="LSTM(32, return_sequences=True) in the decoder",
    ),
    # ValueError: Exception encountered when calling SimpleRNN.call().
    # Too few leaves for PyTreeSpec; expected: 2, got: 1.
    Case(
        name="simple_rnn_decoder_seeded_with_lstm_h_and_c",
        family="layer_calls",
        code="""
from keras import layers
enc_in = keras.Input((10, 4))
dec_in = keras.Input((7, 4))
_, state_h, state_c = layers.LSTM(16, return_state=True)(enc_in)
dec_seq = layers.SimpleRNN(16, return_sequences=True)(dec_in, initial_state=[state_h, state_c])
model = keras.Model([enc_in, dec_in], layers.Dense(4)(dec_seq))
model.predict([np.random.rand(4, 10, 4), np.random.rand(4, 7, 4)], verbose=0)
""",
        expect="S01",
        must=("lstm",),
        must_not=("reshape", "batch size"),
        fix="initial_state=[state_h] for SimpleRNN (or an LSTM decoder)",
    ),
    # ValueError: Incompatible input shapes: axis values 32 (at axis 2) != 16 (at axis 2).
    # Full input shapes: (None, 1, 32), (None, 1, 16)
    Case(
        name="recommender_dot_of_user_and_item_embeddings_of_different_widths",
        family="layer_calls",
        code="""
from keras import layers
user_in = keras.Input((1,), name="user_id")
item_in = keras.Input((1,), name="item_id")
user_vec = layers.Embedding(100, 32, name="user_embedding")(user_in)
item_vec = layers.Embedding(50, 16, name="item_embedding")(item_in)
score = layers.Dot(axes=2)([user_vec, item_vec])
model = keras.Model([user_in, item_in], layers.Flatten()(score))
""",
        expect="S01",
        must=("output_dim",),
        must_not=("transpose", "batch"),
        fix="give both embeddings the same output_dim",
    ),
    # ValueError: Exception encountered when calling ResidualRegressor.call().
    # Inputs have incompatible shapes. Received shapes (20,) and (64,)
    Case(
        name="residual_add_around_a_dense_block_that_widens_the_features",
        family="layer_calls",
        code="""
from keras import layers

class ResidualRegressor(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = layers.Dense(64, activation="relu")
        self.proj = layers.Dense(64)
        self.add = layers.Add()
        self.out = layers.Dense(1)

    def call(self, x):
        h = self.proj(self.hidden(x))
        return self.out(self.add([x, h]))

model = ResidualRegressor()
model(np.random.rand(4, 20).astype("float32"))
""",
        expect="S01",
        must=("dense",),
        must_not=("batch", "reshape"),
        fix="project the shortcut with Dense(64) (or make the block 20 wide)",
    ),
    # ValueError: Kernel shape must have the same length as input, but received kernel of
    # shape (3, 3, 3, 8) and input of shape (None, 64, 3).
    Case(
        name="video_classifier_time_distributed_conv_without_a_frames_axis",
        family="layer_calls",
        code="""
from keras import layers
frames = keras.Input((64, 64, 3))
x = layers.TimeDistributed(layers.Conv2D(8, 3, activation="relu"))(frames)
x = layers.TimeDistributed(layers.GlobalAveragePooling2D())(x)
x = layers.LSTM(16)(x)
model = keras.Model(frames, layers.Dense(5, activation="softmax")(x))
""",
        expect="S01",
        must=("64, 64, 3",),
        must_not=("kernel_size", "conv1d"),
        fix="Input((num_frames, 64, 64, 3)): TimeDistributed needs a time axis",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv2d' is incompatible with the layer:
    # expected min_ndim=4, found ndim=3. Full shape received: (None, 50, 32)
    Case(
        name="text_cnn_conv2d_straight_on_the_embedding_output",
        family="layer_calls",
        code="""
from keras import layers
tokens = keras.Input((50,), dtype="int32")
emb = layers.Embedding(1000, 32)(tokens)
x = layers.Conv2D(16, (3, 32), activation="relu")(emb)
x = layers.GlobalMaxPooling2D()(x)
model = keras.Model(tokens, layers.Dense(1, activation="sigmoid")(x))
""",
        expect="S01",
        must=("embedding",),
        must_not=("batch axis", "single example"),
        fix="Conv1D over the embedding, or Reshape((50, 32, 1)) before Conv2D",
    ),
    # ValueError: All dimensions of `value` and `key`, except the last one, must be equal.
    # Received: value_shape=(None, 12, 32) and key_shape=(None, 6, 32)
    Case(
        name="transformer_cross_attention_key_taken_from_the_decoder",
        family="layer_calls",
        code="""
from keras import layers
src = keras.Input((12,), dtype="int32")
tgt = keras.Input((6,), dtype="int32")
encoded = layers.Dense(32, activation="relu", name="encoder")(layers.Embedding(200, 32)(src))
dec = layers.Embedding(200, 32, name="target_embedding")(tgt)
dec = dec + layers.MultiHeadAttention(4, 8)(dec, dec, use_causal_mask=True)
cross = layers.MultiHeadAttention(4, 8)(query=dec, value=encoded, key=dec)
model = keras.Model([src, tgt], layers.Dense(200)(dec + cross))
""",
        expect="S01",
        must=("encoder",),
        must_not=("pad", "same length"),
        fix="key=encoded (or leave key out: it defaults to value)",
    ),
    # ValueError: Forward layer and backward layer should have different `go_backwards`
    # value. Received: forward_layer.go_backwards False, backward_layer.go_backwards=False
    Case(
        name="bidirectional_backward_layer_without_go_backwards",
        family="layer_calls",
        code="""
from keras import layers
forward = layers.LSTM(16, return_sequences=True)
backward = layers.GRU(16, return_sequences=True)
tagger = keras.Sequential([
    keras.Input((20, 8)),
    layers.Bidirectional(forward, backward_layer=backward),
    layers.Dense(5, activation="softmax"),
])
""",
        expect=None,
        unexplained="Keras names both go_backwards values: the backward layer needs "
        "go_backwards=True",
        fix="GRU(16, return_sequences=True, go_backwards=True)",
    ),
]
