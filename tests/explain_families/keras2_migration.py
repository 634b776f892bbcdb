"""Family: Keras 2 / tf.keras 2.x code run on Keras 3 (TensorFlow backend) that raises.

API: the places where Keras 3 stopped accepting what Keras 2 (TF 2.1 to 2.15) accepted:
``Layer.call`` no longer run through AutoGraph, TensorFlow ops on a ``KerasTensor`` while a
Functional model is built, ``Embedding(input_length=...)`` (ignored: it no longer builds
the model), ``load_model`` calling ``from_config`` with the layer's ``get_config()``
(Keras 2's SavedModel revived layers without it), ``Dataset.from_generator(output_types=...)``
elements of unknown rank, Python lists given to ``predict``/``fit``, an optimizer object built
outside ``strategy.scope()`` (Keras 2 created its slots lazily under the model's strategy),
``tf.Variable`` attributes of a layer (no longer tracked), ``model.save`` without an
extension, ``Layer.add_weight`` with the name as first positional argument.

Contract (Keras 3): control flow on tensors inside ``call`` uses ``tf.cond``/``keras.ops.cond``
(or an explicit ``@tf.function``); symbolic inputs go through ``keras.layers``/``keras.ops``;
a model whose shape is needed before ``fit`` starts with ``keras.Input``; ``get_config`` returns
every constructor argument; dataset elements have a known rank (``output_signature``);
data is a NumPy array, a tensor, a dict or a tuple, never a bare list; optimizers used
under a strategy are created inside its scope; weights are created with ``add_weight`` (or
``keras.Variable``); files are ``.keras``/``.h5`` (``model.export`` for a SavedModel);
``add_weight(shape=..., name=...)`` takes its arguments by keyword.

Evidence a diagnosis could read: the exception chain (``OperatorNotAllowedInGraphError``
raised from ``<Layer>.call()``, "KerasTensor cannot be used as input to a TensorFlow
function", "isn't built", the ``TypeError`` of ``__init__`` missing an argument inside the
deserialization error, "unknown rank", "Unrecognized data type ... list", "Mixing
different tf.distribute.Strategy objects"), the model's layers, whether the first is an
``InputLayer`` and which arguments it got (``input_length``, with its deprecation warning),
the layer's ``get_config()`` against its ``__init__`` signature, the dataset's
``element_spec``, the type of ``x``, the strategy under which the model's and the
optimizer's variables were created, the ``tf.Variable`` attributes of a layer that are
missing from ``trainable_variables``.

Written from the Keras 3 migration guide ("Migrating Keras 2 code to multi-backend
Keras 3"), the Keras and TensorFlow documentation and source, and user reports (GitHub
issues), before the rules for this family were read.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "keras2_migration"

CASES = [
    # Migration guide, "TF autograph": Keras 2 ran AutoGraph on Layer.call, Keras 3 does not.
    # OperatorNotAllowedInGraphError: Exception encountered when calling RandomFlipSign.call().
    # (key sentence: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed)
    Case(
        "python_if_on_tensor_in_layer_call",
        FAMILY,
        """
class RandomFlipSign(keras.layers.Layer):
    def call(self, inputs):
        if tf.random.uniform(()) > 0.5:
            return inputs * -1.0
        return inputs

