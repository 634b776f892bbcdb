"""Loading a saved model (C05): custom classes and functions that are not registered, a get_config
that does not match the constructor, and a lambda saved as bytecode."""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "unregistered_custom_layer_in_sequential",
        "saving",
        """
        import os, tempfile
        class ScaledDense(keras.layers.Layer):
            def __init__(self, units=4, **kwargs):
                super().__init__(**kwargs)
                self.units = units
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1], self.units))
            def call(self, x):
                return 0.5 * (x @ self.w)
        model = keras.Sequential([keras.Input((3,)), ScaledDense(2)])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        restored = keras.models.load_model(path)
        """,
        "C05",
        must=(
            "'ScaledDense'",
            "custom_objects={'ScaledDense': ScaledDense}",
            "register_keras_serializable",
        ),
        must_not=("get_config", "shape"),
        fix="custom_objects=..., @register_keras_serializable",
    ),
    Case(
        "unregistered_subclassed_model",
        "saving",
        """
        import os, tempfile
        class Tower(keras.Model):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.hidden = keras.layers.Dense(4, activation="relu")
                self.out = keras.layers.Dense(1)
            def call(self, x):
                return self.out(self.hidden(x))
        tower = Tower()
        tower(np.zeros((1, 3), "float32"))
        path = os.path.join(tempfile.mkdtemp(), "tower.keras")
        tower.save(path)
        keras.models.load_model(path)
        """,
        "C05",
        must=("'Tower'", "custom_objects={'Tower': Tower}"),
        must_not=("get_config", "shape"),
        fix="custom_objects=..., @register_keras_serializable",
    ),
    Case(
        "custom_loss_not_defined_at_load",
        "saving",
        """
        import os, tempfile
        def weighted_mse(y_true, y_pred):
            return tf.reduce_mean(2.0 * tf.square(y_true - y_pred))
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.compile("adam", weighted_mse)
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        del weighted_mse  # as in a fresh kernel that did not run the cell defining it
        keras.models.load_model(path)
        """,
        "C05",
        must=(
            "'weighted_mse'",
            "define or import",
            "custom_objects={'weighted_mse': weighted_mse}",
        ),
        must_not=("get_config", "labels", "shape"),
        fix="custom_objects={'weighted_mse': weighted_mse}",
    ),
    Case(
        "custom_objects_under_the_wrong_name",
        "saving",
        """
        import os, tempfile
        class Gate(keras.layers.Layer):
            def call(self, x):
                return x * keras.ops.sigmoid(x)
        inp = keras.Input((3,))
        model = keras.Model(inp, Gate()(inp))
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        keras.models.load_model(path, custom_objects={"gate": Gate})
        """,
        "C05",
        must=("no key 'Gate'", "custom_objects={'Gate': Gate}"),
        must_not=("get_config", "define or import"),
        fix="custom_objects keyed by the class name",
    ),
    Case(
        "registered_with_a_package_not_registered_at_load",
        "saving",
        """
        import os, tempfile
        @keras.saving.register_keras_serializable(package="blocks")
        class Residual(keras.layers.Layer):
            def call(self, x):
                return x + keras.ops.tanh(x)
        model = keras.Sequential([keras.Input((3,)), Residual()])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        # as in a fresh kernel that did not run the cell defining and registering Residual:
        keras.saving.get_custom_objects().pop("blocks>Residual")
        del Residual
        keras.models.load_model(path)
        """,
        "C05",
        must=("'blocks>Residual'", "run the cell", "register_keras_serializable"),
        must_not=("get_config", "shape"),
        fix="run the registering cell first",
    ),
    Case(
        "custom_objects_keyed_by_class_for_a_package_name",
        "saving",
        """
        import os, tempfile
        @keras.saving.register_keras_serializable(package="blocks")
        class Swish(keras.layers.Layer):
            def call(self, x):
                return x * keras.ops.sigmoid(x)
        model = keras.Sequential([keras.Input((3,)), Swish()])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        keras.saving.get_custom_objects().pop("blocks>Swish")
        keras.models.load_model(path, custom_objects={"Swish": Swish})
        """,
        "C05",
        must=("no key 'blocks>Swish'", "custom_objects={'blocks>Swish': Swish}"),
        must_not=("get_config", "define or import"),
        fix="custom_objects keyed by the saved name",
    ),
    Case(
        "get_config_lacks_a_constructor_argument",
        "saving",
        """
        import os, tempfile
        @keras.saving.register_keras_serializable(package="demo")
        class Affine(keras.layers.Layer):
            def __init__(self, scale, shift, **kwargs):
                super().__init__(**kwargs)
                self.scale, self.shift = scale, shift
            def call(self, x):
                return x * self.scale + self.shift
            def get_config(self):
                config = super().get_config()
                config.update({"scale": self.scale})
                return config
        model = keras.Sequential([keras.Input((3,)), Affine(2.0, 1.0)])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        "C05",
        must=("Affine.get_config()", "'shift'", "shift=self.shift"),
        must_not=("custom_objects", "register_keras_serializable"),
        fix="a complete get_config",
    ),
    Case(
        "get_config_without_super_loses_arguments",
        "saving",
        """
        import os, tempfile
        class Clip(keras.layers.Layer):
            def __init__(self, limit, **kwargs):
                super().__init__(**kwargs)
                self.limit = limit
            def call(self, x):
                return keras.ops.clip(x, -self.limit, self.limit)
            def get_config(self):
                return super().get_config()
        model = keras.Sequential([keras.Input((3,)), Clip(1.0)])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        keras.models.load_model(path, custom_objects={"Clip": Clip})
        """,
        "C05",
        must=("'limit'", "limit=self.limit", "get_config"),
        must_not=("custom_objects={", "register_keras_serializable"),
        fix="a complete get_config",
    ),
    Case(
        "get_config_returns_an_unknown_key",
        "saving",
        """
        import os, tempfile
        @keras.saving.register_keras_serializable(package="demo")
        class Shift(keras.layers.Layer):
            def __init__(self, amount, **kwargs):
                super().__init__(**kwargs)
                self.amount = amount
            def call(self, x):
                return x + self.amount
            def get_config(self):
                config = super().get_config()
                config.update(amount=self.amount, units=3)
                return config
        model = keras.Sequential([keras.Input((3,)), Shift(1.0)])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        "C05",
        must=("'units'", "Shift.__init__", "get_config"),
        must_not=("custom_objects", "register_keras_serializable"),
        fix="get_config and __init__ agree",
    ),
    Case(
        "lambda_activation_saved",
        "saving",
        """
        import os, tempfile
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation=lambda t: t * 0.5)])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        "C05",
        must=("lambda", "named function", "safe_mode=False"),
        must_not=("get_config", "custom_objects={"),
        fix="a named, registered function",
    ),
    Case(
        "lambda_layer_refused_in_safe_mode",
        "saving",
        """
        import os, tempfile
        model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda t: t * 2.0)])
        path = os.path.join(tempfile.mkdtemp(), "model.keras")
        model.save(path)
        keras.models.load_model(path)
        """,
        None,
        unexplained="Keras' own message names the lambda layer and the fix (safe_mode=False, "
        "or keras.config.enable_unsafe_deserialization()) for a file the user trusts",
        fix="safe_mode=False for a trusted file",
    ),
]
