"""Every page of the documentation runs as written: its Python blocks, in order, as one script (issue 41).

Each page is self-contained: its blocks are joined into a script and run in a fresh interpreter, in an empty
folder (a page that reads the committed results finds ``figures/`` there, a link to the repository's), so a
block that needs a name from another page, or from an earlier session, fails here.  README.md and the
getting-started page are tested block by block in ``test_docs_examples.py``.  The pages use quick settings
(each says what the full size is); together they take about two minutes on one core.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _shared import DOCS, PYTHON_BLOCK, REPOSITORY, documentation_pages

ROOT = REPOSITORY
#: Pages tested elsewhere (block by block).
ELSEWHERE = {DOCS / "getting-started.md"}


def _pages() -> list[Path]:
    return [page for page in documentation_pages()
            if page not in ELSEWHERE and PYTHON_BLOCK.search(page.read_text(encoding="utf-8"))]


def test_the_pages_with_code_are_found():
    names = {page.relative_to(DOCS).as_posix() for page in _pages()}
    assert {"user-guide/two-gaussians.md", "user-guide/study.md", "user-guide/bring-your-own.md",
            "leaderboard.md"} <= names


@pytest.mark.slow
@pytest.mark.parametrize("page", _pages(), ids=lambda page: page.relative_to(DOCS).as_posix())
def test_the_page_runs_as_written(page, tmp_path):
    blocks = PYTHON_BLOCK.findall(page.read_text(encoding="utf-8"))
    script = tmp_path / "page.py"
    script.write_text("import matplotlib\nmatplotlib.use('Agg')\n" + "\n".join(blocks), encoding="utf-8")
    (tmp_path / "figures").symlink_to(ROOT / "figures", target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{page.relative_to(ROOT)} fails as written:\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), "a page's code prints what it computes"
