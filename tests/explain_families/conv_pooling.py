"""Family: convolution and pooling layers beyond a plain Conv2D image classifier.

API: ``Conv1D`` on sequences / time series, ``Conv3D`` / ``MaxPooling3D`` on volumes or
video clips, ``SeparableConv2D``, ``Conv2DTranspose``, ``MaxPooling1D/2D``,
``GlobalAveragePooling1D/2D``, ``Flatten``, ``TimeDistributed(Conv2D)`` on frames, the
``data_format``, ``dilation_rate`` and ``groups`` arguments.  Contract (Keras
documentation): with the default ``data_format="channels_last"`` a ``ConvND`` /
``PoolingND`` layer takes a rank N+2 tensor ``(batch, *spatial, channels)``: ``Conv1D``
``(batch, steps, channels)``, ``Conv2D`` ``(batch, rows, cols, channels)``, ``Conv3D``
``(batch, depth, rows, cols, channels)``, ``TimeDistributed(Conv2D)`` ``(batch, time,
rows, cols, channels)``; the channel axis must be there even when it is 1, and images
stored ``(N, C, H, W)`` need ``data_format="channels_first"`` or a transpose.  With
``padding="valid"`` each spatial size shrinks to ``floor((n - (k - 1) * dilation - 1) /
stride) + 1`` and must stay >= 1 through the whole stack (a kernel, a pool or a dilated
kernel larger than what is left fails); ``Conv2DTranspose`` with ``padding="valid"``
grows a size to ``(n - 1) * stride + kernel``, not ``n * stride``; ``groups`` must divide
the input channels and ``filters``; ``Flatten`` needs every non-batch size known
(``Input((None, None, 3))`` needs global pooling instead) and folds the time axis of a
``TimeDistributed`` stack unless it is itself wrapped; ``predict`` takes a batch, so one
window needs its batch axis.  Evidence a diagnosis could read at the failure: each
layer's config (``kernel_size``, ``strides``, ``padding``, ``pool_size``,
``dilation_rate``, ``groups``, ``data_format``), the ``Input`` shape and where it came
from (``x.shape[1:]``), the data's shape and dtype, the chain of sizes through the layers
up to the failing one, the layer that produced the failing input, the loss's two shapes.

Written from the Keras/TensorFlow documentation and user reports, before the rules for
this family were read.  Every case was run: the exception and the first line of its
message are noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "conv_pooling"

CASES = [
    # ValueError: Input 0 with name 'None' of layer 'conv1d' is incompatible with the
    # layer: expected min_ndim=3, found ndim=2. Full shape received: (None, 128)
    # (univariate series: the Input is built from signals.shape[1:], no channel axis)
    Case(
        "cv_conv1d_univariate_series_no_channel_axis",
        FAMILY,
        """
