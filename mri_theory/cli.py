"""Command line.

``mri-theory figures [--list] [--only NAME ...] [--out DIR] [--quick]``
    regenerate the figures;
``mri-theory curves --problem P --classifier C --strategies all --replicates R --pool N --seed S --out DIR``
    run the iterated-AL sandbox (resumable; damaged parts are reported and recomputed);
``mri-theory study [--preset quick] [--problems abstract small] [--data FILE ... --target COL] --out DIR [--dask ADDR]``
    run the study of §5, one task per (problem, classifier, strategy, replicate), locally or on Dask (resumable;
    the tasks start longest first: :mod:`mri_theory.runners.schedule`); each problem's pool labelled to
    exhaustion (``--pool auto``: 250 points of a simulated problem, a real data set's whole pool);
``mri-theory study --plan N --out DIR``
    replay a finished study's task times on N workers and on 2: the wall in the table order and longest first,
    beside the lower bound (:func:`~mri_theory.runners.study.plan_study`); computes nothing;
``mri-theory report DIR [--groups NAME=PROBLEM,PROBLEM,... ...]``
    write the tables (Markdown, LaTeX, CSV) and figures of a finished study into ``DIR/report``, ranked on
    the study's loss (error or log), with the problems grouped as given (default: the registered groups, abstract
    and small, of the study's problems, and ``other`` for the rest);
``mri-theory sensitivity DIR [--out OUT] [--recompute READING ...]``
    every conclusion of the finished study in DIR (final ranking, Kendall tau, beats-RS counts, regret ranks,
    paired differences) under every reading the paper leaves open, with bootstrap intervals
    (:mod:`mri_theory.runners.sensitivity`);
``mri-theory diagnose --problem P --classifiers C ... --strategies S ... --steps T ... --out DIR``
    score every candidate with every strategy beside its true Q^c along random-selection trajectories
    (:mod:`mri_theory.runners.states`, resumable), and write the summaries with their settings, versions and wall time;
``mri-theory leaderboard [--problems abstract] [--classifiers paper] [--strategies all] [--steps 2 10 30 80] --out DIR``
    score every strategy beside the true Q^c on a grid of problems and classifiers (resumable), timing each strategy,
    and print and write the leaderboard (:mod:`mri_theory.runners.leaderboard`): per phase of the curve, each
    strategy's mean ranking statistics with bootstrap intervals over replicates, sorted, MRI-best and RS as
    anchors, with its CPU seconds per state.

``curves``, ``study``, ``diagnose`` and ``leaderboard`` take ``--jobs N`` (local worker processes, -1 for all cores) and
``--dask ADDRESS|local`` (a running scheduler, or a LocalCluster of ``--jobs`` workers) alike: one
:class:`mri_theory.runners.sandbox.Execution` of the runner.

Bad arguments (repeated names and sizes beyond the runners' bounds included),
an ``--out`` that is empty, a file or not writable, a folder holding another
study or a corrupt ``config.json`` or ``study.json``, or a folder another
process is writing (its pid named) give a one-line message on stderr and exit
code 2, and nothing is written.  A table that does not match its checksum is
never reported (``report`` exits 2 naming it), and a file that cannot be
written (a full disk) is named.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from mri_theory import figures
from mri_theory._utils import backends

if TYPE_CHECKING:
    import pandas as pd

T = TypeVar("T")


def _figures(args: argparse.Namespace) -> int:
    if args.list:
        for name in figures.figure_names():
            print(f"{name:24s} {figures.get_figure(name).description}")
        return 0
    written = _guarded("figures", lambda: figures.make_figures(args.only, args.out, quick=args.quick))
    for path in written:
        print(path)
    return 0


def _one_line(exc: BaseException) -> str:
    """The exception's message on one line (for a one-line error on stderr)."""
    return " ".join(str(exc).split())


