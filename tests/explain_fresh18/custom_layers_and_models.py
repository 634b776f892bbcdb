"""Family ``custom_layers_and_models``: subclassed ``keras.layers.Layer`` and ``keras.Model`` against their contract.

APIs: ``keras.layers.Layer`` and ``keras.Model`` subclasses.  ``__init__`` must call
``super().__init__(**kwargs)`` before anything else (it sets ``name``, the tracking of
sublayers and weights); sublayers and weights are created once, in ``__init__`` or in
``build(input_shape)``, never in ``call`` (``call`` is traced into a ``tf.function`` by
``fit``, and a variable created on every trace is refused); ``build`` receives the full
input shape, batch axis first, so a kernel's input size is ``input_shape[-1]`` (not the
tuple itself, nor ``input_shape[1]`` for a rank-3 input); ``add_weight(shape, initializer,
dtype)`` creates a variable of the given dtype (the layer's ``compute_dtype``, float32, by
default), and raw TensorFlow ops do not cast; ``call(self, inputs, training=None,
mask=None)``: ``training`` and ``mask`` need a default, Keras passes them only when it has
them; a ``keras.Model`` whose ``call`` takes several tensors receives ``fit``'s ``x`` as ONE
argument (a list or dict); ``get_config`` must return every constructor argument (so that
``from_config``, ``clone_model`` and ``load_model`` can call ``__init__``); a nested
model keeps its own ``Input`` shape.

Evidence a diagnosis needs: the class and the method (``__init__``, ``build``, ``call``,
``get_config``) where the contract was broken, read from the user's class source and the
traceback (the missing ``super().__init__``, the layer constructed inside ``call``, the
``add_weight`` dtype against the input's dtype, the ``input_shape`` index used against the
input's rank, the parameters of ``call`` against what Keras passes, the keys of
``get_config`` against the parameters of ``__init__``), and for nested models the inner
model's input shape against the data.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # AttributeError: 'Scale' object has no attribute 'name'
    Case(
        name="f18_scale_layer_sets_attribute_before_super_init",
        family="custom_layers_and_models",
        code="""
class Scale(keras.layers.Layer):
    def __init__(self, factor):
        self.factor = factor
    def call(self, x):
        return x * self.factor

model = keras.Sequential([keras.Input((3,)), Scale(2.0), keras.layers.Dense(1)])
""",
        expect="S01",
        must=("super().__init__",),
        must_not=("compute_output_shape", "name="),
        fix="call super().__init__(**kwargs) first in __init__",
    ),
    # ValueError: Exception encountered when calling ProjectBlock.call().
    #   tf.function only supports singleton tf.Variables created on the first call. ...
    Case(
        name="f18_dense_sublayer_constructed_inside_call",
        family="custom_layers_and_models",
        code="""
class ProjectBlock(keras.layers.Layer):
    def call(self, x):
        h = keras.layers.Dense(4, activation="relu")(x)
        return h + 1.0