model = keras.Sequential([keras.Input((4,)), RandomFlipSign(), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=1, verbose=0)
""",
        "T02",
        must=("tf.cond",),
        must_not=(".numpy()",),
        fix="tf.cond / keras.ops.cond in call, or decorate call with @tf.function",
    ),
    # Migration guide, "Calling TF ops with a KerasTensor"; keras-team/keras reports of
    # "A KerasTensor cannot be used as input to a TensorFlow function".
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. ...
    Case(
        "tf_expand_dims_on_functional_input",
        FAMILY,
        """
inputs = keras.Input((28, 28))
x = tf.expand_dims(inputs, -1)
x = keras.layers.Conv2D(8, 3, activation="relu")(x)
outputs = keras.layers.Dense(10, activation="softmax")(keras.layers.Flatten()(x))
model = keras.Model(inputs, outputs)
""",
        "T02",
        must=("keras.ops",),
        must_not=("run_eagerly",),
        fix="keras.ops.expand_dims (or a Reshape layer) instead of tf.expand_dims",
    ),
    # Keras 3 Embedding docs / source: `input_length` is deprecated and ignored ("Just remove
    # it"); in Keras 2 it gave the first layer its input shape, so the Sequential was built
    # at construction and count_params()/summary() worked before fit (the Keras 2 text
    # classification tutorials).
    # ValueError: You tried to call `count_params` on layer 'sequential', but the layer
    # isn't built. You can build it manually via: `layer.build(input_shape)`.
    Case(
        "embedding_input_length_no_longer_builds",
        FAMILY,
        """
maxlen = 20
model = keras.Sequential([
    keras.layers.Embedding(1000, 16, input_length=maxlen),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
print("parameters:", model.count_params())
""",
        "S04",
        must=("input_length",),
        must_not=("return_sequences",),
        fix="start the model with keras.Input(shape=(maxlen,)) and drop input_length",
    ),
    # keras-team/keras-core#469, keras-team/keras#20167: the .keras format rebuilds layers with
    # from_config(get_config()); Keras 2's SavedModel revived them without it, so a Keras 2
    # get_config that left out `units` never failed.
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized
    # properly. ...
    # (innermost: ScaledDense.__init__() missing 1 required positional argument: 'units')
    Case(
        "get_config_missing_units_on_reload",
        FAMILY,
        """
import os, tempfile

class ScaledDense(keras.layers.Layer):
    def __init__(self, units, scale=2.0, **kwargs):
        super().__init__(**kwargs)
        self.units, self.scale = units, scale
        self.dense = keras.layers.Dense(units)
    def call(self, x):
        return self.dense(x) * self.scale
    def get_config(self):
        config = super().get_config()
        config.update({"scale": self.scale})
        return config

model = keras.Sequential([keras.Input((4,)), ScaledDense(8), keras.layers.Dense(1)])
model.compile("adam", "mse")
path = os.path.join(tempfile.mkdtemp(), "model.keras")
model.save(path)
restored = keras.models.load_model(path, custom_objects={"ScaledDense": ScaledDense})
""",
        "C05",
        must=("units", "get_config"),
        must_not=("register_keras_serializable",),
        fix="add units to get_config()",
    ),
    # tensorflow/tensorflow#24520, #32912: from_generator with the old output_types= gives
    # elements of unknown rank; Keras 2's Dense took the tf.matmul path for rank None,
    # Keras 3's Functional call needs the rank.
    # ValueError: Exception encountered when calling Sequential.call().
    # (key sentence: Cannot take the length of shape with unknown rank.)
    Case(
        "from_generator_output_types_unknown_rank",
        FAMILY,
        """
def gen():
    for _ in range(64):
        yield np.random.rand(4).astype("float32"), np.random.rand(1).astype("float32")

ds = tf.data.Dataset.from_generator(gen, output_types=(tf.float32, tf.float32)).batch(16)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(ds, epochs=1, verbose=0)
""",
        "S10",
        must=("output_signature",),
        must_not=("batch the dataset",),
        fix="from_generator(..., output_signature=(tf.TensorSpec((4,)), tf.TensorSpec((1,))))",
    ),
    # tensorflow/examples#506 (l02c01_celsius_to_fahrenheit),
    # mrdbourke/tensorflow-deep-learning#675,
    # ageron/handson-ml3#155: Keras 2 converted a list of scalars to an array, Keras 3 does not.
    # ValueError: Unrecognized data type: x=[10.0] (of type <class 'list'>)
    Case(
        "predict_python_list_hello_world",
        FAMILY,
        """
xs = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0], dtype=float)
ys = np.array([-3.0, -1.0, 1.0, 3.0, 5.0, 7.0], dtype=float)
model = tf.keras.Sequential([tf.keras.layers.Dense(units=1, input_shape=[1])])
model.compile(optimizer="sgd", loss="mean_squared_error")
model.fit(xs, ys, epochs=5, verbose=0)
print(model.predict([10.0]))
""",
        "S12",
        must=("list", "array"),
        must_not=("a dict",),  # "dict" alone matched the quoted `model.predict`,
        fix="model.predict(np.array([10.0]))",
    ),
    # keras-team/keras#17187, GoogleCloudPlatform/practical-ml-vision-book#19: since TF 2.1
    # Keras 2 allowed compile() with an optimizer built outside the scope; Keras 3's optimizer
    # creates its variables when it is constructed.
    # RuntimeError: Mixing different tf.distribute.Strategy objects: <...MirroredStrategy ...>
    # is not <..._DefaultDistributionStrategy ...>
    Case(
        "optimizer_built_outside_strategy_scope",
        FAMILY,
        """
strategy = tf.distribute.MirroredStrategy()
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss="mse")
model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=1, verbose=0)
""",
        "D05",
        must=("optimizer", "scope"),
        must_not=("multiworker",),
        fix="create the optimizer (and compile) inside strategy.scope()",
    ),
    # Migration guide, "TensorFlow variables tracking": a tf.Variable set on a Keras 3 layer is
    # not tracked, so model.trainable_variables is empty and the Keras 2 loop has nothing to apply.
    # ValueError: not enough values to unpack (expected 2, got 0)
    Case(
        "tf_variable_weights_untracked_custom_loop",
        FAMILY,
        """
