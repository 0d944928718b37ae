"""The public API's docstrings pass numpydoc's validation, and every public constant has its own comment (issue 41).

Every function and class the API reference documents (``docs/_api_names.py``, the list the reference's pages are
written from) and every public method and property its classes define are validated with
:func:`numpydoc.validate.validate` for the checks in :data:`CHECKS`: a docstring exists (GL08), every parameter
is documented (PR01) and no documented parameter is absent from the signature (PR02), a function that returns
something has a Returns section (RT01), and the summary is one line ending with a period (SS01, SS03).  Every
documented constant has a ``#:`` comment where it is assigned, which the reference shows instead of the docstring of
the value's type (``docs/conf.py``).
"""

from __future__ import annotations

import importlib
import inspect

from _optional import need, requires
from _shared import api_names

#: numpydoc's checks this project holds its public docstrings to.
CHECKS = frozenset({"GL08", "PR01", "PR02", "RT01", "SS01", "SS03"})


def _documented_here(cls: type, name: str, value: object) -> bool:
    """Whether the class's own member ``name`` is a method or property validated here: not one that overrides a
    base class's without a docstring of its own (autodoc shows the base's: ``autodoc_inherit_docstrings``)."""
    if not (inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod))):
        return False
    function = getattr(value, "fget", None) or getattr(value, "__func__", value)
    return function.__doc__ is not None or not any(name in vars(base) for base in cls.__mro__[1:])


def _public_objects() -> list[str]:
    """Dotted names of the documented functions and classes and of those classes' own public methods."""
    documented_names = api_names().documented_names
    names = []
    for module, documented in documented_names()[0].items():
        for name in documented:
            obj = getattr(importlib.import_module(module), name)
            if not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue  # constants are data, documented by their comment (autodoc), not validated here
            names.append(f"{module}.{name}")
            if inspect.isclass(obj):
                names += [f"{module}.{name}.{member}" for member, value in vars(obj).items()
                          if not member.startswith("_") and _documented_here(obj, member, value)]
    return names


def test_the_validated_objects_cover_the_api():
    names = _public_objects()
    assert len(names) > 300
    assert "mri_theory.engine.true_q_c" in names and "mri_theory.runners.run_study" in names
    assert "mri_theory.classifiers.SVM.fit" in names or "mri_theory.classifiers.Classifier.fit" in names
    assert not any("._" in name.removeprefix("mri_theory.") for name in names)


@requires("numpydoc")
def test_public_docstrings_pass_numpydoc_validation():
    validate = need("numpydoc.validate").validate
    failures = []
    for name in _public_objects():
        result = validate(name)
        for code, message in result["errors"]:
            if code in CHECKS:
                failures.append(f"{name} ({result['file']}:{result['file_line']}): {code} {message}")
    assert not failures, f"{len(failures)} numpydoc findings:\n" + "\n".join(failures)


@requires("sphinx")  # the test extra has it
def test_every_public_constant_has_its_own_comment():
    api = api_names()
    constants = [f"{module}.{name}" for module, names in api.documented_names()[0].items() for name in names
                 if api.is_constant(getattr(importlib.import_module(module), name))]
    assert len(constants) > 100
    comments = api.constant_comments()
    missing = [name for name in constants if not "".join(comments.get(name, [])).strip()]
    assert not missing, f"constants without a #: comment where they are assigned: {missing}"


@requires("sphinx")  # the test extra has it
def test_every_summary_is_a_whole_sentence():
    """The summary autosummary shows for each public name (its docstring's first sentence, or a constant's comment)
    is not empty and is not cut after an abbreviation ("The true Q^c (Eq." was)."""
    api = api_names()
    api.allow_summary_abbreviations()
    comments = api.constant_comments()
    cut = []
    for module, names in api.documented_names()[0].items():
        for name in names:
            obj = getattr(importlib.import_module(module), name)
            full = f"{module}.{name}"
            lines = comments.get(full, []) if api.is_constant(obj) else (inspect.getdoc(obj) or "").splitlines()
            summary = api.summary_line(lines).strip()
            if not summary or summary.endswith(("Eq.", "Eqs.", "(", "e.g.", "i.e.", "cf.")):
                cut.append(f"{full}: {summary!r}")
    assert not cut, "summaries empty or cut short:\n" + "\n".join(cut)
