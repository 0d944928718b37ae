"""The figure ``leaderboard``: its drawing, its committed tables (verified, a corrupted one refused), the script that
copies a run's tables, and the quick mode.

* The drawing is checked on hand-made tables: each panel's points and intervals are the table's values at the
  height of their strategy, listed in the order of the table's ``"all"`` phase; the groups' colours; a point
  beyond the axis drawn at the edge with its value; bad tables refused naming ``tables``.
* The full figure reads ``design/`` and ``evaluation/`` copies of two small runs made by
  ``scripts/leaderboard_tables.py``; a table or record edited after the copy, a missing split, or tables of
  different confidence levels stop it with a ``ValueError`` naming the file, and ``mri-theory figures`` exits 2.
* The quick table holds the anchors' exact values, the quick grid's strategies and states.
* When the committed tables exist (``figures/leaderboard/``), they are verified and their settings are those
  of the documented runs (``docs/leaderboard.md``).  Their ``statistics.csv.xz`` alone recomputes their
  ``leaderboard.csv`` and ``differences.csv`` byte for byte (about a second each).

The small runs (one problem each, LDA and naive Bayes, four strategies, 2 replicates, steps 1 and 11, pool 20,
population 300) take a few seconds; the tests that make the quick figure are marked ``slow``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import QUIET
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

import mri_theory.figures.leaderboard as figure_module
from mri_theory.cli import main
from mri_theory.figures import get_figure, make_figures
from mri_theory.figures.leaderboard import (
    COLUMNS,
    QUICK,
    SHORTFALL_MAX,
    SPLITS,
    TABLES,
    committed_leaderboards,
    plot_leaderboard,
    quick_leaderboard,
    strategy_group,
)
from mri_theory.runners import read_leaderboard, run_leaderboard
from mri_theory.strategies import PEER_NAMES, list_strategies

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "leaderboard_tables.py"
SMALL = dict(classifiers=["lda", "nb"], strategies=["RS", "SE", "Margin", "CvMRI"], replicates=2, steps=[1, 11],
             pool_size=20, population_size=300, n_boot=50, execution=QUIET)
MARKERS = {"s", "o", "D", "^", "v"}  # the groups' markers (the edge arrow is ">")
PAPER = ("SE", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI")  # the paper's practical strategies (§5.1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """A design run (four-gaussian, seed 0) and an evaluation run (quadratic, seed 1) of the small grid."""
    root = tmp_path_factory.mktemp("runs")
    run_leaderboard("four-gaussian", out=root / "design", seed=0, **SMALL)
    run_leaderboard("quadratic", out=root / "evaluation", seed=1, **SMALL)
    return {"design": root / "design", "evaluation": root / "evaluation"}


def copy_tables(runs: dict[str, Path], out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, str(SCRIPT), str(runs["design"]), str(runs["evaluation"]), "--out",
                           str(out)], capture_output=True, text=True, env=env, check=False)


@pytest.fixture()
def tables(runs, tmp_path) -> Path:
    out = tmp_path / "leaderboard"
    result = copy_tables(runs, out)
    assert result.returncode == 0, result.stderr
    return out


def hand_table(rows: list[tuple], phases=("≤12", "all")) -> pd.DataFrame:
    """``rows``: (strategy, {phase: (shortfall, low, high)}, (spearman, low, high)) -> a leaderboard table."""
    records = []
    for phase in phases:
        for name, shortfall, spearman in rows:
            if phase in shortfall:
                records.append({"phase": phase, "strategy": name, "anchor": name in ("MRI-best", "RS"),
                                **dict(zip(COLUMNS[3:6], shortfall[phase], strict=True)),
                                **dict(zip(COLUMNS[6:9], spearman, strict=True))})
    return pd.DataFrame(records)


def points(ax) -> dict[float, float]:
    """The panel's markers of the groups: height -> x."""
    out = {}
    for line in ax.lines:
        if line.get_marker() in MARKERS:
            (x,), (y,) = line.get_xdata(), line.get_ydata()
            out[float(y)] = float(x)
    return out


