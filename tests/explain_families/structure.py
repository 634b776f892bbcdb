"""Family: what a layer is given against what it takes: how many tensors, what rank, which arguments.

APIs: a layer called on a list, a Sequential after an RNN with return_state=True,
layers that need a sequence axis an earlier layer removed, ``Lambda`` functions,
a multi-input layer's ``build``, ``ReduceLROnPlateau`` with a schedule (Keras'
own message states the fix: silence is right), Keras 2 arguments Keras 3 removed.
Evidence: the failing layer's class, the producer of its input, the function's
parameters and source, the argument the user passed.
"""

from __future__ import annotations

from tests.explain_corpus import Case

_CASES_MULTI = [
    Case(
        "dense_on_list",
        "structure",
        """
a = keras.Input((8,), name="numeric"); b = keras.Input((4,), name="category")
out = keras.layers.Dense(1)([a, b])
""",
        "S12",
        must=("concatenate",),
        must_not=("model.inputs",),
    ),
    Case(
        "lstm_return_state_sequential",
        "structure",
        """
m = keras.Sequential([keras.Input((10, 3)), keras.layers.LSTM(8, return_state=True), keras.layers.Dense(1)])
""",
        "S12",
        must=("return_state",),
        must_not=("model.inputs", "concatenate"),
    ),
    Case(
        "conv_on_two",
        "structure",
        """
a = keras.Input((8, 8, 3)); b = keras.Input((8, 8, 3))
out = keras.layers.Conv2D(4, 3)([a, b])
""",
        "S12",
        must=("concatenate",),
        must_not=("model.inputs",),
    ),
    Case(
        "model_two_inputs_one_array",
        "structure",
        """
a = keras.Input((8,)); b = keras.Input((4,)); m = keras.Model([a, b], keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
m.predict(np.zeros((2, 12)), verbose=0)
""",
        "S12",
        must=("split",),
        must_not=("concatenate()",),
    ),
]

_CASES_RANK = [
    Case(
        "stacked_lstm",
        "structure",
        """
m = keras.Sequential([keras.Input((10, 3)), keras.layers.LSTM(8, name="first"), keras.layers.LSTM(4), keras.layers.Dense(1)])
""",
        "S01",
        must=("first", "return_sequences=true"),
        must_not=("reshape",),
    ),
    Case(
        "timedistributed_after_gru",
        "structure",
        """
m = keras.Sequential([keras.Input((10, 3)), keras.layers.GRU(8, name="enc"), keras.layers.TimeDistributed(keras.layers.Dense(2))])
""",
        "S01",
        must=("enc", "return_sequences=true"),
        must_not=("reshape",),
    ),
    Case(
        "conv1d_after_gap",
        "structure",
        """
m = keras.Sequential([keras.Input((20, 3)), keras.layers.Conv1D(8, 3), keras.layers.GlobalAveragePooling1D(name="gap"), keras.layers.Conv1D(4, 3)])
""",
        "S01",
        must=("gap",),
        must_not=("return_sequences",),
    ),
    Case(
        "lstm_on_a_flattened_sequence",
        "structure",
        """
m = keras.Sequential([keras.Input((10, 3)), keras.layers.Flatten(name="flat"), keras.layers.LSTM(4)])
""",
        "S01",
        must=("flat",),
        must_not=("return_sequences",),
    ),
    Case(
        "functional_stacked_gru",
        "structure",
        """
inp = keras.Input((12, 2)); h = keras.layers.GRU(8, name="g1")(inp); out = keras.layers.GRU(4)(h)
""",
        "S01",
        must=("g1", "return_sequences=true"),
        must_not=("reshape",),
    ),
    Case(
        "bidirectional_stack",
        "structure",
        """
m = keras.Sequential([keras.Input((10, 3)), keras.layers.Bidirectional(keras.layers.LSTM(8), name="bi"), keras.layers.LSTM(4)])
""",
        "S01",
        must=("bi", "return_sequences=true"),
        must_not=("reshape",),
    ),
    Case(
        "lstm_on_conv2d_maps",
        "structure",
        """
m = keras.Sequential([keras.Input((16, 16, 1)), keras.layers.Conv2D(4, 3, name="cv"), keras.layers.LSTM(4)])
""",
        "S01",
        must=("cv", "reshape"),
        must_not=("return_sequences",),
    ),
]

