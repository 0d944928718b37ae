r"""The paper's result tables (§5.3-5.5, Appendix E), reproduced from a sandbox study.

:func:`write_report` turns a study's learning curves (the tidy sandbox table
for many (problem, classifier) pairings) into the paper's layouts, in
Markdown, LaTeX and CSV, and a rank figure:

* Table 2's form: per pairing, the rank of each method on each of the four
  metrics and its overall rank (and the metric values);
* the "Abstract Problems" row of Tables 4 and 9-13: per classifier, the
  methods ordered by their group rank (R2/R3);
* Table 5's form: the final ranking over the classifiers (R4), with bootstrap
  confidence intervals of the mean ranks and the probability of beating RS;
* Table 6's form: how often each method beats RS, over the (group,
  classifier) pairings;
* the regret of each method against MRI-best (Appendix E, line ~1658).

Next to each ordering stands the paper's published ordering for the abstract
group (transcribed below with the line numbers of the source) and Kendall's
:math:`\tau` between the two (:func:`kendall_tau`).  The "Small Problems" rows
(:data:`PAPER_SMALL_ORDERINGS`) and Table 2 (:data:`PAPER_SINGLE_PAIRING`, LDA on
Australian) are transcribed too, for comparison with a study of the group
``"small"``.

A study of log-loss curves is reported with ``write_report(..., loss="log")``:
its ranks use the mean log loss in place of AUA and label complexity relative
to the asymptotic log loss (:func:`mri_theory.evaluation.metrics.ranked_metrics`), and the
report says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy import stats

from mri_theory._utils import validation as check
from mri_theory._utils.ties import tie_classes
from mri_theory.evaluation import _checks as evc
from mri_theory.evaluation.metrics import BEST, REFERENCE
from mri_theory.evaluation.ranking import (
    RESAMPLING,
    aggregate,
    beats_rs_counts,
    bootstrap_generator,
    bootstrap_rank_draws,
    paired_differences,
    rank_study,
)

__all__ = ["PAPER_ABSTRACT_ORDERINGS", "PAPER_BEATS_RS", "PAPER_CLASSIFIERS", "PAPER_FINAL", "PAPER_GROUPS",
           "PAPER_METHODS",
           "PAPER_SINGLE_PAIRING", "PAPER_SMALL_ORDERINGS", "PaperOrdering", "PaperPairingRanks", "Tau",
           "TAU_TIES", "kendall_tau", "paper_final_ranking", "paper_rank_table", "ranking_tau", "ranking_tau_interval",
           "write_report"]


class PaperOrdering(NamedTuple):
    """A published ordering of AL methods (best first), with where it stands in the paper's source.

    Parameters
    ----------
    table : str
        The paper's table, e.g. ``"Table 4"``.
    line : int
        The line of the row in the paper's LaTeX source.
    scope : str
        Which results the row ranks, e.g. ``"abstract group"``.
    methods : tuple of str
        The methods, best first, as printed (the paper's tables list their best six).

    Examples
    --------
    >>> from mri_theory.evaluation.tables import PAPER_SMALL_ORDERINGS
    >>> row = PAPER_SMALL_ORDERINGS["LDA"]
    >>> row.table, row.scope, row.methods[:3]
    ('Table 4', 'small group', ('QbcV', 'QbcA', 'BMRI'))
    """

    table: str
    line: int
    scope: str
    methods: tuple[str, ...]


#: The paper's seven AL methods (§5.1, lines 1022-1025 of the source).
PAPER_METHODS = ("RS", "SE", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI")
#: The "Abstract Problems" rows (the best six methods, best first), per classifier as the paper names it.
PAPER_ABSTRACT_ORDERINGS: dict[str, PaperOrdering] = {
    "LDA": PaperOrdering("Table 4", 1190, "abstract group", ("BMRI", "QbcV", "SMRI", "SE", "RS", "QbcA")),
    "5-nn": PaperOrdering("Table 9", 1552, "abstract group", ("BMRI", "SE", "RS", "QbcV", "SMRI", "QbcA")),
    "naive Bayes": PaperOrdering("Table 10", 1576, "abstract group", ("SE", "QbcV", "BMRI", "SMRI", "RS", "QbcA")),
    "SVM": PaperOrdering("Table 11", 1600, "abstract group", ("QbcV", "RS", "QbcA", "BMRI", "SMRI", "SE")),
    "QDA": PaperOrdering("Table 12", 1624, "abstract group", ("SE", "BMRI", "RS", "QbcV", "QbcA", "SMRI")),
    "Logistic Regression": PaperOrdering("Table 13", 1648, "abstract group",
                                         ("BMRI", "RS", "SE", "SMRI", "QbcV", "QbcA")),
}
#: The "Small Problems" rows of the same tables (the paper's ten smaller real data sets, Appendix D; the group
#: ``"small"`` of :data:`~mri_theory.runners.study.PROBLEM_GROUPS`), best six first, per classifier.
PAPER_SMALL_ORDERINGS: dict[str, PaperOrdering] = {
    "LDA": PaperOrdering("Table 4", 1186, "small group", ("QbcV", "QbcA", "BMRI", "SE", "SMRI", "RS")),
    "5-nn": PaperOrdering("Table 9", 1548, "small group", ("SE", "BMRI", "QbcV", "SMRI", "RS", "QbcA")),
    "naive Bayes": PaperOrdering("Table 10", 1572, "small group", ("SE", "BMRI", "QbcV", "QbcA", "RS", "SMRI")),
    "SVM": PaperOrdering("Table 11", 1596, "small group", ("QbcV", "RS", "QbcA", "SE", "BMRI", "SMRI")),
    "QDA": PaperOrdering("Table 12", 1620, "small group", ("SE", "BMRI", "QbcV", "QbcA", "SMRI", "RS")),
    "Logistic Regression": PaperOrdering("Table 13", 1644, "small group",
                                         ("QbcV", "QbcA", "BMRI", "SE", "RS", "SMRI")),
}


#: The paper's group rows by the registry's group name (:func:`paper_rank_table`).
_PAPER_GROUP_ORDERINGS = {"abstract": PAPER_ABSTRACT_ORDERINGS, "small": PAPER_SMALL_ORDERINGS}
#: The problem groups whose rows the paper publishes and this module transcribes (its large group is not public).
PAPER_GROUPS = tuple(_PAPER_GROUP_ORDERINGS)


class PaperPairingRanks(NamedTuple):
    """A published table of one pairing's ranks (Table 2's form): per metric, the rank of each method.

    ``methods`` are the table's columns (its best six, in the order of ``overall``); each rank field lists
    the ranks of ``methods`` in that order, as printed.

    Parameters
    ----------
    table : str
        The paper's table, e.g. ``"Table 2"``.
    line : int
        The line of its column header in the paper's LaTeX source.
    classifier : str
        The classifier as the paper names it.
    problem : str
        The data set, by its registered name.
    methods : tuple of str
        The table's columns.
    overall, label_complexity, aua, wi_linear, wi_exponential : tuple of int
        The ranks of ``methods`` overall and per metric, as printed.

    Examples
    --------
    Table 2: LDA on Australian, each method's rank per metric as printed:

    >>> from mri_theory.evaluation.tables import PAPER_SINGLE_PAIRING
    >>> PAPER_SINGLE_PAIRING.problem, PAPER_SINGLE_PAIRING.methods[:2], PAPER_SINGLE_PAIRING.aua[:2]
    ('australian', ('BMRI', 'QbcV'), (1, 2))
    """

    table: str
    line: int
    classifier: str
    problem: str
    methods: tuple[str, ...]
    overall: tuple[int, ...]
    label_complexity: tuple[int, ...]
    aua: tuple[int, ...]
    wi_linear: tuple[int, ...]
    wi_exponential: tuple[int, ...]


#: Table 2 (its column header at line 1112, the rank rows at lines 1115-1124): LDA on Australian credit
#: (the registry's ``"australian"``), ten replicates.  As printed, its WI-Exponential row ranks EfeLc and RS both
#: 5 and has no 6 (a tie, or a typo for RS's 6: either way the overall ranks, the order of the methods' mean
#: metric ranks, are as printed).
PAPER_SINGLE_PAIRING = PaperPairingRanks(
    "Table 2", 1112, "LDA", "australian", ("BMRI", "QbcV", "QbcA", "EfeLc", "SMRI", "RS"),
    overall=(1, 2, 3, 4, 5, 6), label_complexity=(1, 2, 4, 5, 6, 3), aua=(1, 2, 4, 3, 5, 6),
    wi_linear=(2, 1, 3, 5, 4, 6), wi_exponential=(1, 2, 3, 5, 4, 5))
#: Table 5 (line 1240): the final ranking over six classifiers and all three groups (not the abstract group alone).
PAPER_FINAL = PaperOrdering("Table 5", 1240, "six classifiers, three groups",
                            ("BMRI", "SE", "QbcV", "QbcA", "RS", "SMRI", "EfeLc"))
#: Table 6 (lines 1265-1267): pairings in which each method beats RS, out of 18 (six classifiers x three groups).
PAPER_BEATS_RS: dict[str, int] = {"BMRI": 15, "SE": 14, "QbcV": 13, "SMRI": 9, "QbcA": 8, "EfeLc": 2}
#: Registered classifier names -> the paper's names (Appendix C, E); ``knn5`` and ``kknn5`` are both its 5-nn.
PAPER_CLASSIFIERS: dict[str, str] = {"lda": "LDA", "knn5": "5-nn", "kknn5": "5-nn", "nb": "naive Bayes",
                                     "svm": "SVM", "qda": "QDA", "logreg": "Logistic Regression"}
#: The Q^c-estimation algorithms, shown in bold as in the paper.
QC_METHODS = ("SMRI", "BMRI")
#: Display names of the four ranked metrics, in the paper's row order (Table 2).
METRIC_LABELS = {"label_complexity": "Label Complexity", "aua": "AUA", "wi_linear": "WI-Linear",
                 "wi_exponential": "WI-Exponential"}
#: The same for a log-loss study: the mean log loss along the curve takes AUA's row
#: (:func:`mri_theory.evaluation.metrics.ranked_metrics`).
LOG_METRIC_LABELS = {("mean_loss" if key == "aua" else key): ("Mean Log Loss" if key == "aua" else label)
                     for key, label in METRIC_LABELS.items()}


def _paper_positions(methods: Sequence[str]) -> dict[str, float]:
    """Positions 1, 2, ... of a published ordering; the paper's methods it omits share the last positions."""
    positions = {m: float(i + 1) for i, m in enumerate(methods)}
    omitted = [m for m in PAPER_METHODS if m not in positions]
    for m in omitted:
        positions[m] = (len(methods) + 1 + len(PAPER_METHODS)) / 2
    return positions


