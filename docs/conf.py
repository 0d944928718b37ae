"""Sphinx configuration of the mri-theory documentation.

Build (from the repository root; warnings are errors, every cross-reference must resolve):

    python -m pip install -e ".[docs]" && sphinx-build -W -n docs docs/_build/html

These steps run here, before Sphinx reads a page, and write only git-ignored files:

* the API reference pages ``api/<module>.rst`` are generated from the package's ``__all__`` lists (one page per
  public subpackage and module, :mod:`_api_names`; the objects' own pages are autosummary's stubs in
  ``api/generated/``), and ``api/registered.rst`` from the registries;
* the notebooks are copied from ``notebooks/`` into ``docs/notebooks/`` (Sphinx reads nothing outside its source
  folder), each with a download link first, where myst-nb executes them: ``nb_execution_mode = "cache"`` re-runs
  a notebook only when its code changes (set ``MRI_DOCS_EXECUTE=off`` to skip execution while editing prose);
* before any notebook runs, ``scripts/warm_up.py`` compiles the package's numba kernels into numba's on-disk
  cache, so that no notebook cell pays for the compilation (seconds when the cache is full);
* the reports of the committed runs (``figures/**/*.md``) become the pages ``runs/*.md``.

While Sphinx reads, the pages' links to ``../notebooks/`` are pointed at the copies, the gallery gets its cards
(from the figure registry), and each public constant shows its ``#:`` comment.  The site needs no network: MathJax
is served from the build.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

# Document (and execute the notebooks against) this checkout, whatever is installed; _api_names.py beside this file.
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(DOCS))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

import _api_names  # noqa: E402

import mri_theory  # noqa: E402

# -- Project -------------------------------------------------------------------------------------------------------

project = "mri-theory"
author = "mri-theory contributors"
copyright = "mri-theory contributors, MIT licence"  # noqa: A001 (Sphinx's name)
release = version = mri_theory.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",  # a [source] link on every API page, to the highlighted module (the repository page)
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
    "sphinx_design",
    "sphinx-mathjax-offline",  # MathJax 3 served from the build's _static/mathjax: formulas render with no network
]

exclude_patterns = ["_build", "_intersphinx", "_templates", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
nitpicky = True
default_role = "autolink"  # numpydoc's `name`: a link where it names an object, else emphasis

# -- HTML ----------------------------------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"mri-theory {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 8,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "getting-started": [], "gallery": [], "findings": [], "leaderboard": [], "benchmarks": [],
                 "deviations": [], "changelog": [], "contributing": []}
html_show_sourcelink = False
html_static_path = ["_static"]
html_css_files = ["mri-theory.css"]  # spacing for the tables notebooks print

# -- MyST and notebooks --------------------------------------------------------------------------------------------

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist", "attrs_inline"]
myst_heading_anchors = 3
myst_dmath_double_inline = True  # the notebooks write display math as $$...$$ inside a paragraph, as Jupyter allows
nb_execution_mode = os.environ.get("MRI_DOCS_EXECUTE", "cache")
# Seconds per cell, for the cells' own work: the numba kernels are compiled before (warm_up_numba), and the longest
# cell takes about 15 s on the idle 2-core machine; why not more: tests/test_notebooks.py, TIMEOUT.
nb_execution_timeout = 120
# Each notebook runs in a fresh temporary folder (they read no files of their own, and write none into the source).
nb_execution_in_temp = True
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
# The site works offline: no widget manager or require.js from a CDN (a notebook's sliders need a live kernel
# anyway), and the notebooks draw their figures statically where they would offer widgets.
nb_ipywidgets_js: dict[str, dict[str, str]] = {}
os.environ["MRI_THEORY_STATIC_PAGE"] = "1"

# -- API reference -------------------------------------------------------------------------------------------------

autosummary_generate = True
_api_names.allow_summary_abbreviations()  # a summary "The true Q^c (Eq. eqc) ..." is not cut after "Eq."
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections state the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = True
numpydoc_validation_checks: set[str] = set()

#: Words numpydoc finds in "Parameters" types that name no object: they are shown as text, not linked.
numpydoc_xref_ignore = {
    "of", "or", "and", "to", "in", "the", "a", "an", "with", "for", "each", "per", "one", "two", "any", "all",
    "optional", "default", "shape", "length", "same", "like", "as", "from", "by", "is", "not", "keyword",
    "array-like", "array_like", "sequence", "mapping", "iterable", "callable", "scalar", "number", "numbers",
    "path-like", "file-like", "instance", "object", "objects", "function", "name", "names", "row",
    "rows", "column", "columns", "int", "float", "bool", "str", "None",
    # the sizes in "ndarray of shape (n, d)" and the like
    "n", "d", "k", "m", "M", "C", "R", "E", "T", "n_p", "n_candidates", "pool_size", "n_test", "n_sets", "size",
    "budget", "depth", "pair", "triples", "them", "machines", "classifier",
}

#: The built-in type words numpydoc links (Python's own types, numpy's arrays, the frames of pandas).
numpydoc_xref_aliases = {
    "int": "int", "float": "float", "bool": "bool", "str": "str", "bytes": "bytes", "dict": "dict",
    "list": "list", "tuple": "tuple", "set": "set", "frozenset": "frozenset", "None": "None",
    "Path": "pathlib.Path", "path": "pathlib.Path",
    "ndarray": "numpy.ndarray", "array": "numpy.ndarray", "Generator": "numpy.random.Generator",
    "SeedSequence": "numpy.random.SeedSequence",
    "DataFrame": "pandas.DataFrame", "Series": "pandas.Series",
    "Figure": "matplotlib.figure.Figure", "Axes": "matplotlib.axes.Axes",
    "sympy.Expr": "sympy.core.expr.Expr", "sympy.Piecewise": "sympy.functions.elementary.piecewise.Piecewise",
}


def _module_page(modname: str, names: list[str], elsewhere: list[tuple[str, str]], subs: list[str]) -> str:
    title = f"``{modname}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {modname}", "", f".. currentmodule:: {modname}", ""]
    if names:
        lines += [".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in names] + [""]
    if elsewhere:
        refs = ", ".join(f":py:obj:`{short} <{full}>`" for short, full in elsewhere)
        lines += [f"Also in this module's ``__all__``, documented where the name is exported first: {refs}.", ""]
    if subs:
        lines += ["Modules", "-------", "", ".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   {s}" for s in subs] + [""]
    return "\n".join(lines)


def _write_if_changed(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` unless it holds them already (an unchanged file keeps its time: Sphinx and the
    notebooks' execution cache read nothing again)."""
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def write_api_pages() -> dict[object, str]:
    """Write ``api/<module>.rst`` for every public subpackage and module; return every documented object's home."""
    api = DOCS / "api"
    api.mkdir(exist_ok=True)
    documented, elsewhere, home = _api_names.documented_names()
    for package, subs in _api_names.public_modules():
        for modname, children in [(package, subs)] + [(sub, []) for sub in subs]:
            text = _module_page(modname, documented.get(modname, []), elsewhere.get(modname, []), children)
            path = api / f"{modname}.rst"
            _write_if_changed(path, text.encode())
    return home