def intervals(ax) -> dict[float, tuple[float, float]]:
    """The panel's horizontal interval segments: height -> (low, high)."""
    out = {}
    for line in ax.lines:
        x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
        if line.get_marker() in ("None", "", None) and x.size == 2 and y[0] == y[1]:
            out[float(y[0])] = (float(x[0]), float(x[1]))
    return out


# ------------------------------------------------------------------------------------------------- drawing

ROWS = [("MRI-best", {"≤12": (0.0, 0.0, 0.0), "all": (0.0, 0.0, 0.0)}, (1.0, 1.0, 1.0)),
        ("CvMRI", {"≤12": (0.9, 0.7, 1.1), "all": (0.4, 0.3, 0.55)}, (0.3, 0.2, 0.4)),
        ("SkUS-margin", {"≤12": (0.3, 0.1, 0.6), "all": (0.7, 0.5, 0.95)}, (0.1, -0.1, 0.3)),
        ("RS", {"≤12": (1.0, 1.0, 1.0), "all": (1.0, 1.0, 1.0)}, (0.0, 0.0, 0.0)),
        ("SE", {"≤12": (1.2, 0.9, 1.6), "all": (1.1, 0.95, 1.3)}, (-0.05, -0.2, 0.1)),
        ("MRI-worst", {"≤12": (3.5, 3.0, 4.0), "all": (2.6, 1.8, 3.1)}, (-1.0, -1.0, -1.0))]


def test_panels_show_the_tables_values_in_the_order_of_the_all_phase():
    table = hand_table(ROWS)
    fig = plot_leaderboard({"a run": table}, note="a note")
    assert isinstance(fig, Figure)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 3  # ≤12, all, Spearman
    order = [name for name, _, _ in ROWS]  # the "all" rows' order
    assert [t.get_text() for t in panels[0].get_yticklabels()] == order
    assert panels[0].get_ylabel() == "a run"
    for ax, phase in zip(panels, ("≤12", "all", None), strict=True):
        shown, bars = points(ax), intervals(ax)
        for height, (_, shortfall, spearman) in enumerate(ROWS):
            mean, low, high = shortfall[phase] if phase else spearman
            low_edge, high_edge = ax.get_xlim()
            if mean > high_edge:  # MRI-worst's shortfall: an arrow at the edge, with its value
                assert float(height) not in shown
                arrows = [line for line in ax.lines if line.get_marker() == ">"]
                assert [(line.get_xdata()[0], line.get_ydata()[0]) for line in arrows] == [(high_edge, height)]
                assert f"{mean:.2g}" in [text.get_text() for text in ax.texts]
            else:
                assert shown[float(height)] == pytest.approx(mean, abs=1e-12)
            if high > low:
                assert bars[float(height)] == pytest.approx((max(low, low_edge), min(high, high_edge)), abs=1e-12)
    assert panels[0].get_xlim()[1] == SHORTFALL_MAX
    assert "a note" in fig.get_suptitle() and "95 %" in fig.get_suptitle()


def test_labels_are_coloured_by_group():
    fig = plot_leaderboard({"a run": hand_table(ROWS)})
    ax = next(ax for ax in fig.axes if ax.get_title())
    expected = {"MRI-best": "tab:green", "RS": "tab:orange", "SE": "black", "CvMRI": "tab:red",
                "SkUS-margin": "tab:blue", "MRI-worst": "tab:gray"}
    for label in ax.get_yticklabels():
        assert to_rgba(label.get_color()) == to_rgba(expected[label.get_text()]), label.get_text()
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["optimum (MRI-best)", "random selection (RS)", "the paper's", "ours", "scikit-activeml",
                      "other"]


