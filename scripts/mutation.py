#!/usr/bin/env python
"""Mutation testing of the mathematical core with mutmut, one module at a time, and a score table.

Usage (from the repository root; needs ``pip install -e .[test,mutation]``)::

    python scripts/mutation.py                    # every module below
    python scripts/mutation.py metrics ranking    # some of them
    python scripts/mutation.py --list             # the modules and their test files
    python scripts/mutation.py --report           # the table of the runs in the workdir (even unfinished)
    python scripts/mutation.py --resume knn       # go on with a stopped run
    python scripts/mutation.py --recheck metrics  # experimental: re-test that module's survivors only

For each module the script copies ``mri_theory/``, ``tests/`` and ``pyproject.toml`` into
``<workdir>/<module>/`` (default workdir: ``.mutation/``, git-ignored), so the working tree is never
mutated in place; writes there a ``[tool.mutmut]`` section that mutates only that module's file and
runs only that module's test files (the rest of the section is the repository's own); makes numba
compile the mutant under test of a compiled kernel instead of mutmut's trampoline
(``scripts/_mutmut_numba.py``, installed first by the copy's ``tests/conftest.py``); runs
``mutmut run``; and prints one row per module: mutants, killed, survived, no tests, timeouts and the
score ``killed / checked mutants`` (a timeout counts as killed, a mutant no test reaches as alive; a
run stopped early leaves some mutants "not checked").  A test file that fails on the unmutated code is
left out (mutmut needs a clean run) and named.  The
surviving mutants' diffs go to ``<workdir>/<module>/survivors.txt``; ``mutmut show NAME`` run in
that folder shows one.  Slow (minutes per module): not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent

#: module -> (the files mutated, the fast test files that exercise them); every file must exist (checked before a
#: run).  The metrics' computations are shared with ranking through two private modules of the subpackage.
MODULES: dict[str, tuple[list[str], list[str]]] = {
    "metrics": (["mri_theory/evaluation/metrics.py", "mri_theory/evaluation/_kernels.py",
                 "mri_theory/evaluation/_pairings.py"],
                ["tests/evaluation/test_metrics.py", "tests/test_bad_inputs_evaluation.py",
                 "tests/test_wrapper_values.py"]),
    "ranking": (["mri_theory/evaluation/ranking.py"],
                ["tests/evaluation/test_ranking.py", "tests/test_bad_inputs_evaluation.py"]),
    "summaries": (["mri_theory/evaluation/summaries.py"],
                  ["tests/evaluation/test_summaries.py", "tests/evaluation/test_summaries_resolved.py",
                   "tests/test_bad_inputs_core.py", "tests/test_wrapper_values.py"]),
    "nonmyopic": (["mri_theory/analytic/nonmyopic.py"],
                  ["tests/analytic/test_nonmyopic.py", "tests/test_bad_inputs_core.py"]),
    "two_gaussians": (["mri_theory/analytic/two_gaussians.py"],
                      ["tests/analytic/test_two_gaussians.py", "tests/evaluation/test_tables.py",
                       "tests/analytic/test_two_gaussians_edges.py"]),
    "gaussian": (["mri_theory/classifiers/gaussian.py"],
                 ["tests/classifiers/test_gaussian_precision.py", "tests/classifiers/test_classifiers.py",
                  "tests/classifiers/test_fast_path_edges.py", "tests/classifiers/test_scale_invariance.py",
                  "tests/engine/test_exact_population.py"]),
    # the solvers of these three are hit by every test of their files: only the files written for them
    "knn": (["mri_theory/classifiers/knn.py"],
            ["tests/classifiers/test_kknn.py", "tests/classifiers/test_knn_compiled.py",
             "tests/classifiers/test_fast_path_edges.py"]),
    "logistic": (["mri_theory/classifiers/logistic.py"],
                 ["tests/classifiers/test_logistic.py", "tests/classifiers/test_logistic_compiled.py",
                  "tests/classifiers/test_fast_path_edges.py", "tests/engine/test_exact_population.py",
                  "tests/classifiers/test_scale_invariance.py"]),
    "svm": (["mri_theory/classifiers/svm.py", "mri_theory/classifiers/_repeats.py"],
            ["tests/classifiers/test_svm.py", "tests/classifiers/test_svm_compiled.py",
             "tests/classifiers/test_repeats.py", "tests/classifiers/test_svm_platt_polish.py",
             "tests/classifiers/test_svm_solve_compiled.py", "tests/classifiers/test_fast_path_edges.py",
             "tests/classifiers/test_scale_invariance.py"]),
}


def _missing(modules: list[str]) -> list[str]:
    """The files of ``MODULES`` (mutated or tests) that do not exist for these modules: a moved file would
    otherwise leave a module unmutated or untested without a word."""
    return [path for m in modules for path in (*MODULES[m][0], *MODULES[m][1]) if not (ROOT / path).exists()]


def _has_run(workdir: Path, module: str) -> bool:
    """Whether ``workdir`` holds mutmut's record of a run of ``module`` (finished or not)."""
    return any((workdir / module / "mutants" / (source + ".meta")).exists() for source in MODULES[module][0])


