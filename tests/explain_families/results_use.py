"""Family: using what Keras returns after training (results, history, logs).

API: ``Model.evaluate(x, y, return_dict=False)``, ``Model.fit(...)`` returning a
``keras.callbacks.History``, ``Model.metrics_names``, ``Model.get_metrics_result()``,
the ``logs`` dict a ``keras.callbacks.Callback`` receives in ``on_epoch_end(epoch,
logs)``, ``Model.predict`` of a multi-output model, ``keras.callbacks.TerminateOnNaN``,
and the user's code that hands these objects to Python, NumPy or matplotlib.
Contract (Keras documentation): ``evaluate`` returns "Scalar test loss (if the model
has a single output and no metrics) or list of scalars (if the model has multiple
outputs and/or metrics)", or a dict keyed by metric name with ``return_dict=True``
(then there are no positions to index); ``fit`` returns a ``History`` object whose
``.history`` attribute is a dict of per-epoch lists, ``history.epoch`` the list of
epochs actually run (fewer than ``epochs`` when a callback stopped training); the keys
are ``'loss'`` and each metric's ``name`` (``metrics=["accuracy"]`` logs
``'accuracy'``, ``"acc"`` logs ``'acc'``; a metric object created without ``name=``
gets a name made unique in the session, so a second ``AUC()`` logs ``'auc_1'``), and
``'val_'`` + each of them only for the epochs on which validation ran (``validation_data``
or ``validation_split`` given, and only every ``validation_freq`` epochs); the same keys
reach a callback's ``logs`` in ``on_epoch_end``; in Keras 3 ``metrics_names`` is
``['loss', 'compile_metrics']`` once compiled (every compiled metric grouped under one
name) and ``[]`` before; ``predict`` of a model built with a list of outputs returns a
list of arrays in that order (a dict keyed by output name only for a dict of outputs).
Evidence a diagnosis could read at the failure: the object that was indexed, unpacked
or plotted (its type, length, keys), the model's compile config (loss, metrics and
their names, outputs and output names), the ``fit`` call (whether it had
``validation_data``/``validation_split``, ``validation_freq``, ``epochs``, callbacks),
the ``History`` (its keys, ``epoch``, and the logged loss values, finite or not), and
the user's failing line.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this family were read. Every case was run: the exception and the first line of its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "results_use"

CASES = [
    # TypeError: cannot unpack non-iterable float object
    # (compile has no metrics: evaluate returns the loss alone, a float)
    Case(
        "ru_evaluate_scalar_unpacked_as_loss_and_mae",
        FAMILY,
        """
x_train = np.random.rand(60, 5).astype("float32")
y_train = np.random.rand(60, 1).astype("float32")
x_test = np.random.rand(20, 5).astype("float32")
y_test = np.random.rand(20, 1).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x_train, y_train, epochs=1, verbose=0)
test_mse, test_mae = model.evaluate(x_test, y_test, verbose=0)
print(f"test MAE: {test_mae:.3f}")
""",
        "S12",
        must=("metrics",),
        must_not=("reshape", "validation"),
        fix='compile(..., metrics=["mae"]), or one value',
    ),
    # KeyError: 1
    # (return_dict=True gives {'accuracy': ..., 'loss': ...}: no positions)
    Case(
        "ru_evaluate_return_dict_indexed_by_position",
        FAMILY,
        """
x_train = np.random.rand(60, 6).astype("float32")
y_train = np.random.randint(0, 3, 60)
x_test = np.random.rand(15, 6).astype("float32")
y_test = np.random.randint(0, 3, 15)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, epochs=1, verbose=0)
scores = model.evaluate(x_test, y_test, verbose=0, return_dict=True)
print("Test accuracy: %.2f%%" % (scores[1] * 100))
""",
        "S12",
        must=("scores", "accuracy"),
        must_not=("add metrics", "compile_metrics"),
        fix='scores["accuracy"]',
    ),
    # KeyError: 'acc'
    # (metrics=["accuracy"] is logged as 'accuracy' / 'val_accuracy', not 'acc')
    Case(
        "ru_history_acc_key_for_accuracy_metric",
        FAMILY,
        """
x = np.random.rand(80, 10).astype("float32")
y = np.random.randint(0, 2, 80).astype("float32")
model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="rmsprop", loss="binary_crossentropy", metrics=["accuracy"])
history = model.fit(x, y, epochs=2, batch_size=16, validation_split=0.25, verbose=0)
acc = history.history["acc"]
val_acc = history.history["val_acc"]
epochs = range(1, len(acc) + 1)
""",
        "S12",
        must=("accuracy",),
        must_not=("no validation", "without validation"),
        fix='history.history["accuracy"] / ["val_accuracy"]',
    ),
    # KeyError: 'val_loss'
    # (fit got no validation_data / validation_split: only 'loss' and 'mae' are logged)
    Case(
        "ru_history_val_loss_without_validation",
        FAMILY,
        """
x_train = np.random.rand(64, 3).astype("float32")
y_train = (x_train @ np.array([[1.0], [-2.0], [0.5]], dtype="float32"))
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse", metrics=["mae"])
history = model.fit(x_train, y_train, epochs=3, batch_size=16, verbose=0)
best_epoch = int(np.argmin(history.history["val_loss"])) + 1
print("best epoch:", best_epoch)
""",
        "S12",
        must=("val_loss", "validation"),
        must_not=("'acc'", "return_dict"),
        fix="fit(..., validation_split=0.2) or validation_data",
    ),
    # TypeError: float() argument must be a string or a real number, not 'History'
    # (the History object itself handed to matplotlib, not history.history["loss"])
    Case(
        "ru_plot_history_object_itself",
        FAMILY,
        """
