"""The runners' docstrings: every parameter documented, the shared text (``mri_theory.runners._docstrings``)
filled in, the same in every runner that uses it.

* Every public function of :mod:`mri_theory.runners` (``__all__``; re-exports from other subpackages aside)
  parses as numpydoc without a warning, documents exactly its signature's parameters, each once, and
  holds no placeholder.
* A runner's docstring holds, at each of its placeholders, the shared entry as it is in ``DOCS``; a shared
  parameter, Raises or Warns entry parses to the same name, type and description in every runner that uses it
  (a runner may only continue the description).  Every entry is used by two runners at least.
* :func:`~mri_theory.runners._docstrings.fill` replaces only a placeholder alone on its line, indented as it is,
  and refuses one it cannot fill.

The templates are read from the source (``ast``): the decorator keeps nothing but the filled docstring.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
import warnings

import pytest
from _optional import need

import mri_theory.runners as runners
from mri_theory.runners import _docstrings
from mri_theory.runners._docstrings import DOCS, fill, fill_doc

pytestmark = pytest.mark.skipif(sys.flags.optimize >= 2, reason="python -OO removes the docstrings")

#: Every public function defined in the subpackage (``initial_labelled_set`` is re-exported from ``problems``).
FUNCTIONS = sorted(name for name in runners.__all__ if inspect.isfunction(getattr(runners, name))
                   and getattr(runners, name).__module__.startswith("mri_theory.runners."))
_PLACEHOLDER = re.compile(r"^(?P<indent>[ ]*)%\((?P<name>\w+)\)s$", re.MULTILINE)
#: The numpydoc section of each kind of entry (by the name's prefix); ``grid_`` entries are a description only.
_SECTIONS: dict[str, str | None] = {"raises_": "Raises", "warns_": "Warns", "grid_": None}


def _template(name: str) -> str:
    """The docstring of runner ``name`` as written in its source, placeholders unfilled, cleaned."""
    node = ast.parse(textwrap.dedent(inspect.getsource(getattr(runners, name)))).body[0]
    assert isinstance(node, ast.FunctionDef)
    return inspect.cleandoc(ast.get_docstring(node, clean=False) or "")


def _uses(name: str) -> list[tuple[str, str]]:
    """``(indent, entry)`` of every placeholder of runner ``name``."""
    return [(m["indent"], m["name"]) for m in _PLACEHOLDER.finditer(_template(name))]


def _section(entry: str) -> str | None:
    return next((section for prefix, section in _SECTIONS.items() if entry.startswith(prefix)), "Parameters")


def _parsed(text: str) -> object:
    numpydoc = need("numpydoc.docscrape", "docs")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpydoc warns of what it cannot read
        return numpydoc.NumpyDocString(text)


def test_the_runners_are_found():
    assert {"run_curves", "run_study", "score_states", "plan_states", "execute_states", "run_leaderboard",
            "run_diagnostics", "noisy_selection_curves", "asymptotic_loss", "read_curves"} <= set(FUNCTIONS)
    assert "initial_labelled_set" not in FUNCTIONS


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_docstring_documents_the_signature(name):
    func = getattr(runners, name)
    doc = _parsed(inspect.cleandoc(func.__doc__))
    documented = [part.strip() for p in doc["Parameters"] for part in p.name.split(",")]
    assert sorted(documented) == sorted(inspect.signature(func).parameters), name
    assert len(documented) == len(set(documented)), f"{name} documents a parameter twice"
    assert doc["Summary"] and doc["Returns"], name
    assert "%(" not in func.__doc__, f"{name}: a placeholder is left unfilled"


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_docstring_is_its_template_filled(name):
    template, doc = _template(name), inspect.cleandoc(getattr(runners, name).__doc__)
    assert fill(template) == doc  # so the decorator was applied where there are placeholders
    for indent, entry in _uses(name):
        assert textwrap.indent(DOCS[entry], indent) in doc, (name, entry)


def test_every_shared_entry_is_used_by_two_runners_at_least():
    users = {entry: sorted(name for name in FUNCTIONS if entry in {used for _, used in _uses(name)}) for entry in DOCS}
    assert {entry: names for entry, names in users.items() if len(names) < 2} == {}
    assert {"run_curves", "run_study", "score_states", "run_leaderboard", "run_diagnostics"} <= set(users["execution"])


@pytest.mark.parametrize("entry", sorted(entry for entry in DOCS if _section(entry) is not None))
def test_a_shared_entry_reads_the_same_in_every_runner(entry):
    section = _section(entry)
    rule = "-" * len(section)
    shared = _parsed(f"{section}\n{rule}\n{DOCS[entry]}")[section]
    assert shared, entry
    for name in FUNCTIONS:
        if entry not in {used for _, used in _uses(name)}:
            continue
        # keyed by name and type: a Raises or Warns entry has its class as type and no name
        found = {(item.name, item.type): item.desc
                 for item in _parsed(inspect.cleandoc(getattr(runners, name).__doc__))[section]}
        for item in shared:
            assert (item.name, item.type) in found, (name, entry, item.name, item.type)
            assert found[item.name, item.type][:len(item.desc)] == item.desc, (name, entry)  # a runner may go on


def test_a_description_entry_is_under_the_runner_s_own_name_and_type():
    for name in FUNCTIONS:
        for indent, entry in _uses(name):
            if _section(entry) is None:
                assert indent, (name, entry)  # indented as a description, under the runner's "name : type"


# ---------------------------------------------------------------------------------------- the filling


def test_fill_indents_each_entry_as_its_placeholder_and_leaves_the_rest():
    entries = {"a": "a : int\n    First line.\n\n    After a blank.", "b": "Text."}
    doc = "Summary: 5 % of {x}.\n\n    Parameters\n    ----------\n    %(a)s\n        More.\n        %(b)s\n"
    assert fill(doc, entries) == ("Summary: 5 % of {x}.\n\n    Parameters\n    ----------\n    a : int\n"
                                  "        First line.\n\n        After a blank.\n        More.\n        Text.\n")


def test_fill_refuses_what_it_cannot_fill():
    with pytest.raises(KeyError, match="unknown"):
        fill("    %(unknown)s\n", {})
    with pytest.raises(ValueError, match="alone on its line"):
        fill("Text %(a)s here.\n", {"a": "x"})
    assert fill("No placeholder: 100 %.\n", {}) == "No placeholder: 100 %.\n"


def test_fill_doc_returns_the_function_with_its_docstring_filled():
    def documented():
        """Summary.

        Raises
        ------
        %(raises_io)s
        """

    def undocumented():
        pass

    assert fill_doc(documented) is documented and "OSError\n            When a file" in documented.__doc__
    assert fill_doc(undocumented) is undocumented and undocumented.__doc__ is None
    assert _docstrings.__all__ == ["DOCS", "fill", "fill_doc"]