def test_two_tables_make_two_rows_and_a_missing_phase_an_empty_panel():
    middle = [(name, {**shortfall, "13–50": shortfall["all"]}, spearman) for name, shortfall, spearman in ROWS]
    design = hand_table(middle, phases=("≤12", "13–50", "all"))
    evaluation = hand_table(ROWS[::-1], phases=("≤12", "all"))
    fig = plot_leaderboard({"design": design, "evaluation": evaluation}, level=0.9)
    assert len(fig.axes) == 2 * 4
    assert [ax.get_title() for ax in fig.axes[:4]] == ["$|D_S|$ ≤12", "$|D_S|$ 13–50", "all states",
                                                      "Spearman with\nthe true $Q^c$ (all)"]
    second = fig.axes[4:]
    assert [t.get_text() for t in second[0].get_yticklabels()] == [name for name, _, _ in ROWS[::-1]]
    assert points(second[1]) == {} and intervals(second[1]) == {}  # no 13–50 rows in the evaluation table
    assert "90 %" in fig.get_suptitle()


def test_strategy_groups():
    for name in list_strategies():
        expected = ("optimum" if name == "MRI-best" else "random" if name == "RS" else "paper" if name in PAPER
                    else "ours" if name in ("CvMRI", "PoolMRI", "Margin") else "peer" if name.startswith("Sk")
                    else "other")
        assert strategy_group(name) == expected, name
    assert {strategy_group(name) for name in PEER_NAMES} == {"peer"}
    assert strategy_group("LC") == strategy_group("MRI-worst") == strategy_group("mine") == "other"


def test_bad_tables_are_refused_naming_tables():
    good = hand_table(ROWS)
    with pytest.raises(TypeError, match="^tables must be a non-empty mapping"):
        plot_leaderboard([good])
    with pytest.raises(TypeError, match="^tables must be a non-empty mapping"):
        plot_leaderboard({})
    with pytest.raises(TypeError, match="^tables: the row titles must be str"):
        plot_leaderboard({1: good})
    with pytest.raises(TypeError, match=r"^tables\['a'\] must be a pandas DataFrame"):
        plot_leaderboard({"a": good.to_dict()})
    with pytest.raises(ValueError, match=r"^tables\['a'\] must have the columns .*missing \['spearman_ci_low'\]"):
        plot_leaderboard({"a": good.drop(columns="spearman_ci_low")})
    with pytest.raises(ValueError, match=r"^tables\['a'\] has no rows of the phase 'all'"):
        plot_leaderboard({"a": good[good.phase != "all"]})
    with pytest.raises(ValueError, match=r"^tables\['a'\] has more than one row for a \(phase, strategy\)"):
        plot_leaderboard({"a": pd.concat([good, good.iloc[:1]])})
    with pytest.raises(TypeError, match="^level"):
        plot_leaderboard({"a": good}, level="high")
    with pytest.raises(TypeError, match="^rng must be a numpy.random.Generator"):
        quick_leaderboard(3)


# ------------------------------------------------------------------------------------------ committed tables

def test_the_script_copies_both_runs_and_prints_the_all_phase(runs, tables):
    for split in SPLITS:
        assert sorted(p.name for p in (tables / split).iterdir()) == [
            ".runner", "checksums.json", "cost.csv", "differences.csv", "leaderboard.csv", "leaderboard.json",
            "statistics.csv.xz"]
        assert (tables / split / "leaderboard.csv").read_bytes() == (runs[split] / "leaderboard.csv").read_bytes()
    result = copy_tables(runs, tables)  # again, over the first copy: the same files
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    design = pd.read_csv(runs["design"] / "leaderboard.csv")
    top = design[design.phase == "all"].iloc[0]
    assert top.strategy == "MRI-best"
    assert "| **MRI-best** | 0.000 [0.000, 0.000] | 1.000 [1.000, 1.000] |" in "\n".join(lines)
    assert lines.count("design (phase all):") == 1 and lines.count("evaluation (phase all):") == 1
    rows = [line for line in lines if line.startswith("| ") and "strategy" not in line and " − " not in line]
    assert len(rows) == 2 * 5  # RS, SE, Margin, CvMRI and the anchor MRI-best per split
    printed = {line.split(" | ")[0][2:] for line in lines if line.startswith("| ") and " − " in line
               and "second" not in line}
    expected = set()
    for split in SPLITS:  # the all phase's comparisons that Holm leaves significant at the 5 % level
        pairs = pd.read_csv(runs[split] / "differences.csv")
        kept = pairs[(pairs.phase == "all") & (pairs.p_holm < 0.05)]
        expected |= {f"{a} − {b}" for a, b in zip(kept["first"], kept["second"], strict=True)}
    assert printed == expected  # (none in so small a grid: 2 replicates a pairing leave Holm little to keep)
    assert sum(line.endswith("significant paired differences (phase all):") for line in lines) == 2


