"""D01 replica-loss-scaling and D06 replica-divergence, from what the recorded steps gave.

D01 reads :class:`~tfnb_debug.records.replicas.ReplicaHistory` (each replica's
examples and the total weight its loss gives them, measured inside the step);
D06 reads the :class:`~tfnb_debug.records.replicas.MirroredDifference` list the
end of the recording measured.  Pure NumPy: no TensorFlow.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from tfnb_debug.ground.reports import Finding, Target, finding
from tfnb_debug.ground.values import format_float
from tfnb_debug.records.replicas import MirroredDifference, ReplicaHistory

__all__ = ["replica_divergence", "replica_loss_scaling"]

#: how close a replica's total example weight must be to 1 to count as a mean over its
#: own batch (a mean of b values gives b * (1/b): 1 up to float rounding)
WEIGHT_TOLERANCE = 1e-3

_BATCHNORM_STATS = ("moving_mean", "moving_variance", "moving_stddev")


def replica_loss_scaling(
    history: ReplicaHistory, *, optimizer: str, loss_names: Sequence[str] = ()
) -> list[Finding]:
    """D01: every replica's loss is a mean over its own examples (the derivative of the loss
    by the per-example losses sums to 1 on each replica), so the summed gradients weigh the
    global batch N times: the update is N times the one a mean over the global batch gives.

    Silent when any replica's weight is unknown or differs from 1 (a loss averaged over the
    global batch gives ``examples / global batch``; a sum over the examples gives their
    count), and with one replica.
    """
    n = history.replicas
    if n < 2 or history.n_records == 0:
        return []
    weights = history.column("weight")
    examples = history.column("examples")
    replica_mean = np.all(np.abs(weights - 1.0) <= WEIGHT_TOLERANCE, axis=1)
    if not replica_mean.any():
        return []
    first = int(np.argmax(replica_mean))
    per_replica = examples[first]
    global_batch = int(np.nansum(per_replica)) if np.isfinite(per_replica).all() else None
    counts = " and ".join(str(int(e)) for e in per_replica) if global_batch else "its"
    loss = f"the loss `{loss_names[0]}`" if loss_names else "the loss"
    reduction = f"; {', '.join(history.reductions)}" if history.reductions else ""
    batch = str(global_batch) if global_batch else "GLOBAL_BATCH"
    return [
        finding(
            "D01",
            f"{loss} is averaged over each replica's own examples and optimizer '{optimizer}' "
            f"sums the {n} replicas' gradients: each update is {n}x the one a mean over the "
            "global batch gives",
            place=f"optimizer '{optimizer}'",
            evidence=(
                f"on every replica d loss / d per-example loss sums to 1.0: a mean over the "
                f"replica's own examples ({counts}{reduction}), in {int(replica_mean.sum())} of "
                f"{history.n_records} recorded step(s); summed over {n} replicas the examples "
                f"weigh {n}.0 in total, where a mean over the global batch of {batch} weighs "
                "them 1.0"
            ),
            hint=(
                "reduce per-example losses with `tf.nn.compute_average_loss(per_example_loss, "
                f"global_batch_size={batch})` (per-example losses: e.g. "
                "`keras.losses.MeanSquaredError(reduction=None)(y, pred)`) and add "
                "regularization as `tf.nn.scale_regularization_loss(sum(model.losses))`; or "
                "call a `keras.losses.Loss` object, which divides by the replica count in a "
                "replica context"
            ),
            target=Target("function", optimizer),
        )
    ]


def replica_divergence(differences: Iterable[MirroredDifference]) -> list[Finding]:
    """D06: a mirrored variable whose per-device components differ after the recorded cell.

    The hint follows the cause the variable shows: a BatchNormalization layer's moving
    statistics (each replica updates its own copy from its own examples), a variable with
    ``aggregation=NONE`` (an assignment in a replica context writes only that replica's
    copy), else an update made per device outside the strategy's synchronization.
    """
    found = []
    for diff in differences:
        name = diff.path.rsplit("/", 1)[-1]
        batchnorm = diff.layer_class is not None and "BatchNormalization" in diff.layer_class
        evidence = (
            f"largest difference between its {diff.devices} per-device copies "
            f"{format_float(diff.difference)} (its values reach {format_float(diff.scale)}); "
            f"aggregation {diff.aggregation}"
        )
        if batchnorm and name.startswith(_BATCHNORM_STATS):
            cause = "BatchNormalization moving statistics updated per replica"
            message = (
                f"the moving statistics of BatchNormalization differ across replicas: each "
                f"replica updates its own copy of '{diff.path}' from its own examples, and "
                "a read outside the replicas (`get_weights()`, saving) gives the first device's copy"
            )
            hint = (
                "`BatchNormalization(synchronized=True)`: the batch statistics are all-reduced "
                "across replicas, so every copy gets the same update"
            )
        elif diff.aggregation == "NONE":
            cause = "a variable without aggregation assigned per replica"
            message = (
                f"mirrored variable '{diff.path}' differs across replicas: it is created with "
                "aggregation NONE, and an assignment in a replica context (inside "
                "`strategy.run` or a layer's `call`) writes only that replica's copy"
            )
            hint = (
                "create it with an aggregation (`tf.Variable(..., "
                "aggregation=tf.VariableAggregation.MEAN)`, Keras `add_weight(..., "
                'aggregation="mean")`, or ONLY_FIRST_REPLICA to keep replica 0\'s value), or '
                "assign it in the cross-replica context"
            )
        else:
            cause = "a mirrored variable updated per device"
            message = (
                f"mirrored variable '{diff.path}' differs across replicas although it is "
                f"aggregated ({diff.aggregation}): a copy was written outside the strategy's "
                "synchronization"
            )
            hint = (
                "update it through `assign` on the mirrored variable (in the replica or the "
                "cross-replica context), never through its per-device `.values`"
            )
        found.append(
            finding(
                "D06",
                message,
                place=diff.path,
                evidence=evidence,
                hint=hint,
                cause=cause,
                target=Target("variable", diff.path),
            )
        )
    return found