def _page_notebook(src: Path) -> bytes:
    """The notebook ``src`` as its page renders it: a first cell links the repository's file for download."""
    notebook = json.loads(src.read_text(encoding="utf-8"))
    link = {"cell_type": "markdown", "id": "download-this-notebook", "metadata": {}, "source": [
        f"{{download}}`Download this notebook <../../notebooks/{src.name}>` (run it with the `notebook` extra: "
        "`python -m pip install -e \".[notebook]\" && jupyter lab notebooks/`)."]}
    notebook["cells"] = [link, *notebook["cells"]]
    return (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode()


def copy_notebooks() -> None:
    """Copy ``notebooks/*.ipynb`` into ``docs/notebooks/``, each with a download link first (unchanged files are
    left alone: their execution cache stays; it depends on the code cells only)."""
    target = DOCS / "notebooks"
    target.mkdir(exist_ok=True)
    sources = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for src in sources:
        dst = target / src.name
        page = _page_notebook(src)
        _write_if_changed(dst, page)
    for stale in set(target.glob("*.ipynb")) - {target / s.name for s in sources}:
        stale.unlink()


def _table(title: str, header: list[str], rows: list[list[str]]) -> str:
    """An rST list-table."""
    lines = [f".. list-table:: {title}", "   :header-rows: 1", ""]
    for row in [header, *rows]:
        lines += [f"   * - {row[0]}"] + [f"     - {cell}" for cell in row[1:]]
    return "\n".join(lines) + "\n"


def _home(factory: object) -> str:
    """A registered factory as a cross-reference: its class (or the class its module exports), else its name."""
    if inspect.isclass(factory):
        default = f"{factory.__module__}.{factory.__name__}"
        return f":class:`~{HOME.get(_api_names.object_key(factory, factory.__name__), default)}`"
    return f"``{getattr(factory, '__name__', repr(factory))}``"


def write_registry_page() -> None:
    """Write ``api/registered.rst``: every registered problem, classifier and strategy, and what each declares, read
    from the registries (:class:`~mri_theory.engine.Registry`), so the tables are never kept by hand."""
    from mri_theory.classifiers import CLASSIFIER_REGISTRY
    from mri_theory.problems import PROBLEM_REGISTRY
    from mri_theory.strategies import STRATEGY_REGISTRY

    def yes(flag: object) -> str:
        return "yes" if flag else ""

    problems = [[f"``{name}``", _home(type(PROBLEM_REGISTRY.get(name))), PROBLEM_REGISTRY.tag(name, "group", "")]
                for name in PROBLEM_REGISTRY.names()]
    classifiers = []
    for name in CLASSIFIER_REGISTRY.names():
        model = CLASSIFIER_REGISTRY.get(name)
        classifiers.append([f"``{name}``", f"{_home(type(model))}: ``{model!r}``",
                            CLASSIFIER_REGISTRY.tag(name, "origin", "other"), yes(model.exact_truth)])
    strategies = []
    for name in STRATEGY_REGISTRY.names():
        factory = STRATEGY_REGISTRY.factory(name)
        flags = [yes(getattr(factory, flag, False)) for flag in ("costly", "needs_truth", "estimates_t_e")] \
            if inspect.isclass(factory) else ["", "", ""]
        strategies.append([f"``{name}``", _home(factory), STRATEGY_REGISTRY.tag(name, "origin", "other"), *flags])
    text = "\n".join([
        "What is registered", "==================", "",
        "Every name the registries hold, and what each registered object declares, read from the registries when "
        "this site was built (:data:`~mri_theory.problems.PROBLEM_REGISTRY`, "
        ":data:`~mri_theory.classifiers.CLASSIFIER_REGISTRY`, "
        ":data:`~mri_theory.strategies.STRATEGY_REGISTRY`, :class:`~mri_theory.engine.Registry`): a strategy's "
        "``origin``, a classifier's ``exact_truth``, a "
        "problem's ``group``. The runners' sets (``abstract``, ``paper``) are derived from the same declarations. "
        "The scikit-activeml peers' flags are their adapter's (the ``peers`` extra).", "",
        _table("Problems", ["name", "class", "group"], problems),
        _table("Classifiers", ["name", "class", "origin", "exact truth"], classifiers),
        _table("Strategies", ["name", "class or factory", "origin", "costly", "needs the truth", "estimates T_e"],
               strategies),
    ])
    path = DOCS / "api" / "registered.rst"
    _write_if_changed(path, text.encode())


def run_page_name(report: Path) -> str:
    """The file name of the page (under ``runs/``) that shows the committed report ``report`` (under ``figures/``)."""
    return "-".join(report.relative_to(ROOT).with_suffix("").parts[1:]).lower() + ".md"


def _run_page(report: Path, page: Path) -> str:
    """The report ``report`` as the page ``page`` shows it: its relative links pointed from the page's folder, and
    its sections one level under its title where the report skips a level (its tables are ``###`` under ``#``)."""
    text = report.read_text(encoding="utf-8")

    def relink(match: re.Match) -> str:
        target, _, anchor = match.group(1).partition("#")
        resolved = (report.parent / target).resolve()
        if resolved.suffix == ".md" and resolved.is_relative_to(ROOT / "figures"):
            moved = run_page_name(resolved)  # another committed report: its page, beside this one
        else:
            moved = Path(os.path.relpath(resolved, page.parent)).as_posix()
        return f"]({moved}{'#' + anchor if anchor else ''})"

    text = re.sub(r"\]\((?![a-z]+:|#)([^)\s]+)\)", relink, text)
    if not re.search(r"^## ", text, flags=re.MULTILINE):
        text = re.sub(r"^###", "##", text, flags=re.MULTILINE)
    title, _, body = text.partition("\n")
    return f"{title}\n\n*`{report.relative_to(ROOT).as_posix()}`, as committed.*\n{body}"


def write_run_pages() -> None:
    """Write ``runs/<name>.md`` for every report of a committed run (the Markdown files under ``figures/``), so the
    site shows the runs' settings, versions, times and tables as committed (``runs.md`` lists them)."""
    runs = DOCS / "runs"
    runs.mkdir(exist_ok=True)
    pages = set()
    for report in sorted((ROOT / "figures").rglob("*.md")):
        page = runs / run_page_name(report)
        pages.add(page)
        text = _run_page(report, page)
        _write_if_changed(page, text.encode())
    for stale in set(runs.glob("*.md")) - pages:
        stale.unlink()


def warm_up_numba() -> None:
    """Compile the package's numba kernels into numba's on-disk cache before any notebook runs
    (``scripts/warm_up.py``, in a fresh interpreter with the notebooks' environment): a notebook kernel then loads
    them instead of compiling them in its first heavy cell, which under load ran past the per-cell timeout
    (issue 54).  Skipped when the notebooks are not executed."""
    if nb_execution_mode == "off":
        return
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "warm_up.py")], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"scripts/warm_up.py failed before the notebooks' execution:\n{done.stderr[-3000:]}")
    print(done.stdout.strip())


