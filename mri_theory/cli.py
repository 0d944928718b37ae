"""Command line: ``mri-theory figures [--list] [--only NAME ...] [--out DIR] [--quick]``."""

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
    except ValueError as exc:
        print(f"mri-theory figures: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``mri-theory`` argument parser (one sub-command per job)."""
    parser = argparse.ArgumentParser(prog="mri-theory", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    fig = sub.add_parser("figures", help="regenerate the paper's figures (PNG and PDF)")
    fig.add_argument("--list", action="store_true", help="print the figure names and exit")
    fig.add_argument("--only", nargs="+", metavar="NAME", help="make only these figures")
    fig.add_argument("--out", default="figures", metavar="DIR", help="output folder (default: figures)")
    fig.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    fig.set_defaults(func=_figures)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``mri-theory`` console script."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