model = keras.Sequential([keras.Input((3,)), ProjectBlock(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(8, 3), np.random.rand(8, 1), epochs=1, verbose=0)
""",
        expect="T03",
        must=("__init__",),
        must_not=("run_eagerly",),
        fix="create self.dense = Dense(4) in __init__ and use it in call",
    ),
    # TypeError: Exception encountered when calling PreciseDense.call().
    #   Could not automatically infer the output shape / dtype of 'precise_dense' ... Error encountered:
    #   Input 'b' of 'MatMul' Op has type float64 that does not match type float32 of argument 'a'.
    Case(
        name="f18_add_weight_float64_kernel_with_tf_matmul",
        family="custom_layers_and_models",
        code="""
class PreciseDense(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                      initializer="glorot_uniform", dtype="float64")
    def call(self, x):
        return tf.matmul(x, self.kernel)

model = keras.Sequential([keras.Input((6,)), PreciseDense(4), keras.layers.Dense(1)])
""",
        expect="S11",
        must=("float64",),
        must_not=("compute_output_shape", "compute_output_spec"),
        fix='drop dtype="float64" from add_weight (or tf.cast(x, self.kernel.dtype))',
    ),
    # TypeError: Error when deserializing class 'Gate' using config={'name': 'gate', 'trainable': True, 'dtype': 'float32', 'rate': 0.1}.
    #   Exception encountered: Gate.__init__() missing 1 required positional argument: 'units'
    Case(
        name="f18_get_config_forgets_units_then_clone_model",
        family="custom_layers_and_models",
        code="""
class Gate(keras.layers.Layer):
    def __init__(self, units, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.rate = rate
        self.proj = keras.layers.Dense(units, activation="sigmoid")
    def call(self, x):
        return x * self.proj(x)
    def get_config(self):
        config = super().get_config()
        config.update({"rate": self.rate})
        return config

inp = keras.Input((8,))
model = keras.Model(inp, keras.layers.Dense(1)(Gate(8)(inp)))
twin = keras.models.clone_model(model)
""",
        expect="C05",
        must=("units", "get_config"),
        must_not=("register_keras_serializable",),
        fix='config.update({"units": self.units, "rate": self.rate})',
    ),
    # ValueError: Exception encountered when calling TokenDense.call().
    #   Could not automatically infer the output shape / dtype of 'token_dense' ... Error encountered:
    #   Dimensions must be equal, but are 8 and 10 for '{{node einsum/Einsum}} ...' with input shapes: [?,10,8], [10,4].
    Case(
        name="f18_token_dense_build_reads_input_shape_index_one",
        family="custom_layers_and_models",
        code="""
class TokenDense(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[1], self.units), initializer="glorot_uniform")
    def call(self, x):
        return tf.einsum("btd,du->btu", x, self.w)

model = keras.Sequential([keras.Input((10, 8)), TokenDense(4)])
""",
        expect="S01",
        must=("input_shape[-1]",),
        must_not=("compute_output_shape", "reshape"),
        fix="add_weight(shape=(input_shape[-1], self.units))",
    ),
    # TypeError: missing a required argument: 'training'
    Case(
        name="f18_noise_layer_call_training_without_default",
        family="custom_layers_and_models",
        code="""
class GaussianJitter(keras.layers.Layer):
    def call(self, x, training):
        if training:
            return x + tf.random.normal(tf.shape(x), stddev=0.1)
        return x

inp = keras.Input((5,))
h = GaussianJitter()(inp)
out = keras.layers.Dense(1)(h)
model = keras.Model(inp, out)
""",
        expect="S01",
        must=("training=none",),
        must_not=("build(",),
        fix="def call(self, x, training=None)",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    #   Input 0 with name 'None' of layer 'dense_...' is incompatible with the layer: expected axis -1 of
    #   input shape to have value 32, but received input with shape (None, 16)
    Case(
        name="f18_subclassed_classifier_wraps_backbone_built_for_32_features",
        family="custom_layers_and_models",
        code="""
backbone = keras.Sequential([keras.Input((32,)), keras.layers.Dense(16, activation="relu")], name="backbone")

class Classifier(keras.Model):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.head = keras.layers.Dense(3, activation="softmax")
    def call(self, x):
        return self.head(self.backbone(x))

clf = Classifier(backbone)
clf.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
clf.fit(np.random.rand(8, 16).astype("float32"), np.arange(8) % 3, epochs=1, verbose=0)
""",
        expect="S01",
        must=("backbone",),
        must_not=("flatten", "sparse"),
        fix="build the backbone for 16 features: keras.Input((16,))",
    ),
    # TypeError: missing a required argument: 'right'
    Case(
        name="f18_two_argument_call_of_model_fed_a_list",
        family="custom_layers_and_models",
        code="""
class PairScorer(keras.Model):
    def __init__(self):
        super().__init__()
        self.score = keras.layers.Dense(1)
    def call(self, left, right):
        return self.score(tf.concat([left, right], axis=-1))

scorer = PairScorer()
scorer.compile(optimizer="adam", loss="mse")
left = np.random.rand(8, 2).astype("float32")
right = np.random.rand(8, 2).astype("float32")
scorer.fit([left, right], np.random.rand(8, 1), epochs=1, verbose=0)
""",
        expect="S12",
        must=("inputs",),
        must_not=("concatenate",),
        fix="def call(self, inputs): left, right = inputs",
    ),
]