import matplotlib.pyplot as plt
x = np.random.rand(50, 8).astype("float32")
y = np.random.randint(0, 4, 50)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(x, y, epochs=3, validation_split=0.2, verbose=0)
plt.figure(figsize=(6, 4))
plt.plot(history, label="training loss")
plt.xlabel("epoch")
plt.legend()
""",
        "S12",
        must=("history.history",),
        must_not=("astype", "float32"),
        fix='plt.plot(history.history["loss"])',
    ),
    # KeyError: 'val_accuracy'
    # (validation_freq=2: validation runs only after epochs 2, 4, ...; epoch 1's logs
    # have no 'val_' keys although validation_data is given)
    Case(
        "ru_callback_logs_val_key_with_validation_freq",
        FAMILY,
        """
class BestEpoch(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.best, self.best_epoch = 0.0, None
    def on_epoch_end(self, epoch, logs=None):
        if logs["val_accuracy"] > self.best:
            self.best, self.best_epoch = logs["val_accuracy"], epoch

x_train = np.random.rand(64, 5).astype("float32")
y_train = np.random.randint(0, 2, 64).astype("float32")
x_val = np.random.rand(16, 5).astype("float32")
y_val = np.random.randint(0, 2, 16).astype("float32")
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
tracker = BestEpoch()
model.fit(x_train, y_train, validation_data=(x_val, y_val), validation_freq=2,
          epochs=4, verbose=0, callbacks=[tracker])
""",
        "S12",
        must=("validation_freq",),
        must_not=("without validation_data", "pass validation_data", "validation_split"),
        fix='logs.get("val_accuracy"), or validation_freq=1',
    ),
    # TypeError: list indices must be integers or slices, not str
    # (outputs given as a list: predict returns [price, category], not a dict)
    Case(
        "ru_predict_list_indexed_by_output_name",
        FAMILY,
        """
inp = keras.Input((12,), name="listing")
h = keras.layers.Dense(32, activation="relu")(inp)
price = keras.layers.Dense(1, name="price")(h)
category = keras.layers.Dense(4, activation="softmax", name="category")(h)
model = keras.Model(inp, [price, category])
model.compile("adam", loss=["mse", "sparse_categorical_crossentropy"])
x = np.random.rand(40, 12).astype("float32")
model.fit(x, [np.random.rand(40, 1).astype("float32"), np.random.randint(0, 4, 40)],
          epochs=1, verbose=0)
preds = model.predict(x[:5], verbose=0)
predicted_category = preds["category"].argmax(axis=-1)
""",
        "S12",
        must=("preds", "category"),
        must_not=("reshape", "expand_dims"),
        fix="preds[1] (or build the model with a dict of outputs)",
    ),
    # KeyError: 'accuracy'
    # (Keras 3: metrics_names is ['loss', 'compile_metrics'], so zip pairs the
    # accuracy value with 'compile_metrics'; keras-team/keras#20244)
    Case(
        "ru_metrics_names_zip_compile_metrics",
        FAMILY,
        """
x_train = np.random.rand(60, 4).astype("float32")
y_train = np.random.randint(0, 2, 60).astype("float32")
x_test = np.random.rand(20, 4).astype("float32")
y_test = np.random.randint(0, 2, 20).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy", keras.metrics.Precision()])
model.fit(x_train, y_train, epochs=1, verbose=0)
results = dict(zip(model.metrics_names, model.evaluate(x_test, y_test, verbose=0)))
print("accuracy %.3f  precision %.3f" % (results["accuracy"], results["precision"]))
""",
        "S12",
        must=("compile_metrics", "return_dict"),
        must_not=("validation", "add metrics"),
        fix="model.evaluate(..., return_dict=True)",
    ),
    # KeyError: 'val_auc'
    # (the build cell was run twice in the notebook: the second AUC() is named 'auc_1',
    # so History logs 'auc_1' / 'val_auc_1')
    Case(
        "ru_history_auc_key_renamed_on_rerun",
        FAMILY,
        """
keras.backend.clear_session()  # top of the notebook
x = np.random.rand(80, 6).astype("float32")
y = np.random.randint(0, 2, 80).astype("float32")
def make_model():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy", metrics=[keras.metrics.AUC()])
    return model
baseline = make_model()  # first run of the cell
model = make_model()     # cell run again after a tweak
history = model.fit(x, y, validation_split=0.25, epochs=2, verbose=0)
best_val_auc = max(history.history["val_auc"])
""",
        "S12",
        must=("auc_1",),
        must_not=("no validation", "without validation"),
        fix='AUC(name="auc"), or read history.history["val_auc_1"]',
    ),
    # IndexError: list index out of range
    # (the loss became inf in epoch 1 (SGD learning_rate=100 on unscaled targets):
    # TerminateOnNaN stopped training, so History holds 1 epoch, not 5)
    Case(
        "ru_terminate_on_nan_short_history_indexed",
        FAMILY,
        """
keras.utils.set_random_seed(0)
x = (np.random.rand(40, 4) * 100).astype("float32")
y = (np.random.rand(40, 1) * 1000).astype("float32")
EPOCHS = 5
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(keras.optimizers.SGD(learning_rate=100.0), "mse")
history = model.fit(x, y, epochs=EPOCHS, batch_size=8, validation_split=0.2, verbose=0,
                    callbacks=[keras.callbacks.TerminateOnNaN()])
print("final val loss:", history.history["val_loss"][EPOCHS - 1])
""",
        "G05",
        must=("terminateonnan",),
        must_not=("no validation", "without validation"),
        fix="lower the learning rate, scale x and y",
    ),
]
