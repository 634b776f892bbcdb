"""Family ``subclassed_models``: ``keras.Layer`` and ``keras.Model`` subclasses written against their contract.

APIs: ``keras.Layer`` / ``keras.Model`` subclassing (``super().__init__(**kwargs)`` first in
``__init__``; state, the layer's weights, created once in ``__init__`` or in
``build(input_shape)`` with ``self.add_weight``, which uses the layer's dtype policy, never
in ``call``, which runs inside ``tf.function`` during ``fit``; ``call(inputs, training=None,
mask=None)`` where only input tensors may be positional: ``training`` is passed by
keyword, also to sublayers such as ``LSTM``, whose second positional parameter is
``initial_state``), symbolic tracing (a Functional model calls the layer on a
``KerasTensor`` whose batch size is ``None``: code needing the batch size reads
``tf.shape(x)[0]`` / ``keras.ops.shape(x)[0]``; a ``compute_output_shape`` the layer
defines is trusted for the shape of its output), and serialization
(``@keras.saving.register_keras_serializable()`` is a decorator *factory*, called with
parentheses; ``get_config`` returns a dict whose keys are the constructor's arguments, and
``from_config(config)`` calls ``cls(**config)`` with the keys that were saved).

Evidence a diagnosis needs: the subclass and method the error came from (``__init__``,
``build``, ``call``, ``compute_output_shape``, ``get_config``), what that method did against
the contract (a ``tf.Variable`` made from a float64 NumPy array, a variable created in
``call``, the batch axis read from the static shape, a declared output shape that
differs from what ``call`` returns, a boolean passed positionally), and for loading, the
keys of the saved config against the parameters of the class's ``__init__`` now.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # TypeError: Exception encountered when calling RandomFeatures.call().
    # Could not automatically infer the output shape / dtype of 'random_features' ...
    # Input 'b' of 'MatMul' Op has type float64 that does not match type float32 of argument 'a'.
    Case(
        name="layer_weights_built_as_tf_variables_from_float64_numpy",
        family="subclassed_models",
        code="""
