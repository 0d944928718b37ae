"""The paper's tables (mri_theory.evaluation.tables): transcribed orderings, Kendall tau, and write_report's files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _shared import PAPER_TEX, excerpt_lines, paper_lines, paper_table_rows
from scipy import stats

from mri_theory.evaluation.ranking import aggregate, beats_rs_counts
from mri_theory.evaluation.tables import (
    PAPER_ABSTRACT_ORDERINGS,
    PAPER_BEATS_RS,
    PAPER_FINAL,
    PAPER_METHODS,
    PAPER_SINGLE_PAIRING,
    PAPER_SMALL_ORDERINGS,
    kendall_tau,
    paper_rank_table,
    write_report,
)


def test_the_excerpt_is_the_papers_source():
    """tests/data/mri-paper-tables.txt holds the paper's lines verbatim, every table environment whole."""
    if not PAPER_TEX.is_file():
        pytest.skip(f"the full source is not at {PAPER_TEX}: the excerpt stands in for it (set MRI_PAPER_TEX)")
    source = PAPER_TEX.read_text(encoding="utf-8").splitlines()
    excerpt = excerpt_lines()
    assert {number: source[number - 1] for number in excerpt} == excerpt
    depth, inside = 0, set()  # every line from a \begin{table} to its \end{table}
    for number, line in enumerate(source, start=1):
        depth += line.count("\\begin{table}")
        if depth:
            inside.add(number)
        depth -= line.count("\\end{table}")
    assert inside <= set(excerpt)


def test_transcribed_orderings_are_well_formed():
    assert set(PAPER_FINAL.methods) == set(PAPER_METHODS)
    for ordering in PAPER_ABSTRACT_ORDERINGS.values():
        assert len(set(ordering.methods)) == 6 and set(ordering.methods) <= set(PAPER_METHODS)
    assert set(PAPER_BEATS_RS) == set(PAPER_METHODS) - {"RS"}


#: The labels of the per-classifier tables (Tables 4, 9-13) in the paper's source, by the paper's classifier name.
CLASSIFIER_TABLES = {"LDA": "LDA", "5-nn": "KNN", "naive Bayes": "Naive Bayes", "SVM": "SVM", "QDA": "QDA",
                     "Logistic Regression": "LogReg"}


def table_number(label: str) -> int:
    """The number LaTeX gives the table labelled ``label``: its place among the labels of the source's table
    environments (Table 1 is the notation)."""
    labels = [line.strip() for line in paper_lines() if line.strip().startswith("\\label{table:")]
    return labels.index(f"\\label{{{label}}}") + 1


@pytest.mark.parametrize("row, orderings", [("Abstract Problems", PAPER_ABSTRACT_ORDERINGS),
                                            ("Small Problems", PAPER_SMALL_ORDERINGS)])
def test_the_group_rows_are_the_papers_latex(row, orderings):
    """Each transcribed row against the same row parsed from the paper's source, at its line."""
    assert set(orderings) == set(CLASSIFIER_TABLES)
    for classifier, ordering in orderings.items():
        label = f"table:{CLASSIFIER_TABLES[classifier]} Result-NEW Original 1"
        rows = paper_table_rows(label)
        found = [(line, cells[1:]) for line, cells in rows if cells[0] == row]
        assert found == [(ordering.line, list(ordering.methods))], classifier
        assert ordering.table == f"Table {table_number(label)}"
        assert ordering.scope == f"{row.split()[0].lower()} group"


def test_table_2_is_the_papers_latex():
    label = "table:Single Pairing Result-NEW 1"
    rows = paper_table_rows(label)
    header_line, header = rows[0]
    assert header[0] == "" and (header_line, tuple(header[1:])) \
        == (PAPER_SINGLE_PAIRING.line, PAPER_SINGLE_PAIRING.methods)
    fields = {"Overall Rank": "overall", "Label Complexity": "label_complexity", "AUA": "aua",
              "WI-Linear": "wi_linear", "WI-Exponential": "wi_exponential"}
    parsed = {fields[cells[0]]: tuple(int(c) for c in cells[1:]) for _, cells in rows[1:]}
    assert parsed == {field: getattr(PAPER_SINGLE_PAIRING, field) for field in fields.values()}
    assert [line for line, _ in rows[1:]] == [1115, 1118, 1120, 1122, 1124]
    assert PAPER_SINGLE_PAIRING.table == f"Table {table_number(label)}"


