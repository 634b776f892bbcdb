"""Family: Keras 2 calls that Keras 3 changed, copied from TF2-era notebooks and tutorials.

APIs: ``RNN.get_initial_state`` / a cell's ``get_initial_state`` (Keras 2 took the
input tensor, Keras 3 takes ``batch_size``), ``Layer.add_weight`` (Keras 2's
first positional parameter was ``name``, Keras 3's is ``shape``), and the saving
calls whose paths Keras 3 requires to end in ``.keras`` / ``.weights.h5``,
``load_model`` of a SavedModel folder, and an optimizer's ``lr``.
Keras' own message names the fix for the saving calls, ``add_weight`` and
``load_model``: silence is right there (no generic line); for ``lr`` it
says only "Argument(s) not recognized".  Evidence: the failing call's API, the
argument given (a tensor where an int is taken), the signature of Keras 3.
Written before the rules were read (2026-12-03).  The removed methods
(``Metric.reset_states``, ``predict_classes``, ``fit_generator``; added
2026-12-04 with their rule) are S12 like the changed arguments: the call does
not fit what Keras 3 takes, and the finding names the Keras 3 call; an object
of the user's own class without the method gets nothing.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    Case(
        "gru_get_initial_state_of_the_inputs",
        "keras3_calls",
        """
gru = keras.layers.GRU(8, return_sequences=True, return_state=True)
x = tf.zeros((4, 5, 3))
state = gru.get_initial_state(x)
out = gru(x, initial_state=state)
""",
        "S12",
        must=("batch_size",),
        must_not=("reshape",),
    ),
    Case(
        "lstm_get_initial_state_of_the_inputs",
        "keras3_calls",
        """
lstm = keras.layers.LSTM(6, return_state=True)
inputs = np.zeros((2, 7, 3), "float32")
h, c = lstm.get_initial_state(inputs)
""",
        "S12",
        must=("batch_size",),
        must_not=("reshape",),
    ),
    Case(
        "cell_get_initial_state_inputs_keyword",
        "keras3_calls",
        """
cell = keras.layers.GRUCell(4)
x = tf.zeros((3, 2))
state = cell.get_initial_state(inputs=x, batch_size=3, dtype=tf.float32)
""",
        "S12",
        must=("batch_size",),
    ),
    Case(
        "add_weight_name_first",
        "keras3_calls",
        """
class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight("scale", shape=(input_shape[-1],), initializer="ones")
    def call(self, x):
        return x * self.w
Scale()(np.ones((2, 3), "float32"))
""",
        None,
        unexplained="Keras says: add_weight(shape=..., name=...)",
    ),
    Case(
        "add_weight_name_and_shape_positional",
        "keras3_calls",
        """
class Bias(keras.layers.Layer):
    def build(self, input_shape):
        self.b = self.add_weight("bias", (input_shape[-1],))
    def call(self, x):
        return x + self.b
Bias()(np.ones((2, 3), "float32"))
""",
        None,
        unexplained="Keras says: add_weight(shape=..., name=...)",
    ),
    Case(
        "checkpoint_weights_path_without_weights_h5",
        "keras3_calls",
        """
cb = keras.callbacks.ModelCheckpoint("ckpt/model_{epoch}", save_weights_only=True)
""",
        None,
        unexplained="Keras says the path must end in .weights.h5",
    ),
    Case(
        "model_save_to_a_folder",
        "keras3_calls",
        """
m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
m.save("exported_model")
""",
        None,
        unexplained="Keras names the .keras extension and model.export()",
    ),
    Case(
        "save_weights_h5",
        "keras3_calls",
        """
m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
m.save_weights("weights.h5")
""",
        None,
        unexplained="Keras says the filename must end in .weights.h5",
    ),
    Case(
        "optimizer_lr_keyword",
        "keras3_calls",
        """
opt = keras.optimizers.Adam(lr=1e-3)
""",
        "S12",
        must=("learning_rate=0.001",),
    ),
    Case(
        "optimizer_lr_keyword_inside_compile",
        "keras3_calls",
        """
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="softmax")])
m.compile(optimizer=keras.optimizers.SGD(lr=0.1, momentum=0.9), loss="categorical_crossentropy")
""",
        "S12",
        must=("learning_rate=0.1",),
    ),
    Case(
        "load_model_of_a_savedmodel_folder",
        "keras3_calls",
        """
import tempfile
folder = tempfile.mkdtemp()
tf.saved_model.save(tf.Module(), folder)
keras.models.load_model(folder)
""",
        None,
        unexplained="Keras names keras.layers.TFSMLayer for a SavedModel",
    ),
    Case(
        "metric_reset_states_of_keras2",
        "keras3_calls",
        """
acc = keras.metrics.SparseCategoricalAccuracy()
acc.update_state([0, 1], [[0.9, 0.1], [0.2, 0.8]])
acc.reset_states()
""",
        "S12",
        must=("acc.reset_state()",),
    ),
    Case(
        "model_predict_classes_of_keras2",
        "keras3_calls",
        """
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
labels = m.predict_classes(np.zeros((2, 4)))
""",
        "S12",
        must=("np.argmax(m.predict(x), axis=-1)",),
    ),
    Case(
        "fit_generator_of_keras2",
        "keras3_calls",
        """
m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
m.compile("adam", "mse")
def batches():
    while True:
        yield np.zeros((2, 4)), np.zeros((2, 1))
m.fit_generator(batches(), steps_per_epoch=2, epochs=1)
""",
        "S12",
        must=("m.fit(generator",),
    ),
    Case(
        "own_class_without_reset_states",
        "keras3_calls",
        """
class Counter:
    def reset(self):
        self.n = 0
c = Counter()
c.reset_states()
""",
        None,
        unexplained="the user's own class, not a Keras one: an ordinary AttributeError",
    ),
]
