"""Family: callbacks, checkpoints, saving and loading.

The APIs and their documented contract:

- ``keras.callbacks.ModelCheckpoint(filepath, monitor="val_loss", save_best_only=False,
  save_weights_only=False, mode="auto", ...)``: with ``save_weights_only=True`` the filepath
  must end in ``.weights.h5`` (it calls ``model.save_weights``); otherwise it saves the whole
  model (``model.save``), whose filepath ends in ``.keras`` (or legacy ``.h5``).  ``filepath``
  may hold ``{epoch}`` and log keys (``{val_loss:.2f}``).  ``monitor`` names a key of the
  epoch ``logs``: ``loss``, the compiled metrics' names (``accuracy``), and their ``val_``
  forms, which exist only when ``fit`` gets ``validation_data`` / ``validation_split``.
- ``fit(validation_data=...)`` takes ``(x_val, y_val)`` or ``(x_val, y_val, sample_weight)``
  or a dataset yielding ``(x, y)``; note that ``(x_val)`` in parentheses is NOT a tuple.
- ``EarlyStopping(monitor, patience, restore_best_weights)``, ``ReduceLROnPlateau(monitor,
  factor, patience, min_delta)``: the latter sets ``model.optimizer.learning_rate``, which is
  only settable when the optimizer was built with a float learning rate, not a
  ``LearningRateSchedule``.
- ``CSVLogger``, ``TensorBoard``, ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)``,
  and ``keras.callbacks.Callback`` subclasses: hooks ``on_epoch_end(self, epoch, logs)``
  etc. receive a ``logs`` dict; ``self.model`` is the model being trained, so code inside a
  callback obeys the model's own contract (``self.model.predict`` needs a batch axis like
  any ``predict``).
- Saving / loading: ``model.save("m.keras")`` and ``keras.saving.load_model(path,
  custom_objects=None, compile=True, safe_mode=True)``.  Custom layers, losses and metrics are
  found by their registered name: decorate with
  ``@keras.saving.register_keras_serializable()`` or pass ``custom_objects={"Name": cls}``;
  ``from_config`` calls ``cls(**get_config())``, so ``__init__`` must accept every key of
  ``get_config()`` (its own arguments and the base ones such as ``name``, ``trainable``,
  ``dtype``: accept ``**kwargs`` and pass them to ``super().__init__``).
  ``model.save_weights("w.weights.h5")`` / ``model.load_weights(...)``: loading needs a
  model whose variables exist (built from an ``Input`` or by calling it / ``build``) and
  match the saved ones.

Evidence a diagnosis needs to name the cause: the class or function the loader could not
find (and whether it is registered), the constructor argument ``from_config`` passed that
``__init__`` refuses, whether the target model is built (has an input shape), what
structure ``validation_data`` really has, and what the callback passed to ``self.model``.
"""

from tests.explain_corpus import Case

