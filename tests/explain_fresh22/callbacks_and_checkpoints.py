"""Family ``callbacks_and_checkpoints``: callbacks, checkpoints, saving and loading.

The APIs and their documented contract (Keras 3):

- ``keras.callbacks.ModelCheckpoint(filepath, monitor="val_loss", save_best_only=False,
  save_weights_only=False, ...)``: with ``save_weights_only=True`` the ``filepath`` must end
  in ``.weights.h5``; otherwise in ``.keras`` (the constructor raises on a wrong suffix).
  ``filepath`` may hold format keys (``{epoch:02d}``, ``{val_loss:.2f}``) filled from the
  epoch's ``logs``.  ``monitor`` names a key of the logs: ``loss``, the compiled metrics by
  name (``accuracy``), and ``val_``-prefixed ones only when ``fit`` has validation data.
  ``EarlyStopping(monitor, patience, restore_best_weights)`` and
  ``ReduceLROnPlateau(monitor, factor, patience)`` read the same logs;
  ``CSVLogger(filename)``, ``TensorBoard(log_dir)`` write them.
- ``keras.callbacks.Callback`` subclasses override ``on_epoch_end(self, epoch, logs=None)``
  and friends; ``logs`` is a dict of floats; ``self.model`` is the model being trained, so
  ``self.model.predict``/``self.model(x)`` inside a callback obey the same rules as outside
  (a batch axis, class probabilities that need ``argmax`` before they are compared with
  class ids, a ``tf.GradientTape`` that must record the whole loss computation inside its
  ``with`` block).  ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)`` takes the same
  signatures.
- ``model.save(path)`` needs ``.keras`` (or legacy ``.h5``); ``model.save_weights(path)``
  needs ``.weights.h5``.  ``keras.saving.load_model(path, custom_objects=None,
  compile=True, safe_mode=True)`` rebuilds every object from its config: custom layers,
  losses and metrics must be registered (``@keras.saving.register_keras_serializable()``)
  or passed in ``custom_objects``; a custom layer's ``get_config`` must return every
  constructor argument (``from_config`` calls ``cls(**config)``); a ``Lambda`` with a
  Python lambda loads only with ``safe_mode=False``.  ``model.load_weights(path)`` needs
  a model whose variables exist: built (an ``Input``, ``build(shape)``, or a call on data).

What the framework raises, and the evidence a diagnosis needs to name the cause:

- ``load_model``'s top-level TypeError ("could not be deserialized properly ... explicitly
  deserialized in the model's from_config()") hides the real cause in the exception
  chain: ``Could not locate class 'X'`` (unregistered class -> C05: name the class, fix
  ``register_keras_serializable``/``custom_objects``) or ``__init__() missing 1 required
  positional argument: 'units'`` (incomplete ``get_config`` -> C05: name the argument);
- ``You are loading weights into a model that has not yet been built`` / a Sequential
  model without ``Input`` -> S04;
- errors raised inside a callback's own code: the callback method and the line; a
  confusion matrix over ``(N,)`` labels and ``(N, C)`` probabilities -> S07 (argmax the
  probabilities); a gradient that is None because the loss was computed after the tape's
  block -> T03; a single example passed to ``self.model.predict`` -> S12 (batch axis);
- the suffix checks of ``ModelCheckpoint`` and the ``Could not locate function`` message
  of ``load_model`` already say what to do.
"""

from tests.explain_corpus import Case

