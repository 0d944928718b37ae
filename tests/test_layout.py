"""The package obeys its layout rules (``scripts/layout.py``): private names stay in their module, imports
go down the layers, no import cycle, every module placed, ``__all__`` lists only defined names.

The checker is pure ``ast``; each of its detectors is checked here on small packages written to
``tmp_path`` (named ``mri_theory`` so the real layer table applies), with a case it must catch and one
it must let through.  The modules at the bottom of the engine/problems split are also imported in a
fresh interpreter to see which modules they actually load.
"""

from __future__ import annotations

import importlib.util
import itertools
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _optional import given, settings, st

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "layout.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("layout_checker", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


layout = _load_script()


def _package(tmp_path: Path, files: dict[str, str], name: str = "mri_theory") -> Path:
    """Write a package ``name`` with ``files`` (relative paths); every folder gets an ``__init__.py``."""
    root = tmp_path / name
    root.mkdir(parents=True)
    (root / "__init__.py").write_text("")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in path.relative_to(root).parents:
            init = root / folder / "__init__.py"
            if not init.exists():
                init.write_text("")
        path.write_text(textwrap.dedent(text))
    return root


def _listing(items) -> str:
    return "\n".join(f"  {item}" for item in items)


# ---------------------------------------------------------------------------------------- the package

def test_the_layer_table_names_the_package_s_modules():
    modules = layout.module_names()
    prefixes = [p for _, ps in layout.LAYERS for p in ps]
    assert len(set(prefixes)) == len(prefixes)
    assert not [(a, b) for a in prefixes for b in prefixes if a != b and b.startswith(a + ".")]
    missing = [p for p in prefixes if p not in modules]
    assert not missing, "declared layers that are not modules of the package:\n" + _listing(missing)


def test_no_private_name_is_used_outside_its_module():
    found = layout.private_uses()
    assert not found, f"{len(found)} private names used across modules (user, definer, name, line):\n" + _listing(found)


def test_no_import_cycle():
    found = layout.cycles(layout.import_edges())
    assert not found, "import cycles:\n" + _listing(" -> ".join(c) for c in found)


def test_imports_go_down_the_layers():
    found = layout.layer_violations()
    assert not found, "imports against the layer order:\n" + _listing(found)


def test_every_module_is_in_a_layer():
    found = layout.unplaced_modules()
    assert not found, "modules in no layer:\n" + _listing(found)


def test_all_lists_only_names_the_module_defines():
    found = layout.all_violations()
    assert not found, "__all__ names neither defined nor imported:\n" + _listing(found)


def test_the_engine_never_imports_problems_and_problems_build_populations():
    edges = layout.import_edges()
    engine = [(m, t) for m, ts in edges.items() if m.startswith("mri_theory.engine")
              for t in ts if t.startswith("mri_theory.problems")]
    assert not engine, "engine modules importing problems:\n" + _listing(engine)
    assert "mri_theory.engine.population" in edges["mri_theory.problems.base"]  # draw_replicate builds populations
    assert edges["mri_theory"] == set()  # the root imports nothing


def test_bayes_error_needs_neither_the_engine_nor_the_problem_base():
    edges = layout.import_edges()["mri_theory.problems.bayes_error"]
    assert not [t for t in edges if t.startswith("mri_theory.engine") or t == "mri_theory.problems.base"], edges


# At run time too, importing a module loads nothing from a higher layer: the engine no problem,
# the problems (bayes_error's package runs problems/__init__.py) no classifier.  One fresh interpreter imports
# them from the lowest layer up; what is loaded after each import is at most that import's layer, which is the
# same as asking a fresh interpreter per module (each earlier import loads only lower layers).
FIRST_IMPORTS = ["mri_theory.engine.population", "mri_theory.problems.bayes_error"]


@pytest.fixture(scope="module")
def loaded_after() -> dict[str, list[str]]:
    code = ("import importlib, sys\n"
            "for name in sys.argv[1:]:\n"
            "    importlib.import_module(name)\n"
            "    print(name, *sorted(m for m in sys.modules if m.startswith('mri_theory')))\n")
    run = subprocess.run([sys.executable, "-c", code, *FIRST_IMPORTS], capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stderr
    return {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines()}


@pytest.mark.parametrize("first", FIRST_IMPORTS)
def test_importing_a_module_loads_no_module_above_it(loaded_after, first):
    own = layout.layer_of(first)
    assert [layout.layer_of(f) for f in FIRST_IMPORTS] == sorted(layout.layer_of(f) for f in FIRST_IMPORTS)
    assert first in loaded_after[first]
    above = [m for m in loaded_after[first] if layout.layer_of(m) != "root"
             and (layout.layer_of(m) is None or layout.layer_of(m) > own)]
    assert not above, f"import {first} loads {above}"


# ------------------------------------------------------------------------------- detectors: import edges

def test_edges_count_function_level_imports_and_skip_type_checking_ones(tmp_path):
    root = _package(tmp_path, {
        "a.py": "from pkg import b\n",
        "b.py": "def f():\n    from pkg.c import g\n    return g\n",
        "c.py": "import math\n\ndef g():\n    import pkg.a\n",
        "d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\nelse:\n    import pkg.c\n",
    }, name="pkg")
    edges = layout.import_edges(root)
    assert edges == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}, "pkg.d": {"pkg.c"}}
    assert layout.cycles(edges) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]