def test_table_2s_overall_ranks_follow_from_its_metric_ranks():
    """The overall rank orders the methods by their mean rank over the four metrics (§5.3): by hand, BMRI
    (1+1+2+1)/4 = 1.25, QbcV 1.75, QbcA 3.5, EfeLc 4.5, SMRI 4.75, RS (3+6+6+5)/4 = 5 (5.25 with WI-Exponential's
    missing 6 for RS: the same order); the WI-Exponential row has 5 twice and no 6, as printed."""
    p = PAPER_SINGLE_PAIRING
    means = np.mean([p.label_complexity, p.aua, p.wi_linear, p.wi_exponential], axis=0)
    np.testing.assert_allclose(means, [1.25, 1.75, 3.5, 4.5, 4.75, 5.0], rtol=0, atol=1e-15)
    assert list(stats.rankdata(means)) == list(p.overall)
    for ranks in (p.overall, p.label_complexity, p.aua, p.wi_linear):
        assert sorted(ranks) == [1, 2, 3, 4, 5, 6]
    assert sorted(p.wi_exponential) == [1, 2, 3, 4, 5, 5]
    assert (p.classifier, p.problem) == ("LDA", "australian") and set(p.methods) <= set(PAPER_METHODS)


def test_the_small_rows_are_well_formed():
    for ordering in PAPER_SMALL_ORDERINGS.values():
        assert len(set(ordering.methods)) == 6 and set(ordering.methods) <= set(PAPER_METHODS)
        assert "EfeLc" not in ordering.methods  # never among the best six of the small group
    assert {c: o.table for c, o in PAPER_SMALL_ORDERINGS.items()} \
        == {c: o.table for c, o in PAPER_ABSTRACT_ORDERINGS.items()}
    for classifier, ordering in PAPER_SMALL_ORDERINGS.items():  # the small row is four lines above the abstract
        assert PAPER_ABSTRACT_ORDERINGS[classifier].line - ordering.line == 4


def test_the_papers_abstract_rows_aggregate_by_hand():
    # positions over the six classifiers (EfeLc, never shown, 7th everywhere):
    # BMRI 1,1,3,4,2,1 = 12; SE 4,2,1,6,1,3 = 17; QbcV 2,4,2,1,4,5 = 18; RS 5,3,5,2,3,2 = 20;
    # SMRI 3,5,4,5,6,4 = 27; QbcA 6,6,6,3,5,6 = 32; EfeLc 42
    table = paper_rank_table()
    assert len(table) == 6 * 7
    final = aggregate(table, by=[])
    assert final["method"].tolist() == ["BMRI", "SE", "QbcV", "RS", "SMRI", "QbcA", "EfeLc"]
    expected = {"BMRI": 12, "SE": 17, "QbcV": 18, "RS": 20, "SMRI": 27, "QbcA": 32, "EfeLc": 42}
    for method, total in expected.items():
        assert final.set_index("method").loc[method, "mean_rank"] == pytest.approx(total / 6)
    # RS's positions 5, 3, 5, 2, 3, 2: BMRI is ahead of it in 5 rows, SE 4, QbcV 3, SMRI 2, QbcA and EfeLc 0
    counts = beats_rs_counts(table)
    assert counts.to_dict() == {"BMRI": 5, "SE": 4, "QbcV": 3, "SMRI": 2, "QbcA": 0, "EfeLc": 0}


def test_the_papers_two_public_groups_aggregate_by_hand():
    """The small and abstract rows together (12 group-classifier pairings): what a study of the two public groups
    compares with. Positions (EfeLc 7th where absent), small rows then abstract rows, per classifier
    LDA, 5-nn, naive Bayes, SVM, QDA, logistic regression:
    BMRI 3,2,2,5,2,3 + 12 = 29; QbcV 1,3,3,1,3,1 + 18 = 30; SE 4,1,1,4,1,4 + 17 = 32; RS 6,5,5,2,6,5 + 20 = 49;
    QbcA 2,6,4,3,4,2 + 32 = 53; SMRI 5,4,6,6,5,6 + 27 = 59; EfeLc 6 x 7 + 42 = 84.
    Ahead of RS in the small rows: QbcV 6, BMRI 5, SE 5, QbcA 4 (LDA, NB, QDA, LR), SMRI 3 (LDA, 5-nn, QDA)."""
    table = paper_rank_table(["small", "abstract"])
    assert len(table) == 12 * 7 and table["group"].tolist()[:7] == ["small"] * 7
    final = aggregate(table, by=[]).set_index("method")
    expected = {"BMRI": 29, "QbcV": 30, "SE": 32, "RS": 49, "QbcA": 53, "SMRI": 59, "EfeLc": 84}
    assert final.index.tolist() == list(expected)
    for method, total in expected.items():
        assert final.loc[method, "mean_rank"] == pytest.approx(total / 12)
    assert beats_rs_counts(table).to_dict() == {"BMRI": 10, "QbcV": 9, "SE": 9, "SMRI": 5, "QbcA": 4, "EfeLc": 0}
    assert paper_rank_table(("small",))["group"].unique().tolist() == ["small"]