class _Exit(Exception):
    """Stop a command with exit code ``code`` (its one-line message is already on stderr)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _guarded(command: str, call: Callable[[], T], out: str | None = None, unit: str = "") -> T:
    """``call()`` under the CLI's conventions (module docstring).

    Bad arguments, folders, a missing extra or an unreachable scheduler (all
    checked before any work) print one line and exit 2; with ``out``, an
    interrupt says that the finished ``unit`` are kept there and exits 130.
    """
    try:
        return call()
    except (ValueError, TypeError, ImportError, OSError) as exc:
        print(f"mri-theory {command}: {_one_line(exc)}", file=sys.stderr)
        raise _Exit(2) from None
    except KeyboardInterrupt:
        if out is None:
            raise
        print(f"\ninterrupted: finished {unit} are kept in {out}; run the same command to resume", file=sys.stderr)
        raise _Exit(130) from None


def _pool(text: str) -> int | str:
    """A ``--pool`` value: a size, or a rule (``all``, ``auto``: :func:`mri_theory.runners.sandbox.run_curves`),
    which the runner checks."""
    return int(text) if text.lstrip("+-").isdigit() else text


def _test_size(text: str) -> int | float:
    """A ``--test-size`` value: a count of rows, or a fraction (:class:`mri_theory.problems.DataProblem`)."""
    try:
        return int(text) if text.lstrip("+-").isdigit() else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a row count or a fraction, got {text!r}") from None


def _execution(args: argparse.Namespace) -> backends.Execution:
    """The :class:`~mri_theory.runners.Execution` of ``--jobs`` and ``--dask`` (absent: local; ``local``: a
    LocalCluster of ``--jobs`` workers; else a scheduler's address), with a progress bar."""
    return backends.Execution(backend="local" if args.dask is None else "dask",
                              scheduler=None if args.dask in (None, "local") else args.dask, n_jobs=args.jobs)


def _curve_summary(table: pd.DataFrame, loss: str) -> pd.DataFrame:
    """Per strategy, on its replicate-averaged curve (the paper's R1 curve mode): the area (AUA, or the mean
    log loss), WI (exponential) against RS and the regret against MRI-best where those curves are present."""
    import pandas as pd

    from mri_theory.evaluation.metrics import aua, mean_loss, regret, wi

    mean = table.groupby(["strategy", "n_labelled"], sort=False).loss.mean()
    curves = {name: curve.droplevel(0) for name, curve in mean.groupby(level=0, sort=False)}
    area = ("AUA", aua) if loss == "error" else ("mean log loss", mean_loss)
    rows = {}
    for name, curve in curves.items():
        row = {area[0]: area[1](curve.index, curve.to_numpy())}
        if "RS" in curves:
            row["WI vs RS"] = wi(curve.index, curve.to_numpy(), curves["RS"].to_numpy())
        if "MRI-best" in curves:
            row["regret vs MRI-best"] = regret(curve.to_numpy(), curves["MRI-best"].to_numpy()).mean
        rows[name] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def _curves(args: argparse.Namespace) -> int:
    from mri_theory.runners.sandbox import run_curves

    strategies = args.strategies[0] if args.strategies in (["all"], ["peers"]) else args.strategies
    table = _guarded("curves", lambda: run_curves(
        problem=args.problem, classifier=args.classifier, strategies=strategies, pool_size=args.pool,
        replicates=args.replicates, seed=args.seed, budget=args.budget,
        population_size=args.population, loss=args.loss, subsample=None if args.subsample == 0 else args.subsample,
        out=args.out, truth=args.truth, execution=_execution(args)), args.out, "runs")
    final = table.groupby(["strategy", "replicate"], sort=False).tail(1)  # each curve's last point
    print("final loss, mean over replicates:")
    print(final.groupby("strategy", sort=False)[["n_labelled", "loss"]].mean().to_string())
    print("on the replicate-averaged curves (WI: exponential weights, alpha 0.02; regret: mean loss gap):")
    print(_curve_summary(table, args.loss).to_string(float_format=lambda v: f"{v:.4f}"))
    print(f"results: {args.out}/curves.csv")
    return 0


#: The options of ``--data`` files (:func:`_data_problems`): each only with ``--data``, where it applies.
_DATA_OPTIONS = ("target", "test_size", "standardize")


def _option(dest: str) -> str:
    """The command-line spelling of an argparse ``dest``: ``test_size`` -> ``--test-size``."""
    return "--" + dest.replace("_", "-")


def _given(args: argparse.Namespace, keep: Sequence[str]) -> list[str]:
    """The options of ``args`` given a value other than their default, except ``keep`` (``--option`` spelling):
    read from the parser itself, so a new option is covered without a list kept by hand."""
    defaults = vars(build_parser().parse_args([args.command, *([args.path] if hasattr(args, "path") else [])]))
    return [_option(dest) for dest, value in vars(args).items()
            if dest not in (*keep, "func", "command", "path") and value != defaults.get(dest)]


def _data_problems(args: argparse.Namespace) -> list:
    """Each ``--data`` file as a :class:`~mri_theory.problems.DataProblem` labelled by its stem, with ``--target``,
    ``--test-size`` and ``--standardize``; a ValueError naming the option when one of those is given without
    ``--data`` (it would be ignored) or ``--data`` without ``--target``."""
    if not args.data:
        unused = [_option(dest) for dest in _DATA_OPTIONS if getattr(args, dest) not in (None, False)]
        if unused:
            raise ValueError(f"{', '.join(unused)} {'apply' if len(unused) > 1 else 'applies'} only to --data "
                             f"files, and no --data is given: leave {'them' if len(unused) > 1 else 'it'} out")
        return []
    from mri_theory.problems import DataProblem

    if args.target is None:
        raise ValueError("--data needs --target, the label column of the files")
    test_size = 0.3 if args.test_size is None else args.test_size
    problems = []
    for path in args.data:
        try:
            problems.append(DataProblem.from_csv(path, args.target, test_size=test_size, standardize=args.standardize))
        except (ValueError, TypeError) as exc:  # the file named, with the option that gave it
            raise type(exc)(f"--data {path}: {exc}") from None
    return problems


def _study(args: argparse.Namespace) -> int:
    from mri_theory.runners.study import plan_study, run_study

    if args.plan is not None:  # simulate a finished run's schedule on --plan workers (and 2): nothing is computed
        from mri_theory.runners.schedule import describe_plans

        def plan() -> list:
            ignored = _given(args, keep=("plan", "out"))
            if ignored:
                raise ValueError(f"--plan replays the finished run in --out and computes nothing: "
                                 f"{', '.join(ignored)} would be ignored; leave {'them' if len(ignored) > 1 else 'it'} "
                                 "out")
            return [plan_study(args.out, workers) for workers in sorted({2, args.plan})]

        plans = _guarded("study", plan)
        print(f"the tasks of {args.out} (their wall times in timings.csv), replayed on N workers:")
        print(describe_plans(plans))
        return 0

    def problems() -> list | None:  # the named problems, then each data file as a problem labelled by its stem
        data = _data_problems(args)
        return [*(args.problems or []), *data] if data else args.problems

    options = {"classifiers": args.classifiers, "strategies": args.strategies,
               "replicates": args.replicates, "pool_size": args.pool, "budget": args.budget,
               "population_size": args.population, "loss": args.loss, "subsample": args.subsample,
               "record_q_c": args.record_q_c, "seed": args.seed, "truth": args.truth,
               "asymptotic_train": args.asymptotic_train,
               "asymptotic_replicates": args.asymptotic_replicates,
               "asymptotic_population": args.asymptotic_population}
    curves, asymptotic = _guarded("study", lambda: run_study(
        args.preset, problems=problems(), **options, out=args.out, execution=_execution(args)), args.out, "tasks")
    final = curves.groupby(["problem", "classifier", "strategy", "replicate"], sort=False).tail(1)
    print("final loss, mean over problems, classifiers and replicates:")
    print(final.groupby("strategy", sort=False)[["n_labelled", "loss"]].mean().to_string())
    print("asymptotic loss:")
    print(asymptotic.to_string(index=False))
    from mri_theory.evaluation.metrics import curve_metrics
    from mri_theory.runners.study import PRESETS, read_timings, solver_stops

    if "RS" in set(curves.strategy):  # the metrics measure WI against RS's curve (budget >= 1: two points)
        metrics = curve_metrics(curves, asymptotic, loss=args.loss or PRESETS[args.preset]["loss"])
        shown = [c for c in ("label_complexity", "aua", "mean_loss", "wi_exponential", "regret") if c in metrics]
        print("metrics of the replicate-averaged curves, mean over the pairings (label complexity: epsilon 0.05; "
              "WI: exponential, alpha 0.02; regret: mean loss gap to MRI-best):")
        print(metrics.groupby("method", sort=False)[shown].mean().to_string(float_format=lambda v: f"{v:.4f}"))
    else:
        print("no metrics: they are measured against RS's curve, and the study has no RS")
    try:
        timings = read_timings(args.out)
        print(f"cost of the tasks in {args.out}/timings.csv: {timings.cpu_s.sum():.0f} CPU-s, "
              f"{timings.wall_s.sum():.0f} s wall summed over {len(timings)} tasks")
        stops = solver_stops(args.out)
        # the line is about the SVM: shown where the study has the SVM or a stop was recorded
        if stops is not None and ("svm" in set(stops.classifier) or stops.iloc[-1].solver_stops > 0):
            total = stops.iloc[-1]
            print(f"SVM dual solves stopped at the iteration cap: {total.solver_stops} in {total.tasks_stopped} of "
                  f"the {total.tasks} tasks recorded ({args.out}/solver.csv)")
    except ValueError as exc:  # every task reused from a run that kept no timings, or a damaged file
        print(f"no cost: {exc}")
    print(f"results: {args.out}; tables and figures: mri-theory report {args.out}")
    return 0


def _groups(specs: Sequence[str] | None, problems: Sequence[str]) -> dict[str, list[str]] | None:
    """The ``groups`` of ``report`` from ``--groups``: each ``NAME=PROBLEM,PROBLEM,...`` or a group name of
    :data:`mri_theory.runners.study.PROBLEM_GROUPS` (its members among the study's ``problems``); a ValueError
    naming ``--groups`` otherwise (a member that is not a problem of the study: :func:`~mri_theory.runners.report`).
    """
    from mri_theory.runners.study import PROBLEM_GROUPS

    if specs is None:
        return None
    groups: dict[str, list[str]] = {}
    for spec in specs:
        name, sep, members = spec.partition("=")
        if sep:
            chosen = [p for p in members.split(",") if p]
            unknown = [p for p in chosen if p not in problems]
            if unknown:
                raise ValueError(f"--groups: the group {name!r} names {unknown}, which are not problems of the study "
                                 f"({', '.join(problems)})")
        else:
            chosen = [p for p in PROBLEM_GROUPS.get(name, ()) if p in problems]
            if name in PROBLEM_GROUPS and not chosen:
                raise ValueError(f"--groups: the group {name!r} holds none of the study's problems "
                                 f"({', '.join(problems)})")
        if not name or not chosen:
            raise ValueError(f"--groups takes NAME=PROBLEM,PROBLEM,... or a group name "
                             f"({', '.join(PROBLEM_GROUPS)}), got {spec!r}")
        if name in groups:
            raise ValueError(f"--groups names the group {name!r} twice")
        groups[name] = chosen
    return groups


def _report(args: argparse.Namespace) -> int:
    from mri_theory.runners.study import report, study_record

    written = _guarded("report", lambda: report(args.path, groups=_groups(
        args.groups, [] if args.groups is None else study_record(args.path)["grid"]["problems"])))
    for path in written:
        print(path)
    return 0


def _sensitivity(args: argparse.Namespace) -> int:
    from mri_theory.runners.sensitivity import run_sensitivity

    table = _guarded("sensitivity", lambda: run_sensitivity(
        args.path, args.out, recompute=args.recompute, seed=args.boot_seed, n_boot=args.boot,
        execution=_execution(args), problems=_data_problems(args) or None), args.out, "variants' curves")
    final = table[(table.quantity == "final_rank") & table.item.isin(["BMRI", "SE", "QbcV", "RS"])]
    print("final mean rank [bootstrap interval] under each reading:")
    print(final.assign(cell=[f"{v:.2f} [{lo:.2f}, {hi:.2f}]" if math.isfinite(lo) and math.isfinite(hi)
                             else f"{v:.2f} [n/a]"  # no interval: a pairing of one replicate
                             for v, lo, hi in zip(final.value, final.ci_low, final.ci_high, strict=True)])
          .pivot(index="variant", columns="item", values="cell").reindex(list(dict.fromkeys(final.variant)))
          .to_string())
    if args.recompute is None:
        from mri_theory.runners.sensitivity import DEFAULT_RECOMPUTED

        idle = [name for name in DEFAULT_RECOMPUTED if name not in set(table.variant)]
        if idle:
            print(f"not applicable, left out (they change nothing the study has): {', '.join(idle)}")
    print(f"results: {args.out}/sensitivity.csv, SENSITIVITY.md, sensitivity.png")
    return 0


def _diagnose(args: argparse.Namespace) -> int:
    from mri_theory.runners.diagnose import run_diagnostics

    def run():  # every argument and folder checked before any work
        repeated = sorted({c for c in args.classifiers if args.classifiers.count(c) > 1})
        if repeated:
            raise ValueError(f"--classifiers must not repeat a name, got {', '.join(repeated)} more than once")
        return run_diagnostics(args.problem, args.classifiers, args.strategies, args.replicates, args.steps, args.pool,
                               trajectory=args.trajectory, population_size=args.population, seed=args.seed,
                               truth=args.truth, out=args.out, out_name="--out", execution=_execution(args))

    result = _guarded("diagnose", run, args.out, "states")
    print(result.summary[["classifier", "strategy", "n_labelled", "spearman", "normalised_shortfall"]].round(3)
          .to_string(index=False))
    print(f"results: {args.out}/summary.csv{', errors.csv' if result.errors is not None else ''}, DIAGNOSTICS.md")
    return 0


#: The statistics ``mri-theory leaderboard`` prints, with their intervals (all of them are in leaderboard.csv).
_BOARD_SHOWN = ["spearman", "kendall", "normalised_shortfall", "lambda_hat", "top_k_hit"]


def _board_text(table: pd.DataFrame) -> str:
    """The leaderboard as text: per phase, one line per strategy (``*``: an anchor), ``mean [low, high]``."""
    import pandas as pd

    blocks = []
    for phase, rows in table.groupby("phase", sort=False):
        shown = pd.DataFrame({"strategy": [f"{name}{' *' if anchor else ''}"
                                           for name, anchor in zip(rows.strategy, rows.anchor, strict=True)],
                              "states": rows.states.to_numpy()})
        for stat in _BOARD_SHOWN:
            shown[stat] = [f"{m:.3f} [{lo:.3f}, {hi:.3f}]" if math.isfinite(lo) and math.isfinite(hi)
                           else f"{m:.3f} [n/a]"  # no interval (e.g. a pairing of one replicate)
                           for m, lo, hi in zip(rows[stat], rows[f"{stat}_ci_low"], rows[f"{stat}_ci_high"],
                                                strict=True)]
        shown["cpu_s"] = [f"{v:.4f}" for v in rows.cpu_s]
        title = "all states" if phase == "all" else f"|D_S| {phase}"
        blocks.append(f"{title}:\n{shown.to_string(index=False)}")
    return "\n\n".join(blocks)


def _leaderboard(args: argparse.Namespace) -> int:
    from mri_theory.runners.leaderboard import run_leaderboard

    result = _guarded("leaderboard", lambda: run_leaderboard(
        args.problems, args.classifiers, args.strategies, args.replicates, args.steps, args.pool, args.out,
        trajectory=args.trajectory, population_size=args.population, seed=args.seed, truth=args.truth,
        phases=args.phases, n_boot=args.boot, boot_seed=args.boot_seed, level=args.level, top_k=args.top_k,
        resolved_only=not args.all_states, out_name="--out", execution=_execution(args)), args.out, "states")
    print(f"leaderboard: per phase of the curve (|D_S|, the labelled set's size), each statistic's mean over the "
          f"states [{100 * args.level:g} % percentile bootstrap interval over replicates, {args.boot} draws]; "
          f"sorted by normalised shortfall (0 optimal, 1 random selection); * anchors (MRI-best, RS); top_k_hit "
          f"with k = {args.top_k}; cpu_s: the strategy's mean CPU seconds per state")
    print(_board_text(result.table))
    print(f"results: {args.out}/leaderboard.csv, cost.csv, leaderboard.json")
    return 0


def _data_arguments(parser: argparse.ArgumentParser, data_help: str) -> None:
    """``--data``, ``--target``, ``--test-size`` and ``--standardize`` (:func:`_data_problems`)."""
    parser.add_argument("--data", nargs="+", metavar="FILE", help=data_help)
    parser.add_argument("--target", metavar="COLUMN", help="the label column of the --data files")
    parser.add_argument("--test-size", type=_test_size, metavar="F",
                        help="held-out test rows of each --data file: a fraction (default 0.3, stratified) or a "
                             "count")
    parser.add_argument("--standardize", action="store_true",
                        help="centre each covariate of the --data files and divide it by its standard deviation "
                             "(DataProblem(standardize=True)): k-NN and the RBF SVM need it when covariates have "
                             "different units")


def build_parser() -> argparse.ArgumentParser:
    """The ``mri-theory`` argument parser (one sub-command per job).

    Returns
    -------
    argparse.ArgumentParser
        The parser, with a required sub-command (``figures``, ``curves``, ``study``, ``report``, ...) whose parsed
        namespace carries in ``func`` the function that runs it.
    """
    parser = argparse.ArgumentParser(prog="mri-theory", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    fig = sub.add_parser("figures", help="regenerate the paper's figures (PNG and PDF) and figures/VERSIONS.txt")
    fig.add_argument("--list", action="store_true", help="print the figure names and exit")
    fig.add_argument("--only", nargs="+", metavar="NAME", help="make only these figures")
    fig.add_argument("--out", default="figures", metavar="DIR", help="output folder (default: figures)")
    fig.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    fig.set_defaults(func=_figures)
    cur = sub.add_parser("curves", help="learning curves of AL strategies (iterated AL sandbox, resumable)")
    cur.add_argument("--problem", default="four-gaussian")
    cur.add_argument("--classifier", default="knn5")
    cur.add_argument("--strategies", nargs="+", default=["all"], metavar="NAME",
                     help="names, or 'all' (with the peers extra, scikit-activeml's peers too), or 'peers'")
    cur.add_argument("--replicates", type=int, default=10)
    cur.add_argument("--pool", type=_pool, default="auto", metavar="N|all|auto",
                     help="pool size; all: a real data set's whole pool; auto (default): all for real data, 250 for "
                          "a simulated problem")
    cur.add_argument("--budget", type=int, default=None, help="labels to acquire (default: the whole pool)")
    cur.add_argument("--population", type=int, default=10_000, help="evaluation population size")
    cur.add_argument("--subsample", type=int, default=100, help="candidates scored by costly methods (0: all)")
    cur.add_argument("--loss", default="error", choices=["error", "log"])
    cur.add_argument("--seed", type=int, default=0)
    cur.add_argument("--truth", default="auto", choices=["auto", "exact", "sampled"],
                     help="the truth: exact where the problem and classifier allow it (auto, the default), "
                     "exact, or sampled on the evaluation population")
    cur.add_argument("--jobs", type=int, default=1,
                     help="local worker processes (joblib, or the Dask LocalCluster): a count, or -1 for all cores")
    cur.add_argument("--dask", metavar="ADDRESS", help="run on Dask: a scheduler address (tcp://host:8786), "
                                                      "or 'local' for a LocalCluster of --jobs workers")
    cur.add_argument("--out", default="results", metavar="DIR", help="results folder (default: results)")
    cur.set_defaults(func=_curves)
    stu = sub.add_parser("study", help="the study of §5: problems x classifiers x strategies x replicates "
                                       "(resumable; local or Dask)",
                         description="Options left out take the preset's value (mri_theory.runners.study.PRESETS).")
    stu.add_argument("--preset", default="paper", choices=["paper", "quick"],
                     help="paper (default): the paper's grid; quick: a small grid of about a minute")
    stu.add_argument("--problems", nargs="+", metavar="NAME", help="problem names or groups (abstract, small)")
    stu.add_argument("--classifiers", nargs="+", metavar="NAME", help="classifier names or sets (paper)")
    stu.add_argument("--strategies", nargs="+", metavar="NAME",
                     help="strategy names or sets (paper, all); MRI-best is always added")
    stu.add_argument("--replicates", type=int)
    stu.add_argument("--pool", type=_pool, metavar="N|all|auto|asymptotic",
                     help="pool size; all: a real data set's whole pool; auto (paper preset): all for real data, "
                          "250 for a simulated problem; asymptotic: the paper's rule, each simulated pairing's "
                          "smallest pool whose final loss is within 5%% of its asymptotic loss")
    _data_arguments(stu, "CSV files with a header row, each a problem labelled by its file name's stem, after "
                         "--problems (alone if --problems is not given)")
    stu.add_argument("--budget", type=int, help="labels to acquire (default: the whole pool)")
    stu.add_argument("--population", type=int, help="evaluation population size")
    stu.add_argument("--subsample", type=int, help="candidates scored by costly methods (0: all)")
    stu.add_argument("--loss", choices=["error", "log"])
    stu.add_argument("--record-q-c", action="store_const", const=True, default=None,
                     help="record the true Q^c of the chosen and best candidates at every step")
    stu.add_argument("--seed", type=int)
    stu.add_argument("--truth", choices=["auto", "exact", "sampled"],
                     help="the truth: exact where the problem and classifier allow it (auto, both presets), "
                     "exact, or sampled on the evaluation population")
    stu.add_argument("--asymptotic-train", type=int, metavar="N", help="training size of the asymptotic loss")
    stu.add_argument("--asymptotic-replicates", type=int, metavar="R", help="replicates of the asymptotic loss")
    stu.add_argument("--asymptotic-population", type=int, metavar="N", help="population of the asymptotic loss")
    stu.add_argument("--jobs", type=int, default=1,
                     help="local worker processes (joblib, or the Dask LocalCluster): a count, or -1 for all cores")
    stu.add_argument("--dask", metavar="ADDRESS", help="run on Dask: a scheduler address (tcp://host:8786), "
                                                      "or 'local' for a LocalCluster of --jobs workers")
    stu.add_argument("--plan", type=int, metavar="N",
                     help="compute nothing: replay the finished run in --out on N workers (and on 2), in the table "
                          "order and longest first, beside the lower bound max(total / N, longest task)")
    stu.add_argument("--out", default="results/study", metavar="DIR",
                     help="study folder (default: results/study)")
    stu.set_defaults(func=_study)
    rep = sub.add_parser("report", help="tables (Markdown, LaTeX, CSV) and figures of a finished study, "
                                        "into DIR/report")
    rep.add_argument("path", metavar="DIR", help="the study folder")
    rep.add_argument("--groups", nargs="+", metavar="GROUP",
                     help="problem groups of the aggregate tables: NAME=PROBLEM,PROBLEM,... or a group name "
                          "(abstract, small); default: the registered groups of the study's problems, and 'other' "
                          "for the rest")
    rep.set_defaults(func=_report)
    sen = sub.add_parser("sensitivity", help="every conclusion of a finished study under every reading the paper "
                                             "leaves open, with bootstrap intervals (resumable; local or Dask)")
    sen.add_argument("path", metavar="DIR", help="the finished study folder")
    sen.add_argument("--out", default="results/sensitivity", metavar="OUT",
                     help="folder (default: results/sensitivity): the recomputed readings' studies and the tables")
    sen.add_argument("--recompute", nargs="*", metavar="READING",
                     help="readings that need new curves, among 'BMRI mean', 'kknn kernels', 'EfeLc whole pool', "
                          "'MRI-best whole pool', 'e1071 Platt', 'per-fit scaling' (default: all but 'e1071 Platt' "
                          "and 'per-fit scaling'; none: the analysis readings only)")
    _data_arguments(sen, "the study's own data files (as given to `study --data`, with the same --target, "
                         "--test-size and --standardize): the recomputed readings rerun on them")
    sen.add_argument("--boot", type=int, default=1000, help="bootstrap draws (default 1000)")
    sen.add_argument("--boot-seed", type=int, default=0, help="seed of the bootstrap draws")
    sen.add_argument("--jobs", type=int, default=1,
                     help="local worker processes (joblib, or the Dask LocalCluster): a count, or -1 for all cores")
    sen.add_argument("--dask", metavar="ADDRESS", help="run on Dask: a scheduler address, or 'local'")
    sen.set_defaults(func=_sensitivity)
    dia = sub.add_parser("diagnose", help="every strategy's scores beside the true Q^c of every candidate, in the "
                                          "same states; summaries of ranking quality and of the T_e estimators' "
                                          "errors (resumable; local or Dask)")
    dia.add_argument("--problem", default="four-gaussian")
    dia.add_argument("--classifiers", nargs="+", default=["kknn5", "lda"], metavar="NAME")
    dia.add_argument("--strategies", nargs="+", metavar="NAME",
                     default=["RS", "SE", "QbcV", "QbcA", "EfeLc", "SMRI", "BMRI", "MRI-best"])
    dia.add_argument("--replicates", type=int, default=10)
    dia.add_argument("--steps", nargs="+", type=int, default=[0, 2, 5, 10, 20, 40, 80], metavar="T",
                     help="labels acquired along the trajectory at the scored states")
    dia.add_argument("--pool", type=int, default=100, help="pool size")
    dia.add_argument("--trajectory", default="RS", help="the reference trajectory's strategy (default RS)")
    dia.add_argument("--population", type=int, default=10_000, help="evaluation population size")
    dia.add_argument("--seed", type=int, default=0)
    dia.add_argument("--truth", default="auto", choices=["auto", "exact", "sampled"],
                     help="the truth: exact where the problem and classifier allow it (auto, the default), "
                     "exact, or sampled on the evaluation population")
    dia.add_argument("--jobs", type=int, default=1,
                     help="local worker processes (joblib, or the Dask LocalCluster): a count, or -1 for all cores")
    dia.add_argument("--dask", metavar="ADDRESS", help="run on Dask: a scheduler address, or 'local'")
    dia.add_argument("--out", default="results/diagnostics", metavar="DIR",
                     help="folder (default: results/diagnostics); one sub-folder per classifier")
    dia.set_defaults(func=_diagnose)
    board = sub.add_parser("leaderboard", help="every strategy scored beside the true Q^c on a grid of problems and "
                                               "classifiers, ranked per phase of the curve with bootstrap intervals "
                                               "and the cost per state (resumable; local or Dask)")
    board.add_argument("--problems", nargs="+", default=["abstract"], metavar="NAME",
                       help="problem names or groups (abstract, the default)")
    board.add_argument("--classifiers", nargs="+", default=["paper"], metavar="NAME",
                       help="classifier names or sets (paper, the default)")
    board.add_argument("--strategies", nargs="+", default=["all"], metavar="NAME",
                       help="strategy names or sets (paper; peers: scikit-activeml's, the peers extra; all, the "
                            "default: every registered strategy, the peers where scikit-activeml is installed)")
    board.add_argument("--replicates", type=int, default=10)
    board.add_argument("--steps", nargs="+", type=int, default=[2, 10, 30, 80], metavar="T",
                       help="labels acquired along the trajectory at the scored states (default 2 10 30 80: "
                            "|D_S| 4, 12, 32, 82 with two classes)")
    board.add_argument("--pool", type=int, default=250, help="pool size")
    board.add_argument("--trajectory", default="RS", help="the reference trajectory's strategy (default RS)")
    board.add_argument("--population", type=int, default=10_000, help="evaluation population size")
    board.add_argument("--seed", type=int, default=0)
    board.add_argument("--truth", default="auto", choices=["auto", "exact", "sampled"],
                       help="the truth: exact where the problem and classifier allow it (auto, the default), "
                       "exact, or sampled on the evaluation population")
    board.add_argument("--phases", nargs="*", type=int, default=[12, 50], metavar="EDGE",
                       help="phase edges in |D_S| (default 12 50: <=12, 13-50, >50; none: all states only)")
    board.add_argument("--boot", type=int, default=1000, help="bootstrap draws (default 1000)")
    board.add_argument("--boot-seed", type=int, default=0, help="seed of the bootstrap draws")
    board.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals")
    board.add_argument("--top-k", type=int, default=5, help="k of top_k_hit (default 5)")
    board.add_argument("--all-states", action="store_true",
                       help="every state, the unresolved ones of a sampled truth too (default: resolved only)")
    board.add_argument("--jobs", type=int, default=1,
                       help="local worker processes (joblib, or the Dask LocalCluster): a count, or -1 for all cores")
    board.add_argument("--dask", metavar="ADDRESS", help="run on Dask: a scheduler address, or 'local'")
    board.add_argument("--out", default="results/leaderboard", metavar="DIR",
                       help="folder (default: results/leaderboard); one sub-folder per problem and classifier")
    board.set_defaults(func=_leaderboard)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mri-theory`` console script.

    Parameters
    ----------
    argv : sequence of str or None, optional
        The command-line arguments, without the program name; None (the default) reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit code: 0 on success, 2 after a one-line error on stderr (bad arguments or folders, a missing extra,
        an unreachable scheduler), 130 when a resumable command is interrupted, 141 (128 + SIGPIPE), quietly, when
        the reader of the output goes away (``mri-theory figures --list | head``).  Arguments the parser rejects exit
        through ``SystemExit`` (code 2) instead.
    """
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
        sys.stdout.flush()  # here, so that a closed pipe is seen below and not at the interpreter's exit
        return code
    except _Exit as stop:
        return stop.code
    except BrokenPipeError:  # the reader left (`mri-theory figures --list | head`): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush of stdout then goes nowhere
        return 141  # 128 + SIGPIPE, what a shell reports for a Unix tool stopped so


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