class Affine(keras.layers.Layer):
    def build(self, input_shape):
        self.w = tf.Variable(tf.ones([input_shape[-1]]))
        self.b = tf.Variable(tf.zeros([input_shape[-1]]))
    def call(self, x):
        return x * self.w + self.b

model = keras.Sequential([keras.Input((4,)), Affine()])
opt = keras.optimizers.Adam(1e-2)
x, y = tf.random.normal((16, 4)), tf.random.normal((16, 4))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - y) ** 2)
grads = tape.gradient(loss, model.trainable_variables)
opt.apply_gradients(zip(grads, model.trainable_variables))
""",
        "G04",
        must=("add_weight",),
        must_not=("argmax", "persistent"),
        fix="self.add_weight(...) (or keras.Variable) instead of tf.Variable",
    ),
    # Migration guide, "Saving a model in the TF SavedModel format".
    # ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension ...
    Case(
        "model_save_savedmodel_dir_name",
        FAMILY,
        """
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
model.save("my_model")
""",
        None,
        unexplained="Keras' message names the fix: a `.keras` (or `.h5`) extension, or "
        "`model.export(filepath)` for a SavedModel.",
        fix='model.save("my_model.keras") or model.export("my_model")',
    ),
    # keras-team/keras#22253 / #22265 (and the Keras 2 custom-layer tutorials that call
    # add_weight("kernel", shape=...)): Keras 3's first parameter is shape, not name.
    # ValueError: `name` must be passed as a keyword argument. Received:
    # add_weight('kernel', ...). Use: add_weight(shape=..., name='kernel').
    Case(
        "add_weight_name_as_first_positional",
        FAMILY,
        """
class Linear(keras.layers.Layer):
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.w = self.add_weight("kernel", shape=(input_shape[-1], self.units),
                                 initializer="glorot_uniform")
        self.b = self.add_weight("bias", shape=(self.units,), initializer="zeros")
    def call(self, x):
        return tf.matmul(x, self.w) + self.b

model = keras.Sequential([keras.Input((3,)), Linear(4), keras.layers.Dense(1)])
""",
        None,
        unexplained="Keras' message names the fix: add_weight(shape=..., name='kernel').",
        fix='self.add_weight(name="kernel", shape=...)',
    ),
]
