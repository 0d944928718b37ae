"""The paper's ten smaller real data sets (mri_theory.problems.small_real and their registrations).

Checked against independent sources: the paper's Appendix D table, parsed from its LaTeX source; the published
rules of Balance Scale and the MONK's problems, enumerated here with plain loops; the class counts that the
data sets' own documentation gives (UCI, MASS) and the summary statistics of UCI's Pima and Glass documentation;
and the shipped files' checksums, recomputed here.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
from fractions import Fraction

import numpy as np
import pytest
from _shared import paper_table_rows
from sklearn.preprocessing import StandardScaler

from mri_theory.problems import PROBLEM_REGISTRY, DataProblem, get_problem, small_real
from mri_theory.problems.small_real import SHIPPED_SHA256, balance_scale, monks, read_shipped

#: The paper's names (Appendix D, table "Real Data Classification Problems, Smaller") -> the registry's.
PAPER_NAMES = {"Australian": "australian", "Balance": "balance", "Glass": "glass", "Heart-Statlog": "heart",
               "Monks-1": "monks-1", "Monks-2": "monks-2", "Monks-3": "monks-3", "Pima Diabetes": "pima",
               "Sonar": "sonar", "Wine": "wine"}

#: Class counts in label order, from each data set's own documentation (not from the files): UCI's pages
#: (Australian: 307 "+" (1) of 690; Heart: 150 absent (1), 120 present (2); Pima: 500 negative, 268 positive;
#: Sonar: 111 mines, 97 rocks; Wine: 59, 71, 48; Balance: 49 B, 288 L, 288 R), MASS's ``fgl`` help page
#: (70 WinF, 76 WinNF, 17 Veh, 13 Con, 9 Tabl, 29 Head = UCI's types 1, 2, 3, 5, 6, 7) and UCI's MONK's test
#: sets, the full grids (positives: 216, 142, 228 of 432).
DOCUMENTED_COUNTS = {
    "australian": [383, 307], "balance": [49, 288, 288], "glass": [70, 76, 17, 13, 9, 29], "heart": [150, 120],
    "monks-1": [216, 216], "monks-2": [290, 142], "monks-3": [204, 228], "pima": [500, 268], "sonar": [111, 97],
    "wine": [59, 71, 48],
}
#: Covariates as documented (UCI's attribute counts without ids and classes).
DOCUMENTED_DIM = {"australian": 14, "balance": 4, "glass": 9, "heart": 13, "monks-1": 6, "monks-2": 6,
                  "monks-3": 6, "pima": 8, "sonar": 60, "wine": 13}


def paper_table() -> dict[str, tuple[int, int, int, tuple[float, ...]]]:
    """The paper's table, parsed: registry name -> (d, k, n, prior as printed)."""
    rows = paper_table_rows("table:Small Real Data 1")
    assert rows[0][1][0] == "Name"
    table = {}
    for _, (name, d, k, n, prior) in (row for row in rows[1:]):
        assert prior.startswith("(") and prior.endswith(")")
        table[PAPER_NAMES[name]] = (int(d), int(k), int(n), tuple(float(p) for p in prior[1:-1].split(",")))
    return table


def test_the_small_group_is_the_papers_table_in_its_order():
    assert tuple(paper_table()) == PROBLEM_REGISTRY.tagged("group", "small")
    assert len(PROBLEM_REGISTRY.tagged("group", "small")) == 10
    assert PROBLEM_REGISTRY.tag("breast-cancer", "group") == "real"  # not the paper's


def test_the_papers_typos_are_as_noted():
    """What the paper prints where it cannot be right, so that a corrected source is noticed."""
    table = paper_table()
    assert table["glass"][0] == 10  # UCI's Glass Identification has 10 attributes: an Id and 9 measurements
    assert table["heart"][3] == (0.65, 0.44) and sum(table["heart"][3]) == pytest.approx(1.09)  # for (0.56, 0.44)
    for name in ("monks-1", "monks-2", "monks-3"):  # the rules give 1/2, 0.67 and 0.47 for class 0
        assert table[name][3] == (0.5, 0.5)