def test_edges_resolve_relative_imports_names_and_enclosing_packages(tmp_path):
    root = _package(tmp_path, {
        "sub/__init__.py": "from .x import f\n",
        "sub/x.py": "from . import y\nfrom ..top import name\n\ndef f():\n    import typing\n",
        "sub/y.py": "from .. import top\n",
        "top.py": "name = 1\n",
        "other/z.py": "from pkg.sub.x import f\nfrom pkg.sub import f as g\n",
    }, name="pkg")
    edges = layout.import_edges(root)
    assert edges["pkg.sub"] == {"pkg.sub.x"}
    assert edges["pkg.sub.x"] == {"pkg.sub.y", "pkg.top"}  # its own package pkg.sub runs before it
    assert edges["pkg.sub.y"] == {"pkg.top"}
    assert edges["pkg.other.z"] == {"pkg.sub.x", "pkg.sub"}  # importing pkg.sub.x runs pkg/sub/__init__.py
    assert edges["pkg.other"] == set() and edges["pkg.top"] == set()


def test_a_cycle_through_a_package_init_is_found(tmp_path):
    # problems.base imports engine.population, which runs engine/__init__, which imports targets -> problems
    root = _package(tmp_path, {
        "engine/__init__.py": "from mri_theory.engine.targets import t\n",
        "engine/population.py": "P = 1\n",
        "engine/targets.py": "from mri_theory.problems import Problem\nt = 1\n",
        "problems/__init__.py": "from mri_theory.problems.base import Problem\n",
        "problems/base.py": "from mri_theory.engine.population import P\nclass Problem: ...\n",
    })
    found = layout.cycles(layout.import_edges(root))
    assert found == [["mri_theory.engine", "mri_theory.engine.targets", "mri_theory.problems",
                      "mri_theory.problems.base", "mri_theory.engine"]]


def test_the_cycle_finder_lists_each_cycle_once():
    edges = {"a": {"b", "c"}, "b": {"a", "c"}, "c": {"a"}, "d": {"d"}, "e": set()}
    assert layout.cycles(edges) == [["d", "d"], ["a", "b", "a"], ["a", "c", "a"], ["a", "b", "c", "a"]]
    assert layout.cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


NODES = "abcde"
graphs = st.dictionaries(st.sampled_from(NODES), st.sets(st.sampled_from(NODES)), min_size=1)


def _simple_paths(edges):
    """Every simple path, by brute force over the orderings of every subset of the nodes."""
    nodes = sorted(set(edges) | set().union(*edges.values()))
    for size in range(1, len(nodes) + 1):
        for order in itertools.permutations(nodes, size):
            if all(b in edges.get(a, ()) for a, b in itertools.pairwise(order)):
                yield list(order)


@settings(max_examples=40, deadline=None)
@given(graphs)
def test_the_cycles_and_the_longest_chain_match_a_brute_force_search(edges):
    expected = sorted((p + [p[0]] for p in _simple_paths(edges) if p[0] in edges.get(p[-1], ()) and p[0] == min(p)),
                      key=lambda c: (len(c), c))
    assert layout.cycles(edges) == expected
    chain = layout.longest_chain(edges)
    assert chain in list(_simple_paths(edges))
    assert len(chain) == max(len(p) for p in _simple_paths(edges))


def test_the_longest_chain_is_the_longest_simple_path():
    # by hand: a -> b -> d -> e (3 imports) beats a -> c -> e and a -> e
    assert layout.longest_chain({"a": {"b", "c", "e"}, "b": {"d"}, "c": {"e"}, "d": {"e"}, "e": set()}) == [
        "a", "b", "d", "e"]
    # with a cycle the path stays simple: x -> y -> z (z -> x would revisit x)
    assert layout.longest_chain({"x": {"y"}, "y": {"z"}, "z": {"x"}}) == ["x", "y", "z"]
    assert layout.longest_chain({}) == []


# ------------------------------------------------------------------------------ detectors: private names

def _private(tmp_path, files, **kwargs):
    return {(u.user.removeprefix("mri_theory."), u.definer.removeprefix("mri_theory."), u.name)
            for u in layout.private_uses(_package(tmp_path, files), **kwargs)}