_CASES_MISC = [
    Case(
        "bilinear_build",
        "structure",
        """
class Pairwise(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 4))
    def call(self, inputs):
        return tf.matmul(inputs[0], self.w)
a = keras.Input((6,)); b = keras.Input((6,))
out = Pairwise(name="pairwise")([a, b])
""",
        "S01",
        must=("input_shape[0][-1]",),
        must_not=("flatten",),
    ),
    Case(
        "lambda_two_params",
        "structure",
        """
a = keras.Input((4,)); b = keras.Input((4,))
d = keras.layers.Lambda(lambda x, y: x * y)([a, b])
""",
        "S12",
        must=("list",),
        must_not=("output_shape=",),
    ),
    Case(
        "lambda_static_batch",
        "structure",
        """
inp = keras.Input((6,))
h = keras.layers.Lambda(lambda t: tf.reshape(t, (t.shape[0], 2, 3)))(inp)
""",
        "T02",
        must=("tf.shape",),
        must_not=("output_shape=",),
    ),
    Case(
        "reduce_lr_schedule",
        "structure",
        """
sched = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)
m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile(keras.optimizers.SGD(sched), "mse")
m.fit(np.zeros((8, 2)), np.zeros((8, 1)), epochs=2, verbose=0, callbacks=[keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=0)])
""",
        None,
    ),
]

_CASES_K2 = [
    Case(
        "period",
        "structure",
        """keras.callbacks.ModelCheckpoint("m.keras", period=5)""",
        "S12",
        must=("save_freq",),
    ),
    Case(
        "batch_input_shape",
        "structure",
        """keras.Sequential([keras.layers.LSTM(4, stateful=True, batch_input_shape=(4, 10, 1))])""",
        "S04",  # how to give the input shape (was expected as S12 when written)
        must=("batch_shape=(4, 10, 1)",),
    ),
    Case(
        "workers",
        "structure",
        """
m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
m.fit(np.zeros((4, 2)), np.zeros((4, 1)), workers=2, verbose=0)""",
        "S12",
        must=("pydataset",),
    ),
    Case(
        "nb_epoch",
        "structure",
        """
m = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)]); m.compile("adam", "mse")
m.fit(np.zeros((4, 2)), np.zeros((4, 1)), nb_epoch=2, verbose=0)""",
        "S12",
        must=("epochs=",),
    ),
]

_CASES_SAMPLE_COUNT = [
    Case(
        "width_declared_as_len_of_the_data",
        "structure",
        """
        data = np.random.rand(50, 6).astype("float32")
        m = keras.Sequential([keras.Input((len(data),)), keras.layers.Dense(1)])
        m.compile("adam", "mse")
        m.fit(data, np.random.rand(50, 1).astype("float32"), epochs=1, verbose=0)
        """,
        "S12",
        must=("50", "shape[1]"),
        must_not=("flatten", "add an axis"),
    ),
    Case(
        "width_declared_as_rows_predict",
        "structure",
        """
        feats = np.random.rand(40, 3).astype("float32")
        m = keras.Sequential([keras.Input((feats.shape[0],)), keras.layers.Dense(2)])
        m.predict(feats, verbose=0)
        """,
        "S12",
        must=("40", "shape[1]"),
        must_not=("flatten", "add an axis"),
    ),
    Case(
        "wide_data_not_the_sample_count",
        "structure",
        """
        feats = np.random.rand(40, 3).astype("float32")
        m = keras.Sequential([keras.Input((5,)), keras.layers.Dense(2)])
        m.predict(feats, verbose=0)
        """,
        "S01",
        must=("5 features",),
        must_not=("sample", "shape[1]"),
    ),
]

CASES = _CASES_SAMPLE_COUNT + _CASES_MULTI + _CASES_RANK + _CASES_MISC + _CASES_K2