#: The file that makes numba compile the mutant under test (copied into each copy's tests and imported first).
NUMBA_SHIM = "_mutmut_numba.py"
FUTURE_IMPORT = "from __future__ import annotations\n"

KILLED = ("killed", "timeout", "caught by type check", "segfault")


def _toml_value(value: object) -> str:
    """A TOML literal for the str, bool, number or list of them in a mutmut setting (JSON's string escapes
    are TOML's)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)


#: mutmut's exit codes of the verdicts that tests added or reaching further since can change: survived, no tests.
OPEN_VERDICTS = (0, 33)


def _reopen_record(here: Path, sources: list[str]) -> int:
    """Prepare an earlier run's record in ``here`` for a resumed run; return how many verdicts were reopened.

    mutmut maps each function to the tests that reached it when it first collected its statistics and, on a
    later run, collects them again only for tests it has not seen.  A test that reaches a function only after
    the code moved (a function split, a new call) is then never run on its mutants, and a survivor of the
    earlier run stays a survivor.  So the map and the test durations are cleared (every test is collected
    afresh; the function hashes, by which mutmut resets the verdicts of changed functions, are kept) and the
    verdicts that new or further-reaching tests can change, survived and no tests, are set back to unchecked.
    A kill stays a kill."""
    stats_path = here / "mutants" / "mutmut-stats.json"
    if stats_path.exists():
        stats = json.loads(stats_path.read_text("utf-8"))
        stats["tests_by_mangled_function_name"], stats["duration_by_test"] = {}, {}
        stats_path.write_text(json.dumps(stats), "utf-8")
    reopened = 0
    for source in sources:
        record = here / "mutants" / (source + ".meta")
        if record.exists():
            meta = json.loads(record.read_text("utf-8"))
            codes = meta["exit_code_by_key"]
            for name, code in codes.items():
                if code in OPEN_VERDICTS:
                    codes[name] = None
                    reopened += 1
            record.write_text(json.dumps(meta), "utf-8")
    return reopened


def _prepare(module: str, workdir: Path, resume: bool = False) -> Path:
    """A copy of the package and tests with a ``[tool.mutmut]`` section for ``module`` alone: fresh, or with
    ``resume`` the files copied over an earlier run's copy whose record (``mutants/``) is kept, its survivors
    reopened (:func:`_reopen_record`)."""
    sources, tests = MODULES[module]
    here = workdir / module
    if here.exists() and not resume:
        shutil.rmtree(here)
    if resume:
        print(f"  {module}: {_reopen_record(here, sources)} survivors reopened, tests mapped afresh", flush=True)
    here.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for folder in ("mri_theory", "tests"):
        shutil.copytree(ROOT / folder, here / folder, ignore=ignore, dirs_exist_ok=True)
    shutil.copy2(ROOT / "pyproject.toml", here / "pyproject.toml")  # pytest's settings for the pre-check
    # numba compiles the version under test of each compiled kernel, not mutmut's trampoline (_mutmut_numba.py)
    shutil.copy2(ROOT / "scripts" / NUMBA_SHIM, here / "tests" / NUMBA_SHIM)
    conftest = here / "tests" / "conftest.py"
    shim = f"import {NUMBA_SHIM[:-3]}  # (scripts/mutation.py)\n\n{NUMBA_SHIM[:-3]}.install()\n"
    head, future, rest = conftest.read_text("utf-8").partition(FUTURE_IMPORT)  # a __future__ import stays first
    conftest.write_text(head + future + shim + rest if future else shim + head, "utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    settings = dict(project["tool"]["mutmut"])
    settings["only_mutate"] = list(sources)
    settings["pytest_add_cli_args_test_selection"] = _passing(here, tests, settings.get("pytest_add_cli_args", []))
    pytest_ini = project["tool"]["pytest"]["ini_options"]
    lines = ["[tool.mutmut]", *(f"{k} = {_toml_value(v)}" for k, v in settings.items()),
             "", "[tool.pytest.ini_options]", *(f"{k} = {_toml_value(v)}" for k, v in pytest_ini.items())]
    (here / "pyproject.toml").write_text("\n".join(lines) + "\n", "utf-8")
    return here


def _passing(here: Path, tests: list[str], pytest_args: list[str]) -> list[str]:
    """The test files that pass on the unmutated copy (mutmut needs a clean run); the others are named and
    left out."""
    keep = []
    for test in tests:
        env = {**os.environ, "PYTHONPATH": str(here)}
        run = subprocess.run([sys.executable, "-m", "pytest", test, *pytest_args], cwd=here, env=env,
                             capture_output=True, text=True)
        if run.returncode == 0:
            keep.append(test)
        else:
            print(f"  left out {test}: it fails on the unmutated code", flush=True)
    return keep


def _statuses(here: Path, sources: list[str]) -> dict[str, str]:
    """Mutant name -> status, read from mutmut's record of the run (one record per mutated file)."""
    from mutmut.__main__ import status_by_exit_code

    statuses = {}
    for source in sources:
        record = here / "mutants" / (source + ".meta")
        if record.exists():
            meta = json.loads(record.read_text("utf-8"))
            statuses.update({name: status_by_exit_code[code] for name, code in meta["exit_code_by_key"].items()})
    return statuses


