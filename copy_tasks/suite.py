"""`copy-tasks suite`: run the offline families on several models, then build the leaderboard.

One lm-eval run (`copy-tasks run`, in a subprocess) per model, then `copy-tasks leaderboard`
over all the result folders. Two presets:

- `quick` (the README's main job): Gemma 3 270M with 5 docs per length: every offline family
  teacher-forced up to 200 (n = 1 to 8 for `dup_ngram_copy`), and the phone book and lookups
  also generated up to 100; both reference models over every length and variant with 20 docs.
- `published` (the `leaderboard/` folder): Gemma 3 270M and SmolLM2 135M, generation and
  teacher-forced with 25 docs per length, the same docs (phone book at every length up to 200,
  random strings up to 200, lookups up to 500, n = 1 to 8); SmolLM2 also under its chat
  template (`--apply_chat_template`, run label `smollm2-135m-chat`) on the phone book and
  random strings; both reference models over every length and variant at the families'
  default doc counts.

Models prepared by `copy-tasks model` are run as `pretrained=<name>` from a folder of links to
them in the model cache (`by_name/`), so the results name the model, not a path on this machine.

    >>> [run.label for run in plan("quick")]
    ['gemma-3-270m', 'gemma-3-270m', 'ngram_copier', 'bounded_state']
    >>> [run.label for run in plan("published", ("smollm2-135m-chat",))]
    ['smollm2-135m-chat', 'smollm2-135m-chat']
    >>> plan("quick")[0].tasks[:4]
    ('lookup_prefix_20', 'lookup_prefix_50', 'lookup_prefix_100', 'lookup_suffix_20')
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from copy_tasks.models import REFERENCE_MODELS
from copy_tasks.probes.families import FAMILIES

OFFLINE_FAMILIES = tuple(family for family in FAMILIES.values() if not family.needs_download)


@dataclass(frozen=True)
class Preset:
    """What the pretrained models run (per variant, the lengths of each family; a family left
    out is not run in that variant), how many docs each variant gets, how many docs the
    reference models get, and which models also run under their chat template, on which
    lengths (both variants)."""

    models: tuple[str, ...]
    generation: dict[str, tuple[int, ...]]
    teacher_forced: dict[str, tuple[int, ...]]
    generation_docs: int
    teacher_forced_docs: int
    reference_docs: int | None  # None: each family's default
    chat_models: tuple[str, ...] = ()
    chat: dict[str, tuple[int, ...]] = field(default_factory=dict)


def up_to(family: str, longest: int) -> tuple[int, ...]:
    """The family's lengths up to `longest`.

    >>> up_to("phonebook_copy", 100)
    (10, 20, 30, 50, 70, 100)
    """
    return tuple(length for length in FAMILIES[family].lengths if length <= longest)


EVERY_LENGTH = {family.name: family.lengths for family in OFFLINE_FAMILIES}
PRESETS = {
    # Generation costs a decoding step per answer token (Gemma 3 on 2 cores: about 10 per
    # second), so the quick preset generates only the short answers (phone book, lookups) and
    # scores every family teacher-forced, one forward pass per doc.
    "quick": Preset(
        models=("gemma-3-270m", *REFERENCE_MODELS),
        generation={"phonebook_copy": (20, 50, 100), "lookup_suffix": up_to("lookup_suffix", 100),
                    "lookup_prefix": up_to("lookup_prefix", 100)},
        teacher_forced={"phonebook_copy": (20, 50, 100, 200), "random_copy": up_to("random_copy", 200),
                        "dup_ngram_copy": EVERY_LENGTH["dup_ngram_copy"],
                        "lookup_suffix": up_to("lookup_suffix", 200), "lookup_prefix": up_to("lookup_prefix", 200)},
        generation_docs=5,
        teacher_forced_docs=5,
        reference_docs=20,
    ),
    # The phone book at every length up to 200 entries, to place the paper's crossover.
    "published": Preset(
        models=("gemma-3-270m", "smollm2-135m", *REFERENCE_MODELS),
        generation={"phonebook_copy": up_to("phonebook_copy", 200), "random_copy": up_to("random_copy", 200),
                    "dup_ngram_copy": EVERY_LENGTH["dup_ngram_copy"], "lookup_suffix": up_to("lookup_suffix", 500),
                    "lookup_prefix": up_to("lookup_prefix", 500)},
        teacher_forced={"phonebook_copy": up_to("phonebook_copy", 200), "random_copy": up_to("random_copy", 200),
                        "dup_ngram_copy": EVERY_LENGTH["dup_ngram_copy"],
                        "lookup_suffix": up_to("lookup_suffix", 500), "lookup_prefix": up_to("lookup_prefix", 500)},
        generation_docs=25,
        teacher_forced_docs=25,
        reference_docs=None,
        chat_models=("smollm2-135m",),
        chat={"phonebook_copy": up_to("phonebook_copy", 200), "random_copy": up_to("random_copy", 200)},
    ),
}


# Requests per batch for the pretrained models: generation batches by equal budgets, which
# the budget ladder keeps few; on 2 CPU cores 8 decodes about 2.5x faster than 1.
MODEL_BATCH_SIZE = 8


@dataclass(frozen=True)
class SuiteRun:
    """One lm-eval run: a model, its backend and model args, the tasks and the doc count;
    `chat`: under the model's chat template. `label` names the run's results folder."""

    label: str
    backend: str
    model_args: str
    tasks: tuple[str, ...]
    docs: int | None
    batch_size: int = 1
    chat: bool = False
    model: str = ""  # the prepared model it runs, if any


def _tasks(lengths: dict[str, tuple[int, ...]], teacher_forced: bool) -> tuple[str, ...]:
    """The task names of one variant, family by family."""
    return tuple(family.task_name(length, teacher_forced)
                 for family in OFFLINE_FAMILIES for length in lengths.get(family.name, ()))


CHAT_SUFFIX = "-chat"


def plan(preset_name: str, labels: tuple[str, ...] | None = None) -> list[SuiteRun]:
    """The runs of a preset, in order (those with the given labels, if any): one per reference
    model (every task), two per pretrained model (generation, then teacher-forced, each with
    its doc count; doc i is the same doc in both, so their verdicts can be compared), and two
    more under the chat template for each chat model (label `<model>-chat`)."""
    preset = PRESETS[preset_name]
    runs = []
    for model in preset.models:
        if model in REFERENCE_MODELS:
            tasks = _tasks(EVERY_LENGTH, False) + _tasks(EVERY_LENGTH, True)
            runs.append(SuiteRun(model, model, "", tasks, preset.reference_docs))
            continue
        settings = [(model, preset.generation, preset.teacher_forced, False)]
        if model in preset.chat_models:
            settings.append((model + CHAT_SUFFIX, preset.chat, preset.chat, True))
        for label, generation, teacher_forced, chat in settings:
            for lengths, forced, docs in ((generation, False, preset.generation_docs),
                                          (teacher_forced, True, preset.teacher_forced_docs)):
                runs.append(SuiteRun(label, "hf_fast", f"pretrained={model}", _tasks(lengths, forced), docs,
                                     MODEL_BATCH_SIZE, chat=chat, model=model))
    return [run for run in runs if labels is None or run.label in labels]


def run_labels(preset_name: str) -> list[str]:
    """The labels of a preset's runs, each once, in order."""
    return list(dict.fromkeys(run.label for run in plan(preset_name)))


