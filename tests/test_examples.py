"""Every public function and class of the computing subpackages shows an Examples section, and it runs (issue 41).

The subpackages are those of :data:`EXAMPLE_PACKAGES`; their public names are the ones the API reference documents
(``docs/_api_names.py``).  Each object's own docstring (not its methods') must have an ``Examples`` section with at
least one example whose output is shown, and its examples are run here as doctests: each in a fresh namespace (an
example imports what it uses, so a reader can paste it), in a temporary working folder, with
:data:`OPTION_FLAGS`.  The outputs are printed so that they read the same on every numpy the project allows (plain
floats, lists, rounded values, never a numpy scalar's repr, which numpy 2 changed).
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re

import pytest
from _optional import installed, reason
from _shared import api_names

#: The subpackages whose every public function and class has a runnable Examples section (issue 41, part 1).
EXAMPLE_PACKAGES = ("analytic", "engine", "problems", "classifiers", "strategies", "evaluation", "runners")
#: doctest's options for the examples: ``...`` elides, and line breaks in a long output are free.
OPTION_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: An Examples section heading in a numpydoc docstring.
EXAMPLES_HEADING = re.compile(r"^Examples\n-{8,}$", re.MULTILINE)
#: Modules whose examples need an optional dependency (module -> the dependency): skipped without it.
NEEDS = {"mri_theory.strategies.skactiveml": "skactiveml"}


def _example_objects() -> dict[str, object]:
    """The documented functions and classes of :data:`EXAMPLE_PACKAGES`, by their documented dotted name."""
    documented = api_names().documented_names()[0]
    objects = {}
    for module, names in documented.items():
        if module.split(".")[1] not in EXAMPLE_PACKAGES:
            continue
        for name in names:
            obj = getattr(importlib.import_module(module), name)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                objects[f"{module}.{name}"] = obj
    return objects


EXAMPLE_OBJECTS = _example_objects()


def _examples(name: str, obj: object) -> list[doctest.DocTest]:
    """The doctests of the object's own docstring (not of its members), each with a fresh namespace."""
    return [test for test in doctest.DocTestFinder(recurse=False).find(obj, name, globs={}) if test.examples]


def test_the_objects_cover_the_seven_subpackages():
    packages = {name.split(".")[1] for name in EXAMPLE_OBJECTS}
    assert packages == set(EXAMPLE_PACKAGES)
    assert len(EXAMPLE_OBJECTS) > 200
    assert "mri_theory.engine.true_q_c" in EXAMPLE_OBJECTS and "mri_theory.runners.run_study" in EXAMPLE_OBJECTS


def test_every_object_has_an_examples_section_that_shows_output():
    missing = []
    for name, obj in EXAMPLE_OBJECTS.items():
        doc = inspect.getdoc(obj) or ""
        tests = _examples(name, obj)
        if not EXAMPLES_HEADING.search(doc) or not any(ex.want.strip() for t in tests for ex in t.examples):
            missing.append(name)
    assert not missing, f"{len(missing)} public objects without an Examples section showing an output:\n" + \
        "\n".join(missing)


@pytest.mark.parametrize("name", sorted(EXAMPLE_OBJECTS))
def test_examples_run(name, tmp_path, monkeypatch):
    needed = NEEDS.get(name.rpartition(".")[0])
    if needed and not installed(needed):
        pytest.skip(reason(needed))
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    runner = doctest.DocTestRunner(optionflags=OPTION_FLAGS)
    report: list[str] = []
    for test in _examples(name, EXAMPLE_OBJECTS[name]):
        runner.run(test, out=report.append)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, "".join(report)
