"""Family: the arguments of ``Model.fit`` beyond ``x`` and ``y``, and the data's type.

API: ``Model.fit(x, y, batch_size, epochs, callbacks, validation_split,
validation_data, shuffle, class_weight, sample_weight, initial_epoch,
steps_per_epoch, validation_steps, ...)`` in Keras 3 on TensorFlow.  Contract, as
documented: ``x`` is an array (or a list of arrays, one per input, or a dict keyed by
the ``keras.Input`` names), a ``tf.data.Dataset``, a Python generator or a
``keras.utils.PyDataset``; with a dataset, generator or PyDataset the targets (and any
sample weights) come from the data itself, so ``y``, ``sample_weight`` and
``batch_size`` are not passed; ``validation_split`` works on arrays only;
``validation_data`` is a tuple ``(x_val, y_val)`` or ``(x_val, y_val,
val_sample_weight)`` (``x_val`` itself a list for a model with several inputs), or a
dataset that yields ``(x, y)`` pairs; ``sample_weight`` is an array with one weight per
sample (or per timestep), as many as ``x`` and ``y``; ``class_weight`` is a dict
``{int class id: weight}`` for a single output whose labels are class ids of shape
``(B,)``/``(B, 1)`` or one-hot rows (Keras turns it into one weight per sample by
looking up ``argmax`` of the label row; on a ``tf.data`` pipeline through a table of
``max(key) + 1`` entries, so every class id must have a key and the keys must be
Python ints); ``epochs``/``steps_per_epoch`` are ints.  Evidence a diagnosis can read
at the failure: each argument's value and type (tuple length and its elements' shapes,
dict keys and their types, array lengths), the data's type (array, dataset and its
``element_spec``, generator), the labels' shape and values (class ids present,
per-timestep or multi-hot labels), the model's inputs (names, auto-generated or given)
and outputs (units, activation), and the frame of ``fit`` at which it raised
(``class_weight`` map function, data adapter, loss).

Written from the Keras/TensorFlow documentation and user reports, before the rules
for this family were read.  Every case was run: the exception and the first line of
its message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "fit_arguments"

CASES = [
    # ValueError: Layer "functional" expects 2 named input(s) with keys ['img',
    # 'meta'], but it received 1 input tensors. Pass inputs as a dict, ...
    # (two-input model: validation_data written as a flat triple, so Keras takes
    # img_val as x, meta_val as y and y_val as sample_weight)
    Case(
        "fa_validation_data_flat_triple_two_inputs",
        FAMILY,
        """
img = np.random.rand(60, 8).astype("float32")
meta = np.random.rand(60, 3).astype("float32")
y = np.random.randint(0, 2, 60)
img_tr, img_val = img[:48], img[48:]
meta_tr, meta_val = meta[:48], meta[48:]
y_tr, y_val = y[:48], y[48:]
img_in = keras.Input((8,), name="img")
meta_in = keras.Input((3,), name="meta")
h = keras.layers.Concatenate()([img_in, meta_in])
out = keras.layers.Dense(1, activation="sigmoid")(h)
model = keras.Model([img_in, meta_in], out)
model.compile("adam", "binary_crossentropy")
model.fit([img_tr, meta_tr], y_tr, validation_data=(img_val, meta_val, y_val),
          epochs=1, verbose=0)
""",
        "S12",
        must=("validation_data", "meta_val"),
        must_not=("expand_dims", "batch axis"),
        fix="validation_data=([img_val, meta_val], y_val)",
    ),
    # ValueError: None values not supported.
    # (the validation dataset was built from the features only: it yields x, no y)
    Case(
        "fa_validation_dataset_without_labels",
        FAMILY,
        """
x = np.random.rand(64, 6).astype("float32")
y = np.random.randint(0, 2, 64)
x_train, x_val, y_train, y_val = x[:48], x[48:], y[:48], y[48:]
train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(48).batch(16)
val_ds = tf.data.Dataset.from_tensor_slices(x_val).batch(16)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
model.fit(train_ds, validation_data=val_ds, epochs=1, verbose=0)
""",
        "S12",
        must=("val_ds",),
        must_not=("fillna", "impute"),
        fix="from_tensor_slices((x_val, y_val))",
    ),
    # ValueError: Unrecognized data type: x=[[0.25 0.46 ...] ...] (of type <class
    # 'numpy.ndarray'>)
    # (a per-class mapping passed as sample_weight instead of class_weight)
    Case(
        "fa_sample_weight_dict_of_class_weights",
        FAMILY,
        """
x = np.random.rand(50, 4).astype("float32")
y = (np.random.rand(50) < 0.15).astype("int32")  # about 15% positives
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x, y, sample_weight={0: 1.0, 1: 6.0}, epochs=1, verbose=0)
""",
        "S12",
        must=("sample_weight", "class_weight"),
        must_not=("convert_to_tensor", "dataframe"),
        fix="class_weight={0: 1.0, 1: 6.0}",
    ),
    # ValueError: Data cardinality is ambiguous. Make sure all arrays contain the same
    # number of samples.'x' sizes: 48
    # (weights computed on all 60 rows, the model fitted on the first 48)
    Case(
        "fa_sample_weight_from_before_the_split",
        FAMILY,
        """