#: The paper's prior, as the problem's should read (class 0 first), where it is not as printed: two-class
#: priors printed in the other class order; heart's first entry with its digits transposed; the MONK's
#: problems' priors from their rules (paper: (0.5, 0.5) for all three).
PRIOR_AS_MEANT = {
    "australian": lambda p: p[::-1], "pima": lambda p: p[::-1], "sonar": lambda p: p[::-1],
    "heart": lambda p: (0.56, p[1]),
    "monks-2": lambda p: (0.67, 0.33), "monks-3": lambda p: (0.47, 0.53),
}


@pytest.mark.parametrize("name", list(PAPER_NAMES.values()))
def test_each_problem_against_the_papers_table(name):
    d, k, n, printed = paper_table()[name]
    problem = get_problem(name)
    assert isinstance(problem, DataProblem) and problem.name == name and not problem.has_truth
    assert problem.X.shape == (n, DOCUMENTED_DIM[name])
    assert problem.dim == (d - 1 if name == "glass" else d)  # the paper counts glass's Id column
    assert problem.n_classes == k
    prior = PRIOR_AS_MEANT.get(name, lambda p: p)(printed)
    assert len(prior) == k
    # the paper rounds to two decimals (wine's 0.4 to one: 71/178 = 0.3989)
    np.testing.assert_allclose(problem.prior, prior, rtol=0, atol=0.005 + 1e-12)


@pytest.mark.parametrize("name", list(PAPER_NAMES.values()))
def test_each_problem_has_its_documented_classes_and_is_standardised(name):
    problem = get_problem(name)
    np.testing.assert_array_equal(np.bincount(problem.y), DOCUMENTED_COUNTS[name])
    if name in ("balance", "monks-1", "monks-2", "monks-3"):
        X, labels = balance_scale() if name == "balance" else monks(int(name[-1]))
    elif name == "wine":
        from sklearn.datasets import load_wine

        data = load_wine()
        X, labels = data.data, data.target
    else:
        X, labels = read_shipped(name)
    np.testing.assert_array_equal(problem.classes[problem.y], labels)
    np.testing.assert_allclose(problem.X, StandardScaler().fit_transform(X), rtol=1e-10, atol=1e-10)
    assert problem.standardize and problem.test_size == 0.3
    X0, y0, pool_X, _, population = problem.draw_replicate(20, None, np.random.default_rng(0))
    assert X0.shape == (problem.n_classes, problem.dim) and pool_X.shape == (20, problem.dim)
    np.testing.assert_array_equal(y0, np.arange(problem.n_classes))
    assert population.size == problem.n_test


def test_the_shipped_labels_are_the_sources_codes():
    assert sorted(set(read_shipped("australian")[1].tolist())) == [0, 1]
    assert sorted(set(read_shipped("heart")[1].tolist())) == [1, 2]
    assert sorted(set(read_shipped("glass")[1].tolist())) == [1, 2, 3, 5, 6, 7]
    assert sorted(set(read_shipped("pima")[1].tolist())) == ["tested_negative", "tested_positive"]
    assert sorted(set(read_shipped("sonar")[1].tolist())) == ["M", "R"]


def test_pima_against_ucis_documented_statistics():
    """UCI's pima-indians-diabetes.names: each attribute's mean and standard deviation, to one decimal."""
    X, _ = read_shipped("pima")
    np.testing.assert_array_equal(np.round(X.mean(axis=0), 1), [3.8, 120.9, 69.1, 20.5, 79.8, 32.0, 0.5, 33.2])
    np.testing.assert_array_equal(np.round(X.std(axis=0, ddof=1), 1), [3.4, 32.0, 19.4, 16.0, 115.2, 7.9, 0.3, 11.8])


