"""Family: mixed precision and dtypes in Keras 3 (TensorFlow backend).

API: ``keras.mixed_precision.set_global_policy("mixed_float16" | "mixed_bfloat16" |
"float32")`` (any other name is rejected), ``keras.layers.Layer(dtype=...)`` (a dtype
policy for the layer's variables and computation, not the dtype of the data it
receives), ``layer.dtype`` / ``layer.variable_dtype`` (float32 under a mixed policy)
against ``layer.compute_dtype`` (float16 / bfloat16), ``add_weight(...)`` (a Keras
variable that is cast to the compute dtype inside ``call``), raw ``tf.Variable`` and
``tf.constant`` (not cast: they keep the dtype they were made with, float64 for a NumPy
array), ``tf.matmul`` / ``tf.concat`` / ``tf.nn.*`` (all operands must share one dtype,
no promotion), ``keras.mixed_precision.LossScaleOptimizer`` in a custom loop
(Keras 3: ``scaled = optimizer.scale_loss(loss)`` inside the tape, ``apply_gradients``
unscales; the TF2 ``get_scaled_loss`` / ``get_unscaled_gradients`` are gone).
Contract: under a mixed policy a layer casts its floating inputs to ``compute_dtype``
(integer inputs are left alone), keeps its variables in float32 and casts them when
read inside ``call``; everything a user creates by hand inside ``call`` must use
``self.compute_dtype``; the model's last layer should be ``dtype="float32"`` so that
losses, metrics and NumPy/pandas consumers get float32; some ops have no bfloat16 or
float16 kernel (``tf.linalg.inv``, ``tf.signal.rfft``); weights of a ``Dense`` must be
floating point.  Evidence a diagnosis can read at the failure: the global policy, each
layer's dtype policy (``dtype``, ``compute_dtype``), the dtypes of the tensors the
failing op received (named in the message: "Input 'b' of 'MatMul' Op has type float32
that does not match type float16", "Tensors in list passed to 'values' of 'ConcatV2'
Op have types [float16, float32]"), the user's line in the traceback and where each
value came from (a ``tf.Variable`` in ``build``, a ``tf.constant`` of a NumPy float64
array, a constant made with ``self.dtype``, the model's output), the gradients that
came back (all ``None``), the dtype of ``predict``'s result.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "mixed_precision"

CASES = [
    # TypeError: Exception encountered when calling Proj.call().
    # ... Input 'b' of 'MatMul' Op has type float32 that does not match type float16 of
    # argument 'a'.
    # (the projection matrix is a raw tf.Variable, so it is not autocast to float16)
    Case(
        "mp_raw_tf_variable_in_custom_layer",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_float16")
class Proj(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.proj = tf.Variable(tf.random.normal((input_shape[-1], self.units)), name="proj")
    def call(self, inputs):
        return tf.matmul(inputs, self.proj)
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), Proj(8), keras.layers.Dense(1, dtype="float32")])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S11",
        must=("proj",),
        must_not=("float64", "astype"),
        fix="self.add_weight instead of tf.Variable",
    ),
    # InvalidArgumentError: Exception encountered when calling CausalAverage.call().
    # ... cannot compute _MklBatchMatMulV2 as input #1(zero-based) was expected to be a
    # float tensor but is a half tensor [Op:BatchMatMulV2]
    # (self.dtype is the variable dtype, float32; the inputs are float16)
    Case(
        "mp_constant_made_with_self_dtype",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_float16")
class CausalAverage(keras.layers.Layer):
    def call(self, inputs):
        steps = inputs.shape[1]
        causal_mask = tf.constant(
            np.tril(np.ones((steps, steps))) / np.arange(1, steps + 1)[:, None], dtype=self.dtype
        )
        return tf.matmul(causal_mask, inputs)
layer = CausalAverage()
out = layer(tf.random.normal((2, 6, 4)))
""",
        "S11",
        must=("causal_mask",),
        must_not=("float64", "astype"),
        fix="dtype=self.compute_dtype",
    ),
    # InvalidArgumentError: cannot compute Mul as input #1(zero-based) was expected to be a
    # float tensor but is a double tensor [Op:Mul] name:
    # (tf.constant of a NumPy float64 array meets the float32 per-example loss)
    Case(
        "mp_float64_class_weights_in_custom_loop",
        FAMILY,
        """
counts = np.array([30, 6, 4])
class_weights = tf.constant(counts.sum() / (len(counts) * counts))
x = np.random.rand(40, 5).astype("float32")
y = np.random.choice(3, 40, p=[0.75, 0.15, 0.1])
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)])
optimizer = keras.optimizers.Adam()
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)
with tf.GradientTape() as tape:
    per_example = loss_fn(y, model(x, training=True))
    loss = tf.reduce_mean(per_example * tf.gather(class_weights, y))
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        "S11",
        must=("class_weights", "float64"),
        must_not=("float16", "compute_dtype"),
        fix="build class_weights as float32",
    ),
    # InvalidArgumentError: cannot compute Mul as input #1(zero-based) was expected to be a
    # half tensor but is a float tensor [Op:Mul] name:
    # (the last Dense has no dtype="float32", so the logits are float16 while the labels
    # are float32)
    Case(
        "mp_float16_logits_into_tf_nn_loss",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_float16")
x = np.random.rand(32, 4).astype("float32")
y = np.random.randint(0, 2, (32, 1)).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam())
with tf.GradientTape() as tape:
    logits = model(x, training=True)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    scaled_loss = optimizer.scale_loss(loss)
grads = tape.gradient(scaled_loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        "S11",
        must=("logits",),
        must_not=("float64", "sparse"),
        fix='dtype="float32" on the output layer',
    ),
    # ValueError: Exception encountered when calling Cond.call().
    # ... No gradients provided for any variable.
    # (scale_loss is called after the tape's with block closed)
    Case(
        "mp_scale_loss_after_tape_closed",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_float16")
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, dtype="float32")])
optimizer = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam())
with tf.GradientTape() as tape:
    pred = model(x, training=True)
    loss = tf.reduce_mean(tf.square(y - pred))
scaled_loss = optimizer.scale_loss(loss)
grads = tape.gradient(scaled_loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        "T03",
        must=("scaled_loss",),
        must_not=("argmax", "stop_gradient"),
        fix="call scale_loss inside the tape",
    ),
    # ValueError: Cannot convert 'mixed_float32' to a mixed precision DTypePolicy. Valid
    # policies include 'mixed_float16', 'mixed_bfloat16', and the name of any float dtype
    # such as 'float32'.
    Case(
        "mp_policy_name_typo",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
""",
        None,
        unexplained="Keras' ValueError lists the valid policy names",
        fix='"mixed_float16" or "float32"',
    ),
    # NotImplementedError: bfloat16
    # (predict returns a bfloat16 array because the output layer follows the
    # mixed_bfloat16 policy; pandas cannot describe it)
    Case(
        "mp_bfloat16_predictions_into_pandas",
        FAMILY,
        """
import pandas as pd
keras.mixed_precision.set_global_policy("mixed_bfloat16")
x = np.random.rand(40, 6).astype("float32")
y = np.random.rand(40, 2).astype("float32")
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(2, name="forecast")])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
preds = model.predict(x, verbose=0)
summary = pd.DataFrame(preds, columns=["low", "high"]).describe()
""",
        "S05",
        must=("bfloat16",),
        must_not=("lossscaleoptimizer", "float64"),
        fix='dtype="float32" on the forecast layer',
    ),
    # TypeError: Exception encountered when calling Whitening.call().
    # ... Value passed to parameter 'input' has DataType bfloat16 not in list of allowed
    # values: float64, float32, float16, complex64, complex128
    # (tf.linalg.inv has no bfloat16 kernel; the layer computes in bfloat16)
    Case(
        "mp_bfloat16_matrix_inverse_in_layer",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_bfloat16")
class Whitening(keras.layers.Layer):
    def call(self, x):
        n = tf.cast(tf.shape(x)[0], x.dtype)
        cov = tf.matmul(x, x, transpose_a=True) / n
        return tf.matmul(x, tf.linalg.inv(cov + tf.eye(x.shape[-1], dtype=x.dtype)))
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), Whitening(), keras.layers.Dense(1, dtype="float32")])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S11",
        must=("whitening", "bfloat16"),
        must_not=("lossscaleoptimizer", "astype"),
        fix='Whitening(dtype="float32") or cast around inv',
    ),
    # TypeError: Exception encountered when calling PosModel.call().
    # Tensors in list passed to 'values' of 'ConcatV2' Op have types [float16, float32]
    # that don't all match.
    # (positions are cast to tf.float32 by hand, the Dense output is float16)
    Case(
        "mp_concat_float32_positions",
        FAMILY,
        """
keras.mixed_precision.set_global_policy("mixed_float16")
class PosModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.embed = keras.layers.Dense(8)
        self.head = keras.layers.Dense(1, dtype="float32")
    def call(self, x):
        h = self.embed(x)
        positions = tf.cast(tf.range(tf.shape(h)[1]), tf.float32)[None, :, None]
        positions = tf.tile(positions, [tf.shape(h)[0], 1, 1])
        h = tf.concat([h, positions], axis=-1)
        return self.head(h)
model = PosModel()
model.compile("adam", "mse")
model.fit(np.random.rand(16, 5, 3).astype("float32"), np.random.rand(16, 5, 1).astype("float32"),
          epochs=1, verbose=0)
""",
        "S11",
        must=("positions",),
        must_not=("float64", "astype"),
        fix="cast positions to h.dtype",
    ),
    # InvalidArgumentError: {{function_node __wrapped__StatelessRandomUniformIntV2_device_
    # /job:localhost/replica:0/task:0/device:CPU:0}} Need minval < maxval, got 0 >= 0
    # (dtype="int32" on the Dense makes its kernel an int32 variable; the data's dtype
    # belongs on the Input)
    Case(
        "mp_int32_dtype_on_dense_layer",
        FAMILY,
        """
word_counts = np.random.randint(0, 5, (32, 10)).astype("int32")
y = np.random.randint(0, 2, (32, 1))
model = keras.Sequential([
    keras.Input((10,), dtype="int32"),
    keras.layers.Dense(8, activation="relu", dtype="int32"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(word_counts, y, epochs=1, verbose=0)
""",
        "S11",
        must=("int32",),
        must_not=("astype", "float64"),
        fix='drop dtype="int32" from the Dense',
    ),
]
