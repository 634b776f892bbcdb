"""Family: Keras 2 / tf.keras-era code that breaks under Keras 3.

The documented changes (Keras 3 migration guide and API reference):
``Sequential.predict_classes`` is gone (``np.argmax(model.predict(x), -1)``,
or ``> 0.5`` for a sigmoid); a Python generator given to ``fit`` must yield a
tuple ``(x, y)``, not a list ``[x, y]``; ``save_weights`` writes only
``.weights.h5`` files (no TensorFlow checkpoint prefix such as ``cp.ckpt``);
layers no longer take ``batch_input_shape=`` (a stateful RNN gets its batch
size from ``keras.Input(batch_shape=(B, T, F))``); ``keras.losses.Reduction``
is gone (``reduction="sum"`` / ``"sum_over_batch_size"`` / ``None``);
``ModelCheckpoint(period=N)`` is gone (``save_freq`` in batches, or every
epoch); ``ModelCheckpoint`` of a full model writes ``.keras`` (the Keras 2
docs' ``weights.{epoch:02d}-{val_loss:.2f}.hdf5`` fails unless
``save_weights_only=True`` with ``.weights.h5``); ``keras.preprocessing.text``
(``Tokenizer``) is gone (``keras.layers.TextVectorization``).

The evidence a diagnosis needs: the Keras 2 name, argument or format the code
uses, that Keras 3 removed or changed it, and the Keras 3 replacement.  Most
of these have no catalog code: such a case is marked unexplained (a finding
there is generic at best) and its ``must_not`` catches advice that is wrong.
"""

from __future__ import annotations

from tests.explain_corpus import Case

CASES = [
    # AttributeError: 'Sequential' object has no attribute 'predict_classes'
    Case(
        name="predict_classes_of_a_keras2_tutorial",
        family="keras3",
        code="""
        x = np.random.rand(8, 4).astype("float32")
        model = keras.Sequential([
            keras.Input((4,)),
            keras.layers.Dense(3, activation="softmax"),
        ])
        classes = model.predict_classes(x)
        """,
        expect=None,
        must_not=("compile", "build the model"),
        unexplained="a removed Model method; no catalog code covers it, Python names the attribute",
        fix="np.argmax(model.predict(x), axis=-1)",
    ),
    # ValueError: When passing a Python generator to a Keras model, the generator must return a tuple, either
    #   (input,) or (inputs, targets) or (inputs, targets, sample_weights). Received: [array([[...
    Case(
        name="generator_yields_inputs_and_targets_as_a_list",
        family="keras3",
        code="""
        def batches():
            while True:
                yield [np.random.rand(8, 4).astype("float32"), np.random.rand(8, 1).astype("float32")]

        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(batches(), steps_per_epoch=2, epochs=1, verbose=0)
        """,
        expect=None,
        must_not=("steps_per_epoch", "batch the dataset"),
        unexplained="Keras says the generator must return a tuple (inputs, targets)",
        fix="yield x_batch, y_batch (a tuple)",
    ),
    # ValueError: The filename must end in `.weights.h5`. Received: filepath=/tmp/.../training_1/cp.ckpt
    Case(
        name="save_weights_to_a_tf_checkpoint_prefix",
        family="keras3",
        code="""
        import os, tempfile

        checkpoint_path = os.path.join(tempfile.mkdtemp(), "training_1", "cp.ckpt")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.save_weights(checkpoint_path)
        """,
        expect=None,
        must_not=("save_format", "h5py"),
        unexplained="Keras says the filename must end in .weights.h5",
        fix="model.save_weights('training_1/cp.weights.h5')",
    ),
    # ValueError: Unrecognized keyword arguments passed to LSTM: {'batch_input_shape': (4, 10, 1)}
    Case(
        name="stateful_lstm_declared_with_batch_input_shape",
        family="keras3",
        code="""
        model = keras.Sequential([
            keras.layers.LSTM(8, stateful=True, batch_input_shape=(4, 10, 1)),
            keras.layers.Dense(1),
        ])
        """,
        expect="S04",
        must=("batch_shape",),
        must_not=("return_sequences", "flatten"),
        fix="keras.Input(batch_shape=(4, 10, 1)) as the first entry, then LSTM(8, stateful=True)",
    ),
    # AttributeError: module 'keras.losses' has no attribute 'Reduction'
    Case(
        name="loss_reduction_enum_from_tf_keras",
        family="keras3",
        code="""
        per_example = keras.losses.MeanSquaredError(reduction=keras.losses.Reduction.NONE)
        """,
        expect=None,
        must_not=("custom_objects", "from_logits"),
        unexplained="a removed enum; no catalog code covers it, Python names the attribute",
        fix="keras.losses.MeanSquaredError(reduction=None) ('sum', 'sum_over_batch_size' are strings)",
    ),
    # TypeError: ModelCheckpoint.__init__() got an unexpected keyword argument 'period'
    Case(
        name="model_checkpoint_period_argument",
        family="keras3",
        code="""
        import os, tempfile

        path = os.path.join(tempfile.mkdtemp(), "model-{epoch:02d}.keras")
        checkpoint = keras.callbacks.ModelCheckpoint(path, period=5)
        """,
        expect=None,
        must_not=("save_format", "custom_objects"),
        unexplained="a removed callback argument; no catalog code covers it, Python names the argument",
        fix="save_freq='epoch' (or save_freq=N batches); filter epochs in a custom callback",
    ),
    # ValueError: The filepath provided must end in `.keras` (Keras model format).
    #   Received: filepath=/tmp/.../weights.{epoch:02d}-{val_loss:.2f}.hdf5
    Case(
        name="keras2_docs_checkpoint_to_an_hdf5_file",
        family="keras3",
        code="""
        import os, tempfile

        x = np.random.rand(16, 4).astype("float32")
        y = np.random.rand(16, 1).astype("float32")
        path = os.path.join(tempfile.mkdtemp(), "weights.{epoch:02d}-{val_loss:.2f}.hdf5")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(x, y, validation_split=0.25, epochs=1, verbose=0,
                  callbacks=[keras.callbacks.ModelCheckpoint(path)])
        """,
        expect=None,
        must_not=("save_format", "validation_split"),
        unexplained="Keras says the checkpoint filepath must end in .keras",
        fix="'model.{epoch:02d}-{val_loss:.2f}.keras' (or save_weights_only=True with .weights.h5)",
    ),
    # ModuleNotFoundError: No module named 'keras.preprocessing.text'
    Case(
        name="tokenizer_from_keras_preprocessing_text",
        family="keras3",
        code="""
        from keras.preprocessing.text import Tokenizer

        tokenizer = Tokenizer(num_words=1000, oov_token="<unk>")
        tokenizer.fit_on_texts(["the cat sat", "the dog ran"])
        """,
        expect=None,
        must_not=("custom_objects", "batch the dataset"),
        unexplained="a removed module; no catalog code covers it, Python names the module",
        fix="keras.layers.TextVectorization(max_tokens=1000).adapt(texts)",
    ),
]