HOME = write_api_pages()
write_run_pages()
write_registry_page()
copy_notebooks()
warm_up_numba()

# Unqualified class names in numpydoc types ("Population", "Classifier") link to the documented class.
for _full in HOME.values():
    _module, _, _attr = _full.rpartition(".")
    if inspect.isclass(getattr(importlib.import_module(_module), _attr, None)):
        numpydoc_xref_aliases.setdefault(_attr, _full)


def _lookup(dotted: str) -> object | None:
    """The object a dotted name (``mri_theory.engine.population.Population.exact``) names, or None."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _documented_home(dotted: str) -> str | None:
    """Where the object named ``dotted`` is documented, by identity: the longest prefix of ``dotted`` that names a
    documented object, with the rest of the name appended (``....Population.exact`` -> ``mri_theory.engine.
    Population.exact``)."""
    if not dotted.startswith("mri_theory."):
        return None
    parts = dotted.split(".")
    for i in range(len(parts), 1, -1):
        obj = _lookup(".".join(parts[:i]))
        if obj is None:
            continue
        if inspect.ismodule(obj):
            return None
        home = HOME.get(_api_names.object_key(obj, parts[i - 1]))
        if home:
            return ".".join([home, *parts[i:]])
    return None


def _resolve_implementation_path(app, env, node, contnode):
    """A reference to an object by a path other than the one it is documented under (its implementation module:
    ``mri_theory.runners.sandbox.run_curves``; a second subpackage that exports it) resolves to its page
    (``mri_theory.runners.run_curves``), found by the object's identity, not by its name."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip(".~")
    context = [m for m in (node.get("py:module"),) if m]
    if node.get("py:class") and context:
        context.insert(0, f"{context[0]}.{node['py:class']}")
    for name in [target] + [f"{c}.{target}" for c in context]:
        documented = _documented_home(name)
        if documented and documented != name:
            new = node.deepcopy()
            new["reftarget"] = documented
            found = env.get_domain("py").resolve_xref(env, node.get("refdoc"), app.builder, node.get("reftype"),
                                                      documented, new, contnode)
            if found is not None:
                return found
    return None


