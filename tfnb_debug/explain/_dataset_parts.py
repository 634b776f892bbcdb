"""How the cell made a dataset of (inputs, labels): the arrays it was sliced from, and a ``map``
that changes one part and passes the other through as it is.

``ds = tf.data.Dataset.from_tensor_slices((images, masks)).map(lambda im, m: (resize(im),
m))`` resizes the images and leaves the masks at their size: the labels no longer fit the
output.  Only the cell's source is read (the dataset's own assignment); nothing runs.
"""

from __future__ import annotations

import ast

from tfnb_debug.explain._operands import call_name, parsed_file


def dataset_parts(filename: str, name: str) -> tuple[str, str, str] | None:
    """(the inputs' array, the labels' array, the map as written) when ``name`` is assigned a
    ``from_tensor_slices((a, b))`` chain whose ``map(lambda x, y: (f(x), y))`` passes the
    labels through unchanged."""
    if not name.isidentifier():
        return None
    tree = parsed_file(filename)
    if tree is None:
        return None
    made = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            made = node.value
    if made is None:
        return None
    sliced = lam = None
    for node in ast.walk(made):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        if call_name(node.func) == "from_tensor_slices" and isinstance(node.args[0], ast.Tuple):
            sliced = node.args[0].elts
        if call_name(node.func) == "map" and isinstance(node.args[0], ast.Lambda):
            lam = node.args[0]
    if not sliced or len(sliced) != 2 or lam is None or len(lam.args.args) != 2:
        return None
    body = lam.body
    label = lam.args.args[1].arg
    if not isinstance(body, ast.Tuple) or len(body.elts) != 2:
        return None
    kept = isinstance(body.elts[1], ast.Name) and body.elts[1].id == label
    changed = not (isinstance(body.elts[0], ast.Name) and body.elts[0].id == lam.args.args[0].arg)
    if not (kept and changed):
        return None
    return ast.unparse(sliced[0]), ast.unparse(sliced[1]), ast.unparse(lam)


def labels_left_by_map(filename: str, name: str) -> tuple[str, str] | None:
    """(what to add to the labels' description, the fix) for a dataset whose map changes the
    inputs and passes the labels through: the labels keep the size the map gave the inputs."""
    parts = dataset_parts(filename, name)
    if parts is None:
        return None
    return (
        f" (`{parts[1]}`, left as they are by `{parts[2]}`)",
        f"the map changes the inputs' size only: give `{parts[1]}` the same change (for masks "
        "or label maps, `tf.image.resize(m[..., None], size, method='nearest')`)",
    )
