"""The figure registry and the ``mri-theory`` command line."""

from __future__ import annotations

import subprocess

import pytest

from mri_theory import figures
from mri_theory.cli import main


def test_every_figure_is_registered_and_listed(capsys):
    names = figures.figure_names()
    assert {"qc_cases", "qc_vs_se_rs", "lambda_vs_noise", "noisy_selection_curves", "problems",
            "best_worst_curves", "single_realisation", "al_vs_rs"} <= set(names)
    assert main(["figures", "--list"]) == 0
    out = capsys.readouterr().out
    for name in names:
        assert name in out


def test_quick_run_writes_png_and_pdf_for_every_figure(tmp_path):
    assert main(["figures", "--quick", "--out", str(tmp_path)]) == 0
    for name in figures.figure_names():
        for ext in ("png", "pdf"):
            path = tmp_path / f"{name}.{ext}"
            assert path.stat().st_size > 1000, path


def test_only_makes_the_named_figures(tmp_path):
    assert main(["figures", "--only", "qc_cases", "--quick", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qc_cases.pdf", "qc_cases.png"]


def test_same_seed_gives_identical_files(tmp_path):
    for sub in ("a", "b"):
        main(["figures", "--only", "qc_vs_se_rs", "--quick", "--out", str(tmp_path / sub)])
    for ext in ("png", "pdf"):
        assert (tmp_path / "a" / f"qc_vs_se_rs.{ext}").read_bytes() == (
            tmp_path / "b" / f"qc_vs_se_rs.{ext}").read_bytes()


def test_unknown_figure_is_refused_with_the_known_names(tmp_path, capsys):
    assert main(["figures", "--only", "nope", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "nope" in err and "qc_cases" in err
    with pytest.raises(ValueError, match="known figures"):
        figures.get_figure("nope")


def test_console_script_is_installed():
    res = subprocess.run(["mri-theory", "figures", "--list"], capture_output=True, text=True, check=True)
    assert "qc_cases" in res.stdout
