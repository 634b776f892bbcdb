"""Family: contracts of building a Functional graph.

The API: ``keras.Model(inputs, outputs)``, ``keras.Input``, calling a layer on
a tensor, a custom ``Layer.build(input_shape)``, ``keras.layers.Lambda``,
``keras.Sequential.add``, and TensorFlow ops applied to Keras tensors.

The contract: every output must be computed from the ``Input`` objects listed
in ``inputs`` (each listed once), through layer calls on symbolic tensors; a
shared layer keeps the input size it was first built with; ``build`` receives
a shape whose batch axis is ``None``; a ``Sequential`` holds single-input,
single-output layers; raw TensorFlow functions cannot take a ``KerasTensor``.

The evidence a diagnosis needs: which ``Input`` or tensor an output depends on
that the model was not given (its name, where it was created), which layer
was called twice on different sizes (both sizes), which axis a ``build``
read; the fix names the input to list, the layer to duplicate, the axis to
read (``input_shape[-1]``) or the layer to wrap the op in.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "graph"

CASES: list[Case] = [
    # Raises ValueError: Output with path `` is not connected to `inputs`
    Case(
        name="second_input_not_listed_in_model_inputs",
        family=FAMILY,
        code="""
        image = keras.Input((16,), name="image_features")
        meta = keras.Input((3,), name="metadata")
        both = keras.layers.Concatenate()([image, meta])
        score = keras.layers.Dense(1)(both)
        model = keras.Model(inputs=image, outputs=score)
        """,
        expect="S12",
        must=("metadata", "inputs"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="keras.Model(inputs=[image, meta], outputs=score)",
    ),
    # Raises ValueError: Output with path `` is not connected to `inputs`
    Case(
        name="feature_extractor_with_a_new_input",
        family=FAMILY,
        code="""
        base = keras.Sequential([
            keras.Input((8,)),
            keras.layers.Dense(16, activation="relu", name="hidden"),
            keras.layers.Dense(2, name="head"),
        ])
        new_input = keras.Input((8,))
        extractor = keras.Model(new_input, base.get_layer("hidden").output)
        """,
        expect="S12",
        must=("hidden", "inputs"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="keras.Model(base.inputs, base.get_layer('hidden').output)",
    ),
    # Raises ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    # dimensions). Received: shape=(None, 4) for variable path='projection/variable'
    Case(
        name="custom_layer_build_reads_the_batch_axis",
        family=FAMILY,
        code="""
        class Projection(keras.layers.Layer):
            def __init__(self, units):
                super().__init__()
                self.units = units

            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[0], self.units))

            def call(self, x):
                return x @ self.w

        inputs = keras.Input((12,))
        out = Projection(4)(inputs)
        """,
        expect="S01",
        must=("input_shape[-1]",),
        must_not=("the strides", "batch the dataset", "flatten"),
        fix="read the feature axis: shape=(input_shape[-1], self.units)",
    ),
    # Raises ValueError: Exception encountered when calling TokenMix.call(). ... Could not
    # automatically infer the output shape / dtype of 'token_mix' (of type TokenMix). Either the
    # `TokenMix.call()` method is incorrect, or you need to implement the `TokenMix.compute_outpu
    Case(
        name="custom_layer_build_reads_the_time_axis",
        family=FAMILY,
        code="""
        class TokenMix(keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[1], 8))

            def call(self, x):
                return tf.matmul(x, self.w)

        seq = keras.Input((10, 6))
        mixed = TokenMix()(seq)
        """,
        expect="S01",
        must=("input_shape[-1]", "6"),
        must_not=("the strides", "batch the dataset", "flatten"),
        fix="shape=(input_shape[-1], 8): the feature axis is the last",
    ),
    # Raises ValueError: Input 0 with name 'None' of layer 'shared_proj' is incompatible with the
    # layer: expected axis -1 of input shape to have value 8, but received input with shape (None,
    # 16)
    Case(
        name="shared_dense_on_two_widths",
        family=FAMILY,
        code="""
        left = keras.Input((8,))
        right = keras.Input((16,))
        shared = keras.layers.Dense(4, name="shared_proj")
        a = shared(left)
        b = shared(right)
        """,
        expect="S01",
        must=("shared_proj", "16"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="one Dense per input width, or project both to the same width first",
    ),
    # Raises ValueError: Output with path `` is not connected to `inputs`
    Case(
        name="same_input_listed_twice",
        family=FAMILY,
        code="""
        query = keras.Input((4,), name="query")
        context = keras.Input((4,), name="context")
        out = keras.layers.Dense(1)(keras.layers.Add()([query, context]))
        model = keras.Model(inputs=[query, query], outputs=out)
        """,
        expect="S12",
        must=("context", "inputs"),
        must_not=("the strides", "flatten"),
        fix="keras.Model(inputs=[query, context], outputs=out)",
    ),
    # Raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A
    # KerasTensor is a symbolic placeholder for a shape and dtype, used when constructing Keras
    # Functional models or Keras Functions. You can only use it as input to a Keras layer or a Ker
    Case(
        name="tf_concat_on_keras_tensors",
        family=FAMILY,
        code="""
        a = keras.Input((8,))
        b = keras.Input((4,))
        merged = tf.concat([a, b], axis=-1)
        """,
        expect=None,
        must_not=("the strides", "flatten", "batch the dataset"),
        unexplained="Keras says a KerasTensor cannot go into a TensorFlow function and to wrap it in a layer",
        fix="keras.layers.Concatenate()([a, b]) or keras.ops.concatenate",
    ),
    # Raises ValueError: All `outputs` values must be KerasTensors. Received: outputs=<Dense
    # name=dense_18, built=False> including invalid value <Dense name=dense_18, built=False> of
    # type <class 'keras.src.layers.core.dense.Dense'>
    Case(
        name="outputs_is_an_uncalled_layer",
        family=FAMILY,
        code="""
        inputs = keras.Input((10,))
        hidden = keras.layers.Dense(8, activation="relu")(inputs)
        outputs = keras.layers.Dense(1, activation="sigmoid")
        model = keras.Model(inputs, outputs)
        """,
        expect="S12",
        must=("outputs", "(hidden)"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="call the layer: outputs = Dense(1, ...)(hidden)",
    ),
    # Raises TypeError: To be compatible with tf.function, Python functions must return zero or
    # more Tensors or ExtensionTypes or None values; in compilation of <function
    # TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed at
    # 0x7f1870762980>, foun
    Case(
        name="lambda_captures_an_input_from_outside",
        family=FAMILY,
        code="""
        x = keras.Input((4,), name="x")
        scale = keras.Input((1,), name="scale")
        scaled = keras.layers.Lambda(lambda t: t * scale)(x)
        model = keras.Model([x, scale], scaled)
        model.predict([np.ones((2, 4)), np.ones((2, 1))], verbose=0)
        """,
        expect="S12",
        must=("lambda", "scale"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="pass both tensors to the Lambda: Lambda(lambda ts: ts[0] * ts[1])([x, scale])",
    ),
    # Raises ValueError: Layer "pair" expects 2 named input(s) with keys
    # ['input_layer_39', 'input_layer_40'], but it received 1 input tensors. Pass inputs as a
    # dict, e.g. `layer({'input_layer_39': ..., 'input_layer_40': ...})`.
    Case(
        name="sequential_add_of_a_two_input_model",
        family=FAMILY,
        code="""
        a = keras.Input((4,))
        b = keras.Input((4,))
        pair = keras.Model([a, b], keras.layers.Concatenate()([a, b]), name="pair")
        stack = keras.Sequential()
        stack.add(pair)
        stack.add(keras.layers.Dense(1))
        stack.build((None, 4))
        """,
        expect="S12",
        must=("sequential", "functional"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="build the whole model with the Functional API",
    ),
    # Raises ValueError: Layer "scorer" expects 2 named input(s) with keys
    # ['input_layer_42', 'input_layer_43'], but it received 1 input tensors. Pass inputs as a
    # dict, e.g. `layer({'input_layer_42': ..., 'input_layer_43': ...})`.
    Case(
        name="submodel_with_two_inputs_called_on_one",
        family=FAMILY,
        code="""
        q = keras.Input((6,))
        d = keras.Input((6,))
        scorer = keras.Model([q, d], keras.layers.Dot(axes=1)([q, d]), name="scorer")
        query = keras.Input((6,))
        score = scorer(query)
        """,
        expect="S12",
        must=("2", "scorer"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="call it on both tensors: scorer([query, doc])",
    ),
    # Raises ValueError: All `outputs` values must be KerasTensors. Received:
    # outputs=[<KerasTensor shape=(None, 3), dtype=float32, sparse=False, ragged=False,
    # name=keras_tensor_119>, <tf.Tensor: shape=(5, 3), dtype=float32, numpy=
    Case(
        name="layer_called_on_a_numpy_array_inside_the_graph",
        family=FAMILY,
        code="""
        inputs = keras.Input((3,))
        encoded = keras.layers.Dense(3, name="encoder")(inputs)
        prototypes = np.random.rand(5, 3).astype("float32")
        keys = keras.layers.Dense(3, name="key_proj")(prototypes)
        model = keras.Model(inputs, [encoded, keys])
        """,
        expect="S12",
        must=("key_proj", "numpy"),
        must_not=("the strides", "flatten", "batch the dataset"),
        fix="feed the prototypes through a second keras.Input (or make them a weight)",
    ),
]
