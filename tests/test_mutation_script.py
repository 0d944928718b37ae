"""``scripts/mutation.py --resume``: an earlier run's record is reopened so that tests added since, or reaching
further since the code moved, are run on its survivors.

mutmut (3.x) maps each function to the tests that reached it when it first collected its statistics and
collects them again only for tests it has not seen; a resumed run of a record made before a function was split
kept survivors that a test of the current selection kills (the logistic regression's argument names of its
magnitude checks).  Here a record written as mutmut writes it is reopened and each verdict checked by hand.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "mutation.py"


def _script():
    spec = importlib.util.spec_from_file_location("mutation_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reopening_a_record_clears_the_test_map_and_reopens_survivors_and_untested_mutants(tmp_path):
    script = _script()
    sources = ["pkg/a.py", "pkg/b.py"]
    mutants = tmp_path / "mutants"
    (mutants / "pkg").mkdir(parents=True)
    # mutmut's exit codes: 1 killed, -24 timeout (CPU limit), 0 survived, 33 no tests, None not checked
    codes_a = {"pkg.a.x_f__mutmut_1": 1, "pkg.a.x_f__mutmut_2": 0, "pkg.a.x_f__mutmut_3": 33,
               "pkg.a.x_f__mutmut_4": None, "pkg.a.x_f__mutmut_5": -24}
    codes_b = {"pkg.b.x_g__mutmut_1": 0, "pkg.b.x_g__mutmut_2": -11}
    hashes = {"pkg.a.x_f": "abc", "pkg.b.x_g": "def"}
    for source, codes in zip(sources, (codes_a, codes_b), strict=True):
        meta = {"exit_code_by_key": codes, "hash_by_function_name": hashes, "durations_by_key": {}}
        (tmp_path / "mutants" / (source + ".meta")).write_text(json.dumps(meta), "utf-8")
    stats = {"tests_by_mangled_function_name": {"pkg.a.x_f": ["tests/test_a.py::test_one"]},
             "duration_by_test": {"tests/test_a.py::test_one": 0.5}, "function_hashes": hashes, "stats_time": 1.0}
    (mutants / "mutmut-stats.json").write_text(json.dumps(stats), "utf-8")

    assert script._reopen_record(tmp_path, sources) == 3

    a = json.loads((mutants / "pkg" / "a.py.meta").read_text("utf-8"))
    b = json.loads((mutants / "pkg" / "b.py.meta").read_text("utf-8"))
    assert a["exit_code_by_key"] == {"pkg.a.x_f__mutmut_1": 1, "pkg.a.x_f__mutmut_2": None,
                                     "pkg.a.x_f__mutmut_3": None, "pkg.a.x_f__mutmut_4": None,
                                     "pkg.a.x_f__mutmut_5": -24}
    assert b["exit_code_by_key"] == {"pkg.b.x_g__mutmut_1": None, "pkg.b.x_g__mutmut_2": -11}
    assert a["hash_by_function_name"] == hashes  # mutmut's own reset of changed functions still works
    reopened = json.loads((mutants / "mutmut-stats.json").read_text("utf-8"))
    assert reopened == {**stats, "tests_by_mangled_function_name": {}, "duration_by_test": {}}


def test_reopening_a_module_without_a_record_changes_nothing(tmp_path):
    assert _script()._reopen_record(tmp_path, ["pkg/a.py"]) == 0
    assert not any(tmp_path.iterdir())
