"""Family: Keras 2 / tf.keras code that fails under Keras 3.

The documented changes (Keras 3 migration guide, "Keras 3 compatibility",
the 3.0 release notes): the data adapters no longer add a feature axis to a
1-D array (Keras 2 expanded ``(N,)`` to ``(N, 1)``); automatic tensor names
changed (``input_1`` is now ``input_layer``/``keras_tensor``), so data keyed
by Keras 2's names misses the inputs; ``load_model`` of ``.h5`` or ``.keras``
still needs every custom class registered or in ``custom_objects``; a layer
holding a sublayer in its config must deserialize it in ``from_config``
(``keras.saving.deserialize_keras_object``), where tf.keras' SavedModel
restored the object; ``fit``'s ``workers``/``use_multiprocessing``/
``max_queue_size`` moved to ``keras.utils.PyDataset``; optimizer ``lr`` is
``learning_rate``; ``keras.backend`` lost ``function``/``int_shape`` & co.
(build a ``keras.Model`` on the intermediate output); KerasTensors have no
``.op``; optimizers implement ``build`` + ``update_step``, not
``_resource_apply_dense``; a ``.keras`` file with a Python ``lambda`` needs
``safe_mode=False``; a ``.keras`` file is not a SavedModel.

The evidence a diagnosis needs: the Keras 2 idiom in the user's line, and the
Keras 3 spelling (or the data layout) that replaces it.  Where the error only
names a removed attribute or argument, no catalog code covers it and the case
is marked unexplained (a finding there is generic at best).
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: Input 0 of layer 'dense_..' incompatible: expected min_ndim=2, found ndim=1. (32,)
    Case(
        name="fit_on_a_one_dimensional_feature_array",
        family="keras3",
        code="""
        model = keras.Sequential([
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(1),
        ])
        model.compile("adam", "mse")
        x = np.random.rand(64).astype("float32")  # one feature per sample, no feature axis
        model.fit(x, 3 * x, epochs=1, verbose=0)
        """,
        expect="S01",
        must=("dense",),
        must_not=("flatten", "batch the dataset", "return_sequences"),
        fix="x.reshape(-1, 1) (Keras 3 no longer expands a 1-D array)",
    ),
    # ValueError: Missing data for input "input_layer". You passed a data dictionary with keys
    # ['input_1', 'input_2']. Expected the following keys: ['input_layer', 'input_layer_1']
    Case(
        name="fit_dict_keyed_by_keras2_automatic_input_names",
        family="keras3",
        code="""
        a = keras.Input((4,))
        b = keras.Input((2,))
        h = keras.layers.Concatenate()([a, b])
        model = keras.Model([a, b], keras.layers.Dense(1)(h))
        model.compile("adam", "mse")
        xa = np.random.rand(32, 4).astype("float32")
        xb = np.random.rand(32, 2).astype("float32")
        model.fit({"input_1": xa, "input_2": xb}, np.zeros((32, 1), "float32"), epochs=1, verbose=0)
        """,
        expect="S12",
        must=("input_layer",),
        must_not=("same number of samples", "expand_dims"),
        fix="name the Inputs (keras.Input(..., name='input_1')) or pass a list [xa, xb]",
    ),
    # ValueError: Unknown layer: 'ScaleBy'. Please ensure you are using a custom_object_scope ...
    Case(
        name="load_h5_with_a_custom_layer_and_no_custom_objects",
        family="keras3",
        code="""
        import os
        import tempfile

        class ScaleBy(keras.layers.Layer):
            def __init__(self, factor=2.0, **kwargs):
                super().__init__(**kwargs)
                self.factor = factor

            def call(self, x):
                return x * self.factor

            def get_config(self):
                return {**super().get_config(), "factor": self.factor}

        inputs = keras.Input((4,))
        model = keras.Model(inputs, ScaleBy()(keras.layers.Dense(4)(inputs)))
        path = os.path.join(tempfile.mkdtemp(), "scaled.h5")
        model.save(path)
        keras.models.load_model(path)
        """,
        expect="C05",
        must=("scaleby",),
        must_not=("safe_mode", "get_config"),
        fix="load_model(path, custom_objects={'ScaleBy': ScaleBy}) or register the class",
    ),
    # TypeError: <class Functional> could not be deserialized properly (Wrap.__init__ got the
    # sublayer's config dict, not a layer)
    Case(
        name="wrapper_layer_config_holds_a_sublayer_object",
        family="keras3",
        code="""
        import os
        import tempfile

        @keras.saving.register_keras_serializable(package="fresh2_k3")
        class WrapLayer(keras.layers.Layer):
            def __init__(self, inner, **kwargs):
                super().__init__(**kwargs)
                self.inner = inner

            def call(self, x):
                return self.inner(x)

            def get_config(self):
                return {**super().get_config(), "inner": self.inner}

        inputs = keras.Input((4,))
        model = keras.Model(inputs, WrapLayer(keras.layers.Dense(2))(inputs))
        path = os.path.join(tempfile.mkdtemp(), "wrap.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        expect="C05",
        must=("wraplayer", "from_config"),
        must_not=("register_keras_serializable", "safe_mode", "custom_objects"),
        fix="from_config: config['inner'] = keras.saving.deserialize_keras_object(config['inner'])",
    ),
    # TypeError: TensorFlowTrainer.fit() got an unexpected keyword argument 'workers'
    Case(
        name="fit_with_workers_and_multiprocessing",
        family="keras3",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        x = np.random.rand(64, 4).astype("float32")
        model.fit(x, x[:, :1], epochs=1, verbose=0, workers=4, use_multiprocessing=True)
        """,
        expect=None,
        unexplained="a removed fit() argument; no catalog code covers it, Python names the argument",
        fix="keras.utils.PyDataset(workers=4, use_multiprocessing=True) subclass",
    ),
    # ValueError: Argument(s) not recognized: {'lr': 0.001}
    Case(
        name="adam_constructed_with_lr",
        family="keras3",
        code="""
        opt = keras.optimizers.Adam(lr=1e-3)
        """,
        expect=None,
        unexplained="a removed constructor argument; no catalog code covers it, Keras names it",
        fix="keras.optimizers.Adam(learning_rate=1e-3)",
    ),
    # AttributeError: module 'keras.backend' has no attribute 'function'
    Case(
        name="backend_function_to_read_an_intermediate_layer",
        family="keras3",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3), keras.layers.Dense(1)])
        get_hidden = keras.backend.function([model.input], [model.layers[0].output])
        """,
        expect=None,
        unexplained="a removed backend function; no catalog code covers it",
        fix="keras.Model(model.input, model.layers[0].output)",
    ),
    # AttributeError: 'KerasTensor' object has no attribute 'op'
    Case(
        name="logits_from_the_softmax_output_op",
        family="keras3",
        code="""
        inputs = keras.Input((4,))
        model = keras.Model(inputs, keras.layers.Dense(3, activation="softmax")(inputs))
        logits = model.output.op.inputs[0]
        """,
        expect=None,
        unexplained="a tf.keras graph attribute KerasTensors do not have; no catalog code covers it",
        fix="a linear Dense(3) output with from_logits=True (or a second model output before the softmax)",
    ),
    # NotImplementedError (empty message) from Optimizer.update_step
    Case(
        name="custom_optimizer_with_resource_apply_dense",
        family="keras3",
        code="""
        class PlainSGD(keras.optimizers.Optimizer):
            def __init__(self, learning_rate=0.01, name="PlainSGD", **kwargs):
                super().__init__(learning_rate=learning_rate, name=name, **kwargs)

            def _resource_apply_dense(self, grad, var, apply_state=None):
                return var.assign_sub(self.learning_rate * grad)

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile(PlainSGD(), "mse")
        x = np.random.rand(32, 4).astype("float32")
        model.fit(x, x[:, :1], epochs=1, verbose=0)
        """,
        expect=None,
        unexplained="the optimizer API changed (update_step); no catalog code covers it",
        fix="implement update_step(self, gradient, variable, learning_rate) (and build)",
    ),
    # ValueError: Requested the deserialization of a `Lambda` layer whose `function` is a Python
    # lambda ... pass `safe_mode=False`
    Case(
        name="load_keras_file_with_a_python_lambda_layer",
        family="keras3",
        code="""
        import os
        import tempfile

        inputs = keras.Input((4,))
        model = keras.Model(inputs, keras.layers.Lambda(lambda t: t * 2.0)(inputs))
        path = os.path.join(tempfile.mkdtemp(), "lambda.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        expect=None,
        unexplained="Keras says to pass safe_mode=False when the file is trusted",
        fix="keras.models.load_model(path, safe_mode=False)",
    ),
]