def paper_rank_table(groups: Sequence[str] = ("abstract",)) -> pd.DataFrame:
    """The paper's group rows (Tables 4, 9-13) as a long rank table.

    Parameters
    ----------
    groups : sequence of str, default ("abstract",)
        Which rows: ``"abstract"`` (:data:`PAPER_ABSTRACT_ORDERINGS`) and ``"small"``
        (:data:`PAPER_SMALL_ORDERINGS`), in the order given.  The paper's third group, its larger real
        problems, is not public and not transcribed.

    Returns
    -------
    DataFrame
        Columns ``group`` (as named in ``groups``), ``classifier`` (the paper's name), ``method``, ``rank``
        (the position, 1-6; the paper's seventh method, never shown, gets rank 7).  It feeds
        :func:`mri_theory.evaluation.ranking.aggregate` and :func:`mri_theory.evaluation.ranking.beats_rs_counts`
        like any rank table: the paper's own final ranking and beats-RS counts over these groups, which it does
        not publish, follow from its published rows.

    Raises
    ------
    TypeError
        If ``groups`` is a str (write ``["small"]`` for one group) or holds something other than str.
    ValueError
        If ``groups`` is empty, names a group twice or a group other than ``"abstract"`` and ``"small"``.

    See Also
    --------
    mri_theory.evaluation.tables.paper_final_ranking : The paper's final ranking derived from these rows.
    mri_theory.evaluation.kendall_tau : Our ranks against one of these orderings.

    Examples
    --------
    The paper's orderings per classifier (Tables 4, 9-13), as ranks; the seventh method, never printed, is 7:

    >>> from mri_theory.evaluation import paper_rank_table
    >>> table = paper_rank_table(["abstract", "small"])
    >>> lda = table[(table.group == "small") & (table.classifier == "LDA")]
    >>> lda.sort_values("rank")[["method", "rank"]].to_dict("list")
    {'method': ['QbcV', 'QbcA', 'BMRI', 'SE', 'SMRI', 'RS', 'EfeLc'], 'rank': [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]}
    """
    known = _PAPER_GROUP_ORDERINGS
    if isinstance(groups, str):
        raise TypeError(f"groups must be a sequence of group names, got the str {groups!r} "
                        f"(write [{groups!r}] for one group)")
    if not isinstance(groups, Sequence) or not all(isinstance(g, str) for g in groups):
        raise TypeError(f"groups must be a sequence of group names (str), got {groups!r}")
    if not groups or len(set(groups)) != len(groups) or not set(groups) <= set(known):
        raise ValueError(f"groups must name distinct groups among {', '.join(map(repr, known))}, at least one, "
                         f"got {list(groups)!r}")
    rows = [(group, classifier, method, rank)
            for group in groups
            for classifier, ordering in known[group].items()
            for method, rank in _paper_positions(ordering.methods).items()]
    return pd.DataFrame(rows, columns=["group", "classifier", "method", "rank"])


def _scores(value: Any, name: str) -> dict[Any, float]:
    """A mapping (or Series) method -> finite number, as a dict; refused naming ``name`` otherwise."""
    if not isinstance(value, (Mapping, pd.Series)):
        raise TypeError(f"{name} must be a mapping (or Series) method -> value, got {type(value).__name__}")
    if isinstance(value, pd.Series) and not value.index.is_unique:
        raise ValueError(f"{name} names a method twice: {value.index[value.index.duplicated()].tolist()}")
    methods = list(value.keys())
    evc.labels(methods, f"{name} (the methods)")
    numbers = evc.number_array(list(value.values) if isinstance(value, pd.Series) else list(value.values()),
                               f"{name} (the values)")
    if numbers.ndim != 1:
        raise ValueError(f"{name} must map each method to one number")
    return dict(zip(methods, numbers.tolist(), strict=True))


class Tau(NamedTuple):
    r"""Kendall's tau-b between two orderings over the ``n`` methods they share (NaN if it is undefined).

    Parameters
    ----------
    tau : float
        Kendall's :math:`\tau_b`.
    pvalue : float
        Its two-sided p-value (``scipy.stats.kendalltau``).
    n : int
        The number of methods both orderings rank.

    Examples
    --------
    >>> from mri_theory.evaluation import kendall_tau
    >>> result = kendall_tau({"A": 1.0, "B": 2.0, "C": 3.0}, ["A", "C", "B"])
    >>> round(result.tau, 6), round(result.pvalue, 6), result.n
    (0.333333, 1.0, 3)
    """

    tau: float
    pvalue: float
    n: int