def test_a_private_module_is_open_to_its_own_subpackage_only(tmp_path):
    found = _private(tmp_path, {
        "runners/__init__.py": "from mri_theory.runners._store import write\n",  # (c) its own private module
        "runners/_store.py": "def write(): ...\n",
        "runners/study.py": "from mri_theory.runners import _store\nfrom . import _store as s\n"
                            "from mri_theory.runners._store import write\nimport mri_theory.runners._store\n",
        "cli.py": "from mri_theory.runners import _store\n",
        "figures/a.py": "import mri_theory.runners._store as st\n\nst.write()\n",  # one use: the import
        "figures/b.py": "def f():\n    from mri_theory.runners._store import write\n",
        "figures/c.py": "import mri_theory.runners\n\nx = mri_theory.runners._store.write\n",
    })
    assert found == {("cli", "runners._store", "_store"), ("figures.a", "runners._store", "_store"),
                     ("figures.b", "runners._store", "_store"), ("figures.c", "runners._store", "_store")}
    lines = [u.line for u in layout.private_uses(tmp_path / "mri_theory") if u.user == "mri_theory.figures.a"]
    assert lines == [1]


def test_a_private_attribute_is_closed_even_to_its_subpackage(tmp_path):
    found = _private(tmp_path, {
        "runners/sandbox.py": "def _run_pair(): ...\n_KINDS = ()\nclass _Run: ...\n\n"
                              "def run():\n    return _run_pair()\n",
        "runners/study.py": "from mri_theory.runners.sandbox import _run_pair\n",
        "runners/states.py": "from mri_theory.runners import sandbox as sb\n\ndef f():\n    return sb._Run, sb.run\n",
        "runners/curves.py": "import mri_theory.runners.sandbox\n\nk = mri_theory.runners.sandbox._KINDS\n",
        "runners/ok.py": "from mri_theory.runners.sandbox import run as _run\nimport mri_theory.runners.ok as me\n\n"
                         "def _mine(): return _run, me._mine\n",
    })
    assert found == {("runners.study", "runners.sandbox", "_run_pair"), ("runners.states", "runners.sandbox", "_Run"),
                     ("runners.curves", "runners.sandbox", "_KINDS")}


def test_a_private_name_resolves_to_the_module_defining_it(tmp_path):
    found = _private(tmp_path, {
        "evaluation/metrics.py": "def _check_mode(): ...\n",
        "evaluation/ranking.py": "from mri_theory.evaluation.metrics import _check_mode\n",  # a re-export
        "cli.py": "from mri_theory.evaluation.ranking import _check_mode\nfrom mri_theory.evaluation import ranking\n"
                  "ranking._check_mode()\n",
    })
    assert found == {("evaluation.ranking", "evaluation.metrics", "_check_mode"),
                     ("cli", "evaluation.metrics", "_check_mode")}


def test_utils_is_open_to_every_module_but_its_private_names_are_not(tmp_path):
    found = _private(tmp_path, {
        "_utils/validation.py": "def real_array(): ...\ndef _helper(): ...\n",
        "engine/a.py": "from mri_theory import _utils\nfrom mri_theory._utils import validation as check\n"
                       "import mri_theory._utils.validation\ncheck.real_array()\n_utils.validation.real_array()\n",
        "engine/b.py": "from mri_theory._utils.validation import _helper\n",
        "engine/c.py": "from mri_theory._utils import validation as check\n\ndef f():\n    return check._helper\n",
    })
    assert found == {("engine.b", "_utils.validation", "_helper"), ("engine.c", "_utils.validation", "_helper")}


def test_a_type_checking_import_of_a_private_name_still_counts(tmp_path):
    found = _private(tmp_path, {
        "runners/sandbox.py": "class _Run: ...\n",
        "cli.py": "from typing import TYPE_CHECKING\n"
                  "if TYPE_CHECKING:\n    from mri_theory.runners.sandbox import _Run\n",
    })
    assert found == {("cli", "runners.sandbox", "_Run")}


# ------------------------------------------------------------------------------------- detectors: layers

def _layers(tmp_path, files):
    return {(v.module.removeprefix("mri_theory."), v.imported.removeprefix("mri_theory."))
            for v in layout.layer_violations(_package(tmp_path, files))}


def test_an_import_of_a_higher_layer_is_caught_at_any_depth_but_not_under_type_checking(tmp_path):
    found = _layers(tmp_path, {
        "engine/targets.py": "def f():\n    from mri_theory.problems import base\n",
        "engine/population.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                "    from mri_theory.problems.base import Problem\n",
        "engine/losses.py": "from mri_theory.engine import population\nfrom mri_theory._utils import ties\n",
        "problems/base.py": "from mri_theory.engine.population import P\nfrom . import _mixture\n",
        "problems/_mixture.py": "",
        "_utils/ties.py": "",
        "cli.py": "import mri_theory.runners.study\n",
        "runners/study.py": "",
    })
    assert found == {("engine.targets", "problems.base"), ("engine.targets", "problems")}