def _row(module: str, here: Path) -> dict[str, object]:
    """The score-table row of a module from mutmut's record in ``here`` (``not_checked``: mutants a run
    interrupted before testing them; the score is over the checked ones)."""
    statuses = _statuses(here, MODULES[module][0])
    recheck = here / "recheck.json"
    if recheck.exists():
        statuses.update(dict.fromkeys(json.loads(recheck.read_text("utf-8")), "killed"))
    counts = {status: sum(s == status for s in statuses.values()) for status in set(statuses.values())}
    killed = sum(counts.get(s, 0) for s in KILLED)
    checked = len(statuses) - counts.get("not checked", 0)
    return {"module": module, "mutants": len(statuses), "killed": killed, "survived": counts.get("survived", 0),
            "no_tests": counts.get("no tests", 0), "timeout": counts.get("timeout", 0),
            "not_checked": counts.get("not checked", 0), "score": killed / checked if checked else float("nan")}


def run_module(module: str, workdir: Path, jobs: int, resume: bool = False) -> dict[str, object]:
    """Mutate one module, write its survivors' diffs, and return its row of the score table.

    With ``resume`` an earlier run of the module in ``workdir`` goes on: mutmut keeps the kills, except those
    of functions whose code changed since, and tests the rest (the survivors again, with every test mapped
    afresh to the functions it reaches)."""
    here = _prepare(module, workdir, resume and _has_run(workdir, module))
    command = ["mutmut", "run", "--max-children", str(jobs)]
    with open(here / "mutmut.log", "w") as log:
        subprocess.run(command, cwd=here, stdout=log, stderr=subprocess.STDOUT, check=False)
    statuses = _statuses(here, MODULES[module][0])
    alive = sorted(name for name, status in statuses.items() if status not in KILLED)
    with open(here / "survivors.txt", "w") as out:
        for name in alive:
            shown = subprocess.run(["mutmut", "show", name], cwd=here, capture_output=True, text=True)
            out.write(shown.stdout + "\n")
    return _row(module, here)


def _print_table(rows: list[dict[str, object]]) -> None:
    columns = ["module", "mutants", "killed", "survived", "no_tests", "timeout", "not_checked", "score"]
    print("\n| " + " | ".join(columns) + " |\n|" + "|".join("---" for _ in columns) + "|")
    for r in rows:
        print("| " + " | ".join(f"{r[c]:.1%}" if c == "score" else str(r[c]) for c in columns) + " |")


def _restore(here: Path, originals: dict[str, str]) -> None:
    """Write back the unmutated text of each mutated file of the copy."""
    for source, text in originals.items():
        (here / source).write_text(text, "utf-8")