def test_glass_against_ucis_documented_statistics():
    """UCI's glass.names: minimum, maximum, mean and standard deviation of each attribute (the refractive index
    as MASS stores it, (RI - 1.518) * 1000: UCI's 1.5112, 1.5339, 1.5184, 0.0030 to four decimals)."""
    X, _ = read_shipped("glass")
    ri = 1.518 + X[:, 0] / 1000
    np.testing.assert_array_equal(np.round([ri.min(), ri.max(), ri.mean(), ri.std(ddof=1)], 4),
                                  [1.5112, 1.5339, 1.5184, 0.0030])
    oxides = X[:, 1:]  # Na, Mg, Al, Si, K, Ca, Ba, Fe
    np.testing.assert_array_equal(oxides.min(axis=0), [10.73, 0, 0.29, 69.81, 0, 5.43, 0, 0])
    np.testing.assert_array_equal(oxides.max(axis=0), [17.38, 4.49, 3.5, 75.41, 6.21, 16.19, 3.15, 0.51])
    np.testing.assert_array_equal(np.round(oxides.mean(axis=0), 4),
                                  [13.4079, 2.6845, 1.4449, 72.6509, 0.4971, 8.9570, 0.1750, 0.0570])
    np.testing.assert_array_equal(np.round(oxides.std(axis=0, ddof=1), 4),
                                  [0.8166, 1.4424, 0.4993, 0.7745, 0.6522, 1.4232, 0.4972, 0.0974])


# ------------------------------------------------------------------------------------------------ the rules


def test_balance_scale_is_its_rule_on_the_full_grid():
    expected = []
    for left_weight in range(1, 6):
        for left_distance in range(1, 6):
            for right_weight in range(1, 6):
                for right_distance in range(1, 6):
                    left, right = left_weight * left_distance, right_weight * right_distance
                    label = "L" if left > right else "R" if right > left else "B"
                    expected.append(((left_weight, left_distance, right_weight, right_distance), label))
    X, y = balance_scale()
    assert X.shape == (625, 4) and X.dtype == float
    assert [(tuple(int(v) for v in row), str(label)) for row, label in zip(X, y, strict=True)] == expected
    assert DOCUMENTED_COUNTS["balance"] == [sum(label == c for _, label in expected) for c in "BLR"]


def _monk_rule(problem, a1, a2, a3, a4, a5, a6):
    """Thrun et al. (1991), as published."""
    if problem == 1:
        return a1 == a2 or a5 == 1
    if problem == 2:
        return [a1, a2, a3, a4, a5, a6].count(1) == 2
    return (a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)


@pytest.mark.parametrize("problem", [1, 2, 3])
def test_monks_are_their_rules_on_the_full_grid(problem):
    expected = []
    for a1 in (1, 2, 3):
        for a2 in (1, 2, 3):
            for a3 in (1, 2):
                for a4 in (1, 2, 3):
                    for a5 in (1, 2, 3, 4):
                        for a6 in (1, 2):
                            row = (a1, a2, a3, a4, a5, a6)
                            expected.append((row, int(_monk_rule(problem, *row))))
    X, y = monks(problem)
    assert X.shape == (432, 6) and X.dtype == float and y.dtype == np.int64
    assert [(tuple(int(v) for v in row), int(label)) for row, label in zip(X, y, strict=True)] == expected
    positives = sum(label for _, label in expected)
    assert positives == DOCUMENTED_COUNTS[f"monks-{problem}"][1]


