"""The README is a working first page: its relative links lead to files of the repository, and the Python examples
of the README and of the getting-started page run as written (each block on its own, in a fresh namespace).

The documentation build (``sphinx-build -W -n``, run by ``.ci/run``) checks the links between the docs' own pages;
the README is not part of the site, so its links are checked here.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest
from _shared import PYTHON_BLOCK, documentation_pages, is_docs_build_output

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES_WITH_RUNNABLE_EXAMPLES = [README, ROOT / "docs" / "getting-started.md"]

_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _relative_links(text: str) -> list[str]:
    return [target for target in _LINK.findall(text) if not re.match(r"[a-z]+:", target) and
            not target.startswith("#")]


def test_readme_relative_links_lead_to_files():
    links = _relative_links(README.read_text(encoding="utf-8"))
    assert len(links) >= 10  # the docs, the notebooks and the figures are linked
    missing = [link for link in links if not (ROOT / link.split("#")[0]).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_docs_relative_links_lead_to_files_of_a_clone():
    """Each Markdown link of the docs' pages leads to a file a fresh clone has (the build's outputs do not count:
    the pages link the repository's notebooks, and the build points them at its copies, docs/conf.py)."""
    pages = documentation_pages()
    assert len(pages) >= 20
    missing = []
    for page in pages:
        for link in _relative_links(page.read_text(encoding="utf-8")):
            target = page.parent / link.split("#")[0]
            if not target.exists() or is_docs_build_output(target):
                missing.append(f"{page.relative_to(ROOT)}: {link}")
    assert not missing, f"links to files a fresh clone lacks: {missing}"


def test_readme_links_every_docs_section():
    """Every top-level page of the site is reachable from the README (the first page sends readers on)."""
    links = {link.split("#")[0] for link in _relative_links(README.read_text(encoding="utf-8"))}
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")} - {"docs/index.md", "docs/changelog.md",
                                                                           "docs/contributing.md"}
    assert pages <= links, f"pages not linked from README.md: {sorted(pages - links)}"


def test_readme_is_a_first_page():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 150


@pytest.mark.parametrize("block", [pytest.param(code, id=f"{page.name}-{i}") for page in PAGES_WITH_RUNNABLE_EXAMPLES
                                   for i, code in enumerate(PYTHON_BLOCK.findall(page.read_text(encoding="utf-8")))])
def test_example_runs(block, capsys):
    matplotlib.use("Agg")
    exec(compile(block, "<example>", "exec"), {"__name__": "__example__"})
    assert capsys.readouterr().out.strip()  # every example prints what it computes
