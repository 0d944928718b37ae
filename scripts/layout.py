"""Check the layout rules of ``mri_theory`` statically (pure ``ast``; the package is never imported).

The rules (``LAYERS`` below is their one declaration):

* **Layers.**  Every module belongs to exactly one layer (by its dotted prefix), or is the root package.
  A module may import only from its own layer (its own subpackage) or from a lower one; the root package
  imports nothing.  Every ``import`` statement counts, at module level or inside a function, except
  those under ``if TYPE_CHECKING:`` (they never run).
* **No import cycle** among the modules (same edges).
* **Private names.**  A name with one leading underscore (a private module ``_store`` or a private
  attribute ``_run_pair``) is used only inside the module that defines it, except that a private module
  may be imported by the modules of its own subpackage (its siblings and the subpackage's
  ``__init__``), and anything in ``mri_theory._utils`` by any module (a ``_name`` defined inside a
  ``_utils`` module stays private to it).  Counted: ``from m import _x``, ``import m._x``,
  ``from m._x import y`` and ``m._x`` on a name bound to an imported package module (aliases too),
  each resolved through re-exports to the module that defines the name.  Imports under
  ``if TYPE_CHECKING:`` count here too: an annotation naming another module's private class still
  couples the two.
* **``__all__``** lists only names the module defines or imports at module level.

Usage: ``python scripts/layout.py [--root DIR]`` prints the counts, the longest import chain and the
largest function, then every violation; the exit status is 1 if there is any violation.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1] / "mri_theory"

#: The layer order, lowest first: (layer name, module prefixes).  A module may import only from its own
#: layer or from a lower one.
LAYERS: list[tuple[str, list[str]]] = [
    ("_utils", ["mri_theory._utils"]),
    ("engine", ["mri_theory.engine"]),
    ("problems", ["mri_theory.problems"]),
    ("classifiers", ["mri_theory.classifiers"]),
    ("strategies", ["mri_theory.strategies"]),
    ("analytic", ["mri_theory.analytic"]),
    ("evaluation", ["mri_theory.evaluation"]),
    ("runners", ["mri_theory.runners"]),
    ("testing", ["mri_theory.testing"]),
    ("figures", ["mri_theory.figures"]),
    ("cli", ["mri_theory.cli"]),
]

#: Private packages whose modules any module may import (their own ``_name`` attributes stay private).
OPEN_PRIVATE: tuple[str, ...] = ("mri_theory._utils",)


class PrivateUse(NamedTuple):
    """``user`` uses ``name``, private to module ``definer``, on line ``line``."""
    user: str
    definer: str
    name: str
    line: int


class LayerViolation(NamedTuple):
    """``module`` imports ``imported`` on line ``line``, against the layer order (``reason``)."""
    module: str
    imported: str
    line: int
    reason: str


class AllViolation(NamedTuple):
    """``module`` lists ``name`` in ``__all__`` without defining or importing it."""
    module: str
    name: str


class _Import(NamedTuple):
    """One imported name: ``target`` is the package module it loads ("" if outside the package);
    ``binding`` the local name it binds, ``bound_module`` the package module bound to it (if any),
    ``base``/``name`` the ``from base import name`` pair ("" for a plain ``import``)."""
    target: str
    line: int
    type_checking: bool
    binding: str
    bound_module: str
    base: str
    name: str
    parents: tuple[str, ...] = ()  # the target's enclosing packages that the import also runs (see _parents)


# --------------------------------------------------------------------------------------------- parsing

_TREES: dict[tuple[str, int, int], ast.Module] = {}


def _parse(path: Path) -> ast.Module:
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _TREES:
        _TREES[key] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return _TREES[key]


class _Modules(dict):
    """Module name -> file, with a memo of what is read from the files (valid while they are unchanged)."""
    memo: dict


_LISTINGS: dict[tuple, _Modules] = {}


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package (a package is its ``__init__``)."""
    root = Path(root).resolve()
    paths = sorted(root.rglob("*.py"))
    key = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths)
    if key not in _LISTINGS:
        out = _Modules()
        for path in paths:
            parts = list(path.relative_to(root.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
        out.memo = {}
        _LISTINGS[key] = out
    return _LISTINGS[key]


def _memo(function):
    """Remember ``function(module, path, modules, ...)`` in ``modules.memo`` (a listing from module_names)."""
    def remembered(module, path, modules, **kwargs):
        memo = getattr(modules, "memo", None)
        if memo is None:
            return function(module, path, modules, **kwargs)
        key = (function.__name__, module, *sorted(kwargs.items()))
        if key not in memo:
            memo[key] = function(module, path, modules, **kwargs)
        return memo[key]
    return remembered


def _is_private(name: str) -> bool:
    return len(name) > 1 and name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """Every node, with whether it stands in the body of an ``if TYPE_CHECKING:`` (its ``else`` runs)."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, hidden = stack.pop()
        yield node, hidden
        body = set(map(id, node.body)) if _is_type_checking(node) else set()
        stack.extend((child, hidden or id(child) in body) for child in ast.iter_child_nodes(node))


def _owner(name: str, modules: dict[str, Path]) -> str:
    """The package module that ``name`` (a module or a name inside one) belongs to, "" if none."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def _from_base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    base = node.module or ""
    if node.level:
        parts = module.split(".")
        anchor = parts[: len(parts) - node.level + (1 if is_package else 0)]
        base = ".".join(anchor + ([base] if base else []))
    return base


def _parents(module: str, target: str, modules: dict[str, Path]) -> tuple[str, ...]:
    """The packages enclosing ``target`` that importing it runs first and that do not enclose ``module``
    (those are initialised, or under way, before ``module`` runs): importing ``engine.population`` from
    ``problems.base`` runs ``engine/__init__.py`` too."""
    parts = target.split(".")
    return tuple(p for p in (".".join(parts[:i]) for i in range(1, len(parts)))
                 if p in modules and p != module and not module.startswith(p + "."))


@_memo
def _imports(module: str, path: Path, modules: dict[str, Path]) -> list[_Import]:
    """Every imported name of ``module`` (function-level imports and ``TYPE_CHECKING`` ones flagged)."""
    out = []
    is_package = path.name == "__init__.py"
    for node, hidden in _walk(_parse(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _owner(alias.name, modules)
                if alias.asname:
                    binding, bound = alias.asname, alias.name if alias.name in modules else ""
                else:
                    binding = alias.name.partition(".")[0]
                    bound = binding if binding in modules else ""
                out.append(_Import(target, node.lineno, hidden, binding, bound, "", "",
                                   _parents(module, target, modules)))
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(module, is_package, node)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                bound = full if full in modules else ""
                target = bound or _owner(base, modules)
                out.append(_Import(target, node.lineno, hidden, alias.asname or alias.name, bound, base, alias.name,
                                   _parents(module, target, modules)))
    return out


class _Binding(NamedTuple):
    kind: str  # "def" (defined here), "module" (a module bound by import), "from" (a name imported)
    source: str = ""
    name: str = ""


@_memo
def _top_level(module: str, path: Path, modules: dict[str, Path], *, runtime_only: bool = False,
               ) -> tuple[dict[str, _Binding], list[str]]:
    """The names bound at module level (not inside a def or class), and the modules star-imported.

    ``runtime_only`` leaves out what an ``if TYPE_CHECKING:`` body binds."""
    bindings: dict[str, _Binding] = {}
    stars: list[str] = []
    is_package = path.name == "__init__.py"

    def targets(node: ast.AST) -> Iterator[str]:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                yield sub.id

    def visit(stmts: list[ast.stmt]) -> None:
        for node in stmts:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bindings[node.name] = _Binding("def")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        bindings[alias.asname] = _Binding("module", alias.name)
                    else:
                        head = alias.name.partition(".")[0]
                        bindings[head] = _Binding("module", head)
            elif isinstance(node, ast.ImportFrom):
                base = _from_base(module, is_package, node)
                for alias in node.names:
                    if alias.name == "*":
                        stars.append(base)
                    elif f"{base}.{alias.name}" in modules:
                        bindings[alias.asname or alias.name] = _Binding("module", f"{base}.{alias.name}")
                    else:
                        bindings[alias.asname or alias.name] = _Binding("from", base, alias.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor,
                                   ast.With, ast.AsyncWith)):
                heads = node.targets if isinstance(node, ast.Assign) else (
                    [item.optional_vars for item in node.items if item.optional_vars]
                    if isinstance(node, (ast.With, ast.AsyncWith)) else [node.target])
                for head in heads:
                    for name in targets(head):
                        bindings[name] = _Binding("def")
            if isinstance(node, ast.If) and runtime_only and _is_type_checking(node):
                visit(node.orelse)
                continue
            for field in ("body", "orelse", "finalbody"):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit(getattr(node, field, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                if handler.name:
                    bindings[handler.name] = _Binding("def")
                visit(handler.body)

    visit(_parse(path).body)
    return bindings, stars


# ------------------------------------------------------------------------------------------------ edges

def import_edges(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the package modules it imports.

    Function-level imports count, ``if TYPE_CHECKING:`` ones do not; relative imports are resolved;
    ``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``.  An import
    of ``pkg.sub.mod`` is also an edge to each enclosing package it runs (``pkg.sub``), unless that
    package encloses the importing module too.
    """
    modules = module_names(root)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for imp in _imports(name, path, modules):
            if imp.target and not imp.type_checking:
                edges[name].update(t for t in (imp.target, *imp.parents) if t != name)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The elementary cycles, each once (starting and ending at its least member), shortest first."""
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


def longest_chain(edges: dict[str, set[str]], *, budget: int = 1_000_000) -> list[str]:
    """The longest simple import path ``[a, b, ...]`` (``a`` imports ``b`` ...); the first in name order
    among the longest.  Exact on an acyclic graph; with cycles, the longest found within ``budget`` steps."""
    if not cycles(edges):
        memo: dict[str, list[str]] = {}

        def best(node: str) -> list[str]:
            if node not in memo:
                tails = [best(nxt) for nxt in sorted(edges.get(node, ()))]
                memo[node] = [node] + min(tails, key=lambda t: (-len(t), t), default=[])
            return memo[node]

        return min((best(n) for n in sorted(edges)), key=lambda p: (-len(p), p), default=[])
    longest: list[str] = []
    steps = 0

    def walk(path: list[str], on_path: set[str]) -> None:
        nonlocal longest, steps
        steps += 1
        if len(path) > len(longest):
            longest = list(path)
        for nxt in sorted(edges.get(path[-1], ())):
            if nxt not in on_path and steps < budget:
                path.append(nxt)
                on_path.add(nxt)
                walk(path, on_path)
                on_path.discard(path.pop())

    for start in sorted(edges):
        walk([start], {start})
    return longest


# -------------------------------------------------------------------------------------------- layers

def layer_of(module: str, *, layers: list[tuple[str, list[str]]] = LAYERS) -> int | str | None:
    """The index of ``module``'s layer in ``layers``, ``"root"`` or ``None`` (in no layer)."""
    if "." not in module:
        return "root"
    found = [i for i, (_, prefixes) in enumerate(layers)
             for p in prefixes if module == p or module.startswith(p + ".")]
    return found[0] if len(found) == 1 else None


def unplaced_modules(root: Path = ROOT, *, layers: list[tuple[str, list[str]]] = LAYERS) -> list[str]:
    """The modules in no layer (or in more than one), other than the root package."""
    return [m for m in module_names(root) if layer_of(m, layers=layers) is None]


def layer_violations(root: Path = ROOT, *, layers: list[tuple[str, list[str]]] = LAYERS) -> list[LayerViolation]:
    """Every import (not under ``TYPE_CHECKING``) of a higher layer, from or to a
    module in no layer, or by the root package (which imports nothing).  Imports within a layer are free,
    and so are imports of the root package; an import also counts for the packages it runs (``_parents``)."""
    modules = module_names(root)
    out = []
    for module, path in modules.items():
        here = layer_of(module, layers=layers)
        imports = _imports(module, path, modules)
        for imp, target in ((i, t) for i in imports for t in (i.target, *i.parents)):
            if not target or target == module or imp.type_checking:
                continue
            there = layer_of(target, layers=layers)
            reason = None
            if here == "root":
                reason = "the root package imports nothing"
            elif here is None:
                reason = "a module in no layer"
            elif there is None:
                reason = "imports a module in no layer"
            elif there != "root" and there > here:
                reason = f"layer {layers[here][0]} ({here}) imports layer {layers[there][0]} ({there})"
            if reason:
                out.append(LayerViolation(module, target, imp.line, reason))
    return sorted(set(out))


# ------------------------------------------------------------------------------------------ privacy

def _resolve(module: str, name: str, modules: dict[str, Path], seen: frozenset[str] = frozenset(),
             ) -> tuple[str, str]:
    """What ``module.name`` is: ``("module", m)`` for a package module, ``("symbol", definer)`` for a name
    (followed through re-exports under the same name), ``("external", "")`` for a name from elsewhere."""
    full = f"{module}.{name}"
    if module not in modules or module in seen:
        return ("module", full) if full in modules else ("symbol", module) if module in modules else ("external", "")
    binding = _top_level(module, modules[module], modules)[0].get(name)
    if binding is None:
        return ("module", full) if full in modules else ("symbol", module)
    if binding.kind == "module":
        return ("module", binding.source) if binding.source in modules else ("external", "")
    if binding.kind == "from" and binding.name == name:
        if _owner(binding.source, modules) == "":
            return ("external", "")
        return _resolve(binding.source, name, modules, seen | {module})
    return ("symbol", module)


def _home(module: str, modules: dict[str, Path]) -> str:
    """The package a module sits in (a package's ``__init__`` sits in the package itself)."""
    return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]


def _closed_private_modules(user: str, target: str, modules: dict[str, Path],
                            open_private: tuple[str, ...]) -> Iterator[str]:
    """The private modules on ``target``'s dotted path that ``user`` may not import."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        prefix = ".".join(parts[: i + 1])
        if not _is_private(part) or prefix not in modules:
            continue
        if any(prefix == p or prefix.startswith(p + ".") for p in open_private):
            continue
        if prefix.rpartition(".")[0] == _home(user, modules) or user == prefix or user.startswith(prefix + "."):
            continue
        yield prefix


def _uses(user: str, base: str, name: str, line: int, modules: dict[str, Path],
          open_private: tuple[str, ...], *, check_base: bool = True) -> tuple[list[PrivateUse], str]:
    """The private uses in ``base.name`` as seen from ``user``, and the module it names ("" if not one)."""
    out = [PrivateUse(user, p, p.rpartition(".")[2], line)
           for p in _closed_private_modules(user, base, modules, open_private)] if check_base else []
    kind, what = _resolve(base, name, modules)
    if kind == "module":
        out += [PrivateUse(user, p, p.rpartition(".")[2], line)
                for p in _closed_private_modules(user, what, modules, open_private)]
        return out, what
    if kind == "symbol" and _is_private(name) and what != user:
        out.append(PrivateUse(user, what, name, line))
    return out, ""


def _attribute_chain(node: ast.Attribute) -> tuple[str, list[str]] | None:
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    return (node.id, attrs[::-1]) if isinstance(node, ast.Name) else None


def private_uses(root: Path = ROOT, *, open_private: tuple[str, ...] = OPEN_PRIVATE) -> list[PrivateUse]:
    """Every use of a name private to another module, resolved to the module that defines it."""
    modules = module_names(root)
    found: set[PrivateUse] = set()
    for user, path in modules.items():
        bound: dict[str, str] = {}  # local name -> the package module bound to it
        for imp in _imports(user, path, modules):
            if imp.base:
                uses, module = _uses(user, imp.base, imp.name, imp.line, modules, open_private)
                found.update(uses)
            else:
                found.update(PrivateUse(user, p, p.rpartition(".")[2], imp.line)
                             for p in _closed_private_modules(user, imp.target, modules, open_private))
            if imp.bound_module:
                bound[imp.binding] = imp.bound_module
        if not bound:
            continue
        attributes = [n for n in ast.walk(_parse(path)) if isinstance(n, ast.Attribute)]
        inner = {id(n.value) for n in attributes}
        for node in attributes:
            if id(node) in inner:
                continue
            chain = _attribute_chain(node)
            if chain is None or chain[0] not in bound:
                continue
            current = bound[chain[0]]
            for attr in chain[1]:  # the bound module was checked at its import, each next one at its hop
                uses, module = _uses(user, current, attr, node.lineno, modules, open_private, check_base=False)
                found.update(uses)
                if not module:
                    break
                current = module
    return sorted(found)


# -------------------------------------------------------------------------------------------- __all__

def _all_names(tree: ast.Module) -> list[str]:
    """The string literals a module assigns, adds or extends to ``__all__`` at module level."""
    def literals(value: ast.AST | None) -> list[str]:
        if isinstance(value, (ast.List, ast.Tuple)):
            return [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return literals(value.left) + literals(value.right)
        return []

    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names = literals(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and getattr(node.target, "id", None) == "__all__":
            names = (names if isinstance(node, ast.AugAssign) else []) + literals(node.value)
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in ("extend", "append")
              and getattr(node.value.func.value, "id", None) == "__all__"):
            args = node.value.args
            names += literals(args[0]) if node.value.func.attr == "extend" and args else [
                a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return names


def _public_names(module: str, modules: dict[str, Path], seen: frozenset[str] = frozenset()) -> set[str] | None:
    """What ``from module import *`` binds (``None`` if unknown: a module outside the package)."""
    if module not in modules or module in seen:
        return None
    listed = _all_names(_parse(modules[module]))
    if listed:
        return set(listed)
    bindings, stars = _top_level(module, modules[module], modules, runtime_only=True)
    names = {n for n in bindings if not n.startswith("_")}
    for star in stars:
        more = _public_names(star, modules, seen | {module})
        if more is None:
            return None
        names |= more
    return names


def all_violations(root: Path = ROOT) -> list[AllViolation]:
    """Every name in a module's ``__all__`` that the module neither defines nor imports at module level
    (imports under ``if TYPE_CHECKING:`` do not bind at run time).  A module with a module-level
    ``__getattr__`` is exempt for the names it spells as strings elsewhere."""
    modules = module_names(root)
    out = []
    for module, path in modules.items():
        tree = _parse(path)
        listed = _all_names(tree)
        if not listed:
            continue
        bindings, stars = _top_level(module, path, modules, runtime_only=True)
        known = set(bindings)
        for star in stars:
            more = _public_names(star, modules, frozenset({module}))
            if more is None:
                known = None
                break
            known |= more
        if known is None:
            continue
        if "__getattr__" in bindings:
            strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            known |= {s for s in strings if strings.count(s) > listed.count(s)}
        out += [AllViolation(module, name) for name in listed if name not in known]
    return out


# --------------------------------------------------------------------------------------------- report

def largest_function(root: Path = ROOT) -> tuple[str, int]:
    """The qualified name and line count (``def`` line to last line) of the longest function or method."""
    best = ("", 0)
    for module, path in module_names(root).items():
        stack: list[tuple[ast.AST, str]] = [(_parse(path), module)]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}.{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        lines = child.end_lineno - child.lineno + 1
                        if (lines, best[0]) > (best[1], name):
                            best = (name, lines)
                    stack.append((child, name))
                else:
                    stack.append((child, prefix))
    return best


def report(root: Path = ROOT) -> tuple[str, bool]:
    """The text the CLI prints, and whether there is any violation."""
    root = Path(root)
    edges = import_edges(root)
    private = private_uses(root)
    found_cycles = cycles(edges)
    layers = layer_violations(root)
    unplaced = unplaced_modules(root)
    listed = all_violations(root)
    chain = longest_chain(edges)
    function, lines = largest_function(root)
    names = {(u.user, u.definer, u.name) for u in private}
    pairs = {(u.user, u.definer) for u in private}
    out = [
        f"layout of {root} ({len(edges)} modules, {sum(map(len, edges.values()))} import edges)",
        (f"  private names used across modules: {len(names)} (user, definer, name) in {len(pairs)} "
         f"(user, definer) module pairs, {len(private)} uses"),
        f"  import cycles: {len(found_cycles)}",
        f"  layer violations: {len(layers)}",
        f"  modules in no layer: {len(unplaced)}",
        f"  __all__ names neither defined nor imported: {len(listed)}",
        f"  longest import chain ({max(len(chain) - 1, 0)} edges): {' -> '.join(chain)}",
        f"  largest function: {function} ({lines} lines)",
    ]
    if private:
        out.append("private names used across modules (user:line -> definer.name):")
        out += [f"  {u.user}:{u.line} -> {u.definer}.{u.name}" if u.definer.rpartition(".")[2] != u.name
                else f"  {u.user}:{u.line} -> private module {u.definer}" for u in private]
    if found_cycles:
        out.append("import cycles:")
        out += ["  " + " -> ".join(c) for c in found_cycles]
    if layers:
        out.append("layer violations (module:line -> imported: reason):")
        out += [f"  {v.module}:{v.line} -> {v.imported}: {v.reason}" for v in layers]
    if unplaced:
        out.append("modules in no layer:")
        out += [f"  {m}" for m in unplaced]
    if listed:
        out.append("__all__ names neither defined nor imported:")
        out += [f"  {v.module}: {v.name}" for v in listed]
    return "\n".join(out), bool(private or found_cycles or layers or unplaced or listed)


def main(argv: list[str] | None = None) -> int:
    """Print the report for ``--root`` (default: this checkout's package); 1 if there is any violation."""
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the package folder (default: %(default)s)")
    args = parser.parse_args(argv)
    if not (args.root / "__init__.py").is_file():
        parser.error(f"--root {args.root} is not a package folder (no __init__.py)")
    text, bad = report(args.root)
    print(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