def _link_model(name: str, models_dir: Path) -> None:
    from copy_tasks.models.real_models import prepare

    folder = prepare(name)
    models_dir.mkdir(parents=True, exist_ok=True)
    link = models_dir / name
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(folder, target_is_directory=True)


def _lm_eval_command(run: SuiteRun, results_dir: Path) -> list[str]:
    command = [sys.executable, "-m", "copy_tasks", "run", "--model", run.backend,
               "--tasks", ",".join(run.tasks), "--output_path", str(results_dir / run.label),
               "--batch_size", str(run.batch_size)]
    if run.model_args:
        command += ["--model_args", run.model_args, "--device", "cpu", "--log_samples"]
    if run.docs is not None:
        command += ["--metadata", json.dumps({"copy_tasks_docs": run.docs})]
    if run.chat:
        command.append("--apply_chat_template")
    return command


def redact_config_paths(folder: Path, include: Path | None = None) -> None:
    """Write the task YAML paths lm-eval records (`config_source`) relative to the package (and
    those of an `--include_path` folder `include` as `<its name>/<file>`), so that published
    results name no folder of the machine that ran them.

    >>> import tempfile, copy_tasks
    >>> folder = Path(tempfile.mkdtemp())
    >>> source = copy_tasks.task_config_dir() / "c4" / "c4_copy_25.yaml"
    >>> _ = (folder / "results_x.json").write_text(json.dumps({"config_source": str(source)}))
    >>> redact_config_paths(folder)
    >>> (folder / "results_x.json").read_text()
    '{"config_source": "copy_tasks/task_configs/c4/c4_copy_25.yaml"}'
    """
    from copy_tasks import task_config_dir

    relative = {json.dumps(str(task_config_dir()))[1:-1]: "copy_tasks/task_configs"}
    if include is not None:
        relative[json.dumps(str(include))[1:-1]] = include.name
    for path in folder.rglob("results_*.json"):
        text = original = path.read_text(encoding="utf-8")
        for machine_path, written in relative.items():
            text = text.replace(machine_path, written)
        if text != original:
            path.write_text(text, encoding="utf-8")


