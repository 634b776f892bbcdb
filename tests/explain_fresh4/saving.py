"""Family: saving and loading contracts in Keras 3 (and tf.train.Checkpoint).

The documented contracts: ``model.save`` takes a path ending in ``.keras`` (or
the legacy ``.h5``) and no ``save_format``; a ``.keras`` file or a
``to_json`` config stores each object by class name, so every custom object
(layer, metric, regularizer function, learning-rate schedule) must be found
at load time, through ``@keras.saving.register_keras_serializable()`` or
``custom_objects={...}`` (also for ``model_from_json``); the config stored for
an object is its ``get_config()``, which must hold every constructor argument
(``threshold``, ``units``), or ``from_config`` cannot call ``__init__`` again
(``clone_model`` of a subclassed model goes through the same config);
``load_weights`` restores variables by the model's own structure, so the
model must have the architecture the weights were saved from;
``tf.train.Checkpoint(...).restore(path).assert_consumed()`` asserts that
every saved object (the optimizer's slots and step too) has a counterpart in
the new checkpoint object (``expect_partial()`` when dropping them is meant).

The evidence a diagnosis needs: which object (class or function name) could
not be rebuilt and why (not registered, or which constructor argument its
config lacks), or which saved part found no counterpart in the model, and
the fix at the save or at the load.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # ValueError: The `save_format` argument is deprecated in Keras 3. Please remove this argument and pass
    #   a file path with either `.keras` or `.h5` extension.Received: save_format=tf
    Case(
        name="save_format_tf_argument_in_keras3",
        family="saving",
        code="""
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.save("my_model", save_format="tf")
        """,
        expect=None,
        must_not=("register_keras_serializable",),
        unexplained="Keras says to remove save_format and to pass a path ending in .keras or .h5",
        fix="model.save('my_model.keras') (model.export('my_model') for a SavedModel)",
    ),
    # AssertionError: Unresolved object in checkpoint (root).optimizer._iterations: attributes {
    #   name: "VARIABLE_VALUE" full_name: "adam/iteration" ...
    Case(
        name="checkpoint_restore_without_the_optimizer_assert_consumed",
        family="saving",
        code="""
        import os, tempfile
        ckpt_dir = tempfile.mkdtemp()
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        opt = keras.optimizers.Adam()
        model.compile(opt, "mse")
        model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
        path = tf.train.Checkpoint(model=model, optimizer=opt).save(os.path.join(ckpt_dir, "ckpt"))

        restored = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        tf.train.Checkpoint(model=restored).restore(path).assert_consumed()
        """,
        expect="C04",
        must=("optimizer",),
        must_not=("register_keras_serializable",),
        fix="tf.train.Checkpoint(model=restored, optimizer=new_opt), or .expect_partial() to drop the optimizer state",
    ),
    # ValueError: A total of 2 objects could not be loaded. Example error message for object <Dense name=dense_1, built=True>:
    #   The shape of the target variable and the shape of the target value in `variable.assign(value)` must match.
    #   variable.shape=(8, 8), Received: value.shape=(8, 1).
    Case(
        name="load_weights_after_inserting_a_hidden_layer",
        family="saving",
        code="""
        import os, tempfile
        weights = os.path.join(tempfile.mkdtemp(), "base.weights.h5")
        old = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
        old.save_weights(weights)

        new = keras.Sequential([
            keras.Input((4,)),
            keras.layers.Dense(8, activation="relu"),
            keras.layers.Dense(8, activation="relu"),     # added after the weights were saved
            keras.layers.Dense(1),
        ])
        new.load_weights(weights)
        """,
        expect="C04",
        must=("load_weights",),
        must_not=("reshape", "register_keras_serializable"),
        fix="load into the saved architecture, then copy layer by layer (new.layers[i].set_weights(old.layers[i].get_weights()))",
    ),
    # TypeError: <class 'keras.src.optimizers.adam.Adam'> could not be deserialized properly. ...
    #   config={'module': 'keras.optimizers', 'class_name': 'Adam', 'config': {... 'learning_rate': {'module': 'builtins',
    #   'class_name': 'WarmUp', ... Exception encountered: Could not locate class 'WarmUp'. Make sure custom classes and
    #   functions are decorated with `@keras.saving.register_keras_serializable()`. ...
    Case(
        name="load_model_with_an_unregistered_learning_rate_schedule",
        family="saving",
        code="""
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "model.keras")

        class WarmUp(keras.optimizers.schedules.LearningRateSchedule):
            def __init__(self, peak, warmup):
                self.peak = peak
                self.warmup = warmup

            def __call__(self, step):
                return self.peak * tf.minimum(1.0, tf.cast(step, tf.float32) / self.warmup)

            def get_config(self):
                return {"peak": self.peak, "warmup": self.warmup}

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile(keras.optimizers.Adam(WarmUp(1e-3, 100)), "mse")
        model.fit(np.random.rand(8, 4), np.random.rand(8, 1), epochs=1, verbose=0)
        model.save(path)
        reloaded = keras.models.load_model(path)
        """,
        expect="C05",
        must=("warmup", "register"),
        must_not=("from_config",),
        fix="@keras.saving.register_keras_serializable() on WarmUp, or custom_objects={'WarmUp': WarmUp}",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. ...
    #   Exception encountered: Error when deserializing class 'Dense' ... Exception encountered: Could not interpret
    #   regularizer identifier: {'module': 'builtins', 'class_name': 'function', 'config': 'l1_sparsity', ...}
    Case(
        name="load_model_with_a_custom_regularizer_function",
        family="saving",
        code="""
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "model.keras")

        def l1_sparsity(w):
            return 1e-4 * tf.reduce_sum(tf.abs(w))

        model = keras.Sequential([
            keras.Input((4,)),
            keras.layers.Dense(8, kernel_regularizer=l1_sparsity),
            keras.layers.Dense(1),
        ])
        model.compile("adam", "mse")
        model.save(path)
        reloaded = keras.models.load_model(path)
        """,
        expect="C05",
        must=("l1_sparsity",),
        fix="custom_objects={'l1_sparsity': l1_sparsity} (or register it with @keras.saving.register_keras_serializable())",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. ...
    #   Exception encountered: Could not locate class 'Gated'. Make sure custom classes and functions are decorated
    #   with `@keras.saving.register_keras_serializable()`. ...
    Case(
        name="model_from_json_with_an_unregistered_custom_layer",
        family="saving",
        code="""
        class Gated(keras.layers.Layer):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units
                self.value = keras.layers.Dense(units)
                self.gate = keras.layers.Dense(units, activation="sigmoid")

            def call(self, x):
                return self.value(x) * self.gate(x)

            def get_config(self):
                return {**super().get_config(), "units": self.units}

        model = keras.Sequential([keras.Input((4,)), Gated(8), keras.layers.Dense(1)])
        architecture = model.to_json()
        rebuilt = keras.models.model_from_json(architecture)
        """,
        expect="C05",
        must=("gated",),
        must_not=("from_config",),
        fix="keras.models.model_from_json(architecture, custom_objects={'Gated': Gated}) or register Gated",
    ),
    # NotImplementedError: Object Residual was created by passing non-serializable argument values in `__init__()`,
    #   and therefore the object must override `get_config()` in order to be serializable. Please implement `get_config()`.
    Case(
        name="clone_model_of_a_subclassed_model_for_an_ensemble",
        family="saving",
        code="""
        class Residual(keras.Model):
            def __init__(self, units, **kwargs):
                super().__init__(**kwargs)
                self.units = units
                self.dense = keras.layers.Dense(units)

            def call(self, x):
                return x + self.dense(x)

        base = Residual(4)
        base(np.zeros((1, 4)))
        members = [keras.models.clone_model(base) for _ in range(3)]
        """,
        expect=None,
        must_not=("register_keras_serializable",),
        unexplained="Keras names the class (Residual) and says to implement get_config(), with an example",
        fix="def get_config(self): return {**super().get_config(), 'units': self.units}",
    ),
    # TypeError: <class 'RecallAt'> could not be deserialized properly. ...
    #   Exception encountered: RecallAt.__init__() missing 1 required positional argument: 'threshold'
    Case(
        name="custom_metric_without_get_config_for_its_threshold",
        family="saving",
        code="""
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "model.keras")

        class RecallAt(keras.metrics.Metric):
            def __init__(self, threshold, name="recall_at", **kwargs):
                super().__init__(name=name, **kwargs)
                self.threshold = threshold
                self.tp = self.add_weight(name="tp", initializer="zeros")
                self.pos = self.add_weight(name="pos", initializer="zeros")

            def update_state(self, y_true, y_pred, sample_weight=None):
                y_true = tf.cast(y_true, tf.float32)
                hit = tf.cast(y_pred > self.threshold, tf.float32)
                self.tp.assign_add(tf.reduce_sum(y_true * hit))
                self.pos.assign_add(tf.reduce_sum(y_true))

            def result(self):
                return self.tp / (self.pos + 1e-7)

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
        model.compile("adam", "binary_crossentropy", metrics=[RecallAt(0.3)])
        model.fit(np.random.rand(8, 4), np.random.randint(0, 2, (8, 1)), epochs=1, verbose=0)
        model.save(path)
        reloaded = keras.models.load_model(path, custom_objects={"RecallAt": RecallAt})
        """,
        expect="C05",
        must=("threshold", "get_config"),
        must_not=("register_keras_serializable",),
        fix="def get_config(self): return {**super().get_config(), 'threshold': self.threshold}",
    ),
]
