"""Family ``mixed_precision_and_dtypes``: dtype policies, mixed precision and dtypes in tensors, variables and loops.

APIs: ``keras.mixed_precision.set_global_policy`` (accepts ``"mixed_float16"``,
``"mixed_bfloat16"`` or a float dtype name; under a mixed policy every layer computes in
float16/bfloat16 while its variables stay float32, and Keras casts a layer's *inputs*
and the variables it made with ``add_weight`` to ``compute_dtype`` -- but not a
``tf.Variable`` or ``tf.constant`` the layer makes itself, nor tensors combined by raw
TensorFlow ops outside a layer); the documented advice to end a mixed-precision model
with a float32 layer (``Dense(..., dtype="float32")`` or ``Activation(...,
dtype="float32")``) so that its output, and any loss computed on it, is float32;
TensorFlow ops (``Sub``, ``Mul``, ``MatMul``, ``AddV2``) which never promote dtypes:
float16 with float32, float64 with float32, int64 with float32 all fail; ``tf.data``
keeps NumPy's float64 and int64; ``tf.Variable`` takes its dtype from the initial value
(``tf.Variable(0)`` is int32, and an int32 variable cannot take a float).

Evidence a diagnosis needs: the active dtype policy and each layer's ``compute_dtype``;
the op that failed and the dtype of each of its inputs; where each input came from (a
layer's output under the policy, a variable or constant made inside ``call``, labels
from NumPy/``tf.data``, a ``tf.Variable`` created from a Python int); the policy name
that was passed.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: Exception encountered when calling Projection.call().
    # (... Input 'b' of 'MatMul' Op has type float32 that does not match type float16 of argument 'a'.)
    Case(
        name="f15_mixed_float16_layer_with_its_own_tf_variable",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
class Projection(keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.units = units
    def build(self, input_shape):
        self.w = tf.Variable(tf.random.normal((input_shape[-1], self.units)))
    def call(self, x):
        return tf.matmul(x, self.w)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16), Projection(4)])
model.predict(np.random.rand(2, 8).astype("float32"), verbose=0)
""",
        expect="S11",
        must=("float16",),
        must_not=("astype",),
        fix="self.w = self.add_weight(shape=(input_shape[-1], self.units)) (autocast), or tf.cast(self.w, x.dtype)",
    ),
    # TypeError: Exception encountered when calling AddPositional.call().
    # (... Input 'y' of 'AddV2' Op has type float32 that does not match type float16 of argument 'x'.)
    Case(
        name="f15_float32_position_range_added_in_mixed_float16_layer",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
class AddPositional(keras.layers.Layer):
    def call(self, x):
        positions = tf.range(tf.shape(x)[1], dtype=tf.float32)[None, :, None]
        return x + positions / 100.0
inputs = keras.Input((10, 8))
x = keras.layers.Dense(8)(inputs)
x = AddPositional()(x)
model = keras.Model(inputs, keras.layers.Dense(1, dtype="float32")(x))
""",
        expect="S11",
        must=("float16",),
        must_not=("astype",),
        fix="tf.range(..., dtype=self.compute_dtype) (or tf.cast(positions, x.dtype))",
    ),
    # InvalidArgumentError: cannot compute Sub as input #1(zero-based) was expected to be a float tensor but is a half tensor [Op:Sub] name:
    Case(
        name="f15_mixed_float16_regressor_without_float32_output_in_tape",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([
    keras.Input((4,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1),
])
opt = keras.optimizers.Adam()
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1))
with tf.GradientTape() as tape:
    pred = model(x, training=True)
    loss = tf.reduce_mean(tf.square(y - pred))
""",
        expect="S05",
        must=("float32",),
        must_not=("astype",),
        fix='keras.layers.Dense(1, dtype="float32") as the output layer',
    ),
    # InvalidArgumentError: cannot compute Mul as input #1(zero-based) was expected to be a bfloat16 tensor but is a float tensor [Op:Mul] name:
    Case(
        name="f15_mixed_bfloat16_logits_into_sigmoid_cross_entropy",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_bfloat16")
inputs = keras.Input((6,))
h = keras.layers.Dense(16, activation="relu")(inputs)
logits = keras.layers.Dense(1)(h)
model = keras.Model(inputs, logits)
x = np.random.rand(8, 6).astype("float32")
y = np.random.randint(0, 2, (8, 1)).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=model(x, training=True))
    )
""",
        expect="S05",
        must=("bfloat16",),
        must_not=("from_logits",),
        fix='Dense(1, dtype="float32") for the logits layer',
    ),
    # TypeError: Input 'y' of 'Mul' Op has type float32 that does not match type int64 of argument 'x'.
    Case(
        name="f15_int64_labels_in_handwritten_bce_of_train_step",
        family="mixed_precision_and_dtypes",
        code="""
class Classifier(keras.Model):
    def __init__(self):
        super().__init__()
        self.out = keras.layers.Dense(1, activation="sigmoid")
    def call(self, x):
        return self.out(x)
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            p = self(x, training=True)
            loss = -tf.reduce_mean(y * tf.math.log(p + 1e-7) + (1 - y) * tf.math.log(1 - p + 1e-7))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}
clf = Classifier()
clf.compile(optimizer="adam")
x = np.random.rand(8, 5).astype("float32")
y = np.array([[0], [1], [1], [0], [1], [0], [0], [1]])
clf.fit(x, y, epochs=1, verbose=0)
""",
        expect="S11",
        must=("int64",),
        must_not=("sparse",),
        fix='y = tf.cast(y, p.dtype) in train_step (or y.astype("float32"))',
    ),
    # InvalidArgumentError: cannot compute Sub as input #1(zero-based) was expected to be a double tensor but is a float tensor [Op:Sub] name:
    Case(
        name="f15_float64_targets_from_dataset_in_gradient_tape_loop",
        family="mixed_precision_and_dtypes",
        code="""
x = np.random.rand(32, 5).astype("float32")
y = np.random.rand(32, 1)
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
model = keras.Sequential([
    keras.Input((5,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1),
])
optimizer = keras.optimizers.Adam(1e-3)
for xb, yb in ds:
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(yb - model(xb, training=True)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
""",
        expect="S11",
        must=("float64",),
        must_not=("float16",),
        fix='y.astype("float32") before from_tensor_slices (or tf.cast(yb, tf.float32))',
    ),
    # TypeError: Cannot convert 0.5 to EagerTensor of dtype int32
    Case(
        name="f15_int32_step_variable_in_float_decay_schedule",
        family="mixed_precision_and_dtypes",
        code="""
step = tf.Variable(0)
lr = tf.Variable(0.01)
step.assign_add(1)
lr.assign(lr * 0.5 ** step)
""",
        expect="S11",
        must=("int32",),
        must_not=("float64",),
        fix="0.5 ** tf.cast(step, tf.float32) (or step = tf.Variable(0.0))",
    ),
    # ValueError: Cannot convert 'mixed_fp16' to a mixed precision DTypePolicy. Valid policies include 'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such as 'float32'.
    Case(
        name="f15_mixed_precision_policy_name_misspelled",
        family="mixed_precision_and_dtypes",
        code="""
keras.mixed_precision.set_global_policy("mixed_fp16")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, dtype="float32")])
""",
        expect=None,
        unexplained="Keras's message lists the valid policy names ('mixed_float16', 'mixed_bfloat16', float dtypes)",
        fix='set_global_policy("mixed_float16")',
    ),
]