def recheck_module(module: str, workdir: Path, only: list[str] | None = None) -> dict[str, object]:
    """Re-test only the survivors of a finished run with the repository's current test files (after tests
    were added): each surviving mutant is applied to the copy's source in turn (``mutmut apply``) and the
    module's test files are run on it; the ones that now fail are recorded as killed ("killed on recheck")
    in ``<workdir>/<module>/recheck.json``.  ``only``: run just these test files (the survivors passed the
    others already, if unchanged).  Returns the updated row."""
    here = workdir / module
    sources, tests = MODULES[module]
    tests = only or tests
    originals = {source: (here / source).read_text("utf-8") for source in sources}
    for test in tests:
        if (ROOT / test).exists():
            shutil.copy2(ROOT / test, here / test)
    project = tomllib.loads((here / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    tests = _passing(here, [t for t in tests if (here / t).exists()], project.get("pytest_add_cli_args", []))
    statuses = _statuses(here, sources)
    killed_now = []
    env = {**os.environ, "PYTHONPATH": str(here)}
    try:
        for name in sorted(n for n, status in statuses.items() if status == "survived"):
            subprocess.run(["mutmut", "apply", name], cwd=here, capture_output=True, check=True)
            run = subprocess.run([sys.executable, "-m", "pytest", *tests, *project.get("pytest_add_cli_args", [])],
                                 cwd=here, env=env, capture_output=True, text=True)
            _restore(here, originals)
            if run.returncode == 1:  # tests failed (not a collection or usage error)
                killed_now.append(name)
                print(f"  {name}: killed", flush=True)
    finally:
        _restore(here, originals)
    (here / "recheck.json").write_text(json.dumps(killed_now, indent=1), "utf-8")
    return _row(module, here)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE",
                        help=f"modules to mutate (default: all of {', '.join(MODULES)})")
    parser.add_argument("--workdir", type=Path, default=ROOT / ".mutation", help="where the copies go")
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested in parallel (default 1)")
    parser.add_argument("--nice", type=int, default=15,
                        help="niceness added to this script and its pytest and mutmut processes (default 15)")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the runs in the workdir (stopped, or from an archive of their mutants/ "
                             "records) instead of starting afresh")
    parser.add_argument("--list", action="store_true", help="list the modules and their tests, and stop")
    parser.add_argument("--recheck", action="store_true",
                        help="experimental: re-test only the survivors of runs in the workdir with the current tests "
                             "(once reported equivalent mutants as killed: confirm its kills by hand)")
    parser.add_argument("--tests", nargs="+", metavar="FILE",
                        help="with --recheck: only these test files (e.g. the ones just added)")
    parser.add_argument("--report", action="store_true",
                        help="print the table of the runs already in the workdir (finished or not), run nothing")
    args = parser.parse_args(argv)
    if args.list:
        for module, (sources, tests) in MODULES.items():
            print(f"{module:14} {' '.join(sources)}: {' '.join(tests)}")
        missing = _missing(list(MODULES))
        if missing:
            print(f"missing: {' '.join(missing)}", file=sys.stderr)
        return 1 if missing else 0
    unknown = sorted(set(args.modules) - set(MODULES))
    if unknown:
        parser.error(f"unknown modules {unknown}; choose from {', '.join(MODULES)}")
    if args.recheck:
        if args.nice and hasattr(os, "nice"):
            os.nice(args.nice)
        rows = [recheck_module(m, args.workdir.resolve(), args.tests) for m in (args.modules or MODULES)
                if _has_run(args.workdir, m)]
        _print_table(rows)
        return 0
    if args.report:
        modules = [m for m in (args.modules or MODULES) if _has_run(args.workdir, m)]
        _print_table([_row(m, args.workdir.resolve() / m) for m in modules])
        return 0
    missing = _missing(args.modules or list(MODULES))
    if missing:
        parser.error(f"files of the module table not found (moved?): {', '.join(missing)}")
    if shutil.which("mutmut") is None:
        print("mutmut is not installed: pip install -e .[mutation]", file=sys.stderr)
        return 2
    if args.nice and hasattr(os, "nice"):
        os.nice(args.nice)  # inherited by every pytest and mutmut process started below
    rows = []
    for module in args.modules or list(MODULES):
        row = run_module(module, args.workdir.resolve(), args.jobs, args.resume)
        rows.append(row)
        print(f"{module}: {row['killed']}/{row['mutants']} killed ({row['score']:.1%})", flush=True)
    _print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
