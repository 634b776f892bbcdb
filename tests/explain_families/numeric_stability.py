"""Family: numeric stability, a second pass: unstable code and the check that makes it raise.

API: the checks a user writes or turns on, and the places where a NaN or an Inf turns into
an exception: ``tf.debugging.enable_check_numerics()`` (every float op's output is checked;
the error names the first op that produced Inf/NaN, e.g. ``graph op "Log"``),
``tf.debugging.assert_all_finite(t, message)`` ("message : Tensor had NaN values"),
``keras.callbacks.TerminateOnNaN`` (stops ``fit`` at the first NaN/Inf batch loss and leaves
the NaN in ``history.history["loss"]``, which NumPy's ``nanargmin`` then rejects),
``np.testing.assert_allclose`` between two computations ("x and y nan location mismatch"),
``np.random.choice(n, p=probs)`` ("probabilities contain NaN"), ``int()``/``round()`` of a
NaN prediction ("cannot convert float NaN to integer"), ``tf.random.categorical`` (with NaN
logits it returns ``num_classes``, an index one past the end, so the user's lookup raises
``IndexError``), and the user's own ``assert np.isfinite(loss)`` / ``assert loss >= 0``.
Contract: the ops are total but not safe: ``log(0) = -inf`` and ``0 * -inf = NaN``;
``exp(x)`` overflows float32 above ~88.7; ``0 / 0 = NaN`` (a std or a count that is zero:
a constant column, a single-sample batch, an empty mask); the gradient of ``sqrt`` at 0 is
infinite, so a forward pass that is finite can still give NaN gradients; float16's largest
value is 65504, so a constant such as ``-1e9`` is ``-inf`` under ``mixed_float16``; SGD
diverges when the learning rate exceeds ~2 / the curvature; binary cross-entropy assumes
targets in [0, 1] (a 0/255 mask makes it unbounded below); missing CSV fields are read as
NaN.  The check is only the messenger: the cause lies upstream and is one of: the data
already hold NaN (N05), a layer produces the first non-finite value from finite inputs
(N01), the loss becomes non-finite (G05), a gradient becomes non-finite while the loss is
finite (G03), or the labels lie outside the loss's range (P12).  Evidence a diagnosis can
read: the check's message and the tensor or op it names, the step at which it fired (before
or after the first update), the user's code on the failing line and above it (``log``,
``exp``, ``/ x.std()``, ``sqrt``, ``-1e9``, ``learning_rate=``), the data in the namespace
(NaN counts per column, constant columns, the label range), the model's layers and their
outputs on the data, the optimizer's learning rate, and the dtype policy.

Written from the Keras/TensorFlow documentation and user reports, before the rules for this
family were read. Every case was run: the exception and the first line of its message are
noted above it.
"""

from __future__ import annotations

from tests.explain_corpus import Case

FAMILY = "numeric_stability"

