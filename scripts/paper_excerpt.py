"""Write ``tests/data/mri-paper-tables.txt``: every table environment of the paper's LaTeX source, line-numbered.

The tests check the transcribed tables (Appendix D's data sets, Tables 2, 4-6 and 9-13) against the paper's own
LaTeX. The repository does not hold the paper; this excerpt holds the lines of its ``table`` environments, each as
``<line number>|<text>``, so those tests run in any clone. Where the full source is present
(``$MRI_PAPER_TEX`` or ``../shared/reference/mri-paper.tex``), ``tests/evaluation/test_tables.py`` checks the
excerpt against it line by line.

Usage: ``python scripts/paper_excerpt.py [PATH_TO_mri-paper.tex]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = ROOT.parent / "shared" / "reference" / "mri-paper.tex"
EXCERPT = ROOT / "tests" / "data" / "mri-paper-tables.txt"


def table_lines(lines: list[str]) -> list[tuple[int, str]]:
    """The ``(line number, text)`` of every line inside a ``table`` environment, its begin and end included."""
    out, inside = [], False
    for number, line in enumerate(lines, start=1):
        if "\\begin{table}" in line:
            inside = True
        if inside:
            out.append((number, line))
        if "\\end{table}" in line:
            inside = False
    return out


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else DEFAULT_SOURCE
    lines = source.read_text(encoding="utf-8").splitlines()
    body = "".join(f"{number}|{text}\n" for number, text in table_lines(lines))
    EXCERPT.write_text(f"# The table environments of mri-paper.tex, line-numbered: scripts/paper_excerpt.py\n{body}",
                       encoding="utf-8")
    print(f"{EXCERPT.relative_to(ROOT)}: {body.count(chr(10))} lines from {source}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