def test_tables_5_and_6_follow_from_the_three_rows_of_tables_4_and_9_to_13():
    """Table 5's order and Table 6's counts are those of the rows of all three groups (the large rows parsed from
    the paper's source here; the large problems are not public): so a study of the two public groups compares
    with :func:`paper_rank_table` of those two groups, not with Tables 5 and 6."""
    large = []
    for classifier, name in CLASSIFIER_TABLES.items():
        (row,) = [cells for _, cells in paper_table_rows(f"table:{name} Result-NEW Original 1")
                  if cells[0] == "Large Problems"]
        ranks = {m: i + 1.0 for i, m in enumerate(row[1:])} | {m: 7.0 for m in PAPER_METHODS if m not in row[1:]}
        large += [("large", classifier, method, rank) for method, rank in ranks.items()]
    table = pd.concat([paper_rank_table(["small", "abstract"]),
                       pd.DataFrame(large, columns=["group", "classifier", "method", "rank"])], ignore_index=True)
    assert len(table) == 18 * 7
    assert aggregate(table, by=[])["method"].tolist() == list(PAPER_FINAL.methods)
    assert beats_rs_counts(table).to_dict() == PAPER_BEATS_RS


def test_tables_5_and_6_are_the_papers_latex():
    (final,) = paper_table_rows("table:AggOverSixClassifiers Result-NEW Original 1")[1:]
    assert final == (PAPER_FINAL.line, ["Average Rank", *PAPER_FINAL.methods])
    assert PAPER_FINAL.table == f"Table {table_number('table:AggOverSixClassifiers Result-NEW Original 1')}"
    rows = dict(cells[:1] + [cells[1:]] for _, cells in
                paper_table_rows("table:AggOverSixClassifiers_CompVsRs Result-NEW Original 1"))
    assert dict(zip(rows["Method"], map(int, rows["Count better than RS"]), strict=True)) == PAPER_BEATS_RS
    assert list(PAPER_BEATS_RS) == rows["Method"]  # in the paper's order


@pytest.mark.parametrize("groups, error, match", [
    ("small", TypeError, r"groups must be a sequence of group names, got the str 'small' \(write \['small'\]"),
    ([1], TypeError, r"groups must be a sequence of group names \(str\), got \[1\]"),
    ([], ValueError, r"groups must name distinct groups among 'abstract', 'small', at least one, got \[\]"),
    (["small", "small"], ValueError, "groups must name distinct groups"),
    (["large"], ValueError, r"among 'abstract', 'small', at least one, got \['large'\]"),
])
def test_paper_rank_table_refuses_bad_groups(groups, error, match):
    with pytest.raises(error, match=match):
        paper_rank_table(groups)


def test_kendall_tau_against_scipy():
    ours = {"BMRI": 1, "SE": 2, "QbcV": 3, "RS": 4, "SMRI": 5, "LC": 6, "EfeLc": 7}
    # LDA's abstract row: BMRI, QbcV, SMRI, SE, RS, QbcA -> positions 1-6, EfeLc omitted -> 7;
    # LC is not a method of the paper and QbcA is not in ours: both left out
    got = kendall_tau(ours, PAPER_ABSTRACT_ORDERINGS["LDA"].methods)
    expected = stats.kendalltau([1, 2, 3, 4, 5, 7], [1, 4, 2, 5, 3, 7])
    assert got.n == 6
    assert got.tau == pytest.approx(expected.statistic, abs=1e-15)
    assert got.pvalue == pytest.approx(expected.pvalue, abs=1e-15)
    # counts against counts (a mapping): higher with higher
    counts = kendall_tau({"BMRI": 3, "SE": 1, "QbcV": 2}, PAPER_BEATS_RS)
    assert counts.tau == pytest.approx(stats.kendalltau([3, 1, 2], [15, 14, 13]).statistic)
    assert np.isnan(kendall_tau({"BMRI": 1}, PAPER_FINAL.methods).tau)  # one shared method: undefined


