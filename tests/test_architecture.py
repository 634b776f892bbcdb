"""The layering of tfnb_debug, read from its source: import circles and what collect/ may import.

The import graph is built by AST from every ``import tfnb_debug...`` and
``from tfnb_debug... import ...`` statement in the package.  Each edge is one of
three kinds, counted separately:

* ``module``: runs when the module is imported (top level, also inside a
  top-level ``if``/``try``);
* ``typing``: under ``if TYPE_CHECKING:`` (never runs, but still couples the two);
* ``deferred``: inside a function or method (runs when it is called).

The circle test uses all three: a circle through a deferred or type-only
import is still a circle a maintainer has to keep in their head.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import tfnb_debug

PACKAGE = Path(tfnb_debug.__file__).resolve().parent
Graph = Mapping[str, Mapping[str, set[str]]]  # module -> imported module -> edge kinds

# The renderer/report pair, as rich does it: Report's display methods call the
# renderers, which read Report, Table and Section.
ALLOWED_CIRCLES = [
    {"tfnb_debug.ground.reports", "tfnb_debug.render.html", "tfnb_debug.render.text"},
    # The inspector's detail records render themselves on display the same way.
    {"tfnb_debug.widgets.records", "tfnb_debug.widgets.render"},
]
ABOVE_COLLECT = (
    "tfnb_debug.diagnostics",
    "tfnb_debug.ground.reports",
    "tfnb_debug.features",
    "tfnb_debug.explain",
    "tfnb_debug.render",
    "tfnb_debug.magics",
    "tfnb_debug.widgets",
)
#: the root of the package: the public API, the extension entry, the version, and one thin
#: module per feature that re-exports its public names (the import paths users and the docs use)
ENTRY_MODULES = {"tfnb_debug", "tfnb_debug._extension", "tfnb_debug._version"}
FACADES = {
    f"tfnb_debug.{name}"
    for name in [
        "check",
        "consistency",
        "env",
        "fit_data",
        "gradients",
        "lint",
        "live",
        "memory",
        "overfit",
        "pipeline",
        "runs",
        "shapes",
    ]
}
FOLDERS = {
    "collect",
    "diagnostics",
    "explain",
    "features",
    "ground",
    "magics",
    "records",
    "render",
    "widgets",
}


def _modules(root: Path) -> dict[str, Path]:
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """(imported name, kind) for every tfnb_debug import in the module."""

    def walk(node: ast.AST, kind: str) -> Iterator[tuple[str, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, kind
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                for alias in child.names:
                    yield f"{child.module}.{alias.name}", kind
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(child, "deferred")
            elif isinstance(child, ast.If) and _is_type_checking(child.test) and kind == "module":
                for stmt in child.body:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), "typing")
                for stmt in child.orelse:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), kind)
            else:
                yield from walk(child, kind)

    yield from walk(tree, "module")


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_graph(root: Path = PACKAGE) -> dict[str, dict[str, set[str]]]:
    modules = _modules(root)
    graph: dict[str, dict[str, set[str]]] = {name: {} for name in modules}
    for name, path in modules.items():
        for imported, kind in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if not imported.startswith(root.name):
                continue
            target = imported  # `from pkg import submodule` names the submodule, else the module
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].setdefault(target, set()).add(kind)
    return graph


def circles(
    graph: Graph, kinds: frozenset[str] = frozenset({"module", "typing", "deferred"})
) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w, edge_kinds in graph[v].items():
            if not edge_kinds & kinds:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_reader_sees_every_kind_of_import_and_finds_circles(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import x\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.c import y\n"
    )
    (pkg / "c.py").write_text("def f():\n    import pkg.a\n\nfrom pkg import sub\n")
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.b": {"module"}}
    assert graph["pkg.b"] == {"pkg.c": {"typing"}}
    assert graph["pkg.c"] == {"pkg.a": {"deferred"}, "pkg.sub": {"module"}}
    assert circles(graph) == [{"pkg.a", "pkg.b", "pkg.c"}]
    assert circles(graph, frozenset({"module"})) == []


def test_the_only_import_circle_is_the_renderer_report_pair() -> None:
    graph = import_graph()
    assert graph["tfnb_debug.features.shapes"].get("tfnb_debug.diagnostics.shapes") == {"module"}
    found = sorted(sorted(c) for c in circles(graph))
    assert found == sorted(sorted(c) for c in ALLOWED_CIRCLES if c <= graph.keys())


def test_importing_any_module_runs_no_circle() -> None:
    """Counting only the imports that run at import time, there is no circle at all."""
    assert circles(import_graph(), frozenset({"module"})) == []


def test_collect_imports_nothing_above_it() -> None:
    graph = import_graph()
    wrong = [
        f"{name} imports {target} ({', '.join(sorted(kinds))})"
        for name, targets in graph.items()
        if name.startswith("tfnb_debug.collect")
        for target, kinds in targets.items()
        if target == "tfnb_debug" or target.startswith(ABOVE_COLLECT)
    ]
    assert wrong == []


def test_ground_imports_only_ground_and_records_only_ground() -> None:
    """ground/ imports nothing but itself (a report renders itself lazily, through render/);
    records/ imports the ground at run time, nothing else (a type-only import may name the
    collector a record describes)."""
    graph = import_graph()
    wrong = []
    for name, targets in graph.items():
        for target, kinds in targets.items():
            if name.startswith("tfnb_debug.ground."):
                if not target.startswith("tfnb_debug.ground") and not (
                    name == "tfnb_debug.ground.reports"
                    and target.startswith("tfnb_debug.render")
                    and kinds == {"deferred"}
                ):
                    wrong.append(f"{name} imports {target}")
            elif (
                name.startswith("tfnb_debug.records.")
                and kinds != {"typing"}
                and not target.startswith(("tfnb_debug.ground", "tfnb_debug.records"))
            ):
                wrong.append(f"{name} imports {target}")
    assert wrong == []
    for plain in ("files", "text", "values"):
        assert graph[f"tfnb_debug.ground.{plain}"] == {}, plain
    assert graph["tfnb_debug.records.shapes"] == {}


def test_the_root_holds_the_entry_the_facades_and_folders_only() -> None:
    """A maintainer sees the layers in the tree: every other module lives in a folder."""
    root = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if path.name != "__pycache__" and (path.suffix == ".py" or path.is_dir())
    }
    expected = {"__init__", "_extension", "_version"} | {f.split(".")[-1] for f in FACADES}
    assert root == expected | FOLDERS


def test_each_facade_only_re_exports_its_feature() -> None:
    """A root module such as ``tfnb_debug.features.shapes`` defines nothing: it re-exports, from
    ``tfnb_debug.features.shapes``, the same objects (so both paths give one class)."""
    import importlib

    for facade in sorted(FACADES):
        tree = ast.parse((PACKAGE / f"{facade.split('.')[-1]}.py").read_text(encoding="utf-8"))
        feature = facade.replace("tfnb_debug.", "tfnb_debug.features.")
        body = [node for node in tree.body if not isinstance(node, ast.Expr)]  # the docstring
        assert body and all(
            isinstance(node, ast.ImportFrom) and node.module == feature for node in body
        ), facade
        names = [alias.name for node in body for alias in node.names]  # type: ignore[attr-defined]
        public, real = importlib.import_module(facade), importlib.import_module(feature)
        assert all(getattr(public, n) is getattr(real, n) for n in names), facade


def test_every_public_name_has_its_features_root_path() -> None:
    """``from tfnb_debug.<feature> import <name>`` works for every name in ``tfnb_debug.__all__``
    that a feature defines, and gives the object ``tfnb_debug.<name>`` gives."""
    import importlib

    for name, module in tfnb_debug._LAZY.items():
        if module.startswith(("tfnb_debug.widgets", "tfnb_debug.explain")):
            continue  # folders of their own, already public paths
        facade = module.replace("tfnb_debug.features.", "tfnb_debug.")
        assert facade in FACADES, name
        assert getattr(importlib.import_module(facade), name) is getattr(tfnb_debug, name), name


def test_rules_read_plain_records_not_reports_or_renderers() -> None:
    """diagnostics/ imports collectors' records and ground modules, never a renderer or a report module."""
    allowed = {
        "tfnb_debug.ground.reports",  # Finding
        "tfnb_debug.ground.errors",
        "tfnb_debug.ground.text",
        "tfnb_debug.ground.values",
        "tfnb_debug.records.shapes",
        "tfnb_debug.records.pipeline",
        "tfnb_debug.records.gradients",
        "tfnb_debug.records.replicas",
        "tfnb_debug.records.trials",
    }
    graph = import_graph()
    wrong = [
        f"{name} imports {target}"
        for name, targets in graph.items()
        if name.startswith("tfnb_debug.diagnostics")
        for target in targets
        if target not in allowed
        and not target.startswith(("tfnb_debug.collect", "tfnb_debug.diagnostics"))
    ]
    assert wrong == []