def kendall_tau(ours: Mapping[str, float] | pd.Series, paper: Sequence[str] | Mapping[str, float] | pd.Series
                ) -> Tau:
    r"""Kendall's :math:`\tau_b` (``scipy.stats.kendalltau``) between our ranks and a published ordering.

    Parameters
    ----------
    ours : mapping or pandas.Series
        Method -> our value; lower is better (ranks), or any score compared
        with a ``paper`` mapping of the same kind (e.g. beats-RS counts).
    paper : sequence of str, mapping or pandas.Series
        A published ordering, best first (positions 1, 2, ...), or method ->
        published value.  For an ordering, a method of the paper
        (:data:`PAPER_METHODS`) that it omits (the tables show the best six
        of seven) is placed last: omitted methods share the positions after
        the listed ones.

    Returns
    -------
    Tau
        ``(tau, pvalue, n)`` over the methods present in both; methods outside
        the paper's study (e.g. LC) or outside ours are left out.  ``tau`` and
        ``pvalue`` are NaN when fewer than two methods are shared (an empty
        side shares none: a study ranking RS alone has no beats-RS counts) or
        one side is constant.

    Raises
    ------
    TypeError, ValueError
        For a method named twice or missing (None/NaN), or a value that is
        not a finite number (text, booleans, NaN, inf).

    See Also
    --------
    mri_theory.evaluation.paper_rank_table : The paper's orderings beside ours, with tau.

    Examples
    --------
    Our mean ranks against a published ordering (best first); the same ordering gives tau = 1:

    >>> from mri_theory.evaluation import kendall_tau
    >>> ours = {"BMRI": 1.5, "SE": 2.0, "RS": 3.0, "QbcV": 3.5}
    >>> kendall_tau(ours, ["BMRI", "SE", "RS", "QbcV"]).tau
    1.0
    >>> result = kendall_tau(ours, ["SE", "BMRI", "QbcV", "RS"])
    >>> round(result.tau, 6), result.n
    (0.333333, 4)

    The same as scipy's tau-b between our values and the methods' positions in the published ordering:

    >>> from scipy.stats import kendalltau
    >>> reference = kendalltau([1.5, 2.0, 3.0, 3.5], [2, 1, 4, 3])
    >>> round(float(reference.statistic), 6), round(float(reference.pvalue), 6) == round(result.pvalue, 6)
    (0.333333, True)
    """
    ours = _scores(ours, "ours")
    if isinstance(paper, (Mapping, pd.Series)):
        reference = _scores(paper, "paper")
    elif isinstance(paper, Sequence) and not isinstance(paper, (str, bytes)):
        evc.labels(list(paper), "paper (the ordering)")
        if len(set(paper)) != len(paper):
            raise ValueError(f"paper lists a method twice: {list(paper)!r}")
        reference = _paper_positions(paper)
    else:
        raise TypeError("paper must be an ordering (sequence of method names) or a mapping method -> value")
    common = [m for m in ours if m in reference]
    if len(common) < 2:
        return Tau(float("nan"), float("nan"), len(common))
    x = np.array([float(ours[m]) for m in common])
    y = np.array([reference[m] for m in common])
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return Tau(float("nan"), float("nan"), len(common))
    result = stats.kendalltau(x, y)
    return Tau(float(result.statistic), float(result.pvalue), len(common))


#: The two readings of Kendall's tau of a ranking (:func:`ranking_tau`), each with the line that says what it is.
TAU_TIES: dict[str, str] = {
    "broken": "tau of the ranks as reported: mean-rank ties broken by the lower variance of the ranks",
    "kept": "tau-b with the mean-rank ties kept as ties (equal within the tie tolerance)",
}


def ranking_tau(ranking: pd.DataFrame, paper: Sequence[str] | Mapping[str, float] | pd.Series, *,
                ties: str = "broken") -> Tau:
    r"""Kendall's :math:`\tau_b` between a ranking of ours (R2-R4) and a published one, its ties broken or kept.

    ``ties="broken"``: our ranks as reported (``rank``: mean-rank ties broken by the lower variance of the ranks,
    Appendix E), as :func:`kendall_tau` of them.  ``ties="kept"``: our mean ranks, those equal within
    :data:`~mri_theory._utils.ties.TIE_TOLERANCE` made one class first (so a tie is not lost to the last bit of a
    sum), so :math:`\tau_b` (``scipy.stats.kendalltau``) counts the tie as a tie.

    Parameters
    ----------
    ranking : pandas.DataFrame
        Columns ``method``, ``mean_rank`` and ``rank`` (one row per method), e.g. :func:`rank_study`'s ``r4``.
    paper : sequence of str, mapping or pandas.Series
        As for :func:`kendall_tau`.
    ties : {"broken", "kept"}
        :data:`TAU_TIES`.

    Returns
    -------
    Tau

    Examples
    --------
    RS and QbcA tied at mean rank 14/3 (summed in two orders), the tie-break ranking RS first; the paper ranks
    QbcA before RS:

    >>> import pandas as pd
    >>> from mri_theory.evaluation import ranking_tau
    >>> ours = pd.DataFrame({"method": ["SE", "RS", "QbcA", "BMRI"],
    ...                      "mean_rank": [1.0, (4 + 5 + 5) / 3, (5 + 5 + 4) / 3, 2.0], "rank": [1.0, 3.0, 4.0, 2.0]})
    >>> round(ranking_tau(ours, ["SE", "BMRI", "QbcA", "RS"]).tau, 4)  # the tie broken the other way
    0.6667
    >>> round(ranking_tau(ours, ["SE", "BMRI", "QbcA", "RS"], ties="kept").tau, 4)
    0.9129
    """
    if not isinstance(ties, str) or ties not in TAU_TIES:
        raise ValueError(f"ties must be one of {', '.join(map(repr, TAU_TIES))}, got {ties!r}")
    frame = evc.frame(ranking, "ranking", ["method", "mean_rank", "rank"])
    if ties == "broken":
        return kendall_tau(pd.Series(frame["rank"].to_numpy(), index=frame["method"].to_numpy()), paper)
    mean = evc.number_array(frame["mean_rank"].to_numpy(), "ranking['mean_rank']")
    return kendall_tau(pd.Series(tie_classes(mean).astype(float), index=frame["method"].to_numpy()), paper)


# ---------------------------------------------------------------- table rendering

@dataclass
class _Table:
    """A table to render: cells are text, or a list of method names (an ordering, bold for Q^c methods)."""

    name: str
    title: str
    header: list[Any]
    rows: list[list[Any]]
    notes: list[str] = field(default_factory=list)


def _method_md(name: str) -> str:
    return f"**{name}**" if name in QC_METHODS else name


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "$": r"\$",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "—": "---"}
_TEX_PATTERN = re.compile("|".join(re.escape(c) for c in _TEX_SPECIAL))


def _tex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (one pass)."""
    return _TEX_PATTERN.sub(lambda m: _TEX_SPECIAL[m.group()], text)


def _method_tex(name: str) -> str:
    return rf"\textbf{{{_tex_escape(name)}}}" if name in QC_METHODS else _tex_escape(name)


def _ordering_cell(cell: list, method: Any) -> str:
    """An ordering: an inner list is a group of tied methods (``=``), an inner tuple a group tied in mean rank
    that the tie-break ordered (``[A, B]``)."""
    def item(m: Any) -> str:
        if isinstance(m, tuple):
            return "[" + ", ".join(map(item, m)) + "]"
        return " = ".join(map(method, m)) if isinstance(m, list) else method(m)
    return ", ".join(map(item, cell))


def _cell_md(cell: Any) -> str:
    if isinstance(cell, list):
        return _ordering_cell(cell, _method_md)
    return str(cell).replace("|", r"\|")


def _cell_tex(cell: Any) -> str:
    if isinstance(cell, list):
        return _ordering_cell(cell, _method_tex)
    return _tex_escape(str(cell))


def _markdown(table: _Table) -> str:
    lines = [f"### {table.title}", "", "| " + " | ".join(_cell_md(c) for c in table.header) + " |",
             "|" + "---|" * len(table.header)]
    lines += ["| " + " | ".join(_cell_md(c) for c in row) + " |" for row in table.rows]
    lines += [""] + [f"{note}  " for note in table.notes]
    return "\n".join(lines).rstrip() + "\n"


def _latex(table: _Table) -> str:
    columns = "|" + "c|" * len(table.header)
    lines = [r"\begin{table}[h!b!p!]", rf"\caption{{{_tex_escape(table.title)}}}",
             rf"\label{{table:report-{table.name}}}", r"\centering", rf"\begin{{tabular}}{{{columns}}}", r"\hline",
             " & ".join(_cell_tex(c) for c in table.header) + r" \\", r"\hline\hline"]
    lines += [" & ".join(_cell_tex(c) for c in row) + r" \\" + "\n" + r"\hline" for row in table.rows]
    lines += [r"\end{tabular}"]
    lines += [rf"\par\smallskip{{\footnotesize {_tex_escape(note)}}}" for note in table.notes]
    lines += [r"\end{table}", ""]
    return "\n".join(lines)


def _num(value: float, digits: int = 3) -> str:
    """Fixed-point text, ``n/a`` for NaN."""
    return f"{value:.{digits}f}" if np.isfinite(value) else "n/a"


def _rank_text(value: float) -> str:
    """A rank: 2, 2.5, 2.33 (no trailing zeros)."""
    return _num(value, 2).rstrip("0").rstrip(".") if np.isfinite(value) else "n/a"


#: The note under every table whose ranks carry the tie mark (:func:`_tie_rank_text`).
_TIE_MARK_NOTE = ("A rank marked \"=\" is tied in mean rank with another method's (within the tie tolerance): its "
                  "place is the tie-break's (the lower variance of the ranks), or shared where that ties too, not a "
                  "place of its own; in an ordering, [A, B] is such a group in the tie-break's order.")


def _tie_rank_text(value: float, tied_with: str) -> str:
    """A rank, marked ``=`` where its mean rank is tied with another method's (``tied_with``)."""
    return _rank_text(value) + ("=" if tied_with else "")


