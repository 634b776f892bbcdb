"""Family: tensor ops written inside Keras 3 models.

API: ``keras.ops.*`` (``reshape``, ``transpose``, ``matmul``, ``einsum``, ``stack``,
``where``, ``take``, ``sum``, ``concatenate``, ``cast``) and ``tf.*`` ops used in
``keras.layers.Lambda`` functions, in custom layers' ``call``, and on ``KerasTensor`` s
while a functional model is built.  Contract (Keras 3 ops reference, Lambda / Layer
docs, ``tf.matmul`` / ``tf.gather`` / ``tf.concat`` docs): inside a model every tensor
carries the batch axis first, so a ``perm`` or an axis index counts it (``transpose``'s
``perm`` lists every axis, ``(0, 2, 1)`` not ``(2, 1)``; a reduction ``axis`` must exist
in the tensor's rank after the layers that removed axes); ``matmul`` contracts the last
axis of the first operand with the second-to-last of the second (``q @ k`` of two
``(batch, n, d)`` needs ``k`` transposed to ``(batch, d, n)``); each ``einsum`` operand
has one subscript letter per axis (``...`` covers extra leading axes); ``stack`` needs
operands of the same shape; ``where`` broadcasts condition and branches from the right
(a ``(batch, t)`` mask against ``(batch, t, f)`` values needs ``mask[..., None]``);
``take`` / ``tf.gather`` need integer indices; ``tf.*`` ops never promote dtypes (an
``int32`` tensor is cast before it is concatenated with or multiplied by ``float32``).
Evidence a diagnosis can read at the failure: the op and its arguments (``perm``,
``axis``, subscripts, indices and their dtype), the shapes and dtypes of the operands,
the Lambda or custom layer (its name and its ``call`` source) whose call raised, the
layers that produced its inputs, and the user's line in the traceback.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "ops_in_models"

CASES = [
    # NotImplementedError: Exception encountered when calling Lambda.call().
    # (We could not automatically infer the shape of the Lambda's output. Please specify
    # the `output_shape` argument ...; chained: ValueError: Dimension must be 3 but is 2
    # for '{{node transpose}} ...' with input shapes: [?,50,6], [2].)
    Case(
        "op2_lambda_transpose_perm_omits_batch",
        FAMILY,
        """
inp = keras.Input((50, 6))  # 50 time steps, 6 sensor channels
channels_first = keras.layers.Lambda(lambda t: keras.ops.transpose(t, (2, 1)), name="swap_axes")(inp)
h = keras.layers.Conv1D(16, 3, activation="relu")(channels_first)
model = keras.Model(inp, keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(h)))
""",
        "S01",
        must=("swap_axes",),
        must_not=("return_sequences", "strides"),
        fix="perm=(0, 2, 1)",
    ),
    # ValueError: Exception encountered when calling DotAttention.call().
    # (Could not automatically infer the output shape / dtype of 'dot_attention' ...
    # Error encountered: Dimensions must be equal, but are 16 and 10 for '{{node MatMul}}
    # = BatchMatMulV2[...]' with input shapes: [?,10,16], [?,10,16].)
    Case(
        "op2_attention_matmul_keys_not_transposed",
        FAMILY,
        """
class DotAttention(keras.layers.Layer):
    def call(self, queries, keys):
        scores = keras.ops.matmul(queries, keys)
        weights = keras.ops.softmax(scores / 4.0, axis=-1)
        return keras.ops.matmul(weights, keys)

tokens = keras.Input((10, 16))
queries = keras.layers.Dense(16, name="q_proj")(tokens)
keys = keras.layers.Dense(16, name="k_proj")(tokens)
context = DotAttention(name="dot_attention")(queries, keys)
model = keras.Model(tokens, keras.layers.Dense(1)(keras.layers.Flatten()(context)))
""",
        "S01",
        must=("keys",),
        must_not=("batch size", "padding"),
        fix="matmul(queries, transpose(keys, (0, 2, 1)))",
    ),
    # InvalidArgumentError: Exception encountered when calling AgeBucketBias.call().
    # (Value for attr 'Tindices' of float is not in the list of allowed values: int16,
    # int32, int64 ; NodeDef: {{node GatherV2}} ... [Op:GatherV2])
    Case(
        "op2_take_with_float_bucket_ids",
        FAMILY,
        """
class AgeBucketBias(keras.layers.Layer):
    def build(self, input_shape):
        self.table = self.add_weight(shape=(10,), initializer="zeros", name="bucket_bias")

    def call(self, age01):
        bucket = keras.ops.floor(age01 * 9.0)  # 0..9
        return keras.ops.take(self.table, bucket)

ages = np.random.rand(32, 1).astype("float32")
layer = AgeBucketBias(name="age_bias")
out = layer(ages)
""",
        "S11",
        must=("bucket",),
        must_not=("float64", "input_dim"),
        fix='keras.ops.cast(bucket, "int32")',
    ),
    # ValueError: Every value in `x` must have the same shape. But found element of shape
    # (None, 4),  which is different from the first element's shape (None, 8).
    Case(
        "op2_stack_branches_of_different_width",
        FAMILY,
        """
inp = keras.Input((20,))
price_head = keras.layers.Dense(8, activation="relu", name="price_head")(inp)
volume_head = keras.layers.Dense(4, activation="relu", name="volume_head")(inp)
heads = keras.ops.stack([price_head, volume_head], axis=1)
model = keras.Model(inp, keras.layers.Dense(1)(keras.layers.Flatten()(heads)))
""",
        "S01",
        must=("volume_head", "price_head"),
        must_not=("batch axis", "strides"),
        fix="Dense(8) for both heads, or concatenate",
    ),
    # ValueError: Exception encountered when calling ZeroPadded.call().
    # (Could not automatically infer the output shape / dtype of 'zero_padded' ... Error
    # encountered: Dimensions must be equal, but are 30 and 8 for '{{node SelectV2}} ...'
    # with input shapes: [?,30], [?,30,8], [].)
    Case(
        "op2_where_mask_without_feature_axis",
        FAMILY,
        """
