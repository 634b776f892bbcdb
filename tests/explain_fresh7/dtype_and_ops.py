"""Family ``dtype_and_ops``: TensorFlow ops and Keras layers given tensors of a dtype they do not take.

APIs: TensorFlow's ops do not promote dtypes: the inputs of ``tf.concat``, ``tf.matmul``,
``+``/``-``/``*`` must share one dtype (``tf.cast`` first); NumPy arrays default to
``float64``/``int64`` and keep that dtype when converted; ``tf.reduce_mean`` /
``tf.reduce_sum`` do not take ``bool`` (cast the comparison first); ``tf.one_hot`` takes
integer indices (``tf.strings.to_number`` returns ``float32`` unless ``out_type`` says
otherwise); ``tf.cast`` does not parse strings (``tf.strings.to_number`` does); Keras
layers cast *floating* inputs to their compute dtype but not integer ones, so ``uint8``
images reach a ``Conv2D`` kernel as ``uint8``; under a ``mixed_float16`` dtype policy a
layer computes in ``float16`` and tensors it creates itself need ``dtype=x.dtype`` (or
``self.compute_dtype``); a numeric model given raw strings fails in the data adapter.

Evidence a diagnosis needs: the op or layer that failed, the dtype of each of its inputs
and where each came from (a NumPy array's default dtype, an integer label or id tensor, a
comparison's ``bool``, a ``tf.strings.to_number`` result, a decoded image, a random tensor
created in a ``mixed_float16`` layer, an array of text), and the cast or conversion that
belongs at that place.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # InvalidArgumentError: cannot compute ConcatV2 as input #1(zero-based) was expected to be a
    # int32 tensor but is a float tensor [Op:ConcatV2] name: concat
    Case(
        name="tf_concat_of_int_category_ids_and_float_features",
        family="dtype_and_ops",
        code="""
category_ids = tf.constant([[2], [0], [1]])
numeric = tf.constant([[0.5, 1.2], [0.1, 0.3], [0.9, 2.2]])
features = tf.concat([category_ids, numeric], axis=1)
""",
        expect="S11",
        must=("category_ids", "cast"),
        must_not=("float64",),
        fix="tf.concat([tf.cast(category_ids, tf.float32), numeric], axis=1)",
    ),
    # ValueError: Exception encountered when calling Conv2D.call().
    # Incompatible type conversion requested to type uint8 for `tf.Variable of type float32. ...
    Case(
        name="uint8_image_tensor_into_a_subclassed_cnn",
        family="dtype_and_ops",
        code="""
class SmallCNN(keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = keras.layers.Conv2D(4, 3, activation="relu")
        self.pool = keras.layers.GlobalAveragePooling2D()
        self.out = keras.layers.Dense(2)
    def call(self, x):
        return self.out(self.pool(self.conv(x)))
images = tf.constant(np.random.randint(0, 256, size=(2, 8, 8, 3), dtype=np.uint8))
model = SmallCNN()
logits = model(images)
""",
        expect="S11",
        must=("uint8", "cast"),
        must_not=("float64",),
        fix="model(tf.cast(images, tf.float32) / 255.0)",
    ),
    # InvalidArgumentError: cannot compute MatMul as input #1(zero-based) was expected to be a
    # double tensor but is a float tensor [Op:MatMul] name:
    Case(
        name="numpy_float64_inputs_matmul_float32_weights",
        family="dtype_and_ops",
        code="""
x = np.random.rand(5, 3)
w = tf.Variable(tf.random.normal((3, 1)))
b = tf.Variable(tf.zeros((1,)))
y_hat = tf.matmul(x, w) + b
""",
        expect="S11",
        must=("float64",),
        must_not=("set_floatx",),
        fix='x.astype("float32")',
    ),
    # ValueError: Invalid dtype: str544
    Case(
        name="predict_on_raw_strings_after_training_on_vectorized_text",
        family="dtype_and_ops",
        code="""
texts = np.array(["great movie", "boring plot", "loved the cast", "awful"])
labels = np.array([1, 0, 1, 0])
vectorize = keras.layers.TextVectorization(output_mode="tf_idf")
vectorize.adapt(texts)
model = keras.Sequential(
    [keras.Input((vectorize.vocabulary_size(),)), keras.layers.Dense(1, activation="sigmoid")]
)
model.compile("adam", "binary_crossentropy")
model.fit(vectorize(texts), labels, epochs=1, verbose=0)
model.predict(np.array(["what a great film"]), verbose=0)
""",
        expect="S11",
        must=("string",),
        must_not=("astype",),
        fix='model.predict(vectorize(["what a great film"])) or put the vectorizer in the model',
    ),
    # TypeError: Value passed to parameter 'indices' has DataType float32 not in list of allowed
    # values: uint8, int8, int32, int64
    Case(
        name="one_hot_of_labels_parsed_with_to_number",
        family="dtype_and_ops",
        code="""
lines = tf.constant(["0.2,1.5,2", "0.7,0.1,0", "0.3,0.9,1"])
def parse(line):
    fields = tf.strings.split(line, ",")
    values = tf.strings.to_number(fields)
    return values[:2], tf.one_hot(values[2], depth=3)
ds = tf.data.Dataset.from_tensor_slices(lines).map(parse)
""",
        expect="S11",
        must=("one_hot",),
        must_not=("float64",),
        fix="tf.one_hot(tf.cast(values[2], tf.int32), depth=3)",
    ),
    # InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values:
    # float, double, int32, uint8, ...
    Case(
        name="accuracy_as_reduce_mean_of_a_bool_tensor",
        family="dtype_and_ops",
        code="""
y_true = tf.constant([0, 1, 2, 1])
logits = tf.random.normal((4, 3))
correct = tf.equal(tf.argmax(logits, axis=-1, output_type=tf.int32), y_true)
accuracy = tf.reduce_mean(correct)
""",
        expect="S11",
        must=("bool", "cast"),
        must_not=("float64",),
        fix="tf.reduce_mean(tf.cast(correct, tf.float32))",
    ),
    # TypeError: Exception encountered when calling GaussianJitter.call().
    # Input 'y' of 'AddV2' Op has type float32 that does not match type float16 of argument 'x'.
    Case(
        name="noise_layer_adds_float32_noise_under_mixed_float16",
        family="dtype_and_ops",
        code="""
class GaussianJitter(keras.layers.Layer):
    def __init__(self, stddev, **kwargs):
        super().__init__(**kwargs)
        self.stddev = stddev
    def call(self, x, training=False):
        if training:
            x = x + tf.random.normal(tf.shape(x), stddev=self.stddev)
        return x
inputs = keras.Input((4,))
h = keras.layers.Dense(8, dtype="mixed_float16")(inputs)
h = GaussianJitter(0.1, dtype="mixed_float16")(h)
outputs = keras.layers.Dense(1, dtype="float32")(h)
model = keras.Model(inputs, outputs)
model.compile("adam", "mse")
model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
""",
        expect="S11",
        must=("float16",),
        must_not=("float64",),
        fix="tf.random.normal(tf.shape(x), stddev=..., dtype=x.dtype)",
    ),
    # UnimplementedError: ... Cast string to float is not supported [Op:Cast] name:
    Case(
        name="tf_cast_of_numeric_strings_to_float",
        family="dtype_and_ops",
        code="""
ages = tf.constant(["23", "41", "35"])
ages = tf.cast(ages, tf.float32)
""",
        expect="S11",
        must=("to_number",),
        must_not=("astype",),
        fix="tf.strings.to_number(ages, out_type=tf.float32)",
    ),
]
