"""Without the test extra the suite still collects, and skips what needs it with a reason naming the extra.

A child pytest runs with a plugin that makes the optional modules unimportable (a meta-path finder
raising ``ModuleNotFoundError``, as for a module that is not installed) and without the plugins that
installed packages bring, as after ``pip install -e .`` and ``pip install pytest`` alone.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from _optional import given, reason, settings, st

ROOT = Path(__file__).resolve().parent.parent

#: What the test extra adds to the package's own dependencies and that the tests import.
OPTIONAL = ("hypothesis", "_hypothesis_pytestplugin", "distributed", "dask", "nbclient", "nbformat", "jupyter_client",
            "ipykernel", "ipywidgets", "skactiveml", "psutil", "tomli", "ruff", "mypy")

BLOCKER = f'''"""Make the optional test dependencies unimportable."""
import sys

BLOCKED = {set(OPTIONAL)!r}


class Block:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, Block())
'''

#: Tests by name -> the optional module their skip must name (a module-level skip: the file).
SKIPPED = {
    "test_lambda_in_half_open_interval_for_positive_delta": "hypothesis",  # analytic/test_guarantee.py
    "test_dask_equals_serial": "distributed",  # runners/test_states.py: a fixture
    "test_a_keyword_that_disagrees_with_execution_is_refused_before_any_file": "distributed",  # a parameter
    "test_the_skactiveml_adapter_passes_the_check": "skactiveml.pool",  # inside the test
    "test_adapters.py": "skactiveml",  # the whole file
    "test_notebook_is_committed_clean": "nbformat",
    "test_ruff_check_finds_nothing": "ruff",  # test_lint.py
    "test_mypy_finds_nothing": "mypy",  # test_types.py
}
#: Tests of the same files that do not need them, and a probe that the blocked modules cannot be imported.
RUN = ("test_limits_of_appendices_a_and_b", "test_notebooks_exist", "test_probe_the_modules_are_blocked")
PROBE = """import pytest


def test_probe_the_modules_are_blocked():
    for module in {modules!r}:
        with pytest.raises(ImportError):
            __import__(module)
"""


def test_without_the_test_extra_the_suite_collects_and_skips_naming_the_extra(tmp_path):
    """One child pytest: collects the whole suite (a collection error exits 2), runs a few tests by name."""
    (tmp_path / "block_optional.py").write_text(BLOCKER)
    (tmp_path / "test_probe.py").write_text(PROBE.format(modules=OPTIONAL))
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    selection = " or ".join(name.removesuffix(".py") for name in [*SKIPPED, *RUN])
    res = subprocess.run([sys.executable, "-m", "pytest", "-p", "block_optional", "-p", "no:cacheprovider", "-q",
                          "-rs", "-k", selection, "tests", str(tmp_path / "test_probe.py")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-4000:]
    assert "error" not in res.stdout.splitlines()[-1].lower(), out[-4000:]
    skips = [line for line in res.stdout.splitlines() if line.startswith("SKIPPED")]
    for module in set(SKIPPED.values()):
        assert any(reason(module) in line for line in skips), (module, skips)
    assert skips and all('pip install -e ".[test]"' in line for line in skips), skips
    passed = re.search(r"(\d+) passed", res.stdout)
    assert passed and int(passed.group(1)) >= len(RUN), out[-4000:]


def test_the_skip_reason_names_the_module_and_the_extra():
    assert reason("nbformat") == 'nbformat is not installed: pip install -e ".[test]"'
    assert reason("distributed", "dask") == 'distributed is not installed: pip install -e ".[dask]"'


@settings(max_examples=5)
@given(st.integers(0, 9))
def test_given_runs_with_hypothesis_and_is_skipped_without(number):
    """The re-exported decorators are hypothesis's own when it is installed."""
    assert 0 <= number <= 9