def test_a_module_in_no_layer_and_an_importing_root_are_caught(tmp_path):
    root = _package(tmp_path, {
        "helpers.py": "from mri_theory._utils import ties\n",
        "_utils/ties.py": "",
        "engine/losses.py": "from mri_theory import helpers\n",
    })
    (root / "__init__.py").write_text("from mri_theory.engine import losses\n")
    assert layout.unplaced_modules(root) == ["mri_theory.helpers"]
    found = {(v.module, v.imported) for v in layout.layer_violations(root)}
    assert found == {("mri_theory", "mri_theory.engine"), ("mri_theory", "mri_theory.engine.losses"),
                     ("mri_theory.helpers", "mri_theory._utils.ties"), ("mri_theory.helpers", "mri_theory._utils"),
                     ("mri_theory.engine.losses", "mri_theory.helpers")}
    assert layout.layer_of("mri_theory.classifiers.knn") == 3 and layout.layer_of("mri_theory") == "root"


# -------------------------------------------------------------------------------------- detectors: __all__

def test_all_names_must_be_defined_or_imported(tmp_path):
    root = _package(tmp_path, {
        "engine/a.py": """\
            import numpy as np
            from typing import TYPE_CHECKING
            from mri_theory.engine.b import g, h as k
            if TYPE_CHECKING:
                from mri_theory.engine.b import Hidden
            X, (Y, Z) = 1, (2, 3)
            try:
                import scipy
            except ImportError:
                scipy = None
            def f(): ...
            class C: ...
            __all__ = ["f", "C", "g", "k", "np", "X", "Z", "scipy", "missing", "h", "Hidden"]
            __all__ += ["later"]
            """,
        "engine/b.py": "def g(): ...\ndef h(): ...\nclass Hidden: ...\n",
        "engine/c.py": "from mri_theory.engine.b import *\n__all__ = ['g', 'h', 'nothing']\n",
        "engine/d.py": "__all__ = ['lazy']\n_NAMES = {'lazy': 'mri_theory.engine.b'}\ndef __getattr__(name): ...\n",
        "engine/e.py": "__all__ = ['lazy', 'absent']\ndef __getattr__(name): ...\n",
    })
    found = {(v.module.removeprefix("mri_theory."), v.name) for v in layout.all_violations(root)}
    assert found == {("engine.a", "missing"), ("engine.a", "h"), ("engine.a", "Hidden"), ("engine.a", "later"),
                     ("engine.c", "nothing"), ("engine.e", "lazy"), ("engine.e", "absent")}


# ------------------------------------------------------------------------------------------ report and CLI

def test_the_largest_function_counts_def_to_last_line(tmp_path):
    root = _package(tmp_path, {
        "a.py": "def small():\n    pass\n\nclass K:\n    def method(self):\n        x = 1\n\n        return x\n",
        "b.py": "def outer():\n    def inner():\n        return 1\n    return inner\n",
    })
    assert layout.largest_function(root) == ("mri_theory.a.K.method", 4)  # ties: the first name in order
    (root / "b.py").write_text("def zeta():\n    a = 1\n    b = 2\n    c = 3\n    return a\n\n"
                               "def beta():\n    a = 1\n    b = 2\n    c = 3\n    return a\n")
    assert layout.largest_function(root) == ("mri_theory.b.beta", 5)


def test_the_cli_reports_counts_and_violations_and_fails_on_any(tmp_path, capsys):
    clean = _package(tmp_path / "clean", {"engine/a.py": "from mri_theory._utils import b\n", "_utils/b.py": ""})
    assert layout.main(["--root", str(clean)]) == 0
    out = capsys.readouterr().out
    assert "import cycles: 0" in out and "layer violations: 0" in out
    assert "longest import chain (1 edges): mri_theory.engine.a -> mri_theory._utils" in out
    dirty = _package(tmp_path / "dirty", {"engine/a.py": "from mri_theory.problems.b import _x\n",
                                          "problems/b.py": "_x = 1\n"})
    assert layout.main(["--root", str(dirty)]) == 1
    out = capsys.readouterr().out
    assert "private names used across modules: 1 (user, definer, name) in 1 (user, definer) module pairs" in out
    assert "layer violations: 2" in out  # problems.b and the package problems/__init__.py it runs
    assert "mri_theory.engine.a:1 -> mri_theory.problems.b._x" in out
    assert "mri_theory.engine.a:1 -> mri_theory.problems.b: layer engine (1) imports layer problems (2)" in out