def test_the_script_refuses_a_damaged_run_and_writes_nothing(runs, tmp_path):
    damaged = tmp_path / "evaluation"
    damaged.mkdir()
    for name in ("leaderboard.csv", "leaderboard.json", "checksums.json", "cost.csv"):
        (damaged / name).write_bytes((runs["evaluation"] / name).read_bytes())
    data = (damaged / "leaderboard.csv").read_bytes()
    (damaged / "leaderboard.csv").write_bytes(data.replace(b"0.", b"1.", 1))
    result = copy_tables({"design": runs["design"], "evaluation": damaged}, tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.startswith("leaderboard_tables: path: ") and "does not match its checksum" in result.stderr
    assert not (tmp_path / "out").exists()  # not even the design split


def test_full_figure_draws_the_committed_tables(tables, monkeypatch):
    monkeypatch.setattr(figure_module, "TABLES", tables)
    stored = committed_leaderboards()
    assert list(stored) == list(SPLITS)
    for split, (table, settings) in stored.items():
        pd.testing.assert_frame_equal(table, pd.read_csv(tables / split / "leaderboard.csv"))
        assert settings == json.loads((tables / split / "leaderboard.json").read_text(encoding="utf-8"))["settings"]
    fig = get_figure("leaderboard").make(False, np.random.default_rng(0))
    rows = [ax.get_ylabel() for ax in fig.axes if ax.get_ylabel()]
    assert rows == ["design: four-gaussian; 2 classifiers, 2 replicates, seed 0",
                    "evaluation: quadratic; 2 classifiers, 2 replicates, seed 1"]
    first = next(ax for ax in fig.axes if ax.get_title() == "all states")
    design = stored["design"][0]
    everything = design[design.phase == "all"]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(everything.strategy)
    shown = points(first)
    for height, value in enumerate(everything.normalised_shortfall):
        assert shown[float(height)] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("damage", ["table", "record", "missing"])
def test_a_corrupted_committed_table_is_refused(tables, monkeypatch, tmp_path, capsys, damage):
    monkeypatch.setattr(figure_module, "TABLES", tables)
    split = "evaluation" if damage == "missing" else "design"
    if damage == "table":
        file = tables / "design" / "leaderboard.csv"
        file.write_bytes(file.read_bytes().replace(b",0.", b",0.9", 1))
        reason = "does not match its checksum"
    elif damage == "record":
        file = tables / "design" / "leaderboard.json"
        record = json.loads(file.read_text(encoding="utf-8"))
        record["settings"]["seed"] = 7
        file.write_text(json.dumps(record), encoding="utf-8")
        reason = "was written under other settings"
    else:
        (tables / "evaluation" / "leaderboard.csv").unlink()
        reason = "no leaderboard at"
    with pytest.raises(ValueError, match=f"^figure leaderboard: the committed {split} table in .* is refused "
                                         f"\\(path: .*{reason}.*scripts/leaderboard_tables.py"):
        get_figure("leaderboard").make(False, np.random.default_rng(0))
    assert main(["figures", "--only", "leaderboard", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()[-1]  # after the progress bar
    assert err.startswith("mri-theory figures: figure leaderboard: the committed")
    assert not (tmp_path / "out" / "leaderboard.png").exists()


def test_tables_of_different_levels_are_refused(runs, tmp_path, monkeypatch):
    root = tmp_path / "runs"
    run_leaderboard("quadratic", out=root, seed=1, level=0.9, **SMALL)  # the evaluation grid's states, reused
    result = copy_tables({"design": runs["design"], "evaluation": root}, tmp_path / "tables")
    assert result.returncode == 0, result.stderr
    monkeypatch.setattr(figure_module, "TABLES", tmp_path / "tables")
    with pytest.raises(ValueError, match=r"different confidence levels \[0.9, 0.95\]"):
        get_figure("leaderboard").make(False, np.random.default_rng(0))


@pytest.mark.skipif(not (TABLES / "design" / "leaderboard.csv").exists(),
                    reason="no committed leaderboard yet (figures/leaderboard/, docs/leaderboard.md)")
def test_committed_tables_are_verified_and_are_the_documented_runs():
    stored = committed_leaderboards()
    problems = {"design": ["four-gaussian", "quadratic"], "evaluation": ["triangles", "oscillating", "sharp"]}
    for split, (table, settings) in stored.items():
        assert settings["problems"] == problems[split]
        assert settings["seed"] == {"design": 0, "evaluation": 1}[split]
        assert settings["classifiers"] == ["lda", "qda", "kknn5", "nb", "logreg", "svm"]
        assert settings["replicates"] >= 10 and settings["steps"] == [2, 10, 30, 80]
        assert settings["pool_size"] == 250
        names = set(table.strategy)
        assert {"SE", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI", "RS", "CvMRI", "PoolMRI"} <= names
        assert len(names & set(PEER_NAMES)) >= 6 and len(names) >= 15
        assert list(dict.fromkeys(table.phase)) == ["≤12", "13–50", ">50", "all"]
        assert read_leaderboard(TABLES / split).record["settings"] == settings


# ------------------------------------------------------------------------------------------------ quick mode

@pytest.mark.slow
def test_quick_table_holds_the_anchors_exact_values_and_the_quick_grid():
    table = quick_leaderboard(np.random.default_rng(22))
    assert list(dict.fromkeys(table.phase)) == ["≤12", "all"]  # |D_S| = 2 + 2 and 2 + 10
    assert set(table.strategy) == set(QUICK["strategies"])
    assert (table.states == len(QUICK["classifiers"]) * QUICK["replicates"] * len(QUICK["steps"])).all()
    best, random = table[table.strategy == "MRI-best"], table[table.strategy == "RS"]
    assert (best.normalised_shortfall == 0).all() and np.allclose(best.spearman, 1, rtol=0, atol=1e-12)
    assert (random.normalised_shortfall == 1).all() and (random.spearman == 0).all()
    assert table.resolved.eq(1).all()  # LDA and naive Bayes: the exact truth


@pytest.mark.slow
def test_quick_figure_is_reproducible(tmp_path):
    for sub in ("a", "b"):
        make_figures(["leaderboard"], tmp_path / sub, quick=True, progress=False)
    for ext in ("png", "pdf"):
        first, second = (tmp_path / sub / f"leaderboard.{ext}" for sub in ("a", "b"))
        assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize("split", ["design", "evaluation"])
def test_the_committed_statistics_recompute_every_cell_of_both_tables(split):
    """What ``docs/leaderboard.md`` promises: the copy's ``statistics.csv.xz`` alone (no states) gives its
    ``leaderboard.csv`` and ``differences.csv`` again, byte for byte, under the run's recorded options."""
    from mri_theory.evaluation import leaderboard, strategy_differences

    stored = read_leaderboard(ROOT / "figures" / "leaderboard" / split)
    settings = stored.record["settings"]
    options = dict(phases=settings["phases"], n_boot=settings["n_boot"], seed=settings["boot_seed"],
                   level=settings["level"], top_k=settings["top_k"], resolved_only=settings["resolved_only"])
    folder = ROOT / "figures" / "leaderboard" / split
    table = leaderboard(stored.statistics, **options)
    assert table.to_csv(index=False, lineterminator="\n").encode() == (folder / "leaderboard.csv").read_bytes()
    pairs = strategy_differences(stored.statistics, **options)
    assert pairs.to_csv(index=False, lineterminator="\n").encode() == (folder / "differences.csv").read_bytes()
    assert settings["replicates"] == 20 and len(settings["strategies"]) == len(set(table.strategy))
