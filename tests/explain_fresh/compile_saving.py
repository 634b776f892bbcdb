"""Family: compile and saving contracts that Keras states only in part.

The API: ``Model.compile(loss=..., loss_weights=..., metrics=...,
jit_compile=...)``, ``Model.fit(class_weight=..., sample_weight=...)``,
``Model.save``/``save_weights``/``load_weights``, ``keras.models.load_model``.

The contract: per-output arguments are keyed by the names of the model's
output layers (or listed in output order, one entry per output);
``class_weight`` works for a single output only; a loss, metric or optimizer
given as an object must be an instance, not the class; weights load into a
model of the same architecture; under ``jit_compile=True`` every op of the
step (model and loss) must be one XLA can compile: no ``tf.py_function``/
``tf.numpy_function``, no ops with data-dependent output shapes
(``tf.unique``, ``tf.boolean_mask``), no string ops.

The evidence a diagnosis needs: the model's output names (or count) next to
the keys or entries the user gave, the class passed where an instance
belongs, the two architectures' weight shapes, the op XLA refused and the
layer or loss it sits in; the fix names the keys to use, the instance to
create, the model to rebuild or ``jit_compile=False``.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "compile_saving"

_TWO_HEADS = """
inputs = keras.Input((6,))
h = keras.layers.Dense(8, activation="relu")(inputs)
age = keras.layers.Dense(1, name="age")(h)
gender = keras.layers.Dense(1, activation="sigmoid", name="gender")(h)
model = keras.Model(inputs, [age, gender])
x = np.random.rand(32, 6).astype("float32")
y_age = np.random.rand(32, 1).astype("float32")
y_gender = np.random.randint(0, 2, size=(32, 1)).astype("float32")
"""

CASES: list[Case] = [
    # Raises ValueError: Expected keys ['age', 'gender'] in loss dict, but found
    # loss.keys()=['age_output', 'gender_output']
    Case(
        name="loss_dict_keyed_by_variable_names",
        family=FAMILY,
        code=_TWO_HEADS
        + """
model.compile("adam", loss={"age_output": "mse", "gender_output": "binary_crossentropy"})
model.fit(x, {"age": y_age, "gender": y_gender}, epochs=1, verbose=0)
""",
        expect=None,
        must_not=("the strides", "one-hot", "sparse"),
        unexplained="Keras lists the expected keys ['age', 'gender'] next to the keys it found",
        fix="key the loss by the output layer names: {'age': ..., 'gender': ...}",
    ),
    # Raises ValueError: `class_weight` is only supported for Models with a single output.
    Case(
        name="class_weight_with_two_outputs",
        family=FAMILY,
        code=_TWO_HEADS
        + """
model.compile("adam", loss=["mse", "binary_crossentropy"])
model.fit(x, [y_age, y_gender], class_weight={0: 1.0, 1: 3.0}, epochs=1, verbose=0)
""",
        expect="S12",
        must=("class_weight", "sample_weight"),
        must_not=("the strides", "one-hot", "labels out of range"),
        fix="per-output sample_weight (weights computed from y_gender), not class_weight",
    ),
    # Raises KeyError: 'gender'
    Case(
        name="loss_weights_with_a_misspelled_output",
        family=FAMILY,
        code=_TWO_HEADS
        + """
model.compile("adam", loss={"age": "mse", "gender": "binary_crossentropy"},
              loss_weights={"age": 1.0, "gendr": 0.5})
model.fit(x, {"age": y_age, "gender": y_gender}, epochs=1, verbose=0)
""",
        expect="S12",
        must=("gendr", "gender"),
        must_not=("the strides", "one-hot", "sparse"),
        fix="loss_weights={'age': 1.0, 'gender': 0.5}",
    ),
    # Raises ValueError: tuple arity mismatch; expected: 2, got: 1; tuple: ('mae',).
    Case(
        name="metrics_list_shorter_than_the_outputs",
        family=FAMILY,
        code=_TWO_HEADS
        + """
