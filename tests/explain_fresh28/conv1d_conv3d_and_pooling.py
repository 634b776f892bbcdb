"""Family: Conv1D / Conv3D / separable and grouped convolutions, pooling, cropping and padding.

The APIs and their documented contract (``keras.layers``, Keras 3, ``channels_last``):

- ``Conv1D(filters, kernel_size, strides=1, padding="valid"|"same"|"causal", dilation_rate=1,
  groups=1)`` takes rank-3 input ``(batch, steps, channels)``: a signal of shape
  ``(batch, steps)`` needs a channel axis (``x[..., None]``), token ids need an ``Embedding``
  first, and a recurrent layer before it must return the whole sequence
  (``return_sequences=True``), not only its last state ``(batch, units)``.
  ``Conv2D``/``SeparableConv2D``/``DepthwiseConv2D``/``MaxPooling2D`` take rank 4
  ``(batch, h, w, channels)``; ``Conv3D``/``MaxPooling3D``/``GlobalAveragePooling3D`` rank 5
  ``(batch, depth, h, w, channels)``.  Sequences use the 1D variants (``SeparableConv1D``).
- Output length per spatial axis: ``valid``: ``floor((n - dilation*(k-1) - 1) / stride) + 1``;
  ``same``: ``ceil(n / stride)``; ``causal`` (Conv1D only) pads on the left and keeps ``n``.
  Pooling layers (``MaxPooling1D/2D/3D``, ``AveragePooling*``) default to ``strides=pool_size``
  and ``padding="valid"``: ``floor((n - pool) / pool) + 1``, so an odd size loses a row and a
  ``pool_size`` larger than what is left gives an output size of zero ("Computed output size
  would be zero or negative").  A 3D pool of ``2`` halves depth as well as height and width;
  ``pool_size=(1, 2, 2)`` keeps a shallow depth.  ``Global*Pooling*`` removes the step axes
  (rank 2 after ``GlobalMaxPooling1D``).
- ``groups`` splits the input channels: input channels and ``filters`` must both be divisible
  by ``groups``.  ``strides > 1`` cannot be combined with ``dilation_rate > 1``.
- Merging branches (``Concatenate``, ``Add``) needs equal sizes on every axis but the
  concatenation axis: branches with ``same`` and ``valid`` padding, or a skip connection across
  a pooling of an odd size followed by ``UpSampling`` (U-Net: 15 → 7 → 14), differ; the fixes are
  the same padding, an input size divisible by the total downsampling, or
  ``Cropping2D``/``ZeroPadding2D`` on one branch.
- ``predict``/``fit`` take batches: a single example (one volume ``(d, h, w, c)``, one signal)
  needs its batch axis (``x[None]``); Keras may otherwise read its first axis as the batch and
  pad a trailing axis, and a later layer fails ("Negative dimension size").

Evidence a diagnosis needs: the layer that failed and the rank or size it received, the layer
that produced that input (an ``LSTM`` without ``return_sequences``, a ``Global*Pooling``, an
``Input`` without a channel axis), the per-layer lengths along the path (where the size shrank:
``valid`` padding, kernel size, pooling, odd sizes), the branches' shapes at a merge, the data's
shape versus the model's input shape (a missing batch axis), and the argument that fixes it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "conv1d_conv3d_and_pooling"

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'conv1d' is incompatible with the layer: expected min_ndim=3, found ndim=2. Full shape received: (None, 128)
    Case(
        name="f28_conv1d_on_signals_without_channel_axis",
        family=FAMILY,
        code="""
