"""The findings catalog: every code tfnb_debug can report, with its slug and severity.

Codes never change meaning once released; new ones are appended.  The user
documentation of the same catalog is ``docs/diagnostics.md``; a test keeps the
two and the codes the rules emit in agreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class CatalogEntry:
    code: str
    slug: str
    severity: Severity
    fires_when: str


CATALOG: dict[str, CatalogEntry] = {
    "S01": CatalogEntry(
        "S01",
        "shape-mismatch",
        "error",
        "a layer raises while tfnb_debug traces a call. Report the failing layer (its path in nested models), the shapes and dtypes it received, the layer that produced each input, and the key sentence of the framework's error. The partial table up to that layer is still shown.",
    ),
    "S02": CatalogEntry(
        "S02",
        "batch-dim-changed",
        "warning",
        "a layer's output has a different leading dimension from the batch that entered the model (e.g. `Reshape((-1,))` folding the batch into features).",
    ),
    "S03": CatalogEntry(
        "S03",
        "float64-tensor",
        "warning",
        "a float64 tensor enters a layer or the model (NumPy's default dtype leaking in: slow, silent casts).",
    ),
    "S04": CatalogEntry(
        "S04",
        "unbuilt-model",
        "error",
        "a model has no known input shape and none was given; the message shows how to pass one.",
    ),
    "S05": CatalogEntry(
        "S05",
        "mixed-precision-output",
        "warning",
        "under a `mixed_float16`/`mixed_bfloat16` policy the model's final output is not float32.",
    ),
    "S06": CatalogEntry(
        "S06",
        "int-label-dtype",
        "warning",
        "labels reach a loss with a dtype the loss does not expect (float class ids for a sparse loss, ints for a dense one).",
    ),
    "S07": CatalogEntry(
        "S07",
        "incompatible-op-shapes",
        "error",
        "a TensorFlow op (not a layer call) failed on incompatible shapes, e.g. `InvalidArgumentError: Incompatible shapes` in a loss or metric; name the op and, from its name scope, the layer or loss it belongs to.",
    ),
    "S08": CatalogEntry(
        "S08",
        "loss-broadcast",
        "error",
        "a loss or metric combines `y_true` and `y_pred` whose shapes differ but broadcast, e.g. `(B,)` against `(B, 1)` into `(B, B)`: every prediction is compared with every target and the loss is silently wrong. Name the loss (or the op in the user's `train_step`/loop) and both shapes; fix: reshape the labels or use a Keras loss.",
    ),
    "S09": CatalogEntry(
        "S09",
        "index-out-of-range",
        "error",
        "an `Embedding` (or a gather / one-hot on ids) receives an id outside `[0, input_dim)`: on CPU TensorFlow raises `indices[..] = N is not in [0, N)`, on a GPU the row is silently zeros. Name the layer, `input_dim`, and the largest (and smallest) id in the data; fix: `input_dim = max id + 1` (ids that start at 1, a reserved padding or OOV index), or re-index the ids.",
    ),
    "S10": CatalogEntry(
        "S10",
        "unknown-shape",
        "error",
        "data of unknown rank or shape reaches a layer or `fit` (`tf.py_function`/`tf.numpy_function` in a `map`, `from_generator` without `output_signature`): name the dataset and the step that lost the shape; fix: `set_shape`/`tf.ensure_shape` in the mapped function, or `output_signature`.",
    ),
    "S11": CatalogEntry(
        "S11",
        "dtype-mismatch",
        "error",
        'an op mixes dtypes it cannot mix, or data has a dtype no layer accepts: a float64 array against float32 weights, `uint8` arithmetic with floats in a `map`, an object (string) column in the features, a float32 variable in a `mixed_float16` layer. Name the input or column and both dtypes; fix: the cast that belongs at that place (`astype("float32")`, `tf.cast` first, encode the text column, `add_weight` / `self.compute_dtype`).',
    ),
    "S12": CatalogEntry(
        "S12",
        "input-structure-mismatch",
        "error",
        "what is passed does not fit the model's inputs or the data's own parts: x and y (or two inputs) have different numbers of samples, a model with N inputs gets M arrays, `validation_data` is not `(x, y)` or `(x, y, sample_weight)`, a single example is passed without its batch axis (also when Keras pads the axis itself and a later layer fails, e.g. \"Negative dimension size\"). Name what was expected and what came; fix: the structure that fits.",
    ),
    "S13": CatalogEntry(
        "S13",
        "ragged-batch",
        "error",
        "`batch()` combines elements of different shapes (variable-length sequences, images of different sizes): name the component and two differing shapes; fix: `padded_batch`, `ragged_batch`, or a resize/pad in the `map`.",
    ),
    "G01": CatalogEntry(
        "G01",
        "vanishing-gradient",
        "warning",
        "a layer's gradient norm is below 1e-7, or below 1e-4 x the median layer norm, on most recorded steps. Name the first such layer in forward order.",
    ),
    "G02": CatalogEntry(
        "G02",
        "exploding-gradient",
        "warning",
        "a layer's gradient norm exceeds 1e3, or 1e3 x the median layer norm while that median is itself healthy (above 1e-4), or keeps growing (10x or more over a few recorded steps and still climbing at the end) to a norm above 10. A norm that rises from 0.2 to 2 in a healthy first epoch is not exploding.",
    ),
    "G03": CatalogEntry(
        "G03",
        "nonfinite-gradient",
        "error",
        "any gradient holds NaN or Inf. Name the first variable (forward order) and the first step it happened.",
    ),
    "G04": CatalogEntry(
        "G04",
        "no-gradient",
        "warning",
        'a trainable variable received no gradient (None): it is disconnected from the loss. When NO variable gets one (Keras: "No gradients provided for any variable"), find out why before saying so: the loss (or part of it) was computed after the `with tf.GradientTape()` block closed (T03), or the loss is not differentiable (argsort/argmax/round/casts to int, NumPy in the loss). Name the loss and the cause, and keep the report of the steps before.',
    ),
    "G05": CatalogEntry(
        "G05",
        "nonfinite-loss",
        "error",
        "the loss became NaN or Inf; say at which step.",
    ),
    "G06": CatalogEntry(
        "G06",
        "update-ratio",
        "warning",
        "the ratio of a step's update norm to the weight norm is above 1e-1 (learning rate too high) or below 1e-7 (too low or frozen) for a layer.",
    ),
    "G07": CatalogEntry(
        "G07",
        "stagnant-loss",
        "warning",
        "the loss barely moves over the first recorded steps (relative change under 1e-4).",
    ),
    "N01": CatalogEntry(
        "N01",
        "nonfinite-activation",
        "error",
        "a layer's output holds NaN or Inf. Name the FIRST such layer in execution order, and whether its inputs were still finite.",
    ),
    "N02": CatalogEntry(
        "N02",
        "dead-relu",
        "warning",
        "over 90% of a ReLU-family layer's outputs are exactly zero.",
    ),
    "N03": CatalogEntry(
        "N03",
        "saturated-activation",
        "warning",
        "over 90% of a sigmoid/tanh layer's outputs sit within 1e-3 of its bounds.",
    ),
    "N04": CatalogEntry(
        "N04",
        "unnormalized-input",
        "warning",
        "image-like model inputs range up to ~255 and nothing in the model scales them before the first weighted layer: no Rescaling/Normalization layer, and no arithmetic ops that do (a `preprocess_input` inside a Functional model, `x / 127.5 - 1`). Judge by the values the first weighted layer actually receives when they can be measured.",
    ),
    "N05": CatalogEntry(
        "N05",
        "nonfinite-input",
        "error",
        "the data fed to the model already holds NaN or Inf.",
    ),
    "P01": CatalogEntry(
        "P01",
        "cache-after-random-map",
        "error",
        '`cache()` comes after a `map()` whose function uses random ops: every epoch sees the same "random" augmentation.',
    ),
    "P02": CatalogEntry(
        "P02",
        "missing-prefetch",
        "warning",
        "the pipeline has no `prefetch()`, or it is not the last transformation.",
    ),
    "P03": CatalogEntry(
        "P03",
        "small-shuffle-buffer",
        "warning",
        "the shuffle buffer is smaller than the dataset (when known) and below 1000 elements; say the ratio.",
    ),
    "P04": CatalogEntry(
        "P04",
        "sequential-map",
        "warning",
        "a `map()` runs with no `num_parallel_calls`.",
    ),
    "P05": CatalogEntry(
        "P05",
        "float64-element",
        "warning",
        "an element component is float64.",
    ),
    "P06": CatalogEntry(
        "P06",
        "float-labels",
        "warning",
        "a label component is float but all its values are whole numbers (class ids stored as floats).",
    ),
    "P07": CatalogEntry(
        "P07",
        "value-range",
        "warning",
        "image-like components fall outside the usual ranges ([0,1], [-1,1], [0,255]) or mix them across batches.",
    ),
    "P08": CatalogEntry(
        "P08",
        "shuffle-after-batch",
        "warning",
        "`shuffle()` comes after `batch()`: whole batches are shuffled, not examples.",
    ),
    "P09": CatalogEntry(
        "P09",
        "cached-shuffle-order",
        "warning",
        "`shuffle()` comes before `cache()`: the order is frozen after the first epoch.",
    ),
    "P10": CatalogEntry(
        "P10",
        "partial-final-batch",
        "info",
        "`batch()` without `drop_remainder=True` in a training pipeline feeding BatchNormalization.",
    ),
    "P11": CatalogEntry(
        "P11",
        "input-bound",
        "warning",
        "the pipeline delivers batches slower than the model consumes them (when a model is given).",
    ),
    "P12": CatalogEntry(
        "P12",
        "label-out-of-range",
        "error",
        "integer labels fall outside [0, number of model outputs).",
    ),
    "P13": CatalogEntry(
        "P13",
        "validation-split-skew",
        "warning",
        "`fit(validation_split=...)` takes the LAST fraction of the arrays, unshuffled, and the labels there are distributed very differently from the training part (a class present on one side only, or a class share differing by more than 2x): the data was sorted. Say which classes; fix: shuffle before fit or pass `validation_data`.",
    ),
    "P14": CatalogEntry(
        "P14",
        "steps-exceed-data",
        "warning",
        '`fit` asks for more steps (`steps_per_epoch` x `epochs`, or `validation_steps`) than a finite dataset without `repeat()` yields, so training stops early (Keras only warns "ran out of data"). Say how many batches the dataset yields and how many steps were asked; fix: `.repeat()` or drop `steps_per_epoch`.',
    ),
    "P15": CatalogEntry(
        "P15",
        "labels-unlearnable",
        "warning",
        "the labels carry no signal the model can find in the inputs: validation stays at chance (the majority-class rate, within a binomial bound) for every epoch while the model fits or memorizes the training labels, and a short control run on a shuffled copy of the labels learns as well as the real labels. The usual cause is x and y shuffled or sorted separately, a wrong label column, or labels joined on the wrong key. Say chance, the best validation score, and the control's result; fix: shuffle with one permutation for both (`idx = np.random.permutation(len(x)); x, y = x[idx], y[idx]`). Silent when validation rises above chance, and on a task that is merely hard (the real labels beat the shuffled ones).",
    ),
    "P16": CatalogEntry(
        "P16",
        "majority-class",
        "warning",
        "a classifier's predictions collapse to one class: accuracy equals the majority-class share of the labels (within a binomial bound) and (nearly) every prediction is that class, while the minority classes are a real share (5% or more). Say the share, the accuracy, and how many predictions fall in each class; fix: scale the inputs, `class_weight`, a metric that sees the minority (`AUC`, `Recall`), and check the output layer. Silent when the model predicts more than one class with skill.",
    ),
    "P17": CatalogEntry(
        "P17",
        "overlapping-splits",
        "error",
        "a train/validation/test split is taken with `take()`/`skip()` from a dataset that reshuffles on every pass (`shuffle()` with the default `reshuffle_each_iteration=True` upstream, or a utility that shuffles, such as `image_dataset_from_directory`): each pass draws a different split, so the parts overlap and change between epochs, and the test score is inflated. Say which datasets and, when they can be read, how many examples appear in both; fix: split before shuffling, `reshuffle_each_iteration=False`, or split the files.",
    ),
    "M01": CatalogEntry(
        "M01",
        "probabilities-as-logits",
        "error",
        "the output layer applies softmax/sigmoid but the loss has `from_logits=True`.",
    ),
    "M02": CatalogEntry(
        "M02",
        "logits-as-probabilities",
        "warning",
        "a cross-entropy loss with `from_logits=False` (the default) receives values that are not probabilities: the output layer is linear, or, in a custom loop or `train_step`, the values passed to the loss fall outside [0, 1] (or do not sum to 1 for a categorical loss). Name the loss and where its input came from.",
    ),
    "M03": CatalogEntry(
        "M03",
        "loss-activation-mismatch",
        "error",
        "the loss cannot learn from this output: softmax over 1 unit (always 1.0), categorical cross-entropy over a single unit (the loss is always 0), sigmoid with categorical cross-entropy over N>1 classes, binary loss on N>1 softmax. Also for losses called in custom loops.",
    ),
    "M04": CatalogEntry(
        "M04",
        "class-count-mismatch",
        "error",
        "the number of output units differs from the number of classes in the labels.",
    ),
    "M05": CatalogEntry(
        "M05",
        "label-encoding-mismatch",
        "error",
        "sparse loss with one-hot labels, or categorical loss with integer labels.",
    ),
    "M06": CatalogEntry(
        "M06",
        "memory-budget",
        "warning",
        "parameters x bytes per parameter (16 for Adam in fp32) plus activations estimated from the shape trace exceed the device's memory.",
    ),
    "M07": CatalogEntry(
        "M07",
        "metric-on-logits",
        "warning",
        'a metric reads the model output on the wrong scale: `"accuracy"` (resolved to `BinaryAccuracy(threshold=0.5)`) or `BinaryAccuracy`/`Precision`/`Recall`/`AUC` with default thresholds while the loss has `from_logits=True` (the output is a logit, so the 0.5 threshold is in the wrong place and the reported number is not the model\'s); likewise `CategoricalAccuracy` on sparse labels. Name the metric, the loss, and the two accuracies when data is at hand; fix: `BinaryAccuracy(threshold=0.0)`, `AUC(from_logits=True)`, or a sigmoid output with `from_logits=False`.',
    ),
    "M08": CatalogEntry(
        "M08",
        "double-activation",
        "error",
        'a squashing activation is applied to an output that already went through one (sigmoid after `Dense(1, activation="sigmoid")`, softmax after softmax, e.g. an export wrapper that adds `Activation("sigmoid")` to a model that already ends in one): the outputs are confined to a narrow band (sigmoid of [0, 1] is [0.5, 0.73], so every example is "positive"). Name both layers; fix: remove one.',
    ),
    "C01": CatalogEntry(
        "C01",
        "nondeterministic-inference",
        "error",
        "two inference calls on the same input differ (relative error > 1e-4): a random op (Dropout, augmentation) is still active.",
    ),
    "C02": CatalogEntry(
        "C02",
        "export-mismatch",
        "error",
        "the exported SavedModel (or .keras round trip) gives different outputs from the in-memory model.",
    ),
    "C03": CatalogEntry(
        "C03",
        "train-inference-gap",
        "info",
        "outputs with `training=True` and `training=False` differ strongly; names the BatchNorm/Dropout layers responsible.",
    ),
    "C04": CatalogEntry(
        "C04",
        "checkpoint-incomplete",
        "error",
        "a checkpoint round trip loses optimizer state or changes weights.",
    ),
    "C05": CatalogEntry(
        "C05",
        "unregistered-custom-object",
        "error",
        "loading a saved model fails because a custom layer, loss, metric or function is not registered (or its `get_config` lacks a constructor argument): name the class and the missing argument; fix: `@keras.saving.register_keras_serializable()` or `custom_objects={...}`, and a complete `get_config`. Also under the automatic diagnosis of a failing `load_model` cell.",
    ),
    "T01": CatalogEntry(
        "T01",
        "retracing",
        "warning",
        "a `tf.function` traced more than 5 times in one cell; show the input signatures that caused it.",
    ),
    "T02": CatalogEntry(
        "T02",
        "symbolic-tensor-in-python",
        "error",
        "inside a `tf.function` (or a Keras graph), Python code asked a symbolic tensor for a concrete value: `.numpy()`, `if tensor:`, `bool()`, iteration (`OperatorNotAllowedInGraphError` and friends); point to the user's line and suggest `tf.cond`/`tf.where` or running eagerly.",
    ),
    "T03": CatalogEntry(
        "T03",
        "tape-misuse",
        "error",
        "a `tf.GradientTape` or `tf.function` is used against its contract: the loss (or a term of it) is computed after the tape's `with` block closed, so no gradient reaches any variable; a non-persistent tape's `gradient` is called twice; a `tf.Variable` is created on every call of a `tf.function`. Point to the user's line; fix: compute the whole loss inside the `with` block, `persistent=True` (and `del tape`), create variables once outside (or in `build`).",
    ),
    "D01": CatalogEntry(
        "D01",
        "replica-loss-scaling",
        "error",
        "in a custom loop under `strategy.run` (or a `train_step` with a loss the user reduces), each replica averages its loss over its own batch (`tf.reduce_mean`, `keras.ops.mean`; a `keras.losses.Loss` object already divides by N in a replica context) and the gradients are then summed across replicas: the update is N times too large (N replicas). Name the loss and N; fix: reduce with `tf.nn.compute_average_loss(per_example_loss, global_batch_size=...)` (and `tf.nn.scale_regularization_loss`).",
    ),
    "D02": CatalogEntry(
        "D02",
        "unsharded-input",
        "warning",
        "every worker (or replica) reads the same examples: auto-sharding is OFF or failed (a dataset from a generator or a single file with `FILE` policy), or a dataset not passed through `experimental_distribute_dataset` in a custom loop. Say how many workers see identical batches; fix: the sharding policy, `shard()`, or `distribute_datasets_from_function`.",
    ),
    "D03": CatalogEntry(
        "D03",
        "tiny-replica-batch",
        "warning",
        "the per-replica batch (global batch / replicas) is below 16 and the model has `BatchNormalization`: each replica normalizes over a handful of examples. Fix: `BatchNormalization(synchronized=True)` or a larger global batch.",
    ),
    "D04": CatalogEntry(
        "D04",
        "empty-replica-batch",
        "error",
        "the last global batch is smaller than the number of replicas (or not divisible), so a replica gets an empty or ragged batch: NaN losses or shape errors at the end of an epoch. Fix: `drop_remainder=True`, or a loss that handles empty batches.",
    ),
    "D05": CatalogEntry(
        "D05",
        "outside-strategy-scope",
        "error",
        'a model, optimizer or variable used under a strategy was created outside `strategy.scope()` (Keras: "not created in the distribution strategy scope"); name the object; fix: build and compile inside the scope.',
    ),
    "D06": CatalogEntry(
        "D06",
        "replica-divergence",
        "error",
        "mirrored variables differ across replicas after a step (a non-synchronized update, a random op creating different values per replica): name the variable and the largest difference.",
    ),
    "D07": CatalogEntry(
        "D07",
        "unsupported-distribution",
        "error",
        'the automatic diagnosis of a failing cell: Keras 3\'s `fit`/`evaluate` under `MultiWorkerMirroredStrategy` fails with "Attempt to convert a value (PerReplica...)" (keras-team/keras#20585; custom loops with `strategy.run` work). Say that this Keras version does not support it and what does: a custom training loop with `strategy.run` and `experimental_distribute_dataset`, or `MirroredStrategy` on one machine.',
    ),
    "R01": CatalogEntry(
        "R01",
        "memory-growth",
        "warning",
        "host or device memory climbs steadily across repeated steps (a leak, such as tensors kept in a Python list).",
    ),
    "R02": CatalogEntry(
        "R02",
        "near-capacity",
        "warning",
        "peak device memory passes 90% of the device's capacity.",
    ),
    "R03": CatalogEntry(
        "R03",
        "out-of-memory",
        "error",
        "a cell died with `ResourceExhaustedError`/OOM; report the allocation that failed and the remedies in order of cost: smaller batch, mixed precision, gradient accumulation, lower input resolution.",
    ),
    "E01": CatalogEntry(
        "E01",
        "memory-growth-not-set",
        "warning",
        "GPUs were already initialized when the extension loaded, so memory growth could not be enabled; say how to fix (load the extension first / restart the kernel).",
    ),
    "E02": CatalogEntry(
        "E02",
        "gpu-not-visible",
        "info",
        "TensorFlow is built with CUDA but sees no GPU, or is a CPU-only build.",
    ),
    "E03": CatalogEntry(
        "E03",
        "non-tensorflow-backend",
        "error",
        "Keras runs on a backend other than TensorFlow.",
    ),
}