def _skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's metadata-routing setters (``set_fit_request``, ...): every scikit-learn estimator
    has them, the classifiers here take no metadata, and their docstrings are scikit-learn's."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


#: A Markdown link from a page to a notebook where the repository keeps it (``notebooks/`` at its root), valid in
#: a clone and on a code host: ``](../notebooks/01_closed_form_qc.ipynb)`` from ``docs/``.
_NOTEBOOK_LINK = re.compile(r"\]\(((?:\.\./)+)notebooks/([^)\s]+\.ipynb)\)")


def _link_copied_notebooks(app, docname, source):
    """Point the pages' links to the notebooks at their copies in ``docs/notebooks/`` (what the site renders),
    one folder level less: the sources link the repository's ``notebooks/``, which exist in any clone."""
    source[0] = _NOTEBOOK_LINK.sub(lambda m: f"]({m.group(1)[3:]}notebooks/{m.group(2)})", source[0])


#: Each documented constant's ``#:`` comment, read from the module that assigns it (``docs/_api_names.py``).
CONSTANT_COMMENTS = _api_names.constant_comments()


def _constant_docstring(app, what, name, obj, options, lines):
    """A constant's page and its summary row show its own comment, not its type's docstring."""
    if what == "data" and name in CONSTANT_COMMENTS:
        lines[:] = CONSTANT_COMMENTS[name]


