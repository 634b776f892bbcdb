"""Family: writing a custom Keras 3 layer (``keras.layers.Layer`` subclass).

API: ``__init__(self, ..., **kwargs)`` keeps the constructor's config and calls
``super().__init__(**kwargs)`` (so ``name``/``trainable``/``dtype`` from a saved config
reach the base class); ``build(self, input_shape)`` is called once, on the first call,
with the input's shape including the batch axis (``(None, features)``, or
``(None, steps, features)``; a list of shapes when the layer is called on a list of
tensors) and creates the weights with ``self.add_weight(shape=..., initializer=...,
trainable=...)``, sized from ``input_shape[-1]``: a kernel for ``inputs @ w`` is
``(input_shape[-1], units)``, and a weight's shape must be fully defined (no ``None``);
``call(self, inputs, training=None, mask=None)`` computes the output from the weights and
creates no state (no ``add_weight``, no ``tf.Variable``, no sublayer: those belong in
``__init__`` or ``build``); ``compute_output_shape(input_shape)``, when overridden, is
what Keras uses for the symbolic output, so later layers are built from it and it must
describe what ``call`` really returns; ``get_config`` returns the constructor's
arguments so ``load_model`` can call ``cls(**config)``; a layer has no input and no
weights until it is built (``self.built``), so ``set_weights`` or ``self.input`` before
the first call find nothing.  Evidence a diagnosis could read at the failure: the
layer's class and its source (``__init__``/``build``/``call``/``compute_output_shape``,
the line that raised), the ``input_shape`` its ``build`` received (rank, batch axis,
list of shapes), the weights it created and their shapes, the shape the next layer was
built for against the shape it got, whether the failure is inside a ``tf.function``
(``fit`` or the user's own step), and, for a load, the saved config against the
constructor's signature.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read. Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "layer_build"

CASES = [
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    # dimensions). Received: shape=(None, 8) for variable path='sequential/gate/g'
    # (the whole input_shape, batch axis included, passed as the weight's shape)
    Case(
        "lb_add_weight_whole_input_shape",
        FAMILY,
        """
class FeatureGate(keras.layers.Layer):
    def build(self, input_shape):
        self.g = self.add_weight(shape=input_shape, initializer="ones", name="g")
    def call(self, inputs):
        return inputs * tf.sigmoid(self.g)
model = keras.Sequential([keras.Input((8,)), FeatureGate(name="gate"), keras.layers.Dense(1)])
""",
        "S01",
        must=("gate", "input_shape[-1]"),
        must_not=("batch_size=", "batch the dataset"),
        fix="add_weight(shape=(input_shape[-1],))",
    ),
    # ValueError: Exception encountered when calling TimeDenseLayer.call().
    # Could not automatically infer the output shape / dtype of 'time_dense' ... Dimensions
    # must be equal, but are 6 and 20 ... with input shapes: [?,20,6], [20,16].
    # (old tutorial's input_shape[1] is the time axis on a rank-3 input)
    Case(
        "lb_kernel_sized_from_time_axis",
        FAMILY,
        """
class TimeDenseLayer(keras.layers.Layer):
    def __init__(self, output_dim, **kwargs):
        self.output_dim = output_dim
        super().__init__(**kwargs)
    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[1], self.output_dim),
                                      initializer="uniform", trainable=True)
    def call(self, x):
        return tf.matmul(x, self.kernel)
sensor_seq = keras.Input((20, 6))
h = TimeDenseLayer(16, name="time_dense")(sensor_seq)
""",
        "S01",
        must=("time_dense", "input_shape[-1]"),
        must_not=("return_sequences", "flatten"),
        fix="size the kernel from input_shape[-1]",
    ),
    # ValueError: Exception encountered when calling Project.call().
    # Could not automatically infer the output shape / dtype of 'project' ... Dimensions must
    # be equal, but are 12 and 4 for '{{node add}} = AddV2 ...' with input shapes: [12,12], [4].
    # (kernel multiplied from the left: tf.matmul(self.w, inputs))
    Case(
        "lb_matmul_kernel_on_the_left",
        FAMILY,
        """
class Project(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform", name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")
    def call(self, inputs):
        return tf.matmul(self.w, inputs) + self.b
model = keras.Sequential([keras.Input((12,)), Project(4, name="project"), keras.layers.Dense(1)])
""",
        "S01",
        must=("project", "matmul"),
        must_not=("flatten", "batch the dataset"),
        fix="tf.matmul(inputs, self.w)",
    ),
    # AttributeError: The layer channel_gate has never been called and thus has no defined input.
    # (the feature size read from self.input in __init__, before any input exists)
    Case(
        "lb_init_reads_input_before_call",
        FAMILY,
        """
