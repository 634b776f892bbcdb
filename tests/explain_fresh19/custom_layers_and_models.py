"""Family ``custom_layers_and_models``: subclassed ``keras.layers.Layer`` and ``keras.Model`` against their contracts.

APIs and contract (Keras 3 "Making new layers and models via subclassing"): ``__init__``
must call ``super().__init__(**kwargs)`` before anything is assigned to ``self`` and
creates the sublayers (a layer created inside ``call`` makes new variables on every
traced call, which ``tf.function`` refuses); ``build(input_shape)`` receives the full
shape tuple including the batch axis ``None``, so weights take their size from
``input_shape[-1]``; ``add_weight(shape=..., initializer=..., trainable=...)`` takes a
shape tuple; ``call(inputs, training=None, mask=None)`` runs on symbolic tensors in a
functional model and in ``fit`` (the batch size is ``None`` there: dynamic sizes come from
``ops.shape``/``tf.shape``), and must return a tensor (or the structure the next layer
expects); ``get_config`` must return every constructor argument so that ``from_config``
(used by ``clone_model`` and ``load_model``) can rebuild the object; a subclassed model
has no weights until it is built (called on data or ``build(input_shape)``).

Evidence a diagnosis needs: the user's class and method that raised (``build``, ``call``,
``__init__``, ``from_config``), the shapes it received (the full ``input_shape`` tuple
against the size of a weight, a ``None`` batch axis), which constructor argument
``get_config`` left out, and what ``call`` returned to the next layer.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Cannot convert '((None, 6), 4)' to a shape. Found invalid dimension '(None, 6)' of type '<class 'tuple'>'.
    Case(
        name="f19_add_weight_shape_from_the_whole_input_shape_tuple",
        family="custom_layers_and_models",
        code="""
class Scale(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape, self.units), initializer="glorot_uniform")

    def call(self, inputs):
        return keras.ops.matmul(inputs, self.kernel)

model = keras.Sequential([keras.Input(shape=(6,)), Scale(4), keras.layers.Dense(1)])
""",
        expect="S01",
        must=("input_shape[-1]",),
        must_not=("batch size", "flatten"),
        fix="shape=(input_shape[-1], self.units)",
    ),
    # RuntimeError: In layer 'Gate', you forgot to call `super().__init__()` as the first statement in the `__init__()` method. Go add it!
    Case(
        name="f19_layer_subclass_without_super_init",
        family="custom_layers_and_models",
        code="""
class Gate(keras.layers.Layer):
    def __init__(self, units):
        self.units = units
        self.proj = keras.layers.Dense(units, activation="sigmoid")

    def call(self, inputs):
        return inputs[..., : self.units] * self.proj(inputs)

gate = Gate(4)
scores = gate(np.random.rand(2, 8).astype("float32"))
""",
        expect=None,
        must=("super",),
        must_not=("build",),
        unexplained="Keras's message says that super().__init__() was not called in the layer's constructor",
        fix="call super().__init__() first in __init__",
    ),
    # ValueError: Exception encountered when calling Regressor.call().
    #   tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is only created once or created outside tf.funct
    Case(
        name="f19_dense_sublayer_created_inside_model_call",
        family="custom_layers_and_models",
        code="""
class Regressor(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(16, activation="relu")

    def call(self, x):
        h = self.hidden(x)
        return keras.layers.Dense(1)(h)

model = Regressor()
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(16, 5).astype("float32"), np.random.rand(16, 1).astype("float32"),
          epochs=1, verbose=0)
""",
        expect="T03",
        must=("__init__",),
        must_not=("run_eagerly", "input_shape"),
        fix="create the output Dense(1) in __init__ and call it in call",
    ),
    # TypeError: Error when deserializing class 'NoisyDrop' using config={'name': 'noisy_drop', 'trainable': True, 'dtype': 'float32'}.
    Case(
        name="f19_clone_model_with_get_config_missing_the_rate_argument",
        family="custom_layers_and_models",
        code="""
