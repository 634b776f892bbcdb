"""Family: model graph construction, custom layers and Lambda layers.

The documented contracts: a layer in a ``Sequential`` model may have only one
required positional argument in ``call`` (the input); ``training`` needs a
default (``training=None``); a ``Lambda`` function runs on symbolic tensors when
the model is built, where the batch axis is ``None`` (``x.shape[0]`` is not a
number; ``tf.shape(x)[0]`` / ``keras.ops.shape(x)[0]`` is), and it receives a
list of inputs as ONE argument (``lambda t: t[0] - t[1]``), neither of which an
``output_shape`` changes; a layer called on a list gets a list of shapes in
``build`` (``input_shape[0][-1]``, not ``input_shape[-1]``); ``Dense`` takes one
tensor (merge two with ``Concatenate`` first); an ``LSTM`` with
``return_state=True`` returns a list ``[output, h, c]``, which a ``Sequential``
passes on whole to the next layer; ``keras.Model(inputs=...)`` must be the
``keras.Input`` the graph starts from, not a later tensor the variable was
reassigned to; TensorFlow functions such as ``tf.image.resize`` do not accept
a ``KerasTensor`` (use a layer: ``Resizing``, ``UpSampling2D``, or ``keras.ops``).

The evidence a diagnosis needs: the layer or function that failed, what it
received (how many tensors, which shapes, which argument), where that came
from in the user's graph, and the construction that fits.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Layers added to a Sequential model can only have a single required positional argument,
    #   the input tensor. Layer Noisy has multiple required positional arguments: [<Parameter "x">, <Parameter "training">]
    Case(
        name="custom_layer_call_requires_training",
        family="graph",
        code="""
        class Noisy(keras.layers.Layer):
            def call(self, x, training):
                if training:
                    return x + tf.random.normal(tf.shape(x), stddev=0.1)
                return x

        model = keras.Sequential([
            keras.Input((4,)),
            Noisy(),
            keras.layers.Dense(1),
        ])
        """,
        expect=None,
        must_not=("input_shape", "build("),
        unexplained="Keras names the layer and its two required arguments (x, training)",
        fix="def call(self, x, training=None)",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    #   (We could not automatically infer the shape of the Lambda's output. Please specify the `output_shape` argument ...)
    Case(
        name="lambda_reads_the_static_batch_size",
        family="graph",
        code="""
        inp = keras.Input((10,))
        padded = keras.layers.Lambda(
            lambda x: tf.concat([x, tf.zeros((x.shape[0], 5))], axis=1)
        )(inp)
        model = keras.Model(inp, keras.layers.Dense(1)(padded))
        """,
        expect="T02",
        must=("batch",),
        must_not=("output_shape",),
        fix="tf.shape(x)[0] (or tf.zeros_like(x[:, :5]))",
    ),
    # ValueError: Cannot convert '((None, 8), (None, 8))' to a shape. Found invalid dimension '(None, 8)'
    #   of type '<class 'tuple'>'.
    Case(
        name="custom_layer_build_for_two_inputs",
        family="graph",
        code="""
        class Bilinear(keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1], input_shape[-1]))

            def call(self, inputs):
                a, b = inputs
                return tf.reduce_sum(tf.matmul(a, self.w) * b, axis=-1, keepdims=True)

        user = keras.Input((8,))
        item = keras.Input((8,))
        score = Bilinear()([user, item])
        """,
        expect="S01",
        must=("build",),
        must_not=("flatten", "reshape"),
        fix="d = input_shape[0][-1] in build (it receives a list of two shapes)",
    ),
    # ValueError: Layer "dense" expects 1 input(s), but it received 2 input tensors.
    #   Inputs received: [<KerasTensor shape=(None, 8), ...>, <KerasTensor shape=(None, 4), ...>]
    Case(
        name="dense_called_on_a_list_of_two_inputs",
        family="graph",
        code="""
        numeric = keras.Input((8,))
        category = keras.Input((4,))
        out = keras.layers.Dense(1)([numeric, category])
        """,
        expect="S12",
        must=("concatenate",),
        must_not=("flatten", "add an axis"),
        fix="Dense(1)(keras.layers.Concatenate()([numeric, category]))",
    ),
    # ValueError: Layer "dense" expects 1 input(s), but it received 3 input tensors.
    #   Inputs received: [<KerasTensor shape=(None, 8), ...>, <KerasTensor shape=(None, 8), ...>, <KerasTensor shape=(None, 8), ...>]
    Case(
        name="lstm_return_state_inside_sequential",
        family="graph",
        code="""
        model = keras.Sequential([
            keras.Input((10, 3)),
            keras.layers.LSTM(8, return_state=True),
            keras.layers.Dense(1),
        ])
        """,
        expect="S12",
        must=("return_state",),
        must_not=("return_sequences=true", "flatten"),
        fix="drop return_state, or use the functional API: out, h, c = LSTM(8, return_state=True)(x)",
    ),
    # ValueError: Input 0 with name 'keras_tensor_...CLONE' of layer 'functional' is incompatible with the layer:
    #   expected shape=(None, 16), found shape=(None, 8)
    Case(
        name="model_inputs_is_the_reassigned_hidden_tensor",
        family="graph",
        code="""
        x = keras.Input((8,))
        x = keras.layers.Dense(16, activation="relu")(x)
        out = keras.layers.Dense(1)(x)
        model = keras.Model(inputs=x, outputs=out)
        model.compile("adam", "mse")
        model.fit(np.random.rand(4, 8), np.random.rand(4, 1), epochs=1, verbose=0)
        """,
        expect="S12",
        must=("dense",),
        must_not=("reshape", "add an axis", "batch the dataset"),
        fix="inputs = keras.Input((8,)); x = Dense(16)(inputs); Model(inputs, out)",
    ),
    # NotImplementedError: Exception encountered when calling Lambda.call().
    #   (We could not automatically infer the shape of the Lambda's output. Please specify the `output_shape` argument ...)
    Case(
        name="lambda_with_two_parameters_on_a_pair",
        family="graph",
        code="""
        left = keras.Input((8,))
        right = keras.Input((8,))
        distance = keras.layers.Lambda(lambda u, v: tf.abs(u - v))([left, right])
        model = keras.Model([left, right], keras.layers.Dense(1, activation="sigmoid")(distance))
        """,
        expect="S12",
        must=("list",),
        must_not=("output_shape",),
        fix="Lambda(lambda t: tf.abs(t[0] - t[1])) (the list is one argument)",
    ),
    # ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic
    #   placeholder for a shape and dtype, used when constructing Keras Functional models or Keras Functions. ...
    Case(
        name="tf_image_resize_on_a_keras_tensor",
        family="graph",
        code="""
        inp = keras.Input((16, 16, 8))
        h = keras.layers.Conv2D(8, 3, padding="same")(inp)
        up = tf.image.resize(h, (32, 32))
        out = keras.layers.Conv2D(1, 1)(up)
        """,
        expect=None,
        must_not=("run_eagerly", ".numpy()"),
        unexplained="Keras says to use a layer or keras.ops instead of a TensorFlow function on a KerasTensor",
        fix="keras.layers.Resizing(32, 32) or UpSampling2D(2)",
    ),
]
