"""List the import edges between the modules of ``mri_theory`` and the cycles among them.

Every ``import`` and ``from ... import`` statement counts, at module level or inside a function,
except those under ``if TYPE_CHECKING:`` (they never run).  An edge ``a -> b`` means module ``a``
imports module ``b`` (``from mri_theory import x`` is an edge to ``mri_theory.x`` when ``x`` is a
module, else to the package).  Usage: ``python scripts/import_cycles.py [--edges]``; the exit
status is 1 if there is a cycle.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = "mri_theory"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package (a package is its ``__init__``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every Import/ImportFrom node outside ``if TYPE_CHECKING:`` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        children = list(ast.iter_child_nodes(node))
        if _type_checking_only(node):
            children = [c for c in children if c not in node.body]
        stack.extend(children)


def import_edges(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the package modules it imports (function-level imports included)."""
    modules = module_names(root)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:  # a name inside a module -> the module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The elementary cycles found by depth-first search, each once (rotated to start at its least name)."""
    found: set[tuple[str, ...]] = set()

    def visit(node: str, path: list[str], on_path: set[str]) -> None:
        for nxt in sorted(edges.get(node, ())):
            if nxt == path[0]:
                found.add(tuple(path))
            elif nxt not in on_path and nxt > path[0]:  # each cycle from its least member only
                path.append(nxt)
                on_path.add(nxt)
                visit(nxt, path, on_path)
                on_path.discard(path.pop())

    for start in sorted(edges):
        visit(start, [start], {start})
    return [list(c) + [c[0]] for c in sorted(found, key=lambda c: (len(c), c))]


def main(argv: list[str]) -> int:
    edges = import_edges()
    if "--edges" in argv:
        for name in sorted(edges):
            for target in sorted(edges[name]):
                print(f"{name} -> {target}")
    found = cycles(edges)
    print(f"{len(found)} import cycle(s) in {PACKAGE}")
    for cycle in found:
        print("  " + " -> ".join(cycle))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