CASES = [
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f22_load_model_with_unregistered_custom_layer",
        family="callbacks_and_checkpoints",
        code="""
import os, tempfile

class ScaledDense(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = keras.layers.Dense(units)
    def call(self, x):
        return 2.0 * self.dense(x)
    def get_config(self):
        return {**super().get_config(), "units": self.units}

model = keras.Sequential([keras.Input((4,)), ScaledDense(3), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
path = os.path.join(tempfile.mkdtemp(), "scaled.keras")
model.save(path)
restored = keras.saving.load_model(path)
""",
        expect="C05",
        must=("scaleddense",),
        must_not=("from_config",),
        fix="@keras.saving.register_keras_serializable() or custom_objects={'ScaledDense': ScaledDense}",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly. Please ensure that components that are Python object instances (layers, models, etc.) returned by `get_config()` are explicitly deserialized in the model's `from_config()` method.
    Case(
        name="f22_registered_layer_get_config_drops_units",
        family="callbacks_and_checkpoints",
        code="""
import os, tempfile

@keras.saving.register_keras_serializable(package="demo")
class Gate(keras.layers.Layer):
    def __init__(self, units, activation="sigmoid", **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.proj = keras.layers.Dense(units, activation=activation)
    def call(self, x):
        return x[..., : self.units] * self.proj(x)
    def get_config(self):
        config = super().get_config()
        config.update({"activation": "sigmoid"})
        return config

model = keras.Sequential([keras.Input((6,)), Gate(4), keras.layers.Dense(1)])
path = os.path.join(tempfile.mkdtemp(), "gate.keras")
model.save(path)
restored = keras.saving.load_model(path)
""",
        expect="C05",
        must=("units",),
        must_not=("safe_mode",),
        fix="return 'units' from Gate.get_config",
    ),
    # TypeError: Could not locate function 'weighted_mse'. Make sure custom classes and functions are decorated with `@keras.saving.register_keras_serializable()`. If they are already decorated, make sure they are all imported so that the decorator is run before trying to load them. Full object config: {'module': 'builtins', 'class_name': 'function', 'config': 'weighted_mse', 'registered_name': 'function'}
    Case(
        name="f22_load_model_compiled_with_custom_loss_function",
        family="callbacks_and_checkpoints",
        code="""
import os, tempfile

def weighted_mse(y_true, y_pred):
    return tf.reduce_mean(3.0 * tf.square(y_true - y_pred))

x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=weighted_mse)
model.fit(x, y, epochs=1, verbose=0)
path = os.path.join(tempfile.mkdtemp(), "wmse.keras")
model.save(path)
restored = keras.saving.load_model(path)
""",
        expect=None,
        unexplained="the message names the function and says to decorate it with "
        "@keras.saving.register_keras_serializable()",
        must_not=("get_config",),
        fix="register weighted_mse or pass custom_objects={'weighted_mse': weighted_mse}",
    ),
    # ValueError: When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in `.weights.h5` (Keras weights format). Received: filepath=.../best.keras
    Case(
        name="f22_weights_only_checkpoint_with_keras_suffix",
        family="callbacks_and_checkpoints",
        code="""
import os, tempfile

x = np.random.rand(64, 8).astype("float32")
y = np.random.randint(0, 2, 64)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
ckpt = keras.callbacks.ModelCheckpoint(
    os.path.join(tempfile.mkdtemp(), "best.keras"),
    monitor="val_accuracy", save_best_only=True, save_weights_only=True,
)
model.fit(x, y, epochs=2, validation_split=0.25, callbacks=[ckpt], verbose=0)
""",
        expect=None,
        unexplained="the message says the filepath must end in .weights.h5 with "
        "save_weights_only=True",
        must_not=("val_accuracy",),
        fix="filepath ending in .weights.h5 (or drop save_weights_only)",
    ),
    # ValueError: You are loading weights into a model that has not yet been built. Try building the model first by calling it on some data or by using `build()`.
    Case(
        name="f22_load_weights_into_sequential_without_input",
        family="callbacks_and_checkpoints",
        code="""
import os, tempfile

def make_model(with_input):
    layers = [keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)]
    return keras.Sequential(([keras.Input((8,))] if with_input else []) + layers)

trained = make_model(with_input=True)
trained.compile(optimizer="adam", loss="mse")
path = os.path.join(tempfile.mkdtemp(), "best.weights.h5")
trained.save_weights(path)

fresh = make_model(with_input=False)
fresh.load_weights(path)
""",
        expect="S04",
        must=("input",),
        must_not=("custom_objects",),
        fix="give the new model keras.Input((8,)) (or fresh.build((None, 8))) before load_weights",
    ),
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_/job:localhost/replica:0/task:0/device:CPU:0}} Shapes of all inputs must match: values[0].shape = [20] != values[1].shape = [20,3] [Op:Pack] name: stack
    Case(
        name="f22_callback_confusion_matrix_of_probabilities",
        family="callbacks_and_checkpoints",
        code="""
x = np.random.rand(60, 4).astype("float32")
y = np.random.randint(0, 3, 60)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])

class ConfusionLogger(keras.callbacks.Callback):
    def __init__(self, x_val, y_val):
        super().__init__()
        self.x_val, self.y_val = x_val, y_val
    def on_epoch_end(self, epoch, logs=None):
        pred = self.model.predict(self.x_val, verbose=0)
        print(tf.math.confusion_matrix(self.y_val, pred, num_classes=3).numpy())

model.fit(x[:40], y[:40], epochs=1, verbose=0, callbacks=[ConfusionLogger(x[40:], y[40:])])
""",
        expect="S07",
        must=("argmax",),
        must_not=("reshape",),
        fix="pred.argmax(axis=1) before confusion_matrix",
    ),
    # ValueError: Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.
    Case(
        name="f22_callback_gradient_norms_loss_after_tape",
        family="callbacks_and_checkpoints",
        code="""
x = np.random.rand(64, 4).astype("float32")
y = np.random.rand(64, 1).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")

class GradNorms(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        with tf.GradientTape() as tape:
            pred = self.model(x[:16], training=False)
        loss = keras.losses.mean_squared_error(y[:16], pred)
        grads = tape.gradient(loss, self.model.trainable_variables)
        print(epoch, [float(tf.norm(g)) for g in grads])

model.fit(x, y, epochs=1, verbose=0, callbacks=[GradNorms()])
""",
        expect="T03",
        must=("with",),
        must_not=("trainable=", "persistent"),
        fix="compute the loss inside the GradientTape's with block",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    Case(
        name="f22_callback_predicts_one_sample_without_batch_axis",
        family="callbacks_and_checkpoints",
        code="""
x = np.random.rand(80, 8).astype("float32")
y = np.random.randint(0, 2, 80)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])

class WatchOneSample(keras.callbacks.Callback):
    def __init__(self, sample):
        super().__init__()
        self.sample = sample
    def on_epoch_end(self, epoch, logs=None):
        p = self.model.predict(self.sample, verbose=0)
        print(f"epoch {epoch}: p(sample) = {p}")

model.fit(x, y, epochs=1, verbose=0, callbacks=[WatchOneSample(x[0])])
""",
        expect="S12",
        must=("batch",),
        must_not=("input_shape=", "flatten"),
        fix="pass x[:1] (or x[0][None]) to keep the batch axis",
    ),
]