class RandomFeatures(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
    def build(self, input_shape):
        self.w = tf.Variable(np.random.normal(size=(input_shape[-1], self.units)), trainable=True)
        self.b = tf.Variable(np.zeros(self.units), trainable=True)
    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b
inputs = keras.Input((5,))
outputs = keras.layers.Dense(1)(RandomFeatures(8)(inputs))
""",
        expect="S11",
        must=("float64",),
        must_not=("set_floatx",),
        fix="self.add_weight(shape=..., initializer='random_normal') (float32)",
    ),
    # ValueError: Exception encountered when calling LearnedScale.call().
    # tf.function only supports singleton tf.Variables created on the first call. ...
    Case(
        name="layer_creates_its_scale_variable_in_call",
        family="subclassed_models",
        code="""
class LearnedScale(keras.layers.Layer):
    def call(self, inputs):
        self.scale = tf.Variable(1.0, trainable=True)
        return inputs * self.scale
inputs = keras.Input((4,))
outputs = keras.layers.Dense(1)(LearnedScale()(inputs))
model = keras.Model(inputs, outputs)
model.compile("adam", "mse")
model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
""",
        expect="T03",
        must=("build",),
        must_not=("persistent",),
        fix="self.scale = self.add_weight(shape=(), initializer='ones') in build",
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized
    # properly. ... Exception encountered: <class 'Smooth'> could not be deserialized properly. ...
    Case(
        name="layer_reloaded_after_its_constructor_argument_was_renamed",
        family="subclassed_models",
        code="""
import os
import tempfile
path = os.path.join(tempfile.mkdtemp(), "smooth.keras")

@keras.saving.register_keras_serializable(package="fresh7")
class Smooth(keras.layers.Layer):
    def __init__(self, alpha=0.1, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
    def call(self, x):
        return x * (1 - self.alpha)
    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}
inputs = keras.Input((3,))
keras.Model(inputs, Smooth(0.2)(inputs)).save(path)

# a later cell: the argument is renamed and the class re-registered
@keras.saving.register_keras_serializable(package="fresh7")
class Smooth(keras.layers.Layer):
    def __init__(self, smoothing=0.1, **kwargs):
        super().__init__(**kwargs)
        self.smoothing = smoothing
    def call(self, x):
        return x * (1 - self.smoothing)
    def get_config(self):
        return {**super().get_config(), "smoothing": self.smoothing}
model = keras.models.load_model(path)
""",
        expect="C05",
        must=("alpha",),
        must_not=("register_keras_serializable", "custom_objects"),
        fix="accept alpha in __init__ (or a from_config that maps alpha to smoothing)",
    ),
    # AttributeError: 'float' object has no attribute '__name__'
    Case(
        name="register_keras_serializable_used_without_parentheses",
        family="subclassed_models",
        code="""
@keras.saving.register_keras_serializable
class Scale(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
    def call(self, x):
        return x * self.factor
    def get_config(self):
        return {**super().get_config(), "factor": self.factor}
inputs = keras.Input((3,))
model = keras.Model(inputs, Scale(0.5)(inputs))
""",
        expect="C05",
        must=("register_keras_serializable()",),
        must_not=("custom_objects",),
        fix="@keras.saving.register_keras_serializable()",
    ),
    # ValueError: Exception encountered when calling Functional.call().
    # Input 0 with name 'None' of layer 'dense...' is incompatible with the layer: expected
    # axis -1 of input shape to have value 4, but received input with shape (None, 8)
    Case(
        name="compute_output_shape_ignores_the_doubled_features",
        family="subclassed_models",
        code="""
class Doubler(keras.layers.Layer):
    def call(self, x):
        return tf.concat([x, x], axis=-1)
    def compute_output_shape(self, input_shape):
        return input_shape
inputs = keras.Input((4,))
h = Doubler()(inputs)
outputs = keras.layers.Dense(1)(h)
model = keras.Model(inputs, outputs)
model.compile("adam", "mse")
model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
""",
        expect="S01",
        must=("compute_output_shape",),
        must_not=("reshape",),
        fix="return (*input_shape[:-1], 2 * input_shape[-1])",
    ),
    # TypeError: Exception encountered when calling AddState.call().
    # Could not automatically infer the output shape / dtype of 'add_state' ...
    # Expected int32, but got None of type 'NoneType'.
    Case(
        name="layer_call_builds_zeros_from_the_static_batch_dimension",
        family="subclassed_models",
        code="""
class AddState(keras.layers.Layer):
    def call(self, x):
        state = tf.zeros((x.shape[0], 8))
        return tf.concat([x, state], axis=-1)
inputs = keras.Input((4,))
h = AddState()(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(h))
""",
        expect="S01",
        must=("shape(",),
        must_not=("compute_output_shape",),
        fix="tf.zeros((tf.shape(x)[0], 8))",
    ),
    # RuntimeError: In layer 'Block', you forgot to call `super().__init__()` as the first
    # statement in the `__init__()` method. Go add it!
    Case(
        name="layer_init_without_super_init",
        family="subclassed_models",
        code="""
class Block(keras.layers.Layer):
    def __init__(self, units):
        self.units = units
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units))
    def call(self, x):
        return tf.matmul(x, self.w)
block = Block(4)
block(np.zeros((2, 3), "float32"))
""",
        expect=None,
        unexplained="the message says super().__init__() is missing from Block.__init__",
        fix="super().__init__(**kwargs) first in __init__",
    ),
    # ValueError: Exception encountered when calling Encoder.call().
    # Only input tensors may be passed as positional arguments. The following argument value
    # should be passed as a keyword argument: True (of type <class 'bool'>)
    Case(
        name="training_flag_passed_positionally_to_an_lstm",
        family="subclassed_models",
        code="""
class Encoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.lstm = keras.layers.LSTM(8)
        self.out = keras.layers.Dense(1)
    def call(self, x, training=False):
        h = self.lstm(x, training)
        return self.out(h)
enc = Encoder()
enc(np.random.rand(2, 5, 3).astype("float32"), training=True)
""",
        expect=None,
        unexplained="the message says the boolean must be passed as a keyword argument",
        fix="self.lstm(x, training=training)",
    ),
]
