"""Which public names the API reference documents, and where: read by ``docs/conf.py`` (the reference's pages)
and by ``tests/test_api_docstrings.py`` (numpydoc validation of the same objects).  Imports the package, writes
nothing."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

#: The subpackages the reference documents, in the layers' order (``_utils`` is private).
PUBLIC_PACKAGES = ("engine", "problems", "classifiers", "strategies", "analytic", "evaluation", "runners",
                   "testing", "figures", "cli")


def public_modules() -> list[tuple[str, list[str]]]:
    """``(package, [its public submodules])`` for every documented subpackage, private modules left out."""
    out = []
    for name in PUBLIC_PACKAGES:
        pkg = importlib.import_module(f"mri_theory.{name}")
        subs = []
        if hasattr(pkg, "__path__"):
            for info in pkgutil.iter_modules(pkg.__path__):
                if info.name.startswith("_"):
                    continue
                subs.append(f"{pkg.__name__}.{info.name}")
        out.append((pkg.__name__, subs))
    return out


def object_key(obj: object, name: str) -> object:
    """What identifies a documented object: a class or function by identity, anything else also by its name."""
    return id(obj) if (inspect.isclass(obj) or inspect.isroutine(obj)) else (id(obj), name)


def documented_names() -> tuple[dict[str, list[str]], dict[str, list[tuple[str, str]]], dict[object, str]]:
    """Which names each public module documents, which it links elsewhere, and every documented object's home.

    A name is documented once: under the first subpackage (in the layers' order) whose ``__all__`` has it, or under
    its module when no subpackage exports it.  Objects that are not classes, functions or modules (constants) are
    told apart by module and name, not by identity.
    """
    documented: dict[str, list[str]] = {}
    elsewhere: dict[str, list[tuple[str, str]]] = {}
    home: dict[int, str] = {}

    def place(modname: str, name: str) -> None:
        obj = getattr(importlib.import_module(modname), name)
        key = object_key(obj, name)
        if key in home:
            elsewhere.setdefault(modname, []).append((name, home[key]))
        else:
            home[key] = f"{modname}.{name}"
            documented.setdefault(modname, []).append(name)

    modules = public_modules()
    for package, _ in modules:
        for name in getattr(importlib.import_module(package), "__all__", []):
            place(package, name)
    for package, subs in modules:
        pkg_all = getattr(importlib.import_module(package), "__all__", [])
        for sub in subs:
            for name in getattr(importlib.import_module(sub), "__all__", []):
                if name in pkg_all and getattr(importlib.import_module(sub), name) is getattr(
                        importlib.import_module(package), name):
                    key = object_key(getattr(importlib.import_module(package), name), name)
                    elsewhere.setdefault(sub, []).append((name, home[key]))
                else:
                    place(sub, name)
    return documented, elsewhere, home


def is_constant(obj: object) -> bool:
    """Whether a documented public name is data (a constant, a registry, a table), not a class, function or
    module."""
    return not (inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj))


def constant_comments() -> dict[str, list[str]]:
    """The ``#:`` comment of every documented constant, by its documented name (``mri_theory.engine.NAME``).

    A subpackage re-exports most constants, where autodoc finds no comment and would show the docstring of the
    value's type (``float``'s, ``dict``'s); the comment is read from the module that assigns the same object.  A
    constant without a comment is absent from the result (``tests/test_api_docstrings.py`` requires one).
    """
    from sphinx.errors import PycodeError
    from sphinx.pycode import ModuleAnalyzer

    import mri_theory

    comments: dict[str, dict[str, list[str]]] = {}
    for info in pkgutil.walk_packages(mri_theory.__path__, "mri_theory."):
        try:
            found = ModuleAnalyzer.for_module(info.name).find_attr_docs()
        except PycodeError:  # a module without Python source has no comments to give
            continue
        comments[info.name] = {name: list(lines) for (scope, name), lines in found.items() if scope == ""}
    out = {}
    for module, names in documented_names()[0].items():
        for name in names:
            obj = getattr(importlib.import_module(module), name)
            if not is_constant(obj):
                continue
            for home, attrs in comments.items():
                if name in attrs and getattr(importlib.import_module(home), name, None) is obj:
                    out[f"{module}.{name}"] = attrs[name]
                    break
    return out


#: Abbreviations after which a summary's first sentence goes on: autosummary ends a summary at the first period
#: followed by a space unless the text before it ends with one of its own (``e.g.``, ``i.e.``, ...) or these.  The
#: docstrings cite the paper's equations as "Eq. ``eqc``", which would otherwise cut "The true Q^c (Eq." short.
SUMMARY_ABBREVIATIONS = ("Eq.", "Eqs.", "cf.", "resp.")


def allow_summary_abbreviations() -> None:
    """Let autosummary's summaries run past :data:`SUMMARY_ABBREVIATIONS` (called by ``docs/conf.py`` and the
    test that checks the summaries)."""
    from sphinx.ext import autosummary

    known = autosummary.WELL_KNOWN_ABBREVIATIONS
    autosummary.WELL_KNOWN_ABBREVIATIONS = (*known, *(a for a in SUMMARY_ABBREVIATIONS if a not in known))


def summary_line(lines: list[str]) -> str:
    """The summary autosummary's tables show for a docstring (or a constant's comment) of ``lines``."""
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from sphinx.ext.autosummary import extract_summary

    settings = get_default_settings(Parser)
    settings.report_level = 5  # quiet: the summary is parsed to see whether a split breaks inline markup
    return extract_summary(list(lines), settings)
