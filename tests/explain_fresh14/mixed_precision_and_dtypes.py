"""Family ``mixed_precision_and_dtypes``: dtype policies and explicit dtypes in custom layers, losses and loops.

APIs: ``keras.mixed_precision.set_global_policy`` (valid names: ``"mixed_float16"``,
``"mixed_bfloat16"`` or a float dtype; under a mixed policy each layer computes in
float16/bfloat16 and keeps float32 variables, Keras casting the layer's inputs and the
variables made by ``add_weight`` to ``self.compute_dtype``; a raw ``tf.Variable`` or a
``tf.constant`` made inside ``call`` is not cast, and TensorFlow ops never mix dtypes; the
documentation asks that the model's output layer be float32, ``dtype="float32"``, so that a
loss written by hand receives float32 predictions), ``tf.Variable`` (its dtype is that of the
initial value: ``0`` gives int32, a NumPy float array float64), ``add_weight(dtype=...)``,
and TensorFlow arithmetic in a ``GradientTape`` loop or a custom ``train_step`` (integer or
float64 labels meet float32 predictions only after a ``tf.cast``).

Evidence a diagnosis needs: the active dtype policy, the layer whose ``call`` failed and the
dtypes of the two operands of the failing op (input or compute dtype against a variable's or
constant's dtype), where the odd dtype came from (a ``tf.Variable`` built from an int or a
NumPy array, a ``tf.constant(..., tf.float32)``, labels left as int32/int64, a float16
output layer), and the policy names that are valid.  Keras's own message for a failing
``call`` during the functional build suggests implementing ``compute_output_spec``, which is
not the cause here.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: Exception encountered when calling Gate.call().
    # Could not automatically infer the output shape / dtype of 'gate' (of type Gate). ... Input 'y' of 'Mul' Op has type float32 that does not match type float16 of argument 'x'.
    Case(
        name="f14_mixed_float16_layer_with_raw_tf_variable_gate",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
class Gate(keras.layers.Layer):
    def build(self, input_shape):
        self.gate = tf.Variable(tf.ones((input_shape[-1],)), name="gate")
    def call(self, x):
        return x * tf.sigmoid(self.gate)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(6), Gate(), keras.layers.Dense(1, dtype="float32")])
model.predict(np.random.rand(4, 6).astype("float32"), verbose=0)
""",
        expect="S11",
        must=("gate", "float16"),
        must_not=("compute_output_spec", "astype"),
        fix='self.gate = self.add_weight(shape=(input_shape[-1],), initializer="ones")',
    ),
    # TypeError: Exception encountered when calling AddBias.call().
    # Could not automatically infer the output shape / dtype of 'add_bias' (of type AddBias). ... Input 'y' of 'AddV2' Op has type float32 that does not match type float16 of argument 'x'.
    Case(
        name="f14_mixed_float16_float32_constant_added_in_call",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
class AddBias(keras.layers.Layer):
    def call(self, x):
        shift = tf.constant([0.5, -0.5, 0.25, 0.0], dtype=tf.float32)
        return tf.nn.relu(x + shift)
inputs = keras.Input((8,))
h = keras.layers.Dense(4)(inputs)
h = AddBias()(h)
outputs = keras.layers.Dense(1, activation="sigmoid", dtype="float32")(h)
model = keras.Model(inputs, outputs)
""",
        expect="S11",
        must=("add_bias", "float16"),
        must_not=("compute_output_spec", "float64"),
        fix="tf.constant(..., dtype=self.compute_dtype) or tf.cast(shift, x.dtype)",
    ),
    # InvalidArgumentError: cannot compute Mul as input #1(zero-based) was expected to be a int32 tensor but is a float tensor [Op:Mul] name:
    Case(
        name="f14_tape_loop_int32_labels_times_log_probabilities",
        family="mixed_precision_and_dtypes",
        code="""
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
x = tf.random.normal((8, 4))
y = tf.constant([[0], [1], [1], [0], [1], [0], [0], [1]])
with tf.GradientTape() as tape:
    p = model(x)
    loss = -tf.reduce_mean(y * tf.math.log(p) + (1 - y) * tf.math.log(1 - p))
""",
        expect="S11",
        must=("int32",),
        must_not=("float16", "sparse"),
        fix="y = tf.cast(y, tf.float32) before the loss",
    ),
    # TypeError: Exception encountered when calling EMA.call().
    # Cannot convert 1.0 to EagerTensor of dtype int32
    Case(
        name="f14_step_counter_variable_created_from_int_zero",
        family="mixed_precision_and_dtypes",
        code="""
class EMA(keras.layers.Layer):
    def build(self, input_shape):
        self.steps = tf.Variable(0, trainable=False)
    def call(self, x):
        self.steps.assign_add(1)
        decay = 1.0 - 1.0 / (self.steps + 1)
        return x * decay
layer = EMA()
layer(np.ones((2, 3), dtype="float32"))
""",
        expect="S11",
        must=("int32",),
        must_not=("astype",),
        fix="tf.cast(self.steps, x.dtype) before the arithmetic (or tf.Variable(0.0))",
    ),
    # TypeError: Exception encountered when calling FeatureScale.call().
    # Could not automatically infer the output shape / dtype of 'feature_scale' (of type FeatureScale). ... Input 'y' of 'Mul' Op has type float64 that does not match type float32 of argument 'x'.
    Case(
        name="f14_tf_variable_from_numpy_scales_is_float64",
        family="mixed_precision_and_dtypes",
        code="""
class FeatureScale(keras.layers.Layer):
    def __init__(self, scales, **kwargs):
        super().__init__(**kwargs)
        self.scales = tf.Variable(scales, trainable=False)
    def call(self, x):
        return x * self.scales
scaler = FeatureScale(np.array([1.0, 0.5, 2.0]))
model = keras.Sequential([keras.Input((3,)), scaler, keras.layers.Dense(1)])
""",
        expect="S11",
        must=("float64",),
        must_not=("compute_output_spec", "float16"),
        fix='tf.Variable(np.asarray(scales, dtype="float32"), ...) or add_weight',
    ),
    # ValueError: Cannot convert 'mixed_float32' to a mixed precision DTypePolicy. Valid policies include 'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such as 'float32'.
    Case(
        name="f14_set_global_policy_mixed_float32_typo",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float32")
""",
        expect=None,
        unexplained="the message lists the valid policy names (mixed_float16, mixed_bfloat16, float32)",
        fix='set_global_policy("mixed_float16")',
    ),
    # TypeError: Exception encountered when calling MaskedMean.call().
    # Could not automatically infer the output shape / dtype of 'masked_mean' (of type MaskedMean). ... Input 'y' of 'Mul' Op has type float32 that does not match type bfloat16 of argument 'x'.
    Case(
        name="f14_mixed_bfloat16_sequence_mask_made_float32",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_bfloat16")
class MaskedMean(keras.layers.Layer):
    def call(self, x, lengths):
        mask = tf.sequence_mask(lengths, maxlen=tf.shape(x)[1], dtype=tf.float32)
        return tf.reduce_sum(x * mask[:, :, None], axis=1) / tf.reduce_sum(mask, axis=1, keepdims=True)
tokens = keras.Input((5, 4))
lengths = keras.Input((), dtype="int32")
h = keras.layers.Dense(4)(tokens)
pooled = MaskedMean()(h, lengths)
""",
        expect="S11",
        must=("bfloat16",),
        must_not=("compute_output_spec", "float64"),
        fix="tf.sequence_mask(..., dtype=x.dtype) (or self.compute_dtype)",
    ),
    # TypeError: Input 'y' of 'Sub' Op has type float16 that does not match type float32 of argument 'x'.
    Case(
        name="f14_mixed_float16_train_step_with_float16_price_output",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
class Regressor(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = tf.reduce_mean(tf.square(y - y_pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}
inputs = keras.Input((4,))
h = keras.layers.Dense(16, activation="relu")(inputs)
outputs = keras.layers.Dense(1, name="price")(h)
model = Regressor(inputs, outputs)
model.compile(optimizer=keras.optimizers.Adam())
model.fit(np.random.rand(8, 4).astype("float32"), np.random.rand(8, 1).astype("float32"), epochs=1, verbose=0)
""",
        expect="S05",
        must=("price",),
        must_not=("astype", "float64"),
        fix='Dense(1, name="price", dtype="float32") for the output layer',
    ),
]