class ZeroPadded(keras.layers.Layer):
    def call(self, frames, valid):
        return keras.ops.where(valid, frames, 0.0)

frames = keras.Input((30, 8), name="frames")
valid = keras.Input((30,), dtype="bool", name="valid")
cleaned = ZeroPadded(name="zero_padded")(frames, valid)
model = keras.Model([frames, valid], keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(cleaned)))
""",
        "S01",
        must=("valid",),
        must_not=("batch size", "return_sequences"),
        fix="where(valid[..., None], frames, 0.0)",
    ),
    # TypeError: Exception encountered when calling JoinFeatures.call().
    # (Could not automatically infer the output shape / dtype of 'join_features' ... Error
    # encountered: Tensors in list passed to 'values' of 'ConcatV2' Op have types
    # [int32, float32] that don't all match.)
    Case(
        "op2_tf_concat_int_ids_with_float_features",
        FAMILY,
        """
class JoinFeatures(keras.layers.Layer):
    def call(self, store_id, numeric):
        return tf.concat([store_id, numeric], axis=-1)

store_id = keras.Input((1,), dtype="int32", name="store_id")
numeric = keras.Input((5,), name="numeric")
joined = JoinFeatures(name="join_features")(store_id, numeric)
model = keras.Model([store_id, numeric], keras.layers.Dense(1)(joined))
""",
        "S11",
        must=("store_id", "int32"),
        must_not=("float64", "astype"),
        fix='tf.cast(store_id, "float32") first',
    ),
    # ValueError: Exception encountered when calling Projection.call().
    # (Could not automatically infer the output shape / dtype of 'token_proj' ... Error
    # encountered: Shape must be rank 2 but is rank 3 for 0th input and equation:
    # bd,du->bu ... with input shapes: [?,12,8], [8,4].)
    # (keras.ops.einsum accepts these subscripts silently; tf.einsum raises.)
    Case(
        "op2_einsum_kernel_on_sequence_input",
        FAMILY,
        """
class Projection(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")

    def call(self, x):
        return tf.einsum("bd,du->bu", x, self.kernel)

inp = keras.Input((12, 8))  # 12 tokens of 8 features
model = keras.Model(inp, Projection(4, name="token_proj")(inp))
""",
        "S01",
        must=("token_proj", "bd"),
        must_not=("flatten", "return_sequences"),
        fix='subscripts "btd,du->btu" (or "...d,du->...u")',
    ),
    # TypeError: Exception encountered when calling SinePositions.call().
    # (Could not automatically infer the output shape / dtype of 'sine_positions' ...
    # Error encountered: Input 'y' of 'Mul' Op has type float32 that does not match type
    # int32 of argument 'x'.)
    Case(
        "op2_positional_encoding_int_range_times_float",
        FAMILY,
        """
class SinePositions(keras.layers.Layer):
    def call(self, x):
        seq_len = tf.shape(x)[1]
        positions = tf.range(seq_len)[:, None]
        freqs = 1.0 / (10000.0 ** (tf.range(0, 16, 2, dtype=tf.float32) / 16.0))
        angles = positions * freqs[None, :]
        return x + tf.concat([tf.sin(angles), tf.cos(angles)], axis=-1)

tokens = keras.Input((40,), dtype="int32")
emb = keras.layers.Embedding(500, 16)(tokens)
encoded = SinePositions(name="sine_positions")(emb)
""",
        "S11",
        must=("positions", "int32"),
        must_not=("float64", "input_dim"),
        fix="tf.range(seq_len, dtype=tf.float32)",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    # (We could not automatically infer the shape of the Lambda's output ...; chained:
    # ValueError: Invalid reduction dimension 2 for input with 2 dimensions. for
    # '{{node Sum}} ...' with input shapes: [?,16], [2] ...)
    Case(
        "op2_lambda_sum_axis_after_pooling",
        FAMILY,
        """
inp = keras.Input((24, 24, 3))
h = keras.layers.Conv2D(16, 3, activation="relu")(inp)
pooled = keras.layers.GlobalAveragePooling2D(name="gap")(h)
energy = keras.layers.Lambda(lambda t: keras.ops.sum(t ** 2, axis=(1, 2)), name="energy")(pooled)
model = keras.Model(inp, energy)
""",
        "S01",
        must=("energy", "gap"),
        must_not=("batch size", "padding"),
        fix="sum over axis=-1",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    # (We could not automatically infer the shape of the Lambda's output ...; chained:
    # ValueError: There must be at most one unknown dimension (-1) in `newshape`.
    # Received: newshape=(-1, -1, 8).)
    Case(
        "op2_lambda_reshape_two_unknown_dims",
        FAMILY,
        """
inp = keras.Input((64,))
h = keras.layers.Dense(96, name="to_grid")(inp)
grid = keras.layers.Lambda(lambda t: keras.ops.reshape(t, (-1, -1, 8)), name="as_rows")(h)
model = keras.Model(inp, keras.layers.Dense(1)(keras.layers.Flatten()(grid)))
""",
        "S01",
        must=("as_rows",),
        must_not=("output_shape=", "batch size"),
        fix="reshape to (-1, 12, 8)",
    ),
]