#: Where the gallery page (``docs/gallery.md``) shows its thumbnails: the build replaces this line with a card per
#: registered figure (invisible where the Markdown is read as it is).
GALLERY_CARDS = "<!-- gallery cards: a card per registered figure, written by docs/conf.py -->"


def _gallery_cards(page: str) -> str:
    """A grid of sphinx-design cards, one per registered figure in the order of the gallery ``page``'s sections
    (then any figure without a section): its thumbnail and description, linking its section."""
    from mri_theory.figures import figure_names, get_figure

    sections = re.findall(r"^## `([^`]+)`", page, flags=re.MULTILINE)
    names = [name for name in sections if name in figure_names()]
    names += [name for name in figure_names() if name not in names]
    cards = ["::::{grid} 2 3 3 4", ":gutter: 2", ""]
    for name in names:
        cards += [f":::{{grid-item-card}} `{name}`", f':link: "#{name}"', ":link-type: url",
                  f":img-top: ../figures/{name}.png", f":img-alt: {name}", "", get_figure(name).description, ":::", ""]
    return "\n".join([*cards, "::::"])


def _gallery_thumbnails(app, docname, source):
    """Put the figures' cards where the gallery page marks them (``GALLERY_CARDS``)."""
    if docname == "gallery":
        source[0] = source[0].replace(GALLERY_CARDS, _gallery_cards(source[0]))


def setup(app):
    app.connect("source-read", _gallery_thumbnails)
    app.connect("autodoc-process-docstring", _constant_docstring)
    app.connect("missing-reference", _resolve_implementation_path)
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("source-read", _link_copied_notebooks)


# -- Intersphinx: local inventories first (the build needs no network), the sites' own second -------------------

intersphinx_mapping = {
    "python": ("https://docs.python.org/3", ("_intersphinx/python.inv", None)),
    "numpy": ("https://numpy.org/doc/stable", ("_intersphinx/numpy.inv", None)),
    "scipy": ("https://docs.scipy.org/doc/scipy", ("_intersphinx/scipy.inv", None)),
    "sklearn": ("https://scikit-learn.org/stable", ("_intersphinx/sklearn.inv", None)),
    "pandas": ("https://pandas.pydata.org/docs", ("_intersphinx/pandas.inv", None)),
    "dask": ("https://docs.dask.org/en/stable", ("_intersphinx/dask.inv", None)),
    "distributed": ("https://distributed.dask.org/en/stable", ("_intersphinx/distributed.inv", None)),
    "matplotlib": ("https://matplotlib.org/stable", ("_intersphinx/matplotlib.inv", None)),
    "sympy": ("https://docs.sympy.org/latest", ("_intersphinx/sympy.inv", None)),
}
intersphinx_timeout = 5

#: Type words numpydoc produces that name no linkable object (nitpicky mode would otherwise fail on them).
nitpick_ignore: list[tuple[str, str]] = [
    # scikit-activeml's documentation has no inventory this build can read offline (not on Debian, not on PyPI)
    ("py:obj", "skactiveml.base.SingleAnnotatorPoolQueryStrategy"),
]