class ChannelGate(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        n_features = self.input.shape[-1]
        self.gate = self.add_weight(shape=(n_features,), initializer="ones", name="gate")
    def call(self, inputs):
        return inputs * self.gate
model = keras.Sequential([keras.Input((8,)), ChannelGate(name="channel_gate"), keras.layers.Dense(1)])
""",
        "S01",
        must=("channel_gate", "build"),
        must_not=("input_shape=", "batch the dataset"),
        fix="create the weight in build(input_shape)",
    ),
    # ValueError: Exception encountered when calling Noise.call().
    # You cannot add new elements of state (variables or sub-layers) to a layer that is
    # already built. All state must be created in the `__init__()` method or in the
    # `build()` method.
    # (add_weight inside call, called from the user's tf.function step)
    Case(
        "lb_add_weight_inside_call",
        FAMILY,
        """
class LearnedNoise(keras.layers.Layer):
    def call(self, x):
        self.eps = self.add_weight(shape=(x.shape[-1],), initializer="zeros", name="eps")
        return x + self.eps
noise = LearnedNoise(name="noise")
@tf.function
def forward(x):
    return noise(x)
forward(tf.ones((4, 3)))
""",
        None,
        unexplained="Keras says state must be created in __init__() or build(), the fix",
        fix="create eps in build(input_shape)",
    ),
    # ValueError: Exception encountered when calling Head.call().
    # tf.function only supports singleton tf.Variables created on the first call. Make sure
    # the tf.Variable is only created once or created outside tf.function.
    # (a Dense sublayer constructed inside call, so fit's traced step makes new variables)
    Case(
        "lb_dense_sublayer_created_in_call",
        FAMILY,
        """
class RegressionHead(keras.layers.Layer):
    def call(self, x):
        h = keras.layers.Dense(8, activation="relu")(x)
        return keras.layers.Dense(1)(h)
model = keras.Sequential([keras.Input((4,)), RegressionHead(name="head")])
model.compile("adam", "mse")
model.fit(np.random.rand(16, 4).astype("float32"), np.random.rand(16, 1).astype("float32"), epochs=1, verbose=0)
""",
        "T03",
        must=("head", "dense"),
        must_not=("run_eagerly", "persistent"),
        fix="create the Dense layers in __init__",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Input 0 with name 'None' of layer 'out' is incompatible with the layer: expected axis
    # -1 of input shape to have value 4, but received input with shape (32, 8)
    # (compute_output_shape returns the input shape although call doubles the features)
    Case(
        "lb_compute_output_shape_stale_width",
        FAMILY,
        """
class PolyFeatures(keras.layers.Layer):
    def call(self, x):
        return tf.concat([x, x ** 2], axis=-1)
    def compute_output_shape(self, input_shape):
        return input_shape
model = keras.Sequential([keras.Input((4,)), PolyFeatures(name="poly"), keras.layers.Dense(1, name="out")])
model.compile("adam", "mse")
model.fit(np.random.rand(32, 4).astype("float32"), np.random.rand(32, 1).astype("float32"), epochs=1, verbose=0)
""",
        "S01",
        must=("poly", "compute_output_shape"),
        must_not=("input((8", "batch the dataset"),
        fix="return input_shape[:-1] + (2 * input_shape[-1],)",
    ),
    # ValueError: too many values to unpack (expected 2)
    # (a two-input layer, whose build unpacks a list of shapes, called on one tensor)
    Case(
        "lb_pair_layer_called_on_one_tensor",
        FAMILY,
        """
class CrossAttention(keras.layers.Layer):
    def build(self, input_shape):
        q_shape, kv_shape = input_shape
        self.wq = self.add_weight(shape=(q_shape[-1], 8), name="wq")
        self.wk = self.add_weight(shape=(kv_shape[-1], 8), name="wk")
    def call(self, inputs):
        q, kv = inputs
        scores = tf.matmul(q @ self.wq, kv @ self.wk, transpose_b=True)
        return tf.nn.softmax(scores) @ kv
tokens = keras.Input((10, 16))
context = keras.Input((5, 16))
out = CrossAttention(name="cross_attn")(tokens)
""",
        "S12",
        must=("cross_attn", "context"),
        must_not=("flatten", "expand_dims"),
        fix="call it on [tokens, context]",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized
    # properly. ... Exception encountered: Scale.__init__() got an unexpected keyword
    # argument 'name'
    # (the constructor takes no **kwargs, so the saved name/trainable/dtype cannot be passed)
    Case(
        "lb_init_without_kwargs_reload",
        FAMILY,
        """
import os
import tempfile
@keras.saving.register_keras_serializable()
class Scale(keras.layers.Layer):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor
    def call(self, x):
        return x * self.factor
    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor})
        return config
model = keras.Sequential([keras.Input((3,)), Scale(2.0), keras.layers.Dense(1)])
path = os.path.join(tempfile.mkdtemp(), "scaled.keras")
model.save(path)
restored = keras.models.load_model(path)
""",
        "C05",
        must=("scale", "kwargs"),
        must_not=("custom_objects",),
        fix="__init__(self, factor, **kwargs); super().__init__(**kwargs)",
    ),
    # ValueError: You called `set_weights(weights)` on layer 'affine' with a weight list of
    # length 2, but the layer was expecting 0 weights.
    # (pretrained arrays loaded into a layer that was never built)
    Case(
        "lb_set_weights_before_build",
        FAMILY,
        """
class Affine(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")
    def call(self, x):
        return x @ self.w + self.b
w_pre = np.random.rand(5, 3).astype("float32")
b_pre = np.zeros(3, "float32")
affine = Affine(3, name="affine")
affine.set_weights([w_pre, b_pre])
""",
        "S04",
        must=("affine", "build"),
        must_not=("transpose",),
        fix="affine.build((None, 5)) before set_weights",
    ),
]