#: the most lines a module may hold (issue 40: modules of ~600 lines, none over 800)
MAX_LINES = 800
#: where a module is due for a split along its seams, and how many may be past it at once
SPLIT_AT = 600
PAST_SPLIT = 3


def test_no_module_passes_the_line_limit() -> None:
    """No module over MAX_LINES, and no more than PAST_SPLIT of them over SPLIT_AT: a
    module that grows past it is split along its seams, or another one is first."""
    sizes = {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines > MAX_LINES} == {}
    past = sorted(name for name, lines in sizes.items() if lines > SPLIT_AT)
    assert len(past) <= PAST_SPLIT, past


def test_every_module_of_the_package_is_tfnb_debugs_own_code() -> None:
    """Frame walks leave tfnb_debug's own frames out (``ground.files.is_user_file``, the
    traceback filters of ``magics.tracebacks``): both must know the whole package, whichever
    folder a module sits in, and never take the user's file for ours."""
    from tfnb_debug.ground.files import is_user_file
    from tfnb_debug.magics import tracebacks

    modules = sorted(PACKAGE.rglob("*.py"))
    assert [str(p) for p in modules if is_user_file(str(p))] == []
    assert all(str(p).startswith(tracebacks._PACKAGE) for p in modules)
    assert is_user_file(str(PACKAGE.parent / "tests" / "notebook_cell.py"))
