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
        'a trainable variable received no gradient (None): it is disconnected from the loss. When NO variable gets one (Keras: "No gradients provided for any variable"), the loss itself is not differentiable (argsort/argmax/round/casts to int, NumPy in the loss): say so, name the loss, and keep the report of the steps before.',
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
        "image-like model inputs range up to ~255 and the model has no Rescaling/Normalization layer in front.",
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