def _curves(seed=0):
    """Paired synthetic curves, clearly ordered BMRI > SMRI > SE > RS, with the two oracles."""
    rng = np.random.default_rng(seed)
    speeds = {"RS": 1.0, "SE": 1.6, "SMRI": 2.2, "BMRI": 3.0, "MRI-best": 4.0, "MRI-worst": 0.3}
    n = np.arange(2, 22)
    rows = []
    for problem in ("four-gaussian", "sharp"):
        for classifier in ("lda", "knn5", "rf"):
            for r in range(3):
                base = rng.uniform(0.1, 0.14)
                for method, speed in speeds.items():
                    loss = base + 0.4 * np.exp(-0.1 * speed * (n - 2)) + rng.normal(0, 0.005, n.size)
                    loss[0] = base + 0.4
                    rows += [(problem, classifier, method, r, int(ni), float(li), -1, np.nan, np.nan)
                             for ni, li in zip(n, loss, strict=True)]
    curves = pd.DataFrame(rows, columns=["problem", "classifier", "strategy", "replicate", "n_labelled", "loss",
                                         "chosen", "q_c_chosen", "q_c_best"])
    asymptotic = curves[["problem", "classifier"]].drop_duplicates().assign(asymptotic_loss=0.13)
    return curves, asymptotic


NAMES = ["report.md", "report.tex", "pairings.csv", "group_ranks.csv", "classifier_ranks.csv", "final_ranking.csv",
         "beats_rs.csv", "regret.csv", "bootstrap.csv", "differences.csv", "paper_comparison.csv", "ranks.png"]


def test_write_report_files_and_orderings(tmp_path):
    curves, asymptotic = _curves()
    paths = write_report(curves, asymptotic, tmp_path / "report", n_boot=40)
    assert [p.name for p in paths] == NAMES
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths)
    final = pd.read_csv(tmp_path / "report" / "final_ranking.csv")
    assert final["method"].tolist() == ["BMRI", "SMRI", "SE", "RS"]  # no oracle is ranked
    assert final["rank"].tolist() == [1, 2, 3, 4]
    beats = pd.read_csv(tmp_path / "report" / "beats_rs.csv").set_index("method")["beats_rs"]
    assert beats.to_dict() == {"BMRI": 3, "SMRI": 3, "SE": 3}  # out of 3 (group, classifier) pairings
    regret = pd.read_csv(tmp_path / "report" / "regret.csv").set_index("method")["mean"]
    assert regret.index.tolist() == ["BMRI", "SMRI", "SE", "RS"] and (regret > 0).all()  # MRI-best is faster

    markdown = (tmp_path / "report" / "report.md").read_text()
    row = ("| abstract | lda | **BMRI**, **SMRI**, SE, RS | **BMRI**, QbcV, **SMRI**, SE, RS, QbcA "
           "| Table 4, line 1190 |")
    assert row in markdown
    assert "| abstract | rf | **BMRI**, **SMRI**, SE, RS | — | — | n/a |" in markdown  # no paper row for rf
    assert "| Average Rank | **BMRI** | **SMRI** | SE | RS |" in markdown
    # Kendall tau for LDA's row: ours BMRI 1, SMRI 2, SE 3, RS 4 vs the paper's positions 1, 3, 4, 5
    tau = stats.kendalltau([1, 2, 3, 4], [1, 3, 4, 5]).statistic
    assert f"| Table 4, line 1190 | {tau:+.2f} (n = 4," in markdown
    latex = (tmp_path / "report" / "report.tex").read_text()
    assert r"\textbf{BMRI} & \textbf{SMRI} & SE & RS \\" in latex
    comparison = pd.read_csv(tmp_path / "report" / "paper_comparison.csv")
    lda = comparison[(comparison.table == "group ordering") & (comparison.classifier == "lda")]
    assert lda["kendall_tau"].iloc[0] == pytest.approx(tau)