def test_the_monks_priors_by_hand():
    """MONK-1: P(a1 = a2) + P(a5 = 1) - both = 1/3 + 1/4 - 1/12 = 1/2; MONK-2: sum over pairs of attributes
    of P(those two are 1, the others not); MONK-3: P(a5 != 4, a2 != 3) + P(a5 = 3, a4 = 1, a2 = 3)."""
    sizes = (3, 3, 2, 3, 4, 2)
    exactly_two = sum(Fraction(1, sizes[i] * sizes[j])
                      * np.prod([Fraction(m - 1, m) for t, m in enumerate(sizes) if t not in (i, j)])
                      for i in range(6) for j in range(i + 1, 6))
    for problem, p in ((1, Fraction(1, 3) + Fraction(1, 4) - Fraction(1, 12)), (2, exactly_two),
                       (3, Fraction(3, 4) * Fraction(2, 3) + Fraction(1, 4) * Fraction(1, 3) * Fraction(1, 3))):
        assert get_problem(f"monks-{problem}").prior[1] == pytest.approx(float(p), abs=1e-15)
        assert p * 432 == DOCUMENTED_COUNTS[f"monks-{problem}"][1]


@pytest.mark.parametrize("bad, error, match", [
    (0, ValueError, "problem must be 1, 2 or 3, got 0"),
    (4, ValueError, "problem must be 1, 2 or 3, got 4"),
    ("1", TypeError, "problem must be an int"),
    (1.0, TypeError, "problem must be an int"),
    (True, TypeError, "problem must be an int"),
])
def test_monks_refuses_a_bad_problem(bad, error, match):
    with pytest.raises(error, match=match):
        monks(bad)


# ------------------------------------------------------------------------------------------- the shipped files


def test_the_checksums_cover_exactly_the_shipped_files():
    shipped = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
               for p in small_real.DATA_FOLDER.glob("*.csv.gz")}
    assert shipped == SHIPPED_SHA256
    assert (small_real.DATA_FOLDER / "README.md").is_file()


@pytest.fixture
def copied(tmp_path, monkeypatch):
    """The shipped files copied to a folder the loader reads instead."""
    for file in SHIPPED_SHA256:
        shutil.copyfile(small_real.DATA_FOLDER / file, tmp_path / file)
    monkeypatch.setattr(small_real, "DATA_FOLDER", tmp_path)
    return tmp_path


def test_a_copy_reads_as_the_original(copied):
    X, y = read_shipped("heart")
    assert X.shape == (270, 13) and y.shape == (270,)


def test_a_damaged_file_is_refused(copied):
    data = bytearray((copied / "pima.csv.gz").read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit
    (copied / "pima.csv.gz").write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"the data file of 'pima', .*pima\.csv\.gz, is damaged: its SHA-256 is "
                                         r"[0-9a-f]{64}, expected " + SHIPPED_SHA256["pima.csv.gz"]):
        read_shipped("pima")
    (copied / "sonar.csv.gz").write_bytes((copied / "sonar.csv.gz").read_bytes()[:-10])  # cut
    with pytest.raises(ValueError, match="'sonar'.* is damaged"):
        read_shipped("sonar")
    (copied / "glass.csv.gz").unlink()
    with pytest.raises(ValueError, match=r"the data file of 'glass', .*glass\.csv\.gz, cannot be read .*"
                                         r"rebuild_small_data\.py"):
        read_shipped("glass")
    X, _ = read_shipped("heart")  # the others are still read
    assert X.shape == (270, 13)


@pytest.mark.parametrize("content", [b"not gzip", gzip.compress(b"a,b\n1,x\n", mtime=0),
                                     gzip.compress(b"a,class\nx,1\n", mtime=0)],
                         ids=["not gzip", "no class column", "a text feature"])
def test_a_file_that_matches_a_changed_checksum_but_is_no_table_is_refused(copied, monkeypatch, content):
    (copied / "heart.csv.gz").write_bytes(content)
    monkeypatch.setitem(SHIPPED_SHA256, "heart.csv.gz", hashlib.sha256(content).hexdigest())
    with pytest.raises(ValueError, match="the data file of 'heart', .* is not a"):
        read_shipped("heart")


def test_read_shipped_refuses_other_names():
    with pytest.raises(ValueError, match="no shipped data set 'wine'; shipped: australian, glass, heart, pima, sonar"):
        read_shipped("wine")
    with pytest.raises(TypeError, match="name must be a str, got int"):
        read_shipped(3)