def run_suite(preset_name: str, out: Path, labels: tuple[str, ...] | None = None) -> None:
    """Run every model of the preset into `out/results/<model>/`, then build the leaderboard in
    `out`."""
    from copy_tasks.models.real_models import MODELS, cache_root

    out = out.resolve()
    runs = plan(preset_name, labels)
    models_dir = cache_root() / "by_name"
    results_dir = out / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    for step, run in enumerate(runs, start=1):
        started = time.monotonic()
        print(f"[{step}/{len(runs)}] {run.label}: {len(run.tasks)} tasks, "
              f"{run.docs or 'default'} docs per task", file=sys.stderr, flush=True)
        if run.model in MODELS:
            _link_model(run.model, models_dir)
        environment = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
        subprocess.run(_lm_eval_command(run, results_dir),
                       cwd=models_dir if run.model in MODELS else results_dir, env=environment, check=True)
        redact_config_paths(results_dir / run.label)
        print(f"[{step}/{len(runs)}] {run.label}: done in {time.monotonic() - started:.0f} s",
              file=sys.stderr, flush=True)
    from copy_tasks.report.build import build_leaderboard

    build_leaderboard([results_dir], out)
    print(f"copy-tasks: leaderboard written to {out}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    from copy_tasks.models.real_models import ModelError

    parser = argparse.ArgumentParser(prog="copy-tasks suite", description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="quick")
    parser.add_argument("--models", default=None,
                        help="comma-separated subset of the preset's runs, by label (a model, or "
                        "<model>-chat for its chat-template runs)")
    parser.add_argument("--out", type=Path, required=True, help="the leaderboard folder to write")
    args = parser.parse_args(argv)
    labels = None
    if args.models:
        labels = tuple(name.strip() for name in args.models.split(",") if name.strip())
        unknown = [name for name in labels if name not in run_labels(args.preset)]
        if unknown:
            parser.error(f"--models: unknown {', '.join(unknown)}; the preset {args.preset} runs "
                         f"{', '.join(run_labels(args.preset))}")
    try:
        run_suite(args.preset, args.out, labels)
    except ModelError as error:
        print(f"copy-tasks suite: error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    except subprocess.CalledProcessError as error:
        print(f"copy-tasks suite: an lm-eval run failed (exit {error.returncode}): "
              f"{' '.join(error.cmd)}", file=sys.stderr)
        raise SystemExit(1) from None