CASES = [
    # ValueError: When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in `.weights.h5` (Keras weights format). Received: filepath=checkpoints/best.keras
    Case(
        name="f23_weights_only_checkpoint_named_dot_keras",
        family="callbacks_and_checkpoints",
        code="""
x = np.random.rand(64, 8).astype("float32")
y = np.random.randint(0, 2, 64)
model = keras.Sequential([
    keras.Input(shape=(8,)),
    keras.layers.Dense(16, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
ckpt = keras.callbacks.ModelCheckpoint(
    "checkpoints/best.keras", monitor="val_accuracy", mode="max",
    save_best_only=True, save_weights_only=True,
)
model.fit(x, y, epochs=2, validation_split=0.25, callbacks=[ckpt], verbose=0)
""",
        expect=None,
        must_not=("register_keras_serializable", "custom_objects"),
        unexplained="Keras' message says the filepath must end in `.weights.h5` when save_weights_only=True",
        fix="filepath 'checkpoints/best.weights.h5' (or save_weights_only=False)",
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f23_best_checkpoint_reload_with_unregistered_layer",
        family="callbacks_and_checkpoints",
        code="""
class ScaleBy(keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
    def call(self, x):
        return x * self.factor
    def get_config(self):
        return {**super().get_config(), "factor": self.factor}

x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
inp = keras.Input(shape=(4,))
model = keras.Model(inp, keras.layers.Dense(1)(ScaleBy(3.0)(inp)))
model.compile(optimizer="adam", loss="mse")
ckpt = keras.callbacks.ModelCheckpoint("best_scaled.keras", monitor="loss", save_best_only=True)
model.fit(x, y, epochs=1, callbacks=[ckpt], verbose=0)
best = keras.saving.load_model("best_scaled.keras")
""",
        expect="C05",
        must=("scaleby",),
        must_not=("safe_mode",),
        fix="@keras.saving.register_keras_serializable() on ScaleBy, or custom_objects={'ScaleBy': ScaleBy}",
    ),
    # TypeError: <class 'keras.src.models.functional.Functional'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f23_registered_layer_init_refuses_base_config",
        family="callbacks_and_checkpoints",
        code="""
@keras.saving.register_keras_serializable(package="demo")
class Shift(keras.layers.Layer):
    def __init__(self, offset):
        super().__init__()
        self.offset = offset
    def call(self, x):
        return x + self.offset
    def get_config(self):
        config = super().get_config()
        config["offset"] = self.offset
        return config

inp = keras.Input(shape=(3,))
model = keras.Model(inp, keras.layers.Dense(2)(Shift(1.0)(inp)))
model.save("shifted.keras")
restored = keras.saving.load_model("shifted.keras")
""",
        expect="C05",
        must=("kwargs",),
        must_not=("custom_objects",),
        fix="def __init__(self, offset, **kwargs): super().__init__(**kwargs)",
    ),
    # TypeError: Could not locate function 'weighted_mse'. Make sure custom classes and functions are decorated with `@keras.saving.register_keras_serializable()`. If they are already decorated, make sure they are all imported so that the decorator is run before trying to load them. Full object config: ...
    Case(
        name="f23_reload_model_compiled_with_custom_loss_fn",
        family="callbacks_and_checkpoints",
        code="""
def weighted_mse(y_true, y_pred):
    return keras.ops.mean(2.0 * keras.ops.square(y_true - y_pred), axis=-1)

x = np.random.rand(32, 5).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
ckpt = keras.callbacks.ModelCheckpoint("regressor.keras", monitor="loss", save_best_only=True)
model.fit(x, y, epochs=1, callbacks=[ckpt], verbose=0)
reloaded = keras.saving.load_model("regressor.keras")
""",
        expect="C05",
        must=("weighted_mse",),
        must_not=("safe_mode", "get_config"),
        fix="load_model(..., custom_objects={'weighted_mse': weighted_mse}) or register the function",
    ),
    # ValueError: You are loading weights into a model that has not yet been built. Try building the model first by calling it on some data or by using `build()`.
    Case(
        name="f23_load_checkpoint_weights_into_unbuilt_copy",
        family="callbacks_and_checkpoints",
        code="""
x = np.random.rand(64, 8).astype("float32")
y = np.random.randint(0, 2, 64)
def make(first=()):
    m = keras.Sequential([*first, keras.layers.Dense(4, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
    m.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    return m
model = make([keras.Input(shape=(8,))])
ckpt = keras.callbacks.ModelCheckpoint("clf.weights.h5", save_weights_only=True)
model.fit(x, y, epochs=1, callbacks=[ckpt], verbose=0)
fresh = make()
fresh.load_weights("clf.weights.h5")
""",
        expect="S04",
        must=("input",),
        must_not=("custom_objects",),
        fix="give the new model keras.Input(shape=(8,)) (or build it) before load_weights",
    ),
    # ValueError: Exception encountered when calling Sequential.call().  (... Expected shape (None, 8), but input has incompatible shape (8,))
    Case(
        name="f23_callback_predicts_one_sample_each_epoch",
        family="callbacks_and_checkpoints",
        code="""
class ShowPrediction(keras.callbacks.Callback):
    def __init__(self, sample):
        super().__init__()
        self.sample = sample
    def on_epoch_end(self, epoch, logs=None):
        p = self.model.predict(self.sample, verbose=0)
        print(f"epoch {epoch}: loss={logs['loss']:.3f} p={p}")

x = np.random.rand(64, 8).astype("float32")
y = np.random.randint(0, 2, 64)
model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy")
model.fit(x, y, epochs=2, callbacks=[ShowPrediction(x[0])], verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("channel",),
        fix="keep the batch axis: ShowPrediction(x[:1])",
    ),
    # TypeError: This optimizer was created with a `LearningRateSchedule` object as its `learning_rate` constructor argument, hence its learning rate is not settable. ...
    Case(
        name="f23_reduce_lr_on_plateau_over_decay_schedule",
        family="callbacks_and_checkpoints",
        code="""
x = np.random.rand(64, 8).astype("float32")
y = np.random.rand(64, 1).astype("float32")
schedule = keras.optimizers.schedules.ExponentialDecay(1e-3, decay_steps=100, decay_rate=0.9)
model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=schedule), loss="mse")
plateau = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=0, min_delta=10.0)
model.fit(x, y, epochs=3, callbacks=[plateau], verbose=0)
""",
        expect=None,
        must_not=("register_keras_serializable", "batch size"),
        unexplained="Keras' message says the schedule makes the learning rate unsettable and to use a float learning_rate",
        fix="a float learning_rate with ReduceLROnPlateau, or drop the callback and keep the schedule",
    ),
    # ValueError: None values not supported.
    Case(
        name="f23_checkpoint_validation_data_in_parentheses",
        family="callbacks_and_checkpoints",
        code="""
x = np.random.rand(80, 8).astype("float32")
y = np.random.randint(0, 2, 80)
x_train, y_train, x_val = x[:64], y[:64], x[64:]
model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
callbacks = [
    keras.callbacks.ModelCheckpoint("best.keras", monitor="val_loss", save_best_only=True),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=3, restore_best_weights=True),
]
model.fit(x_train, y_train, epochs=2, validation_data=(x_val), callbacks=callbacks, verbose=0)
""",
        expect="S12",
        must=("validation_data",),
        must_not=("custom_objects", "expand_dims"),
        fix="validation_data=(x_val, y_val)",
    ),
]