class NoisyDrop(keras.layers.Layer):
    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate

    def call(self, inputs, training=False):
        if training:
            return keras.random.dropout(inputs, self.rate)
        return inputs

    def get_config(self):
        return super().get_config()

inputs = keras.Input(shape=(8,))
outputs = keras.layers.Dense(2)(NoisyDrop(0.3)(inputs))
model = keras.Model(inputs, outputs)
twin = keras.models.clone_model(model)
""",
        expect="C05",
        must=("rate",),
        must_not=("register_keras_serializable",),
        fix='get_config: config.update({"rate": self.rate})',
    ),
    # TypeError: Exception encountered when calling AppendBias.call().
    #   Could not automatically infer the output shape / dtype of 'append_bias' (of type AppendBias). Either the `AppendBias.call()` method is incorrect, or y
    Case(
        name="f19_static_batch_dimension_read_in_call_of_functional_layer",
        family="custom_layers_and_models",
        code="""
class AppendBias(keras.layers.Layer):
    def call(self, inputs):
        ones = tf.ones((inputs.shape[0], 1))
        return tf.concat([inputs, ones], axis=-1)

inputs = keras.Input(shape=(5,))
x = AppendBias()(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(x))
""",
        expect="T02",
        must=("tf.shape",),
        must_not=("batch_size=", "reshape"),
        fix="tf.ones((tf.shape(inputs)[0], 1)) (or keras.ops.shape)",
    ),
    # ValueError: Exception encountered when calling Projection.call().
    #   Could not automatically infer the output shape / dtype of 'projection' (of type Projection). Either the `Projection.call()` method is incorrect, or yo
    Case(
        name="f19_kernel_sized_in_init_for_a_different_feature_count",
        family="custom_layers_and_models",
        code="""
class Projection(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.w = self.add_weight(shape=(32, units), initializer="random_normal")

    def call(self, inputs):
        return tf.matmul(inputs, self.w)

x = np.random.rand(10, 20).astype("float32")
model = keras.Sequential([keras.Input(shape=(20,)), Projection(8), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, np.random.rand(10, 1), epochs=1, verbose=0)
""",
        expect="S01",
        must=("build",),
        must_not=("batch axis", "flatten"),
        fix="create the weight in build(input_shape) with shape (input_shape[-1], units)",
    ),
    # ValueError: You tried to call `count_params` on layer 'two_tower', but the layer isn't built. You can build it manually via: `layer.build(input_shape)`.
    Case(
        name="f19_count_params_of_a_subclassed_model_never_built",
        family="custom_layers_and_models",
        code="""
class TwoTower(keras.Model):
    def __init__(self):
        super().__init__()
        self.user = keras.layers.Dense(8)
        self.item = keras.layers.Dense(8)

    def call(self, inputs):
        u, i = inputs
        return keras.ops.sum(self.user(u) * self.item(i), axis=-1)

model = TwoTower()
print("parameters:", model.count_params())
""",
        expect="S04",
        must=("build",),
        must_not=("input_shape[-1]", "super().__init__"),
        fix="call the model on a batch (or model.build) before count_params",
    ),
    # ValueError: Layer "dense_17" expects 1 input(s), but it received 2 input tensors. Inputs received: [<KerasTensor shape=(None, 6), dtype=float32, sparse=False, rag
    Case(
        name="f19_layer_call_returns_a_tuple_to_the_next_dense",
        family="custom_layers_and_models",
        code="""
class SplitHeads(keras.layers.Layer):
    def call(self, inputs):
        half = inputs.shape[-1] // 2
        return inputs[:, :half], inputs[:, half:]

inputs = keras.Input(shape=(12,))
x = SplitHeads()(inputs)
outputs = keras.layers.Dense(3, activation="softmax")(x)
model = keras.Model(inputs, outputs)
""",
        expect="S01",
        must=("splitheads",),
        must_not=("reshape", "batch axis"),
        fix="unpack the two halves (a, b = SplitHeads()(inputs)) or return one tensor",
    ),
]
