"""Family ``callbacks_and_checkpoints``: Keras callbacks and checkpoint files used against their contract.

APIs: ``keras.callbacks.ModelCheckpoint`` (``filepath`` must end in ``.keras`` for a whole
model and in ``.weights.h5`` with ``save_weights_only=True``; named fields such as
``{val_loss:.2f}`` are filled from the epoch's ``logs``, so they must be keys that are
logged -- ``val_*`` keys exist only when ``fit`` gets ``validation_data`` or
``validation_split``), ``LearningRateScheduler`` (``schedule(epoch, lr)`` must return a
Python/NumPy float, not a tensor), custom ``keras.callbacks.Callback`` subclasses (hooks
such as ``on_epoch_end(self, epoch, logs)``; ``logs`` holds the names Keras logs, e.g.
``"accuracy"``/``"val_accuracy"`` in Keras 3, not the Keras 2 ``"acc"``/``"val_acc"``;
``self.model`` is the model being trained and ``self.model.predict`` needs a batch axis;
there is no ``self.validation_data`` in Keras 3), ``fit(callbacks=[...])`` (a list of
callback *instances*) and ``keras.models.load_model`` of a checkpoint holding a custom
layer (needs ``@keras.saving.register_keras_serializable()`` or ``custom_objects`` and a
``get_config`` with every constructor argument).

Evidence a diagnosis needs: the callback that failed and the hook it failed in, the keys
actually present in ``logs`` (and whether ``fit`` had validation data), the object the
callback returned or received (a tensor from a schedule, a class instead of an instance,
a single example instead of a batch), and, for a checkpoint that does not load back, the
custom class and the constructor argument its config lacks.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_BINARY = """
x = np.random.rand(16, 5).astype("float32")
y = np.random.randint(0, 2, 16)
model = keras.Sequential([
    keras.Input((5,)),
    keras.layers.Dense(8, activation="relu"),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
"""

CASES = [
    # ValueError: When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided
    #   must end in `.weights.h5` (Keras weights format). Received: filepath=/tmp/.../best_model.keras
    Case(
        name="weights_only_checkpoint_to_a_dot_keras_file",
        family="callbacks_and_checkpoints",
        code=_BINARY
        + """
import os, tempfile
ckpt_dir = tempfile.mkdtemp()
ckpt = keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "best_model.keras"), save_weights_only=True)
model.fit(x, y, epochs=1, verbose=0, callbacks=[ckpt])
""",
        expect=None,
        unexplained="the message says the filepath must end in .weights.h5 with save_weights_only=True",
        fix='filepath "best_model.weights.h5"',
    ),
    # KeyError: 'Failed to format this callback filepath: "/tmp/.../ckpt-{epoch:02d}-{val_loss:.3f}.keras".
    #   Reason: \'val_loss\''
    Case(
        name="checkpoint_filename_with_val_loss_and_no_validation_data",
        family="callbacks_and_checkpoints",
        code=_BINARY
        + """
import os, tempfile
ckpt_dir = tempfile.mkdtemp()
ckpt = keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "ckpt-{epoch:02d}-{val_loss:.3f}.keras"))
model.fit(x, y, epochs=1, verbose=0, callbacks=[ckpt])
""",
        expect="S12",
        must=("validation",),
        must_not=(".weights.h5",),
        fix="fit(..., validation_data=(x_val, y_val)) or {loss:.3f} in the filename",
    ),
    # KeyError: 'val_acc'
    Case(
        name="custom_callback_reads_keras2_val_acc_key",
        family="callbacks_and_checkpoints",
        code=_BINARY
        + """
