"""The model's own state: unbuilt models asked for inputs, outputs or parameter counts; compile."""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "gradcam_inputs_of_sequential_without_input",
        "model",
        """
        model = keras.Sequential([keras.layers.Conv2D(4, 3, name="last_conv"), keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(2)])
        grad_model = keras.Model(model.inputs, [model.get_layer("last_conv").output, model.output])
        """,
        "S04",
        must=("keras.Input",),
        must_not=("batch size",),
        fix="start the Sequential with keras.Input(shape)",
    ),
    Case(
        "count_params_of_unbuilt_sequential",
        "model",
        """
        model = keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(1)])
        model.count_params()
        """,
        "S04",
        must=("keras.Input",),
        fix="call the model on a batch, or keras.Input first",
    ),
    Case(
        "count_params_of_uncalled_subclassed_model",
        "model",
        """
        class Net(keras.Model):
            def __init__(self):
                super().__init__()
                self.body = keras.layers.Dense(3)
            def call(self, x):
                return self.body(x)
        net = Net()
        net.count_params()
        """,
        "S04",
        must=("x[:1]",),
        fix="call the model once on a batch",
    ),
    Case(
        "output_of_uncalled_subclassed_model",
        "model",
        """
        class Net(keras.Model):
            def __init__(self):
                super().__init__()
                self.body = keras.layers.Dense(3)
            def call(self, x):
                return self.body(x)
        net = Net()
        features = keras.Model(keras.Input((4,)), net.output)
        """,
        "S04",
        must=("Functional",),
        fix="call it, or build it the Functional way",
    ),
    Case(
        "fit_without_compile",
        "model",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.fit(np.zeros((8, 4), "float32"), np.zeros((8, 1), "float32"), verbose=0)
        """,
        None,
        unexplained="Keras' own message states the fix: 'You must call compile() before using the model.'",
        fix="model.compile(...) first",
    ),
    Case(
        "unknown_loss_name",
        "model",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mean_squared_errror")
        model.fit(np.zeros((8, 4), "float32"), np.zeros((8, 1), "float32"), verbose=0)
        """,
        None,
        unexplained="Keras names the unknown identifier and the cell line; a typo needs no diagnosis",
        fix="the right loss name",
    ),
    Case(
        "unknown_optimizer_name",
        "model",
        """
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adamw_typo", "mse")
        """,
        None,
        unexplained="Keras names the unknown identifier and the cell line",
        fix="the right optimizer name",
    ),
]
