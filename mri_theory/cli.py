"""Command line.

``mri-theory figures [--list] [--only NAME ...] [--out DIR] [--quick]``
    regenerate the figures;
``mri-theory curves --problem P --classifier C --strategies all --replicates R --pool N --seed S --out DIR``
    run the iterated-AL sandbox (resumable; damaged parts are reported and recomputed).

Bad arguments, an ``--out`` that is empty, a file or not writable, or a folder
holding another study or a corrupt ``config.json`` give a one-line message on
stderr and exit code 2, and nothing is written.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from mri_theory import figures


def _figures(args: argparse.Namespace) -> int:
    if args.list:
        for name in figures.figure_names():
            print(f"{name:24s} {figures.get_figure(name).description}")
        return 0
    try:
        written = figures.make_figures(args.only, args.out, quick=args.quick)
    except (ValueError, TypeError) as exc:
        print(f"mri-theory figures: {_one_line(exc)}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


def _one_line(exc: BaseException) -> str:
    """The exception's message on one line (for a one-line error on stderr)."""
    return " ".join(str(exc).split())


def _curves(args: argparse.Namespace) -> int:
    from mri_theory.sandbox import run_curves

    strategies = "all" if args.strategies == ["all"] else args.strategies
    try:
        table = run_curves(problem=args.problem, classifier=args.classifier, strategies=strategies,
                           pool_size=args.pool, replicates=args.replicates, seed=args.seed, n_jobs=args.jobs,
                           budget=args.budget, population_size=args.population, loss=args.loss,
                           subsample=None if args.subsample == 0 else args.subsample, out=args.out)
    except (ValueError, TypeError) as exc:  # bad arguments, output folder or config.json (checked before any work)
        print(f"mri-theory curves: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished runs are kept in {args.out}; run the same command to resume",
              file=sys.stderr)
        return 130
    final = table.groupby(["strategy", "replicate"], sort=False).tail(1)  # each curve's last point
    print("final loss, mean over replicates:")
    print(final.groupby("strategy", sort=False)[["n_labelled", "loss"]].mean().to_string())
    print(f"results: {args.out}/curves.csv")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``mri-theory`` argument parser (one sub-command per job)."""
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
    cur.add_argument("--strategies", nargs="+", default=["all"], metavar="NAME", help="names, or 'all'")
    cur.add_argument("--replicates", type=int, default=10)
    cur.add_argument("--pool", type=int, default=250, help="pool size")
    cur.add_argument("--budget", type=int, default=None, help="labels to acquire (default: the whole pool)")
    cur.add_argument("--population", type=int, default=10_000, help="evaluation population size")
    cur.add_argument("--subsample", type=int, default=100, help="candidates scored by costly methods (0: all)")
    cur.add_argument("--loss", default="error", choices=["error", "log"])
    cur.add_argument("--seed", type=int, default=0)
    cur.add_argument("--jobs", type=int, default=1,
                     help="parallel jobs (joblib): a positive count, or -1 for all cores")
    cur.add_argument("--out", default="results", metavar="DIR", help="results folder (default: results)")
    cur.set_defaults(func=_curves)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mri-theory`` console script."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