class StopWhenGood(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        if logs["val_acc"] >= 0.95:
            self.model.stop_training = True
model.fit(x, y, validation_data=(x, y), epochs=1, verbose=0, callbacks=[StopWhenGood()])
""",
        expect="S12",
        must=("val_accuracy",),
        must_not=("pass validation_data", "validation_split"),
        fix='logs["val_accuracy"]',
    ),
    # InvalidArgumentError: {{function_node __wrapped__Pack_N_2_device_...}} Shapes of all inputs must match:
    #   values[0].shape = [12,3] != values[1].shape = [12] [Op:Pack] name: stack
    Case(
        name="confusion_matrix_callback_with_one_hot_true_labels",
        family="callbacks_and_checkpoints",
        code="""
x = np.random.rand(12, 4).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 3, 12), 3)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "categorical_crossentropy")
class Confusion(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        pred = np.argmax(self.model.predict(x, verbose=0), axis=1)
        self.cm = tf.math.confusion_matrix(y, pred, num_classes=3)
model.fit(x, y, epochs=1, verbose=0, callbacks=[Confusion()])
""",
        expect="S07",
        must=("confusion_matrix",),
        must_not=("sparse_categorical_crossentropy",),
        fix="tf.math.confusion_matrix(np.argmax(y, axis=1), pred)",
    ),
    # ValueError: Exception encountered when calling Conv2D.call().
    #   ... Negative dimension size caused by subtracting 3 from 1 for '{{node .../conv2d_1/convolution}} ...
    Case(
        name="callback_predicts_on_one_image_without_batch_axis",
        family="callbacks_and_checkpoints",
        code="""
imgs = np.random.rand(10, 8, 8, 1).astype("float32")
labels = np.random.randint(0, 2, 10)
model = keras.Sequential([
    keras.Input((8, 8, 1)),
    keras.layers.Conv2D(4, 3),
    keras.layers.Flatten(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
class ShowSample(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        p = self.model.predict(imgs[0], verbose=0)
        print(f"epoch {epoch}: p(first)={p[0, 0]:.3f}")
model.fit(imgs, labels, epochs=1, verbose=0, callbacks=[ShowSample()])
""",
        expect="S12",
        must=("batch",),
        must_not=("padding",),
        fix="self.model.predict(imgs[:1])",
    ),
    # TypeError: <class 'keras.src.models.sequential.Sequential'> could not be deserialized properly.
    #   Please ensure that components that are Python object instances ... are explicitly deserialized ...
    Case(
        name="best_checkpoint_with_unregistered_scale_layer_reloaded",
        family="callbacks_and_checkpoints",
        code="""
import os, tempfile
class Scale(keras.layers.Layer):
    def __init__(self, factor, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor
    def call(self, x):
        return x * self.factor
x = np.random.rand(8, 3).astype("float32")
y = np.random.rand(8, 1).astype("float32")
model = keras.Sequential([keras.Input((3,)), Scale(2.0), keras.layers.Dense(1)])
model.compile("adam", "mse")
best_path = os.path.join(tempfile.mkdtemp(), "scale_best.keras")
model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.ModelCheckpoint(best_path)])
restored = keras.models.load_model(best_path)
""",
        expect="C05",
        must=("scale",),
        must_not=("from_config",),
        fix="register Scale (register_keras_serializable), get_config with factor, or custom_objects",
    ),
    # ValueError: The output of the `schedule` function should be a float. Got: 0.0009048374486155808
    Case(
        name="learning_rate_schedule_returning_a_tf_exp_tensor",
        family="callbacks_and_checkpoints",
        code=_BINARY
        + """
def scheduler(epoch, lr):
    if epoch < 1:
        return lr
    return lr * tf.math.exp(-0.1)
model.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.LearningRateScheduler(scheduler)])
""",
        expect="S11",
        must=("schedule",),
        must_not=("tf.cast",),
        fix="return float(lr * tf.math.exp(-0.1)) (or lr * math.exp(-0.1))",
    ),
    # TypeError: Callback.set_model() missing 1 required positional argument: 'model'
    Case(
        name="callback_class_passed_instead_of_an_instance",
        family="callbacks_and_checkpoints",
        code=_BINARY
        + """
model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN])
""",
        expect="S12",
        must=("terminateonnan",),
        must_not=("set_model(",),
        fix="callbacks=[keras.callbacks.TerminateOnNaN()]",
    ),
]