x = np.random.rand(60, 5).astype("float32")
y = np.random.randint(0, 2, 60)
row_weights = np.where(y == 1, 4.0, 1.0).astype("float32")
split = 48
x_train, y_train = x[:split], y[:split]
model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(x_train, y_train, sample_weight=row_weights, epochs=1, verbose=0)
""",
        "S12",
        must=("sample_weight", "60"),
        must_not=("drop_remainder",),
        fix="sample_weight=row_weights[:split]",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... Error in user-defined function passed to MapDataset ... indices[..] = 2 is
    # not in [0, 2) [[{{node GatherV2}}]]
    # (class_weight covers classes 0 and 1 only; the labels hold class 2 too; Keras'
    # class_weight map gathers from a table of max(key) + 1 = 2 weights)
    Case(
        "fa_class_weight_missing_a_class_on_dataset",
        FAMILY,
        """
x = np.random.rand(48, 4).astype("float32")
y = np.random.randint(0, 3, 48)  # classes 0, 1, 2
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(48).batch(8)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(ds, class_weight={0: 1.0, 1: 4.0}, epochs=1, verbose=0)
""",
        "S09",
        must=("class_weight",),
        must_not=("input_dim", "embedding"),
        fix="a weight for every class id: {0: 1.0, 1: 4.0, 2: 1.0}",
    ),
    # TypeError: 'numpy.float32' object cannot be interpreted as an integer
    # (class_weight keys taken from np.unique of float labels: numpy.float32 keys,
    # which Keras passes to range() when it builds the weight table for a dataset)
    Case(
        "fa_class_weight_float_keys_on_dataset",
        FAMILY,
        """
x = np.random.rand(60, 4).astype("float32")
y = (np.random.rand(60) < 0.2).astype("float32")  # label column stored as floats
classes, counts = np.unique(y, return_counts=True)
class_weight = dict(zip(classes, len(y) / (len(classes) * counts)))
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(60).batch(16)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(ds, class_weight=class_weight, epochs=1, verbose=0)
""",
        "S11",
        must=("class_weight", "float32"),
        must_not=("epochs", "steps_per_epoch"),
        fix="int keys: {int(k): w for k, w in class_weight.items()}",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... Incompatible shapes: [24,12] vs. [24]
    # [[{{node gradient_tape/compile_loss/sparse_categorical_crossentropy/mul/...}}]]
    # (sequence tagging: labels are one class id per timestep, (24, 12); class_weight
    # makes one weight per sample, (24,), from argmax over the time axis)
    Case(
        "fa_class_weight_per_timestep_labels",
        FAMILY,
        """
tokens = np.random.rand(24, 12, 6).astype("float32")
tags = np.random.randint(0, 3, (24, 12))  # one tag per timestep, tag 0 is frequent
model = keras.Sequential([keras.Input((12, 6)),
                          keras.layers.LSTM(8, return_sequences=True),
                          keras.layers.Dense(3, activation="softmax")])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(tokens, tags, class_weight={0: 0.2, 1: 1.0, 2: 1.0}, epochs=1, verbose=0)
""",
        "S07",
        must=("class_weight",),
        must_not=("return_sequences=false", "flatten"),
        fix="sample_weight of shape (24, 12) from the tag weights",
    ),
    # ValueError: Missing data for input "input_layer_6". You passed a data dictionary
    # with keys ['title', 'price']. Expected the following keys: ['input_layer_6', ...]
    # (the Inputs were never named; the dict is keyed by the user's feature names)
    Case(
        "fa_x_dict_keys_but_inputs_unnamed",
        FAMILY,
        """
title = np.random.rand(40, 16).astype("float32")
price = np.random.rand(40, 1).astype("float32")
y = np.random.randint(0, 2, 40)
title_in = keras.Input((16,))
price_in = keras.Input((1,))
h = keras.layers.Concatenate()([keras.layers.Dense(8, activation="relu")(title_in), price_in])
model = keras.Model([title_in, price_in], keras.layers.Dense(1, activation="sigmoid")(h))
model.compile("adam", "binary_crossentropy")
model.fit({"title": title, "price": price}, y, epochs=1, verbose=0)
""",
        "S12",
        must=("title",),
        must_not=("batch axis", "expand_dims"),
        fix='keras.Input((16,), name="title")',
    ),
    # ValueError: When providing `x` as a tf.data.Dataset, `y` should not be passed.
    # Instead, the targets should be included as part of the tf.data.Dataset.
    Case(
        "fa_y_passed_next_to_dataset",
        FAMILY,
        """
x_train = np.random.rand(48, 4).astype("float32")
y_train = np.random.randint(0, 2, 48)
train_ds = tf.data.Dataset.from_tensor_slices(x_train).shuffle(48).batch(16)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(train_ds, y_train, epochs=1, verbose=0)
""",
        None,
        unexplained="Keras' message says y must not be passed with a tf.data.Dataset and "
        "that the targets belong in the dataset: the fix is stated.",
        fix="from_tensor_slices((x_train, y_train))",
    ),
    # InvalidArgumentError: Graph execution error:
    # ... Error in user-defined function passed to MapDataset ... indices[..] = 4 is
    # not in [0, 2) [[{{node GatherV2}}]]
    # (multi-label, 5 sigmoid units: class_weight {0, 1} meant "weigh the positives",
    # Keras takes argmax of the multi-hot row (0..4) as the class id)
    Case(
        "fa_class_weight_on_multilabel_targets",
        FAMILY,
        """
x = np.random.rand(48, 6).astype("float32")
tags = (np.random.rand(48, 5) < 0.2).astype("float32")  # multi-hot, 5 tags
ds = tf.data.Dataset.from_tensor_slices((x, tags)).shuffle(48).batch(8)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(5, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
model.fit(ds, class_weight={0: 1.0, 1: 8.0}, epochs=1, verbose=0)
""",
        "S09",
        must=("class_weight",),
        must_not=("input_dim", "sparse_categorical"),
        fix="weigh positives in the loss or pass per-sample weights",
    ),
]
