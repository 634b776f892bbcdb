"""Family ``mixed_precision_and_dtypes``: dtype policies and the dtypes that meet in layers, losses and ops.

APIs: ``keras.mixed_precision.set_global_policy("mixed_float16" | "mixed_bfloat16")`` and
the per-layer ``dtype=`` argument (a policy: variables are float32, computations run in
float16/bfloat16; a layer casts its floating inputs to its ``compute_dtype``, and
``self.add_weight`` returns variables that are read in the compute dtype, but a
``tf.Variable``, ``tf.constant``, ``tf.random.*`` or NumPy array made inside ``call`` keeps
its own dtype; the guide asks for the model's last layer to output float32,
``Activation("linear", dtype="float32")``), TensorFlow ops (``tf.add``, ``tf.matmul``,
``tf.concat``, ``-``/``*`` on tensors) which never cast: every input must have the same
dtype, and some kernels do not exist for half types on CPU, ``LossScaleOptimizer`` (Keras 3:
``optimizer.scale_loss(loss)`` before the gradient; ``apply`` unscales; the TF-Keras
``get_scaled_loss``/``get_unscaled_gradients`` do not exist), and data dtypes (integer
labels against float predictions in a hand-written loss, ``bool`` masks, float64 NumPy).

Evidence a diagnosis needs: the active policy (global or the layer's ``dtype_policy``),
the two dtypes an op received and where each came from (a variable or constant created in
``call``, the model's float16 output, integer labels, a float64 array), and the op or
method that does not accept the dtype (a kernel registered without bfloat16, a TF-Keras
method on a Keras 3 optimizer).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: cannot compute Sub as input #1(zero-based) was expected to be a int64 tensor but is a float tensor [Op:Sub] name:
    Case(
        name="f11_integer_visit_counts_as_targets_in_a_custom_loop",
        family="mixed_precision_and_dtypes",
        code="""
visits = np.random.randint(0, 20, size=(24, 1))
features = np.random.rand(24, 6).astype("float32")
ds = tf.data.Dataset.from_tensor_slices((features, visits)).batch(8)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
opt = keras.optimizers.Adam()
for xb, yb in ds:
    with tf.GradientTape() as tape:
        pred = model(xb, training=True)
        loss = tf.reduce_mean(tf.abs(yb - pred))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply(grads, model.trainable_variables)
""",
        expect="S11",
        must=("int64",),
        must_not=("float16", "sparse"),
        fix="tf.cast(yb, pred.dtype), or visits.astype('float32')",
    ),
    # TypeError: Exception encountered when calling Projection.call().
    #   ... Input 'b' of 'MatMul' Op has type float32 that does not match type float16 of argument 'a'.
    Case(
        name="f11_custom_layer_tf_variable_under_mixed_float16",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")

class Projection(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.w = tf.Variable(tf.random.normal((input_shape[-1], self.units)), name="w")
    def call(self, x):
        return tf.matmul(x, self.w)

inputs = keras.Input((16,))
outputs = keras.layers.Dense(1, dtype="float32")(Projection(8)(inputs))
model = keras.Model(inputs, outputs)
""",
        expect="S11",
        must=("add_weight",),
        must_not=("astype", "float64", "compute_output_shape"),
        fix="self.w = self.add_weight(shape=(input_shape[-1], self.units))",
    ),
    # TypeError: Exception encountered when calling SensorNoise.call().
    #   Input 'y' of 'AddV2' Op has type float32 that does not match type float16 of argument 'x'.
    Case(
        name="f11_gaussian_noise_layer_adds_float32_noise_to_half_inputs",
        family="mixed_precision_and_dtypes",
        code="""
class SensorNoise(keras.layers.Layer):
    def call(self, x, training=None):
        if training:
            return x + tf.random.normal(tf.shape(x), stddev=0.1)
        return x

model = keras.Sequential([
    keras.Input((12,)),
    keras.layers.Dense(32, activation="relu", dtype="mixed_float16"),
    SensorNoise(dtype="mixed_float16"),
    keras.layers.Dense(1, dtype="float32"),
])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(16, 12).astype("float32"), np.random.rand(16, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="S11",
        must=("float16",),
        must_not=("astype", "float64"),
        fix="tf.random.normal(tf.shape(x), stddev=0.1, dtype=x.dtype)",
    ),
    # InvalidArgumentError: cannot compute Sub as input #1(zero-based) was expected to be a float tensor but is a half tensor [Op:Sub] name:
    Case(
        name="f11_custom_loop_mse_against_a_float16_model_output",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam())
x = tf.random.normal((32, 8))
y = tf.random.normal((32, 1))
with tf.GradientTape() as tape:
    pred = model(x, training=True)
    loss = tf.reduce_mean(tf.square(y - pred))
""",
        expect="S05",
        must=("output", "float32"),
        must_not=("astype", "float64"),
        fix='Dense(1, dtype="float32") as the last layer (or Activation("linear", dtype="float32"))',
    ),
    # ValueError: Exception encountered when calling Cond.call().
    #   No gradients provided for any variable.
    Case(
        name="f11_loss_scaled_after_the_tape_closed",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1, dtype="float32")])
opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(1e-3))
loss_fn = keras.losses.MeanSquaredError()
x = tf.random.normal((8, 4))
y = tf.random.normal((8, 1))
with tf.GradientTape() as tape:
    loss = loss_fn(y, model(x, training=True))
scaled_loss = opt.scale_loss(loss)
grads = tape.gradient(scaled_loss, model.trainable_variables)
opt.apply(grads, model.trainable_variables)
""",
        expect="T03",
        must=("scale_loss",),
        must_not=("float64", "persistent=true"),
        fix="call opt.scale_loss(loss) inside the GradientTape block",
    ),
    # TypeError: Exception encountered when calling PositionalEncoding.call().
    #   ... Input 'y' of 'Pow' Op has type float64 that does not match type float32 of argument 'x'.
    Case(
        name="f11_positional_encoding_divides_int_ranges_into_float64",
        family="mixed_precision_and_dtypes",
        code="""
class PositionalEncoding(keras.layers.Layer):
    def call(self, x):
        length = tf.shape(x)[1]
        depth = x.shape[-1]
        positions = tf.range(length)[:, tf.newaxis]
        dims = tf.range(depth)[tf.newaxis, :]
        angles = positions / tf.pow(10000.0, (2 * (dims // 2)) / depth)
        return x + tf.sin(angles)

tokens = keras.Input((None,), dtype="int32")
emb = keras.layers.Embedding(1000, 32)(tokens)
h = PositionalEncoding()(emb)
""",
        expect="S11",
        must=("float64",),
        must_not=("astype", "compute_output_shape"),
        fix="tf.range(..., dtype=tf.float32) (or tf.cast the ranges to x.dtype)",
    ),
    # ValueError: Cannot convert 'mixed_float32' to a mixed precision DTypePolicy. Valid policies include 'mixed_float16', ...
    Case(
        name="f11_global_policy_typo_mixed_float32",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float32")
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(4)])
""",
        expect=None,
        must_not=("float64",),
        unexplained="the error lists the valid policies ('mixed_float16', 'mixed_bfloat16', 'float32')",
        fix='set_global_policy("mixed_float16") (or "float32")',
    ),
    # TypeError: Exception encountered when calling Whiten.call().
    #   ... Value passed to parameter 'input' has DataType bfloat16 not in list of allowed values: float64, float32, float16, ...
    Case(
        name="f11_matrix_inverse_in_a_layer_under_mixed_bfloat16",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_bfloat16")

class Whiten(keras.layers.Layer):
    def call(self, x):
        cov = tf.matmul(x, x, transpose_a=True) / tf.cast(tf.shape(x)[0], x.dtype)
        cov += tf.eye(tf.shape(x)[-1], dtype=x.dtype)
        return tf.matmul(x, tf.linalg.inv(cov))

model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(6), Whiten(), keras.layers.Dense(1, dtype="float32")])
preds = model(np.random.rand(4, 6).astype("float32"))
""",
        expect="S11",
        must=("bfloat16",),
        must_not=("astype", "compute_output_shape"),
        fix='Whiten(dtype="float32"), or cast to float32 around tf.linalg.inv',
    ),
]