signals = np.random.rand(32, 128).astype("float32")
labels = np.random.randint(0, 2, size=(32,))
model = keras.Sequential([
    keras.Input(shape=(128,)),
    keras.layers.Conv1D(8, 5, activation="relu"),
    keras.layers.GlobalMaxPooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(signals, labels, epochs=1, verbose=0)
""",
        expect="S01",
        must=("channel",),
        must_not=("return_sequences",),
        fix="keras.Input(shape=(128, 1)) and signals[..., None]",
    ),
    # ValueError: Input 0 with name 'None' of layer 'conv1d' is incompatible with the layer: expected min_ndim=3, found ndim=2. Full shape received: (None, 16)
    Case(
        name="f28_conv1d_after_lstm_last_state_only",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input(shape=(50, 3)),
    keras.layers.LSTM(16),
    keras.layers.Conv1D(8, 3, activation="relu"),
    keras.layers.GlobalMaxPooling1D(),
    keras.layers.Dense(1),
])
""",
        expect="S01",
        must=("return_sequences",),
        must_not=("expand_dims",),
        fix="LSTM(16, return_sequences=True)",
    ),
    # ValueError: Exception encountered when calling Conv3D.call().  (Negative dimension size caused by subtracting 3 from 1 ...)
    Case(
        name="f28_conv3d_predict_on_one_volume",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input(shape=(16, 16, 16, 1)),
    keras.layers.Conv3D(4, 3, activation="relu"),
    keras.layers.GlobalAveragePooling3D(),
    keras.layers.Dense(2),
])
volume = np.random.rand(16, 16, 16, 1).astype("float32")
model.predict(volume, verbose=0)
""",
        expect="S12",
        must=("batch",),
        must_not=("padding=",),
        fix="model.predict(volume[None])",
    ),
    # ValueError: Exception encountered when calling MaxPooling3D.call().  (Computed output size would be zero or negative. Received: `inputs.shape=[None 1 8 8 8]`, `pool_size=[2 2 2]` ...)
    Case(
        name="f28_maxpool3d_halves_shallow_clip_depth",
        family=FAMILY,
        code="""
clips = keras.Input(shape=(4, 32, 32, 1))
x = keras.layers.Conv3D(8, 3, padding="same")(clips)
x = keras.layers.MaxPooling3D(2)(x)
x = keras.layers.Conv3D(8, 3, padding="same")(x)
x = keras.layers.MaxPooling3D(2)(x)
x = keras.layers.Conv3D(8, 3, padding="same")(x)
x = keras.layers.MaxPooling3D(2)(x)
out = keras.layers.Dense(2)(keras.layers.GlobalAveragePooling3D()(x))
""",
        expect="S01",
        must=("pool_size",),
        must_not=("batch size",),
        fix="MaxPooling3D(pool_size=(1, 2, 2)) so the depth of 4 frames is not halved three times",
    ),
    # ValueError: The number of input channels must be evenly divisible by the number of groups. Received groups=2, but the input has 3 channels ...
    Case(
        name="f28_grouped_conv_on_rgb_input",
        family=FAMILY,
        code="""
model = keras.Sequential([
    keras.Input(shape=(32, 32, 3)),
    keras.layers.Conv2D(8, 3, groups=2),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10),
])
""",
        expect=None,
        unexplained=(
            "the message says the input channels must be divisible by `groups` and gives both "
            "numbers (groups=2, 3 channels)"
        ),
        fix="groups that divide 3 (1 or 3), or a first ungrouped Conv2D",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 64, 8), (None, 60, 8)]
    Case(
        name="f28_inception_branches_same_vs_valid_padding",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(64, 1))
a = keras.layers.Conv1D(8, 3, padding="same")(inp)
b = keras.layers.Conv1D(8, 5)(inp)
merged = keras.layers.Concatenate()([a, b])
out = keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(merged))
""",
        expect="S01",
        must=("padding",),
        must_not=("strides",),
        fix="padding='same' on the kernel-5 branch too",
    ),
    # ValueError: Input 0 with name 'None' of layer 'separable_conv2d' is incompatible with the layer: expected min_ndim=4, found ndim=3. Full shape received: (None, 100, 3)
    Case(
        name="f28_separable_conv2d_on_sensor_sequences",
        family=FAMILY,
        code="""
windows = np.random.rand(8, 100, 3).astype("float32")
model = keras.Sequential([
    keras.Input(shape=(100, 3)),
    keras.layers.SeparableConv2D(16, 3, activation="relu"),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(4),
])
""",
        expect="S01",
        must=("separableconv1d",),
        must_not=("expand_dims",),
        fix="keras.layers.SeparableConv1D(16, 3)",
    ),
    # ValueError: A `Concatenate` layer requires inputs with matching shapes except for the concatenation axis. Received: input_shape=[(None, 14, 14, 8), (None, 15, 15, 8)]
    Case(
        name="f28_unet_skip_after_odd_size_pooling",
        family=FAMILY,
        code="""
inp = keras.Input(shape=(30, 30, 1))
c1 = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(inp)
p1 = keras.layers.MaxPooling2D(2)(c1)
c2 = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(p1)
p2 = keras.layers.MaxPooling2D(2)(c2)
b = keras.layers.Conv2D(8, 3, padding="same", activation="relu")(p2)
u2 = keras.layers.UpSampling2D(2)(b)
d2 = keras.layers.Concatenate()([u2, c2])
""",
        expect="S01",
        must=("15",),
        must_not=("batch size",),
        fix="input size divisible by 4 (32x32), or ZeroPadding2D/Cropping2D to match 14 and 15",
    ),
]