signals = np.random.rand(48, 128).astype("float32")  # 48 ECG windows of 128 samples
labels = np.random.randint(0, 2, 48)
model = keras.Sequential([
    keras.Input(shape=signals.shape[1:]),
    keras.layers.Conv1D(16, 5, activation="relu"),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(signals, labels, epochs=1, verbose=0)
""",
        "S01",
        must=("signals",),
        must_not=("batch axis", "return_sequences", "channels_first"),
        fix="add the channel axis: signals[..., None], Input((128, 1))",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs
    # shape=(None, 3, 32)`, `kernel shape=(5, 32, 32)`, `dilation_rate=[1]`, ...
    # (24-step windows: conv 5 / pool 2 three times, 24 -> 20 -> 10 -> 6 -> 3 -> -1)
    Case(
        "cv_conv1d_pool_stack_outgrows_short_window",
        FAMILY,
        """
window = 24
x = np.random.rand(40, window, 3).astype("float32")
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([keras.Input((window, 3))])
for i in range(3):
    model.add(keras.layers.Conv1D(32, 5, activation="relu", name=f"conv{i}"))
    model.add(keras.layers.MaxPooling1D(2, name=f"pool{i}"))
model.add(keras.layers.GlobalAveragePooling1D())
model.add(keras.layers.Dense(1))
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
""",
        "S01",
        must=("conv2",),
        must_not=("batch axis", "data_format", "channels_first"),
        fix="padding='same', fewer pools, or longer windows",
    ),
    # ValueError: Exception encountered when calling MaxPooling2D.call().
    # Computed output size would be zero or negative. Received:
    # `inputs.shape=[None 1 30 16]`, `pool_size=[2 2]`, `strides=(2, 2)`, `padding=valid`.
    # (arrays exported channels-first (N, 3, 32, 32), read as 3 rows of 32 x 32 channels)
    Case(
        "cv_channels_first_array_default_data_format",
        FAMILY,
        """
images = np.random.rand(32, 3, 32, 32).astype("float32")  # saved from a PyTorch loader
labels = np.random.randint(0, 10, 32)
model = keras.Sequential([
    keras.Input(shape=images.shape[1:]),
    keras.layers.Conv2D(16, 3, activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.Conv2D(32, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(images, labels, epochs=1, verbose=0)
""",
        "S01",
        must=("images",),
        must_not=("batch axis", "padding='same'", 'padding="same"'),
        fix="np.transpose(images, (0, 2, 3, 1)) or data_format='channels_first'",
    ),
    # ValueError: Shapes used to initialize variables must be fully-defined (no `None`
    # dimensions). Received: shape=(None, 5) for variable path='sequential/dense/kernel'
    # (fully convolutional Input((None, None, 3)) closed with Flatten instead of pooling)
    Case(
        "cv_flatten_after_variable_size_input",
        FAMILY,
        """
model = keras.Sequential([
    keras.Input(shape=(None, None, 3)),
    keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
    keras.layers.MaxPooling2D(),
    keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
    keras.layers.Flatten(),
    keras.layers.Dense(5, activation="softmax"),
])
""",
        "S01",
        must=("flatten",),
        must_not=("batch axis", "padding=", "channel axis"),
        fix="GlobalAveragePooling2D() instead of Flatten()",
    ),
    # ValueError: Input 0 with name 'None' of layer 'lstm' is incompatible with the
    # layer: expected ndim=3, found ndim=2. Full shape received: (None, 10800)
    # (a bare Flatten after TimeDistributed(Conv2D) folds the 6 frames into one vector)
    Case(
        "cv_timedistributed_conv_bare_flatten_before_lstm",
        FAMILY,
        """
frames = np.random.rand(16, 6, 32, 32, 1).astype("float32")  # 16 clips of 6 frames
y = np.random.randint(0, 2, 16)
model = keras.Sequential([
    keras.Input(shape=frames.shape[1:]),
    keras.layers.TimeDistributed(keras.layers.Conv2D(8, 3, activation="relu")),
    keras.layers.TimeDistributed(keras.layers.MaxPooling2D()),
    keras.layers.Flatten(),
    keras.layers.LSTM(16),
    keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(frames, y, epochs=1, verbose=0)
""",
        "S01",
        must=("flatten",),
        must_not=("return_sequences", "batch axis", "channel axis"),
        fix="TimeDistributed(Flatten()) before the LSTM",
    ),
    # ValueError: The number of input channels must be evenly divisible by the number of
    # groups. Received groups=4, but the input has 3 channels (full input shape is
    # (None, 32, 32, 3)).
    Case(
        "cv_grouped_conv_on_rgb_input",
        FAMILY,
        """
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Conv2D(32, 3, groups=4, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        None,
        unexplained="Keras names groups=4 and the 3 input channels it must divide",
        fix="groups that divide the 3 input channels",
    ),
    # ValueError: Arguments `target` and `output` must have the same shape. Received:
    # target.shape=(16, 28, 28, 1), output.shape=(16, 31, 31, 1)
    # (decoder's Conv2DTranspose layers keep padding="valid": 7 -> 15 -> 31, not 28)
    Case(
        "cv_conv2dtranspose_valid_padding_decoder_31",
        FAMILY,
        """
images = np.random.rand(32, 28, 28, 1).astype("float32")
autoencoder = keras.Sequential([
    keras.Input((28, 28, 1)),
    keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu"),
    keras.layers.Conv2DTranspose(8, 3, strides=2, activation="relu"),
    keras.layers.Conv2DTranspose(16, 3, strides=2, activation="relu"),
    keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid"),
])
autoencoder.compile("adam", "binary_crossentropy")
autoencoder.fit(images, images, epochs=1, batch_size=16, verbose=0)
""",
        "S07",
        must=("31", "padding"),
        must_not=("sparse", "one-hot", "from_logits"),
        fix="padding='same' in the Conv2DTranspose layers",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs
    # shape=(None, 1, 15, 15, 8)`, `kernel shape=(3, 3, 3, 8, 16)`, ...
    # (clips of 4 frames: pool_size=2 also halves the time axis, 4 -> 2 -> 1)
    Case(
        "cv_maxpool3d_halves_four_frame_clips",
        FAMILY,
        """
clips = np.random.rand(12, 4, 32, 32, 1).astype("float32")  # 12 clips, 4 frames each
actions = np.random.randint(0, 3, 12)
model = keras.Sequential([
    keras.Input(shape=clips.shape[1:]),
    keras.layers.Conv3D(8, 3, activation="relu", name="block1_conv"),
    keras.layers.MaxPooling3D(pool_size=2, name="block1_pool"),
    keras.layers.Conv3D(16, 3, activation="relu", name="block2_conv"),
    keras.layers.MaxPooling3D(pool_size=2, name="block2_pool"),
    keras.layers.GlobalAveragePooling3D(),
    keras.layers.Dense(3, activation="softmax"),
])
model.compile("adam", "sparse_categorical_crossentropy")
model.fit(clips, actions, epochs=1, verbose=0)
""",
        "S01",
        must=("block2_conv",),
        must_not=("batch axis", "channel axis", "channels_first"),
        fix="pool_size=(1, 2, 2) or padding='same' on the frame axis",
    ),
    # ValueError: Computed output size would be zero or negative. Received `inputs
    # shape=(None, 6, 6, 64)`, `kernel shape=(3, 3, 64, 64)`, `dilation_rate=[4 4]`, ...
    # (dilation_rate=4 gives a 9 x 9 receptive field on a 6 x 6 map)
    Case(
        "cv_separable_conv_dilation_wider_than_map",
        FAMILY,
        """
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.SeparableConv2D(32, 3, activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.SeparableConv2D(64, 3, activation="relu"),
    keras.layers.MaxPooling2D(2),
    keras.layers.SeparableConv2D(64, 3, dilation_rate=4, activation="relu", name="context"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10, activation="softmax"),
])
""",
        "S01",
        must=("context", "dilation"),
        must_not=("batch axis", "channel axis", "channels_first"),
        fix="smaller dilation_rate or padding='same'",
    ),
    # ValueError: Exception encountered when calling Sequential.call().
    # Invalid input shape for input Tensor("data:0", shape=(32, 3), dtype=float32) ...
    # Expected shape (None, 50, 3), but input has incompatible shape (32, 3)
    # (one (50, 3) window passed to predict: Keras reads its 50 steps as the batch)
    Case(
        "cv_conv1d_predict_one_window_without_batch",
        FAMILY,
        """
x = np.random.rand(40, 50, 3).astype("float32")  # 40 windows, 50 steps, 3 sensors
y = np.random.rand(40, 1).astype("float32")
model = keras.Sequential([
    keras.Input((50, 3)),
    keras.layers.Conv1D(8, 5, activation="relu"),
    keras.layers.GlobalMaxPooling1D(),
    keras.layers.Dense(1),
])
model.compile("adam", "mse")
model.fit(x, y, epochs=1, verbose=0)
latest = x[-1]
model.predict(latest, verbose=0)
""",
        "S12",
        must=("latest",),
        must_not=("channel axis", "return_sequences", "flatten"),
        fix="model.predict(latest[None])",
    ),
]