CASES = [
    # InvalidArgumentError: Graph execution error: ... Detected at node
    # compile_loss/weighted_bce/Log/CheckNumericsV2 ... : Tensor had -Inf values
    # (Log or Log_1, depending on which side the initial sigmoid saturates)
    # (hand-written weighted BCE: sigmoid of raw dollar amounts is exactly 0.0 or 1.0,
    # log(1 - 1.0) = -inf at the first step; enable_check_numerics names the Log op)
    Case(
        "ns_hand_weighted_bce_log_of_saturated_sigmoid",
        FAMILY,
        """
def weighted_bce(y_true, y_pred):
    pos = 3.0 * y_true * tf.math.log(y_pred)
    neg = (1.0 - y_true) * tf.math.log(1.0 - y_pred)
    return -tf.reduce_mean(pos + neg)
rng = np.random.default_rng(1)
# transaction amount in dollars, hour of day, number of items
x = np.column_stack([rng.uniform(10, 5000, 48), rng.integers(0, 24, 48),
                     rng.integers(1, 10, 48)]).astype("float32")
is_fraud = (rng.random((48, 1)) < 0.2).astype("float32")
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss=weighted_bce)
tf.debugging.enable_check_numerics()
try:
    model.fit(x, is_fraud, epochs=1, batch_size=16, verbose=0)
finally:
    tf.debugging.disable_check_numerics()
""",
        "G05",
        must=("weighted_bce", "log"),
        must_not=("learning rate", "impute"),
        fix="keras.losses.BinaryCrossentropy (clips), or clip y_pred / from_logits",
    ),
    # ValueError: probabilities contain NaN
    # (temperature 0.01 makes exp(logits / T) overflow float32: inf / inf = NaN,
    # np.random.choice rejects the probabilities)
    Case(
        "ns_temperature_softmax_exp_overflow_random_choice",
        FAMILY,
        """
class TemperatureSoftmax(keras.layers.Layer):
    def __init__(self, temperature, **kwargs):
        super().__init__(**kwargs)
        self.temperature = temperature
    def call(self, logits):
        e = tf.exp(logits / self.temperature)
        return e / tf.reduce_sum(e, axis=-1, keepdims=True)
vocab = [f"w{i}" for i in range(30)]
rng = np.random.default_rng(2)
prompt_counts = rng.poisson(3.0, (4, 30)).astype("float32")  # bag-of-words of each prompt
model = keras.Sequential([keras.Input((30,)), keras.layers.Dense(30), TemperatureSoftmax(0.01)])
probs = model.predict(prompt_counts, verbose=0)
next_word = vocab[np.random.choice(len(vocab), p=probs[0])]
""",
        "N01",
        must=("temperature", "exp"),
        must_not=("float16", "learning rate"),
        fix="tf.nn.softmax(logits / temperature) (subtracts the max)",
    ),
    # InvalidArgumentError: {{function_node __wrapped__CheckNumerics_device_...}}
    # price predictions : Tensor had NaN values [Op:CheckNumerics]
    # (listings filtered to one city: city_code is constant, its std is 0, z-scoring gives
    # 0 / 0 = NaN in that column of every row; fit trains on NaN silently)
    Case(
        "ns_zscore_constant_city_code_column",
        FAMILY,
        """
import pandas as pd
rng = np.random.default_rng(3)
df = pd.DataFrame({"city_code": rng.choice([69, 75], 80), "rooms": rng.integers(1, 6, 80),
                   "area": rng.uniform(20, 150, 80), "year": rng.integers(1900, 2020, 80)})
df["price"] = df["area"] * 9000 + rng.normal(0, 20000, 80)
df = df[df["city_code"] == 75]  # Paris listings only
features = ["city_code", "rooms", "area", "year"]
x_train = ((df[features] - df[features].mean()) / df[features].std()).astype("float32")
y_train = (df["price"] / 1e6).astype("float32")
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="tanh"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
model.fit(x_train, y_train, epochs=1, batch_size=8, verbose=0)
preds = model.predict(x_train, verbose=0)
tf.debugging.assert_all_finite(preds, "price predictions")
""",
        "N05",
        must=("city_code",),
        must_not=("learning rate", "float16"),
        fix="drop the constant column (or divide by std + eps / use Normalization)",
    ),
    # ValueError: cannot convert float NaN to integer
    # (an empty review pads to all zeros: the masked mean divides 0 by n_tokens = 0)
    Case(
        "ns_masked_mean_pool_empty_review_int_stars",
        FAMILY,
        """
class MaskedMeanPool(keras.layers.Layer):
    def call(self, emb, tokens):
        mask = tf.cast(tokens != 0, emb.dtype)[..., None]
        n_tokens = tf.reduce_sum(mask, axis=1)
        return tf.reduce_sum(emb * mask, axis=1) / n_tokens
reviews = [[12, 7, 33, 4], [5, 9], [], [41, 2, 8, 19, 3]]  # review 3 was an empty text
tokens = keras.utils.pad_sequences(reviews, maxlen=6)
inp = keras.Input((6,), dtype="int32")
h = MaskedMeanPool()(keras.layers.Embedding(50, 8)(inp), inp)
model = keras.Model(inp, keras.layers.Dense(1, activation="sigmoid")(h))
scores = model.predict(tokens, verbose=0)[:, 0]
for review, s in zip(reviews, scores):
    print(len(review), "tokens:", int(round(float(s) * 4)) + 1, "stars")
""",
        "N01",
        must=("masked_mean_pool",),
        must_not=("learning rate", "impute"),
        fix="divide by tf.maximum(n_tokens, 1) (or tf.math.divide_no_nan)",
    ),
    # AssertionError: contrastive loss is nan at step 1
    # (pairwise distances include each embedding with itself: sqrt(0) is finite, its
    # gradient is inf * 0 = NaN, so step 0 is fine and the loss is NaN at step 1)
    Case(
        "ns_pairwise_distance_sqrt_diagonal_nan_gradient",
        FAMILY,
        """
rng = np.random.default_rng(5)
x = rng.random((24, 10)).astype("float32")
person_id = np.repeat(np.arange(6), 4)
same = tf.constant(person_id[:, None] == person_id[None, :], "float32")
encoder = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"),
                            keras.layers.Dense(4)])
opt = keras.optimizers.Adam(1e-3)
for step in range(3):
    with tf.GradientTape() as tape:
        e = encoder(x, training=True)
        diff = e[:, None, :] - e[None, :, :]
        dist = tf.sqrt(tf.reduce_sum(tf.square(diff), axis=-1))
        pos = tf.reduce_sum(dist * same) / tf.reduce_sum(same)
        neg = tf.reduce_sum(tf.nn.relu(1.0 - dist) * (1.0 - same)) / tf.reduce_sum(1.0 - same)
        loss = pos + neg
    assert np.isfinite(loss.numpy()), f"contrastive loss is {loss.numpy()} at step {step}"
    grads = tape.gradient(loss, encoder.trainable_variables)
    opt.apply_gradients(zip(grads, encoder.trainable_variables))
""",
        "G03",
        must=("sqrt",),
        must_not=("learning rate", "impute"),
        fix="tf.sqrt(sum_sq + 1e-12), or exclude the diagonal pairs",
    ),
    # AssertionError: training diverged: final loss nan
    # (learning_rate=1e1 where 1e-1 was meant: SGD diverges to inf/NaN within one epoch)
    Case(
        "ns_sgd_learning_rate_typo_diverges",
        FAMILY,
        """
rng = np.random.default_rng(6)
x = rng.normal(size=(64, 8)).astype("float32")  # already standardized features
units_sold = (40 + 10 * x[:, :1] + rng.normal(size=(64, 1))).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=1e1), loss="mse")
history = model.fit(x, units_sold, epochs=1, batch_size=4, verbose=0)
final = history.history["loss"][-1]
assert np.isfinite(final), f"training diverged: final loss {final}"
""",
        "G05",
        must=("learning_rate",),
        must_not=("impute", "float16", "log("),
        fix="learning_rate=1e-1 (or lower)",
    ),
    # AssertionError: (first non-empty line) Not equal to tolerance rtol=0.01, atol=0.01
    # ... nan location mismatch: ACTUAL: array([[nan], [nan], ...
    # (under mixed_float16 the -1e9 mask constant is -inf; 0 * -inf = NaN in every
    # valid position, so the float16 copy disagrees with the float32 model everywhere)
    Case(
        "ns_float16_attention_mask_constant_overflow",
        FAMILY,
        """
class MaskedSelfAttention(keras.layers.Layer):
    def call(self, x, padding_mask):
        m = tf.cast(padding_mask, x.dtype)
        scores = tf.matmul(x, x, transpose_b=True) / tf.sqrt(tf.cast(tf.shape(x)[-1], x.dtype))
        scores += (1.0 - m[:, None, :]) * -1e9
        return tf.matmul(tf.nn.softmax(scores, axis=-1), x)
def build():
    tokens = keras.Input((12,), dtype="int32")
    pad = keras.Input((12,))
    h = keras.layers.Embedding(100, 16)(tokens)
    h = MaskedSelfAttention(name="masked_attention")(h, pad)
    h = keras.layers.GlobalAveragePooling1D()(h)
    return keras.Model([tokens, pad], keras.layers.Dense(1, dtype="float32")(h))
reference = build()
keras.mixed_precision.set_global_policy("mixed_float16")
try:
    fast = build()
finally:
    keras.mixed_precision.set_global_policy("float32")
fast.set_weights(reference.get_weights())
rng = np.random.default_rng(7)
ids = rng.integers(1, 100, (8, 12)).astype("int32")
pad = np.ones((8, 12), "float32")
pad[:, 9:] = 0.0
ids[:, 9:] = 0
np.testing.assert_allclose(fast.predict([ids, pad], verbose=0),
                           reference.predict([ids, pad], verbose=0), rtol=1e-2, atol=1e-2)
""",
        "N01",
        must=("masked_attention", "float16"),
        must_not=("learning rate", "impute"),
        fix="use -1e4 / tf.float16.min or tf.where for the mask, or a float32 layer",
    ),
    # ValueError: All-NaN slice encountered
    # (one missing 'demand' value in the CSV is read as NaN; TerminateOnNaN stops fit and
    # the only recorded loss is NaN)
    Case(
        "ns_csv_missing_target_terminate_on_nan_history",
        FAMILY,
        """
import io
import pandas as pd
rng = np.random.default_rng(8)
lines = ["temp,humidity,wind,demand"]
for i in range(40):
    t, h, w = rng.uniform(5, 30), rng.uniform(0.2, 0.9), rng.uniform(0, 12)
    demand = "" if i == 17 else f"{80 + 2 * t - 20 * h:.1f}"  # meter offline that day
    lines.append(f"{t:.1f},{h:.2f},{w:.1f},{demand}")
df = pd.read_csv(io.StringIO("\\n".join(lines)))
x = df[["temp", "humidity", "wind"]].to_numpy("float32") / [30.0, 1.0, 12.0]
y = df["demand"].to_numpy("float32") / 100.0
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1)])
model.compile("adam", "mse")
history = model.fit(x.astype("float32"), y, epochs=5, batch_size=8, verbose=0,
                    callbacks=[keras.callbacks.TerminateOnNaN()])
best_epoch = int(np.nanargmin(history.history["loss"]))
""",
        "N05",
        must=("demand",),
        must_not=("learning rate", "log("),
        fix="df.dropna(subset=['demand']) (or impute) before fit",
    ),
    # AssertionError: binary cross-entropy went negative: -6.86
    # (binary masks stored as 0/255: binary cross-entropy with a target of 255 is
    # unbounded below and the loss goes negative)
    Case(
        "ns_bce_segmentation_masks_0_255_negative_loss",
        FAMILY,
        """
keras.utils.set_random_seed(9)  # the weights too: the loss goes negative within 8 epochs
rng = np.random.default_rng(9)
images = rng.random((32, 16, 16, 1)).astype("float32")
masks = np.where(images > 0.7, 255, 0).astype("uint8")  # as read from the mask PNGs
model = keras.Sequential([keras.Input((16, 16, 1)),
                          keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
                          keras.layers.Conv2D(1, 1, activation="sigmoid")])
model.compile("adam", "binary_crossentropy")
history = model.fit(images, masks, epochs=8, batch_size=8, verbose=0)
loss = history.history["loss"][-1]
assert loss >= 0, f"binary cross-entropy went negative: {loss:.2f}"
""",
        "P12",
        must=("masks", "255"),
        must_not=("nan", "learning rate"),
        fix="masks / 255 (targets in [0, 1])",
    ),
    # IndexError: list index out of range
    # (one-step episodes: returns has a single element, its std is 0, (r - mean) / 0 is
    # NaN, the NaN update poisons the policy and tf.random.categorical then returns
    # index 3 of 3 actions)
    Case(
        "ns_reinforce_single_return_std_zero",
        FAMILY,
        """
ACTIONS = ["left", "stay", "right"]
policy = keras.Sequential([keras.Input((4,)), keras.layers.Dense(16, activation="tanh"),
                           keras.layers.Dense(len(ACTIONS))])
opt = keras.optimizers.Adam(1e-2)
rng = np.random.default_rng(10)
for episode in range(5):  # a contextual bandit: one decision per episode
    state = rng.random((1, 4)).astype("float32")
    with tf.GradientTape() as tape:
        logits = policy(state)
        action = int(tf.random.categorical(logits, 1)[0, 0])
        reward = 0.0 if ACTIONS[action] == "stay" else 1.0
        returns = np.array([reward], dtype="float32")
        returns = (returns - returns.mean()) / returns.std()
        log_prob = tf.nn.log_softmax(logits)[0, action]
        loss = -tf.reduce_sum(log_prob * returns)
    grads = tape.gradient(loss, policy.trainable_variables)
    opt.apply_gradients(zip(grads, policy.trainable_variables))
""",
        "G05",
        must=("returns",),
        must_not=("learning rate", "impute"),
        fix="divide by (returns.std() + 1e-8), or normalize over a batch of episodes",
    ),
]