model.compile("adam", loss=["mse", "binary_crossentropy"], metrics=["mae"])
model.fit(x, [y_age, y_gender], epochs=1, verbose=0)
""",
        expect=None,
        must_not=("the strides", "one-hot", "sparse"),
        unexplained="Keras says a metrics list needs one entry per output (or a dict)",
        fix="metrics={'age': ['mae'], 'gender': ['accuracy']}",
    ),
    # Raises TypeError: weighted_mse() missing 1 required positional argument: 'weight'
    Case(
        name="custom_loss_with_an_extra_hyperparameter",
        family=FAMILY,
        code="""
        def weighted_mse(y_true, y_pred, weight):
            return weight * tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", loss=weighted_mse)
        model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
        """,
        expect="S12",
        must=("weighted_mse", "weight"),
        must_not=("one-hot", "the strides", "labels out of range", "sample_weight"),
        fix="a loss takes (y_true, y_pred): bind weight with a closure or a Loss subclass",
    ),
    # Raises ValueError: Could not interpret optimizer identifier: <class
    # 'keras.src.optimizers.adam.Adam'>
    Case(
        name="optimizer_class_instead_of_instance",
        family=FAMILY,
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile(optimizer=keras.optimizers.Adam, loss="mse")
        model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
        """,
        expect="S12",
        must=("adam()",),
        must_not=("learning rate", "the strides", "labels"),
        fix="optimizer=keras.optimizers.Adam() (an instance)",
    ),
    # Raises ValueError: A total of 2 objects could not be loaded. Example error message for
    # object <Dense name=dense_28, built=True>: ... The shape of the target variable and the shape
    # of the target value in `variable.assign(value)` must match. variable.shape=(4, 16), Rec
    Case(
        name="load_weights_into_a_wider_model",
        family=FAMILY,
        code="""
        import tempfile, os
        folder = tempfile.mkdtemp()
        small = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(1)])
        small.save_weights(os.path.join(folder, "run1.weights.h5"))
        wide = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16), keras.layers.Dense(1)])
        wide.load_weights(os.path.join(folder, "run1.weights.h5"))
        """,
        expect="S12",
        must=("8", "16"),
        must_not=("register_keras_serializable", "custom_objects", "the strides"),
        fix="rebuild the model with the architecture that was saved (Dense(8))",
    ),
    # Raises ValueError: No model config found in the file at /tmp/.../best.weights.h5.
    Case(
        name="load_model_given_a_weights_file",
        family=FAMILY,
        code="""
        import tempfile, os
        folder = tempfile.mkdtemp()
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.save_weights(os.path.join(folder, "best.weights.h5"))
        restored = keras.models.load_model(os.path.join(folder, "best.weights.h5"))
        """,
        expect="C05",
        must=("load_weights",),
        must_not=("register_keras_serializable", "custom_objects", "the strides"),
        fix="build the model in code, then model.load_weights(path)",
    ),
    # Raises InvalidArgumentError: Graph execution error: ... Detected unsupported operations when
    # trying to compile graph __inference_one_step_on_data_5730[] on XLA_CPU_JIT: PyFunc (No
    # registered 'PyFunc' OpKernel for XLA_CPU_JIT devices compatible with node {{node compil
    Case(
        name="jit_compile_with_numpy_function_in_the_loss",
        family=FAMILY,
        code="""
        def median_loss(y_true, y_pred):
            err = tf.abs(y_true - y_pred)
            med = tf.numpy_function(lambda e: np.median(e).astype("float32"), [err], tf.float32)
            med = tf.ensure_shape(med, [])
            return tf.reduce_mean(err, axis=-1) + 0.0 * med

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", loss=median_loss, jit_compile=True)
        model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
        """,
        expect="T03",
        must=("jit_compile", "numpy_function"),
        must_not=("set_shape", "output_signature", "the strides", "batch size"),
        fix="jit_compile=False, or write the loss with TensorFlow ops",
    ),
    # Raises InvalidArgumentError: Graph execution error: ... Detected unsupported operations when
    # trying to compile graph __inference_one_step_on_data_6346[] on XLA_CPU_JIT: EagerPyFunc (No
    # registered 'EagerPyFunc' OpKernel for XLA_CPU_JIT devices compatible with node {{n
    Case(
        name="jit_compile_with_py_function_in_a_layer",
        family=FAMILY,
        code="""
        class NumpyJitter(keras.layers.Layer):
            def call(self, x):
                noisy = tf.py_function(
                    lambda t: t + np.random.normal(size=t.shape).astype("float32"), [x], tf.float32)
                return tf.ensure_shape(noisy, x.shape)

        model = keras.Sequential([keras.Input((4,)), NumpyJitter(), keras.layers.Dense(1)])
        model.compile("adam", "mse", jit_compile=True)
        model.fit(np.random.rand(16, 4), np.random.rand(16, 1), epochs=1, verbose=0)
        """,
        expect="T03",
        must=("jit_compile", "py_function"),
        must_not=("set_shape", "output_signature", "the strides", "batch size"),
        fix="jit_compile=False, or write the layer with TensorFlow ops (tf.random.normal)",
    ),
    # Raises InvalidArgumentError: Graph execution error: ... Detected unsupported operations when
    # trying to compile graph __inference_one_step_on_data_6913[] on XLA_CPU_JIT: _Arg (No
    # registered '_Arg' OpKernel for XLA_CPU_JIT devices compatible with node {{node data}}
    Case(
        name="jit_compile_with_a_string_parsing_layer",
        family=FAMILY,
        code="""
        class ParseNumbers(keras.layers.Layer):
            def call(self, text):
                return tf.strings.to_number(text, tf.float32)

        inputs = keras.Input((3,), dtype="string")
        out = keras.layers.Dense(1)(ParseNumbers()(inputs))
        model = keras.Model(inputs, out)
        model.compile("adam", "mse", jit_compile=True)
        ds = tf.data.Dataset.from_tensor_slices(
            (tf.constant([["1", "2", "3"]] * 4), tf.random.uniform((4, 1)))).batch(2)
        model.fit(ds, epochs=1, verbose=0)
        """,
        expect="T03",
        must=("jit_compile", "string"),
        must_not=("encode the text column", "astype", "the strides"),
        fix="jit_compile=False, or parse the strings in the tf.data pipeline",
    ),
    # Raises ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 40
    Case(
        name="sample_weight_shorter_than_the_data",
        family=FAMILY,
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        x = np.random.rand(40, 4).astype("float32")
        y = np.random.rand(40, 1).astype("float32")
        weights = np.ones(30, dtype="float32")
        model.fit(x, y, sample_weight=weights, epochs=1, verbose=0)
        """,
        expect="S12",
        must=("sample_weight", "30"),
        must_not=("the strides", "one-hot", "class_weight"),
        fix="one sample weight per row (40)",
    ),
]