def test_write_report_is_byte_identical_and_replicate_mode_runs(tmp_path):
    curves, asymptotic = _curves(seed=1)
    first = write_report(curves, asymptotic, tmp_path / "a", n_boot=20, seed=3)
    second = write_report(curves, asymptotic, tmp_path / "b", n_boot=20, seed=3)
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    replicate = write_report(curves, asymptotic, tmp_path / "c", n_boot=20, mode="replicate")
    assert "R1 mode: replicate" in replicate[0].read_text()


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(seed=-1), ValueError, "seed must be >= 0"),
    (dict(mode="both"), ValueError, "mode must be 'curve' or 'replicate'"),
    (dict(groups={"abstract": ["sharp"]}), ValueError, r"groups: the problems \['four-gaussian'\]"),
    (dict(n_boot=0), ValueError, "n_boot must be >= 1"),
])
def test_write_report_bad_input(tmp_path, kwargs, error, match):
    curves, asymptotic = _curves()
    with pytest.raises(error, match=match):
        write_report(curves, asymptotic, tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_write_report_refuses_a_file_as_out_dir(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(ValueError, match="out_dir: .* exists and is not a folder"):
        write_report(*_curves(), target)


def test_the_papers_public_groups_aggregate_level_by_level_by_hand():
    """What a report of the two public groups sets beside its final ranking: the paper's rows aggregated as ours
    are (R3 re-ranks each classifier's mean over the groups, R4 averages those ranks), by hand from the positions
    listed in the previous test. Per classifier (LDA, 5-nn, NB, SVM, QDA, LR) the R3 ranks are
    BMRI 2, 1.5, 2.5, 4, 2, 1 = 13; QbcV 1, 3, 2.5, 1, 3, 2 = 12.5; SE 3, 1.5, 1, 5, 1, 3 = 14.5;
    RS 6, 4, 4, 2, 5, 4 = 25; QbcA 5, 6, 5.5, 3, 4, 5 = 28.5; SMRI 4, 5, 5.5, 6, 6, 6 = 32.5; EfeLc 42
    (ties of the group means broken by the lower variance of the positions, then averaged)."""
    from mri_theory.evaluation.tables import paper_final_ranking

    final = paper_final_ranking(["abstract", "small"]).set_index("method")
    expected = {"QbcV": 12.5, "BMRI": 13, "SE": 14.5, "RS": 25, "QbcA": 28.5, "SMRI": 32.5, "EfeLc": 42}
    assert final.index.tolist() == list(expected)
    for method, total in expected.items():
        assert final.loc[method, "mean_rank"] == pytest.approx(total / 6)
    abstract = paper_final_ranking(["abstract"])  # one group: the same as averaging the positions at once
    assert abstract["method"].tolist() == aggregate(paper_rank_table(), by=[])["method"].tolist()


def test_write_report_sets_the_small_rows_and_table_2_beside_ours(tmp_path):
    curves, asymptotic = _curves()
    rename = {"sharp": "australian"}
    curves["problem"], asymptotic["problem"] = curves["problem"].replace(rename), asymptotic["problem"].replace(rename)
    groups = {"abstract": ["four-gaussian"], "small": ["australian"]}
    write_report(curves, asymptotic, tmp_path / "report", groups=groups, n_boot=20)
    markdown = (tmp_path / "report" / "report.md").read_text()
    # the group rows: ours BMRI, SMRI, SE, RS against the paper's Small row for LDA (positions 3, 5, 4, 6)
    tau = stats.kendalltau([1, 2, 3, 4], [3, 5, 4, 6]).statistic
    assert (f"| small | lda | **BMRI**, **SMRI**, SE, RS | QbcV, QbcA, **BMRI**, SE, **SMRI**, RS "
            f"| Table 4, line 1186 | {tau:+.2f} (n = 4,") in markdown
    # Table 2 under lda on australian: the paper's ranks of our four methods, in our order
    assert "| paper: Overall Rank | 1 | 5 | 7 | 6 |" in markdown
    assert "| paper: WI-Exponential | 1 | 4 | 7 | 5 |" in markdown
    overall = stats.kendalltau([1, 2, 3, 4], [1, 5, 7, 6]).statistic
    assert f"Overall Rank {overall:+.2f} (n = 4," in markdown
    comparison = pd.read_csv(tmp_path / "report" / "paper_comparison.csv")
    pairing = comparison[comparison.table == "pairing ranks"]
    assert len(pairing) == 5 and pairing["kendall_tau"].iloc[0] == pytest.approx(overall)
    assert "| Paper abstract and small rows, aggregated" in markdown
    assert "Paper abstract and small rows (of 12)" in markdown
    # no paper row for a group the paper does not have
    write_report(curves, asymptotic, tmp_path / "other", groups={"mine": ["four-gaussian", "australian"]},
                 n_boot=20)
    other = (tmp_path / "other" / "report.md").read_text()
    assert "| mine | lda | **BMRI**, **SMRI**, SE, RS | — | — | n/a |" in other
    assert "the paper publishes no rows of this study's groups" in other and "rows (of" not in other
