"""Family: building a Functional model, a Sequential stack, or a custom layer/model.

The documented contracts (Keras "Making new layers and models via
subclassing", "The Functional API"): a layer creates its weights in
``build(input_shape)``, from the shape it is first called on, not in
``__init__`` from a guess; a layer's ``call`` runs symbolically on
KerasTensors when a Functional model is built, so Python control flow on a
tensor value and NumPy functions fail (use ``keras.ops``/``tf.where``/
``tf.cond``); sublayers are created once in ``__init__``, never in ``call``
(under ``fit``'s ``tf.function`` a variable created on every call is refused);
a layer instance owns one set of weights, so reusing it in a Sequential stack
needs equal input widths; a subclassed model's ``call`` receives ONE
``inputs`` argument (a list/dict for several); ``count_params``/``.output``
need a built model (``keras.Input`` first, or a call on data); ``call`` must
return its output; an ``LSTM(return_state=True)`` returns ``[output, h, c]``.

The evidence a diagnosis needs: which layer (by name) or which model, what its
``call``/``build`` did with the tensor it got, and the shape or structure it
received against the one it assumed.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError in Projection.call: MatMul [?,20] x [8,8] (weights made in __init__ as (units, units))
    Case(
        name="custom_layer_weights_created_in_init_from_units",
        family="graph",
        code="""
        class Projection(keras.layers.Layer):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units
                self.w = self.add_weight(shape=(units, units), initializer="glorot_uniform", name="w")

            def call(self, x):
                return tf.matmul(x, self.w)

        inputs = keras.Input((20,))
        out = Projection(8, name="projection")(inputs)
        """,
        expect="S01",
        must=("projection", "build"),
        must_not=("batch the dataset", "reshape the data", "flatten"),
        fix="create w in build(input_shape) with shape (input_shape[-1], units)",
    ),
    # ValueError: too many values to unpack (expected 2)
    Case(
        name="lstm_return_state_unpacked_into_two",
        family="graph",
        code="""
        inputs = keras.Input((10, 3))
        outputs, state = keras.layers.LSTM(8, return_state=True, name="encoder")(inputs)
        """,
        expect="S12",
        must=("encoder",),
        must_not=("return_sequences", "gru"),
        fix="outputs, state_h, state_c = LSTM(..., return_state=True)(inputs)",
    ),
    # OperatorNotAllowedInGraphError in Gate.call: using a symbolic tf.Tensor as a Python bool
    Case(
        name="custom_layer_python_if_on_the_batch_mean",
        family="graph",
        code="""
        class Gate(keras.layers.Layer):
            def call(self, x):
                if tf.reduce_mean(x) > 0:
                    return x
                return -x

        inputs = keras.Input((4,))
        out = Gate(name="gate")(inputs)
        """,
        expect="T02",
        must=("gate",),
        must_not=("run_eagerly", ".numpy()"),
        fix="return tf.where(tf.reduce_mean(x) > 0, x, -x) (or tf.cond / keras.ops.cond)",
    ),
    # NotImplementedError in Center.call: Cannot convert a symbolic tf.Tensor to a numpy array
    Case(
        name="custom_layer_calls_numpy_on_its_input",
        family="graph",
        code="""
        class Center(keras.layers.Layer):
            def call(self, x):
                return x - np.mean(x, axis=-1, keepdims=True)

        inputs = keras.Input((4,))
        out = Center(name="center")(inputs)
        """,
        expect="T02",
        must=("center", "ops"),
        must_not=("run_eagerly", "compute_output_shape"),
        fix="keras.ops.mean(x, axis=-1, keepdims=True) (or tf.reduce_mean)",
    ),
    # ValueError in Head.call: tf.function only supports singleton tf.Variables created on the first call
    Case(
        name="subclassed_model_creates_dense_layers_in_call",
        family="graph",
        code="""
        class Head(keras.Model):
            def call(self, x):
                h = keras.layers.Dense(8, activation="relu")(x)
                return keras.layers.Dense(1)(h)

        model = Head()
        model.compile("adam", "mse")
        x = np.random.rand(32, 4).astype("float32")
        model.fit(x, x[:, :1], epochs=1, verbose=0)
        """,
        expect="T03",
        must=("__init__",),
        must_not=("run_eagerly", "persistent"),
        fix="create the Dense layers once in __init__ and only call them in call",
    ),
    # ValueError: Input 0 of layer 'block' incompatible: expected axis -1 ... value 4, got (None, 8)
    Case(
        name="one_dense_instance_listed_twice_in_sequential",
        family="graph",
        code="""
        block = keras.layers.Dense(8, activation="relu", name="block")
        model = keras.Sequential([keras.Input((4,)), block, block, keras.layers.Dense(1)])
        """,
        expect="S01",
        must=("block",),
        must_not=("strides", "batch the dataset", "reshape the data"),
        fix="two Dense instances (a layer instance owns one kernel, (4, 8) here)",
    ),
    # TypeError: missing a required argument: 'right'
    Case(
        name="subclassed_siamese_call_takes_two_arguments",
        family="graph",
        code="""
        class Siamese(keras.Model):
            def __init__(self):
                super().__init__()
                self.encoder = keras.layers.Dense(8)
                self.score = keras.layers.Dense(1, activation="sigmoid")

            def call(self, left, right):
                return self.score(tf.abs(self.encoder(left) - self.encoder(right)))

        model = Siamese()
        model.compile("adam", "binary_crossentropy")
        a = np.random.rand(32, 4).astype("float32")
        b = np.random.rand(32, 4).astype("float32")
        model.fit([a, b], np.zeros((32, 1)), epochs=1, verbose=0)
        """,
        expect="S12",
        must=("call",),
        must_not=("batch size", "same number of samples"),
        fix="def call(self, inputs): left, right = inputs",
    ),
    # ValueError: You tried to call `count_params` on layer 'net', but the layer isn't built.
    Case(
        name="count_params_of_a_subclassed_model_never_called",
        family="graph",
        code="""
        class Net(keras.Model):
            def __init__(self):
                super().__init__()
                self.hidden = keras.layers.Dense(16)
                self.head = keras.layers.Dense(1)

            def call(self, x):
                return self.head(self.hidden(x))

        model = Net()
        print(model.count_params())
        """,
        expect="S04",
        must=("build",),
        must_not=("batch the dataset",),
        fix="model.build((None, n_features)) or call it on a batch first",
    ),
    # AttributeError: Sequential model 'sequential_..' has no defined inputs yet.
    Case(
        name="feature_extractor_from_a_sequential_without_input",
        family="graph",
        code="""
        model = keras.Sequential([
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(8, activation="relu", name="embedding"),
            keras.layers.Dense(1),
        ])
        extractor = keras.Model(inputs=model.inputs, outputs=model.get_layer("embedding").output)
        """,
        expect="S04",
        must=("input",),
        must_not=("batch the dataset", "graph disconnected"),
        fix="start the Sequential with keras.Input((n_features,)) (or call it on data first)",
    ),
    # ValueError: Inputs to a layer should be tensors. Got 'None' ... for layer 'dense_..'
    Case(
        name="custom_layer_call_without_return",
        family="graph",
        code="""
        class Residual(keras.layers.Layer):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.dense = keras.layers.Dense(4)

            def call(self, x):
                y = x + self.dense(x)

        inputs = keras.Input((4,))
        out = Residual(name="residual")(inputs)
        model = keras.Model(inputs, keras.layers.Dense(1)(out))
        """,
        expect="S01",
        must=("residual", "return"),
        must_not=("batch the dataset", "compute_output_shape"),
        fix="return y at the end of Residual.call",
    ),
]