def _interval(low: float, high: float, digits: int = 3) -> str:
    return f"[{_num(low, digits)}, {_num(high, digits)}]"


def ranking_tau_interval(draws: pd.DataFrame, paper: Sequence[str] | Mapping[str, float] | pd.Series, *,
                         ties: str = "broken", level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of Kendall's tau (:func:`ranking_tau`) of every bootstrap draw's final ranking.

    Parameters
    ----------
    draws : pandas.DataFrame
        :func:`~mri_theory.evaluation.bootstrap_rank_draws`' ``draws`` (its rows ``classifier == "all"``: each
        draw's R4).
    paper, ties
        As for :func:`ranking_tau`.
    level : float
        In (0, 1).

    Returns
    -------
    tuple of float
        ``(low, high)``; NaN where no draw's tau is defined.

    Examples
    --------
    Two draws by hand: the first agrees with the paper, the second swaps two of three methods (tau 1/3):

    >>> import pandas as pd
    >>> from mri_theory.evaluation import ranking_tau_interval
    >>> draws = pd.DataFrame({"draw": [0, 0, 0, 1, 1, 1], "classifier": "all", "method": ["A", "B", "C"] * 2,
    ...                       "mean_rank": [1.0, 2.0, 3.0, 2.0, 1.0, 3.0], "rank": [1.0, 2.0, 3.0, 2.0, 1.0, 3.0]})
    >>> [round(v, 4) for v in ranking_tau_interval(draws, ["A", "B", "C"], level=0.5)]
    [0.5, 0.8333]
    """
    if not 0 < check.finite_scalar(level, "level") < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    frame = evc.frame(draws, "draws", ["draw", "classifier", "method", "mean_rank", "rank"])
    final = frame[frame["classifier"] == "all"]
    taus = np.array([ranking_tau(part, paper, ties=ties).tau for _, part in final.groupby("draw", sort=True)])
    taus = taus[np.isfinite(taus)]
    if not taus.size:
        return np.nan, np.nan
    tail = (1 - level) / 2
    return float(np.quantile(taus, tail)), float(np.quantile(taus, 1 - tail))


def _tau_text(tau: Tau) -> str:
    return "n/a" if not np.isfinite(tau.tau) else f"{tau.tau:+.2f} (n = {tau.n}, p = {tau.pvalue:.2f})"


# ---------------------------------------------------------------- the tables

def _paper_pairing_rows(part: pd.DataFrame, methods: list[str], classifier: str,
                        comparison: list[dict]) -> tuple[list[list[str]], str]:
    """The rows of Table 2 (:data:`PAPER_SINGLE_PAIRING`) under our table of its pairing: the paper's rank of each
    of our methods per metric (a paper method it does not show ranks 7th, as in :func:`kendall_tau`), and a note
    of Kendall's tau between its ranks and ours, metric by metric (each also a ``comparison`` record)."""
    paper = PAPER_SINGLE_PAIRING
    fields = {"overall": ("rank", "Overall Rank"),
              **{metric: (f"rank_{metric}", label) for metric, label in METRIC_LABELS.items()}}
    rows, taus = [], []
    for field_name, (column, label) in fields.items():
        published = dict(zip(paper.methods, map(float, getattr(paper, field_name)), strict=True))
        published |= {m: r for m, r in _paper_positions(paper.methods).items() if m not in published}
        rows.append([f"paper: {label}"] + [_rank_text(published[m]) if m in published else "—" for m in methods])
        tau = kendall_tau(part.set_index("method")[column], published)
        taus.append(f"{label} {_tau_text(tau)}")
        comparison.append({"table": "pairing ranks", "group": "", "classifier": classifier,
                           "ours": " ".join(f"{m}={_rank_text(v)}" for m, v in zip(part["method"], part[column],
                                                                                  strict=True)),
                           "paper": " ".join(f"{m}={_rank_text(v)}" for m, v in published.items()),
                           "paper_source": f"{paper.table}, line {paper.line}: {label}",
                           "kendall_tau": tau.tau, "pvalue": tau.pvalue, "n_common": tau.n})
    note = (f"Rows \"paper\": the paper's {paper.table} (line {paper.line}, {paper.classifier} on "
            f"{paper.problem}, its best six; the seventh method ranked 7th). Kendall tau, ours vs the paper's: "
            + "; ".join(taus) + ".")
    return rows, note


def _pairing_tables(r1: pd.DataFrame, loss: str, comparison: list[dict]) -> list[_Table]:
    labels, area = (METRIC_LABELS, ("aua", "AUA")) if loss == "error" else (LOG_METRIC_LABELS,
                                                                           ("mean_loss", "mean log loss"))
    tables = []
    for (problem, classifier), part in r1.groupby(["problem", "classifier"], sort=True):
        part = part.sort_values(["rank", "mean_rank"], kind="stable")
        methods = part["method"].tolist()
        rows = [["Overall Rank"] + [_tie_rank_text(v, t) for v, t in zip(part["rank"], part["tied_with"], strict=True)]]
        rows += [[label] + [_rank_text(v) for v in part[f"rank_{metric}"]] for metric, label in labels.items()]
        lc = [f"{v:.1f}{'*' if c > 0 else ''}"
              for v, c in zip(part["label_complexity"], part["lc_censored"], strict=True)]
        rows.append(["value: label complexity (n)"] + lc)
        for column, label in (area, ("wi_linear", "WI-linear"), ("wi_exponential", "WI-exponential"),
                              ("alc", "ALC"), ("regret", "regret vs MRI-best")):
            rows.append([f"value: {label}"] + [_num(v) for v in part[column]])
        paper_notes = []
        if (loss == "error" and problem == PAPER_SINGLE_PAIRING.problem
                and PAPER_CLASSIFIERS.get(str(classifier)) == PAPER_SINGLE_PAIRING.classifier):
            paper_rows, note = _paper_pairing_rows(part, methods, str(classifier), comparison)
            rows[len(labels) + 1:len(labels) + 1] = paper_rows  # after our ranks, before the values
            paper_notes.append(note)
        tables.append(_Table(f"pairing-{problem}-{classifier}", f"Table 2 form: {classifier} on {problem} "
                             f"({int(part['n_replicates'].iloc[0])} replicates)", [""] + [[m] for m in methods], rows,
                             paper_notes))
    notes = ["Methods ordered by overall rank (the rank of the mean of the four metric ranks, ties by the lower "
             "variance of the ranks). Ranks: 1 = best, ties averaged. " + _TIE_MARK_NOTE,
             "* label complexity censored (in curve mode: the averaged curve never reaches (1 + epsilon) times the "
             f"asymptotic {'' if loss == 'error' else 'log '}loss; in replicate mode: in some replicates); the value "
             "counted is n_max + 1."]
    tables[-1].notes += notes
    return tables


def _ordering(frame: pd.DataFrame) -> list[str]:
    """The methods of a rank table, best first."""
    return frame.sort_values(["rank", "mean_rank"], kind="stable")["method"].tolist()


def _tied_ordering(frame: pd.DataFrame) -> list[Any]:
    """The methods best first, in groups of equal rank (a cell: tied methods are joined by "="); where the frame
    has ``tied_with`` (:func:`~mri_theory.evaluation.ranking.rank_study`), the groups tied in mean rank that the
    tie-break ordered as a tuple (shown ``[A, B]``)."""
    ordered = frame.sort_values(["rank", "mean_rank"], kind="stable")
    groups = [group["method"].tolist() for _, group in ordered.groupby("rank", sort=True)]
    if "tied_with" not in frame.columns:
        return groups
    classes = pd.Series(tie_classes(ordered["mean_rank"].to_numpy(dtype=float)), index=ordered["method"].to_numpy())
    out: list[Any] = []
    for group in groups:
        if out and classes[_first(out[-1])] == classes[group[0]]:  # tied in mean rank with the group before
            out[-1] = (*out[-1], group) if isinstance(out[-1], tuple) else (out[-1], group)
        else:
            out.append(group)
    return [tuple(g if len(g) > 1 else g[0] for g in item) if isinstance(item, tuple) else item for item in out]


def _first(item: Any) -> str:
    return item[0][0] if isinstance(item, tuple) else item[0]


def _ordering_text(groups: list[Any]) -> str:
    def text(g: Any) -> str:
        if isinstance(g, tuple):
            return "[" + " > ".join(text(m) for m in g) + "]"
        return " = ".join(g) if isinstance(g, list) else str(g)
    return " > ".join(text(g) for g in groups)


def _group_table(r2: pd.DataFrame, comparison: list[dict]) -> _Table:
    rows = []
    for key, part in r2.groupby(["group", "classifier"], sort=True):
        group, classifier = cast("tuple[str, str]", key)  # the key columns hold names
        ours = _tied_ordering(part)
        paper = _PAPER_GROUP_ORDERINGS.get(group, {}).get(PAPER_CLASSIFIERS.get(classifier, ""))
        tau = kendall_tau(part.set_index("method")["rank"], paper.methods) if paper else Tau(np.nan, np.nan, 0)
        rows.append([group, classifier, ours, list(paper.methods) if paper else "—",
                     f"{paper.table}, line {paper.line}" if paper else "—", _tau_text(tau)])
        comparison.append({"table": "group ordering", "group": group, "classifier": classifier,
                           "ours": _ordering_text(ours), "paper": " > ".join(paper.methods) if paper else "",
                           "paper_source": f"{paper.table}, line {paper.line}" if paper else "",
                           "kendall_tau": tau.tau, "pvalue": tau.pvalue, "n_common": tau.n})
    return _Table("groups", "Tables 4 and 9-13 form: per classifier, the methods ordered by group rank (R2)",
                  ["Group", "Classifier", "Ours (best first)", "Paper (same group, best six)", "Source",
                   "Kendall tau"], rows,
                  ["Kendall tau-b over the methods in both orderings; a paper method missing from its best six "
                   "is placed last (7th); methods outside the paper's seven (e.g. LC) are left out. The paper's "
                   "rows: its abstract group and its smaller real data sets (\"Small Problems\"); other groups "
                   "have none."])


def _final_tables(r4: pd.DataFrame, boot: pd.DataFrame, regret: pd.Series, level: float,
                  comparison: list[dict], paper_groups: Sequence[str], draws: Mapping[str, pd.DataFrame]
                  ) -> list[_Table]:
    ours = _ordering(r4)
    ranks = r4.set_index("method")["rank"]
    tied = r4.set_index("method")["tied_with"]
    ties_shown = bool(tied.astype(bool).any())
    top = _Table("final", "Table 5 form: final ranking over the classifiers (R4)",
                 [""] + [f"Rank {_tie_rank_text(ranks[m], tied[m])}" for m in ours],
                 [["Average Rank"] + [[m] for m in ours]], [_TIE_MARK_NOTE] if ties_shown else [])
    final = boot[boot["classifier"] == "all"].set_index("method")
    rows: list[list[Any]] = []
    for method in ours:
        b = final.loc[method]  # one row (the methods are unique): its cells are numbers
        mean_rank, ci_low, ci_high, low2, high2 = (cast(float, b[c]) for c in (
            "mean_rank", "ci_low", "ci_high", "two_level_low", "two_level_high"))
        rows.append([[method], _tie_rank_text(ranks[method], tied[method]), _num(mean_rank),
                     _interval(ci_low, ci_high), _interval(low2, high2),
                     "—" if method == REFERENCE else _num(cast(float, b["p_beats_rs"]), 2),
                     "—" if method == REFERENCE else _num(cast(float, b["two_level_p_beats_rs"]), 2),
                     _num(regret.get(method, np.nan))])
    detail = _Table("final-detail", "Final ranking: mean ranks with bootstrap intervals",
                    ["Method", "Rank", "Mean rank", f"{level * 100:g}% CI, replicates",
                     f"{level * 100:g}% CI, two-level", "P(beats RS), replicates", "P(beats RS), two-level",
                     "Regret vs MRI-best"], rows,
                    ["Mean rank: the mean over the classifiers of the per-classifier ranks (R3). Percentile "
                     "bootstrap intervals, two of them:",
                     f"CI, replicates: {RESAMPLING['replicates']}.",
                     f"CI, two-level: {RESAMPLING['pairings']}.",
                     "P(beats RS): the share of bootstrap draws in which the method's final rank is better than RS's. "
                     "Regret: the mean over pairings of the mean loss gap to the MRI-best curve (n/a without MRI-best "
                     "curves)." + (" " + _TIE_MARK_NOTE if ties_shown else "")])
    references: list[tuple[str, list[Any], Sequence[str] | pd.Series]] = [
        ("Paper Table 5 (all three groups, line 1240)", list(PAPER_FINAL.methods), PAPER_FINAL.methods)]
    if paper_groups:
        paper_final = paper_final_ranking(paper_groups)
        references.append((f"Paper {' and '.join(paper_groups)} rows, aggregated (from Tables 4, 9-13 with "
                           "aggregate)", _tied_ordering(paper_final), paper_final.set_index("method")["rank"]))
    rows = [["Ours", _tied_ordering(r4), "—", "—"]]
    for name, order, paper in references:
        cells = []
        for ties in TAU_TIES:
            tau = ranking_tau(r4, paper, ties=ties)
            bounds = [ranking_tau_interval(draws[resample], paper, ties=ties, level=level) for resample in RESAMPLING]
            cells.append(_tau_text(tau) + "; " + "; ".join(
                f"{label} {_interval(*bound, digits=2)}" for label, bound in zip(("replicates", "two-level"), bounds,
                                                                                strict=True)))
            comparison.append({"table": "final ordering" if ties == "broken" else "final ordering, ties kept",
                               "group": "", "classifier": "all", "ours": _ordering_text(_tied_ordering(r4)),
                               "paper": _ordering_text([m if isinstance(m, list) else [m] for m in order]),
                               "paper_source": name, "kendall_tau": tau.tau, "pvalue": tau.pvalue, "n_common": tau.n})
        rows.append([name, order, *cells])
    versus = _Table("final-paper", "Final ranking next to the paper's",
                    ["Ordering", "Best first", "Kendall tau, ties broken", "Kendall tau-b, ties kept"],
                    rows, ["The paper's Table 5 covers all three problem groups; "
                           + (f"its final ranking over the {' and '.join(paper_groups)} "
                              f"group{'s' if len(paper_groups) > 1 else ''} is not published and is derived here from "
                              f"its per-classifier {' and '.join(paper_groups)} rows (the seventh method ranked 7th)."
                              if paper_groups else
                              "the paper publishes no rows of this study's groups."),
                           f"Ties broken: {TAU_TIES['broken']}. Ties kept: {TAU_TIES['kept']}. Each with the "
                           f"{level * 100:g}% percentile interval of the tau of every bootstrap draw's final ranking: "
                           f"replicates: {RESAMPLING['replicates']}; two-level: {RESAMPLING['pairings']}."]
                    + ([_TIE_MARK_NOTE] if ties_shown else []))
    return [top, detail, versus]


def _differences_table(differences: Mapping[str, pd.DataFrame], level: float) -> _Table:
    """The paired differences (:func:`~mri_theory.evaluation.ranking.paired_differences`) with both intervals."""
    two = differences["pairings"].set_index(["first", "second", "metric"])
    rows = []
    for f, s_, metric, d, lo, hi, better, n in differences["replicates"].itertuples(index=False):
        lo2, hi2 = (cast(float, v) for v in two.loc[(f, s_, metric), ["ci_low", "ci_high"]])
        rows.append([f"{f} − {s_}", metric, f"{d:+.4f}", f"[{lo:+.4f}, {hi:+.4f}]" if np.isfinite(lo) else "n/a",
                     f"[{lo2:+.4f}, {hi2:+.4f}]" if np.isfinite(lo2) else "n/a", f"{better} of {n}"])
    return _Table("differences", "Paired differences, averaged over the pairings",
                  ["Difference", "Metric", "Mean", f"{level * 100:g}% CI, replicates",
                   f"{level * 100:g}% CI, two-level",
                   "Pairings where the first is better"], rows,
                  ["The difference of the two methods' metric in every (problem, classifier) pairing (R1), averaged "
                   "over the pairings (AUA: higher is better; regret: lower is better). Percentile bootstrap "
                   "intervals, paired (the same replicates for both methods):",
                   f"CI, replicates: {RESAMPLING['replicates']}.", f"CI, two-level: {RESAMPLING['pairings']}."])


def paper_final_ranking(groups: Sequence[str] = ("abstract",)) -> pd.DataFrame:
    """The paper's final ranking (R4) over ``groups``, derived from its published rows of them as ours is from
    R2 (:func:`paper_rank_table`): averaged over the groups per classifier, then over the classifiers.

    Parameters
    ----------
    groups : sequence of str, default ("abstract",)
        As for :func:`paper_rank_table`.

    Returns
    -------
    pandas.DataFrame
        :func:`~mri_theory.evaluation.ranking.aggregate`'s columns ``method``, ``mean_rank``, ``rank_var``,
        ``n_units``, ``rank``, best first.

    Examples
    --------
    >>> from mri_theory.evaluation.tables import paper_final_ranking
    >>> paper_final_ranking(["abstract"])[["method", "rank"]].to_dict("list")
    {'method': ['BMRI', 'SE', 'QbcV', 'RS', 'SMRI', 'QbcA', 'EfeLc'], 'rank': [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]}
    """
    r3 = aggregate(paper_rank_table(groups), by="classifier", over="group")
    return aggregate(r3.drop(columns=["mean_rank", "rank_var", "n_units"]), by=[], over="classifier")


def _beats_table(r5: pd.Series, n_pairings: int, comparison: list[dict], paper_groups: Sequence[str]) -> _Table:
    names = " and ".join(paper_groups)
    rows_name = f"Paper {names} rows (of {6 * len(paper_groups)})"
    paper_rows = beats_rs_counts(paper_rank_table(paper_groups)) if paper_groups else pd.Series(dtype=float)
    methods = list(r5.index) + [m for m in PAPER_BEATS_RS if m not in r5.index]
    rows = [[[m], str(int(r5[m])) if m in r5.index else "—",
             str(PAPER_BEATS_RS[m]) if m in PAPER_BEATS_RS else "—"]
            + ([str(int(paper_rows[m])) if m in paper_rows.index else "—"] if paper_groups else []) for m in methods]
    taus = [("Paper Table 6 (of 18)", kendall_tau(r5, PAPER_BEATS_RS))]
    if paper_groups:
        taus.append((rows_name, kendall_tau(r5, cast("dict[str, int]", paper_rows.to_dict()))))
    for name, tau in taus:
        comparison.append({"table": "beats RS counts", "group": "", "classifier": "all",
                           "ours": " ".join(f"{m}={int(v)}" for m, v in r5.items()), "paper": name,
                           "paper_source": "Table 6, lines 1265-1267" if "18" in name else "Tables 4, 9-13",
                           "kendall_tau": tau.tau, "pvalue": tau.pvalue, "n_common": tau.n})
    note = (f"Ours: the (group, classifier) pairings in which the method's rank (R2) beats RS's. Kendall tau "
            f"of the counts: vs Table 6 {_tau_text(taus[0][1])}")
    note += f"; vs the paper's {names} rows {_tau_text(taus[1][1])}." if paper_groups else "."
    return _Table("beats-rs", "Table 6 form: frequency of outperforming RS",
                  ["Method", f"Ours (of {n_pairings})", "Paper Table 6 (of 18, all groups)"]
                  + ([rows_name] if paper_groups else []), rows, [note])


def _regret_table(r1: pd.DataFrame) -> tuple[_Table, pd.DataFrame]:
    per = r1.pivot_table(index="method", columns="classifier", values="regret", aggfunc="mean", sort=True)
    per["mean"] = r1.groupby("method")["regret"].mean()
    per = per.sort_values("mean", kind="stable")
    rows: list[list[Any]] = [[[m]] + [_num(v) for v in per.loc[m]] for m in per.index]
    if r1["regret"].isna().all():
        rows = [[f"not available: the curves have no {BEST} curve"] + [""] * (len(per.columns))]
    return (_Table("regret", "Regret against MRI-best: mean loss gap to the MRI-best curve, averaged over problems",
                   ["Method"] + list(per.columns), rows,
                   ["Appendix E (line ~1658): the loss difference between the curve of the greedy maximiser of the "
                    "true Q^c (MRI-best) and the method's; negative where a method beats the greedy oracle."]),
            per.reset_index())


def _bootstrap_table(boot: pd.DataFrame, r3: pd.DataFrame, level: float) -> _Table:
    part = boot[boot["classifier"] != "all"]
    tied = r3.set_index(["classifier", "method"])["tied_with"]
    rows = [[c, [m], _num(mr) + ("=" if tied[c, m] else ""), _interval(lo, hi), _interval(lo2, hi2),
             "—" if m == REFERENCE else _num(p, 2), "—" if m == REFERENCE else _num(p2, 2)]
            for c, m, mr, lo, hi, p, lo2, hi2, p2 in part[[
                "classifier", "method", "mean_rank", "ci_low", "ci_high", "p_beats_rs", "two_level_low",
                "two_level_high", "two_level_p_beats_rs"]].itertuples(index=False)]
    return _Table("bootstrap", "Per classifier: group-averaged ranks (R3) with bootstrap intervals",
                  ["Classifier", "Method", "Mean rank", f"{level * 100:g}% CI, replicates",
                   f"{level * 100:g}% CI, two-level", "P(beats RS), replicates", "P(beats RS), two-level"], rows,
                  [f"CI, replicates: {RESAMPLING['replicates']}.",
                   f"CI, two-level: {RESAMPLING['pairings']} (here: the classifier's own pairings, over the draws "
                   "that hold one).",
                   "A mean rank marked \"=\" is tied with another method's of the same classifier (within the tie "
                   "tolerance)."])


def _figure(r3: pd.DataFrame, r4: pd.DataFrame, boot: pd.DataFrame, level: float) -> Figure:
    methods = _ordering(r4)
    final = boot[boot["classifier"] == "all"].set_index("method").loc[methods]
    y = np.arange(len(methods))[::-1]
    fig = Figure(figsize=(9.5, 0.5 * len(methods) + 2.0), layout="constrained")
    ax = fig.subplots()
    classifiers = sorted(r3["classifier"].unique())
    offsets = np.linspace(0.12, 0.36, len(classifiers)) if len(classifiers) > 1 else np.full(len(classifiers), 0.2)
    markers = "os^vP*Xh<>p"
    for k, (classifier, offset) in enumerate(zip(classifiers, offsets, strict=True)):
        part = r3[r3["classifier"] == classifier].set_index("method")["mean_rank"].reindex(methods)
        ax.plot(part.to_numpy(), y + offset, ls="none", marker=markers[k % len(markers)], ms=5, alpha=0.7,
                label=classifier)
    err = np.vstack([final["mean_rank"] - final["ci_low"], final["ci_high"] - final["mean_rank"]])
    ax.errorbar(final["mean_rank"], y, xerr=np.clip(err, 0, None), fmt="o", color="black", ms=7, capsize=4,
                label=f"mean over classifiers, {level * 100:g}% bootstrap CI")
    paper = _paper_positions(PAPER_FINAL.methods)
    shared = [(m, yy) for m, yy in zip(methods, y, strict=True) if m in paper]
    if shared:  # the paper's positions re-ranked over the methods shown, so both use the same scale
        ranks = stats.rankdata([paper[m] for m, _ in shared])
        ax.plot(ranks, [yy for _, yy in shared], ls="none", marker="D", mfc="none", mec="tab:red", ms=9,
                label="paper Table 5 (all groups), re-ranked over these methods")
    ax.set_yticks(y, [rf"$\mathbf{{{m}}}$" if m in QC_METHODS else m for m in methods])
    ax.set_xlabel("rank (1 = best)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("AL methods: final mean rank (black)\nand per-classifier ranks (above it)", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return fig


#: What a log-loss report measures (a line of its settings).
_LOG_LOSS_NOTE = (
    "- Loss: log loss (nats), not the paper's error rate. AUA is a mean accuracy and needs error rates: the mean "
    "log loss along the curve (lower is better) takes its place among the four ranked metrics. Label complexity "
    "is the first n whose log loss is at most (1 + epsilon) times the asymptotic log loss (censored, n_max + 1, "
    "if never). WI and the regret are log-loss gaps; ALC is the share of the initial log loss removed, averaged "
    "over log2 n.")
#: Added to the tables that set our orderings beside the paper's, in a log-loss report.
_LOG_LOSS_PAPER_NOTE = ("Our orderings rank log-loss curves; the paper's rank error-rate curves: the comparison "
                        "is indicative only.")


def _span(values: pd.Series) -> str:
    low, high = int(values.min()), int(values.max())
    return str(low) if low == high else f"{low}-{high}"


def write_report(curves: pd.DataFrame, asymptotic: pd.DataFrame, out_dir: str | Path,
                 groups: Mapping[str, Sequence[str]] | None = None, *, mode: str = "curve", n_boot: int = 1000,
                 level: float = 0.95, seed: int = 0, alpha: float = 0.02, epsilon: float = 0.05,
                 loss: str = "error", truth: Mapping[tuple[str, str], str] | None = None) -> list[Path]:
    r"""Write the paper's result tables for a study, in Markdown, LaTeX and CSV, and a rank figure.

    Parameters
    ----------
    curves : pandas.DataFrame
        The tidy sandbox table for many (problem, classifier) pairings
        (:data:`mri_theory.runners.sandbox.RESULT_COLUMNS`); the oracles MRI-best and
        MRI-worst are not ranked, MRI-best's curve defines the regret.
    asymptotic : pandas.DataFrame
        Columns ``problem``, ``classifier``, ``asymptotic_loss``
        (:func:`mri_theory.runners.asymptotic.asymptotic_loss`).
    out_dir : path
        Output folder (created if needed).
    groups : dict, optional
        Group name -> problems (default: ``{"abstract": [the five abstract
        problems]}``); every problem of ``curves`` must be in one group.
    mode : {"curve", "replicate"}
        The R1 mode (:func:`mri_theory.evaluation.metrics.curve_metrics`).
    n_boot, level, seed
        Bootstrap draws, confidence level and the seed of the generators
        (:func:`mri_theory.evaluation.ranking.bootstrap_ranks`,
        :func:`mri_theory.evaluation.ranking.bootstrap_generator`): every interval
        is given twice, replicate-only and two-level.
    alpha, epsilon : float
        Of WI (exponential) and label complexity.
    loss : {"error", "log"}
        The loss of the study's curves and asymptotic losses (the study's
        ``loss`` setting).  ``"error"`` (default): error rates in [0, 1], the
        paper's metrics.  ``"log"``: log losses; the ranks use
        :func:`mri_theory.evaluation.metrics.ranked_metrics` ``("log")``: the mean log
        loss along the curve replaces AUA (an accuracy, defined for error
        rates only), label complexity is the first ``n`` whose log loss is
        within ``(1 + epsilon)`` times the asymptotic *log* loss, WI and the
        regret are log-loss gaps; the report says so in its settings and
        notes, and the paper's orderings (of error-rate curves) stand beside
        ours for comparison only.

    truth : mapping, optional
        How each (problem, classifier) pairing's truth was evaluated,
        ``"exact"`` or ``"sampled"`` (the ``truth`` of its configuration,
        :func:`mri_theory.runners.sandbox.run_curves`): the report lists it in
        its settings, since MRI-best's curve and the regret depend on it.

    Returns
    -------
    list of Path
        The files written, in this order: ``report.md`` and ``report.tex``
        (every table), ``pairings.csv`` (R1: metrics, metric ranks and overall
        rank per pairing), ``group_ranks.csv`` (R2), ``classifier_ranks.csv``
        (R3), ``final_ranking.csv`` (R4 with the bootstrap intervals, the
        probability of beating RS and the mean regret), ``beats_rs.csv``
        (R5), ``regret.csv``, ``bootstrap.csv`` (per classifier and overall:
        the replicate-only intervals ``ci_low``, ``ci_high``, ``p_beats_rs``
        and the two-level ones ``two_level_low``, ``two_level_high``,
        ``two_level_p_beats_rs``, :data:`~mri_theory.evaluation.ranking.RESAMPLING`),
        ``differences.csv`` (the paired differences BMRI − RS and BMRI − SE,
        one row per bootstrap in ``resample``),
        ``paper_comparison.csv`` (each ordering next to the paper's, Kendall
        tau) and ``ranks.png`` (the rank figure: each method's final mean
        rank with its bootstrap interval, its per-classifier ranks, and its
        place in the paper's Table 5 re-ranked over the methods shown).  The
        same input gives byte-identical files.

    Notes
    -----
    Orderings list the methods best first; methods with equal ranks are
    joined by "="; methods tied in mean rank that the tie-break (the lower
    variance of the ranks) ordered are shown as ``[A, B]``, and their ranks
    are marked ``=`` (the ``tied_with`` column of the rank CSVs names them).
    Methods of the study outside the paper's seven (e.g. LC)
    are ranked with the others but left out of the Kendall tau; a paper
    method absent from its best six counts as 7th (:func:`kendall_tau`).
    The paper's Tables 5 and 6 cover all three problem groups; the abstract
    group's own final ranking and beats-RS counts are derived from its
    published per-classifier rows with the same aggregation
    (:func:`paper_rank_table`).  With ``loss="error"`` every loss must be
    an error rate in [0, 1]; with ``loss="log"`` a log loss in
    [0, :data:`mri_theory.evaluation.metrics.MAX_LOSS`].  Every argument is checked
    before anything is written.

    See Also
    --------
    mri_theory.runners.report : The same for a stored study folder.

    Examples
    --------
    Two pairings by hand (LDA and naive Bayes on Four-Gaussian, two replicates each), reported in a temporary folder:

    >>> import tempfile
    >>> from pathlib import Path
    >>> import pandas as pd
    >>> from mri_theory.evaluation import CURVE_COLUMNS, write_report
    >>> losses = {"RS": [0.5, 0.4, 0.3], "SE": [0.5, 0.3, 0.2], "BMRI": [0.5, 0.25, 0.15], "MRI-best": [0.5, 0.2, 0.1]}
    >>> curves = pd.DataFrame([("four-gaussian", classifier, method, replicate, n, loss)
    ...                        for classifier in ("lda", "nb") for replicate in (0, 1)
    ...                        for method, curve in losses.items() for n, loss in zip([2, 4, 6], curve)],
    ...                       columns=CURVE_COLUMNS)
    >>> asymptotic = pd.DataFrame({"problem": "four-gaussian", "classifier": ["lda", "nb"], "asymptotic_loss": 0.1})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     files = write_report(curves, asymptotic, folder, n_boot=20)
    ...     final = pd.read_csv(Path(folder) / "final_ranking.csv")
    >>> sorted(path.name for path in files)
    ['beats_rs.csv', 'bootstrap.csv', 'classifier_ranks.csv', 'differences.csv', 'final_ranking.csv',
    'group_ranks.csv', 'pairings.csv', 'paper_comparison.csv', 'ranks.png', 'regret.csv', 'report.md', 'report.tex']
    >>> final[["method", "rank"]].to_dict("list")
    {'method': ['BMRI', 'SE', 'RS'], 'rank': [1.0, 2.0, 3.0]}
    """
    out = check.output_folder(out_dir, "out_dir")
    seed = check.count(seed, "seed", minimum=0)
    loss = evc.loss_kind(loss)
    if truth is not None and not (isinstance(truth, Mapping) and all(
            isinstance(key, tuple) and len(key) == 2 and value in ("exact", "sampled")
            for key, value in truth.items())):
        raise ValueError("truth must map (problem, classifier) pairs to 'exact' or 'sampled'")
    ranks = rank_study(curves, asymptotic, groups, mode=mode, alpha=alpha, epsilon=epsilon, loss=loss)
    options: dict[str, Any] = dict(n_boot=n_boot, level=level, mode=mode, alpha=alpha, epsilon=epsilon, loss=loss)
    boots = {resample: bootstrap_rank_draws(curves, asymptotic, groups,
                                            rng=bootstrap_generator(seed, "ranks", resample),
                                            resample=resample, **options) for resample in RESAMPLING}
    two_level = boots["pairings"].summary[["classifier", "method", "ci_low", "ci_high", "p_beats_rs"]].rename(
        columns={"ci_low": "two_level_low", "ci_high": "two_level_high", "p_beats_rs": "two_level_p_beats_rs"})
    boot = boots["replicates"].summary.merge(two_level, on=["classifier", "method"], how="left")
    differences = {resample: paired_differences(curves, asymptotic, rng=bootstrap_generator(seed, "differences",
                                                                                            resample),
                                                resample=resample, groups=groups, **options)
                   for resample in RESAMPLING}
    check.create_folder(out, "out_dir")

    comparison: list[dict] = []
    regret_table, regret = _regret_table(ranks.r1)
    mean_regret = regret.set_index("method")["mean"]
    n_pairings = ranks.r2[["group", "classifier"]].drop_duplicates().shape[0]
    paper_groups = [g for g in PAPER_GROUPS if g in set(ranks.r2["group"])]  # the paper's rows of these
    tables = _pairing_tables(ranks.r1, loss, comparison) + [_group_table(ranks.r2, comparison)]
    tables += _final_tables(ranks.r4, boot, mean_regret, level, comparison, paper_groups,
                            {resample: b.draws for resample, b in boots.items()})
    tables += [_differences_table(differences, level), _beats_table(ranks.r5, n_pairings, comparison, paper_groups),
               regret_table, _bootstrap_table(boot, ranks.r3, level)]

    used = ranks.r1.groupby("group")["problem"].unique()
    replicates = ranks.r1.groupby(["problem", "classifier"])["n_replicates"].first()
    settings = [
        "- Groups: " + "; ".join(f"{g}: {', '.join(sorted(ps))}" for g, ps in used.items()),
        f"- Classifiers: {', '.join(sorted(ranks.r1['classifier'].unique()))}; methods ranked: "
        f"{', '.join(ranks.r4['method'])} (oracles excluded)",
        f"- Replicates per pairing: {_span(replicates)}; R1 mode: {mode} "
        f"({'metrics of the replicate-averaged curve' if mode == 'curve' else 'mean of per-replicate metrics'})",
        f"- Metrics{' on the log loss' if loss == 'log' else ''}: label complexity (epsilon = {epsilon}), "
        f"{'mean log loss' if loss == 'log' else 'AUA'}, WI-linear, WI-exponential (alpha = {alpha}); "
        f"bootstrap: {n_boot} draws, {level * 100:g}% percentile intervals, seed {seed}, two of them: replicate-only "
        f"({RESAMPLING['replicates']}) and two-level ({RESAMPLING['pairings']})",
    ]
    if truth is not None:
        by_kind = {kind: sorted(f"{p}/{c}" for (p, c), k in truth.items() if k == kind)
                   for kind in ("exact", "sampled")}
        settings.append("- Truth (the curves' losses, MRI-best and the regret): "
                        + "; ".join(f"{kind} for {', '.join(pairs)}" for kind, pairs in by_kind.items() if pairs))
    if loss == "log":
        settings.append(_LOG_LOSS_NOTE)
        for table in tables:
            if table.name in ("groups", "final-paper"):
                table.notes.append(_LOG_LOSS_PAPER_NOTE)
    asym = asymptotic.sort_values(["problem", "classifier"])
    asym_rows = [[p, c, _num(v, 4)] for p, c, v in asym[["problem", "classifier", "asymptotic_loss"]].itertuples(
        index=False) if (p, c) in set(zip(ranks.r1["problem"], ranks.r1["classifier"], strict=True))]
    what = "loss" if loss == "error" else "log loss"
    tables.insert(0, _Table("asymptotic", f"Asymptotic {what}es (the target of label complexity)",
                            ["Problem", "Classifier", f"Asymptotic {what}"], asym_rows))

    markdown = "# AL study report: the paper's tables (§5.3-5.5, Appendix E)\n\n" + "\n".join(settings) + "\n\n"
    markdown += "\n".join(_markdown(t) for t in tables)
    latex = ("% AL study report written by mri_theory.evaluation.tables.write_report\n"
             + "\n".join(_latex(t) for t in tables))
    final = ranks.r4.merge(boot[boot["classifier"] == "all"].drop(columns=["classifier", "mean_rank"]), on="method")
    final["regret"] = final["method"].map(mean_regret)
    files: dict[str, str | pd.DataFrame] = {
        "report.md": markdown, "report.tex": latex,
        "pairings.csv": ranks.r1, "group_ranks.csv": ranks.r2, "classifier_ranks.csv": ranks.r3,
        "final_ranking.csv": final, "beats_rs.csv": ranks.r5.reset_index(), "regret.csv": regret,
        "bootstrap.csv": boot, "differences.csv": pd.concat(
            [frame.assign(resample=resample) for resample, frame in differences.items()], ignore_index=True),
        "paper_comparison.csv": pd.DataFrame(comparison),
    }
    written = []
    for name, content in files.items():
        path = out / name
        text = content if isinstance(content, str) else content.to_csv(index=False, lineterminator="\n")
        path.write_text(text, encoding="utf-8")
        written.append(path)
    path = out / "ranks.png"
    _figure(ranks.r3, ranks.r4, boot, level).savefig(path, dpi=150, metadata={"Software": None})
    written.append(path)
    return written
