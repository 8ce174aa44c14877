"""`copy-tasks suite`: run the offline families on several models, then build the leaderboard.

One lm-eval run per model and setting (`copy_tasks.experiments.lm_eval_runner`), then
`copy-tasks leaderboard` over all the result folders. Three presets:

- `quick` (the README's main job): Gemma 3 270M with 4 docs per length; both reference models
  over every length and variant with 20 docs.

Every preset runs the families that need no download, and the natural-text copies (`c4_copy`,
`c4_copy_shuffled`) on offline Wikipedia (`OFFLINE_TEXT`), not C4 from the hub.
- `published` (the `leaderboard/` folder): Gemma 3 270M and SmolLM2 135M with 25 docs per
  length, the same docs generated and teacher-forced; SmolLM2 also under its chat template
  (`--apply_chat_template`, run label `smollm2-135m-chat`); both reference models over every
  length and variant at the families' default doc counts.
- `smoke`: every model of `quick` on each offline family's two shortest lengths, both
  variants, 2 docs each: that every code path runs, in seconds for the reference models.

Which lengths of each offline family the pretrained models run, per preset and variant, is
`SUITE_LENGTHS` below.

Models prepared by `copy-tasks model` are run as `pretrained=<name>` from a folder of links to
them in the model cache (`by_name/`), so the results name the model, not a path on this machine.

    >>> [run.label for run in plan("quick")]
    ['gemma-3-270m', 'ngram_copier', 'bounded_state']
    >>> [run.label for run in plan("published", ("smollm2-135m-chat",))]
    ['smollm2-135m-chat']
    >>> plan("quick")[0].tasks[:4]
    ('lookup_prefix_20', 'lookup_prefix_50', 'lookup_prefix_100', 'lookup_suffix_20')
    >>> plan("smoke", ("ngram_copier",))[0].tasks[:3], plan("smoke")[-1].docs
    (('c4_copy_25', 'c4_copy_50', 'c4_copy_shuffled_25'), 2)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from copy_tasks.experiments.lm_eval_runner import LmEvalFailed, LmEvalRun, launch, link_models
from copy_tasks.harness.model_info import REFERENCE_MODELS
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import GENERATION, TEACHER_FORCED, VARIANTS, Family
from copy_tasks.probes.options import DOCS, UserError, one_line_errors
from copy_tasks.probes.text_sources import TEXT_SOURCE, WIKIPEDIA


@dataclass(frozen=True)
class Preset:
    """Which models a preset runs, how many docs each variant gets, how many docs the reference
    models get, and which models also run under their chat template. The lengths each family
    runs at are `suite_lengths`."""

    models: tuple[str, ...]
    docs: int  # per length, the same docs generated and teacher-forced
    reference_docs: int | None  # None: each family's default
    chat_models: tuple[str, ...] = ()
    references_at_every_length: bool = True  # else at the preset's lengths, as the pretrained models


PRESETS = {
    # Generation costs a decoding step per answer token (Gemma 3 on 2 cores: about 10 per
    # second), so the quick preset generates only the short answers (phone book, lookups) and
    # scores every family teacher-forced, one forward pass per doc.
    # 4 docs: the main job in under 4 minutes on 2 cores from an empty model cache (5 took 246 s).
    "quick": Preset(models=("gemma-3-270m", *REFERENCE_MODELS), docs=4, reference_docs=20),
    "published": Preset(models=("gemma-3-270m", "smollm2-135m", *REFERENCE_MODELS), docs=25, reference_docs=None,
                        chat_models=("smollm2-135m",)),
    "smoke": Preset(models=("gemma-3-270m", *REFERENCE_MODELS), docs=2, reference_docs=2,
                    references_at_every_length=False),
}

SMOKE_LENGTHS = 2  # the smoke preset runs each family's shortest lengths, this many


@dataclass(frozen=True)
class SuiteLengths:
    """The lengths at which the suite runs its pretrained models on a family, per preset and
    variant (none: not run in that variant); the reference models run every length.

    `quick` is the README's main job, `published` the published leaderboard (the same lengths
    generated and teacher-forced, so verdicts can be compared doc by doc), `chat` the published
    preset's runs under a chat template (both variants).

        >>> SuiteLengths(quick_generation=(20,), published=(10, 20)).lengths("quick", GENERATION)
        (20,)
    """

    quick_generation: tuple[int, ...] = ()
    quick_teacher_forced: tuple[int, ...] = ()
    published: tuple[int, ...] = ()
    chat: tuple[int, ...] = ()

    def lengths(self, preset: str, variant: str) -> tuple[int, ...]:
        """The lengths of one preset (`quick`, `published` or `chat`; `smoke` is
        `SMOKE_LENGTHS` of every family) and variant."""
        if preset == "quick":
            return self.quick_generation if variant == GENERATION else self.quick_teacher_forced
        return {"published": self.published, "chat": self.chat}[preset]


def up_to(longest: int) -> Callable[[Family], tuple[int, ...]]:
    """A family's lengths up to `longest`."""
    return lambda family: tuple(length for length in family.lengths if length <= longest)


# What each family runs in the suite (a family not named: teacher-forced at its two shortest
# lengths in `quick`, both variants at its three shortest in `published`). The main job stops
# at 100 (to finish in 4 minutes on 2 cores): at 200 entries (3,200 tokens a prompt on Gemma 3)
# the phone book's teacher forcing alone took 110 s of its 6.5 minutes.
SUITE_LENGTHS = {
    "phonebook_copy": lambda family: SuiteLengths(quick_generation=(20, 50, 100), quick_teacher_forced=(20, 50, 100),
                                                  published=up_to(200)(family), chat=up_to(200)(family)),
    # the same docs as the phone book's published run, with the name first; the main job only
    # teacher-forces it at two lengths
    "phonebook_query_first": lambda family: SuiteLengths(quick_teacher_forced=(20, 50), published=up_to(200)(family)),
    "random_copy": lambda family: SuiteLengths(quick_teacher_forced=up_to(100)(family),
                                               published=up_to(200)(family), chat=up_to(200)(family)),
    "dup_ngram_copy": lambda family: SuiteLengths(quick_teacher_forced=family.lengths, published=family.lengths),
    # the main job's longest length is 100: the passkey at 100 words only
    "passkey_recall": lambda family: SuiteLengths(quick_teacher_forced=(100,), published=family.lengths[:3]),
    # the second control: the main job teacher-forces 16 and 64 instructions; the published board runs 16 to 1,024
    # (at 4,096 a prompt is about 14,000 tokens: most of an hour on CPU for 25 docs, beyond SmolLM2's context)
    "flip_flop": lambda family: SuiteLengths(quick_teacher_forced=(16, 64), published=up_to(1024)(family)),
    # natural text (offline Wikipedia): the main job teacher-forces 25 and 50 words, the published board 25 to 500
    **dict.fromkeys(("c4_copy", "c4_copy_shuffled"), lambda family: SuiteLengths(
        quick_teacher_forced=(25, 50), published=up_to(500)(family))),
    **dict.fromkeys(("lookup_prefix", "lookup_suffix"), lambda family: SuiteLengths(
        quick_generation=up_to(100)(family), quick_teacher_forced=up_to(100)(family), published=up_to(500)(family))),
}


def suite_lengths(family: Family) -> SuiteLengths:
    """The lengths the suite runs a family at (`SUITE_LENGTHS`).

    >>> suite_lengths(FAMILIES["c4_copy_shuffled"]).lengths("published", TEACHER_FORCED)
    (25, 50, 100, 200, 500)
    """
    lengths = SUITE_LENGTHS.get(family.name)
    return lengths(family) if lengths else SuiteLengths(quick_teacher_forced=family.lengths[:2],
                                                        published=family.lengths[:3])


# The text families read their passages from offline Wikipedia in the suite (the install brings
# it: `copy_tasks.probes.text_sources`), not from C4 on the hub.
OFFLINE_TEXT = {TEXT_SOURCE.key: WIKIPEDIA}


def offline_families() -> list[Family]:
    """The families the suite runs, in the family table's order: those that need no download,
    and those whose only source is the natural text (`OFFLINE_TEXT`: offline Wikipedia)."""
    return [family for family in FAMILIES.values() if not family.needs_download or TEXT_SOURCE in family.options]


TEXT_FAMILIES = tuple(f"{family.name}_" for family in FAMILIES.values() if TEXT_SOURCE in family.options)

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

    def lm_eval_run(self, results_dir: Path) -> LmEvalRun:
        """This run as lm-eval runs it, its results under `results_dir/<label>/`; a pretrained
        model's samples are logged."""
        pretrained = bool(self.model_args)
        text = OFFLINE_TEXT if any(task.startswith(TEXT_FAMILIES) for task in self.tasks) else {}
        return LmEvalRun(self.backend, self.tasks, results_dir / self.label, model_args=self.model_args,
                         metadata={**({DOCS.key: self.docs} if self.docs is not None else {}), **text},
                         batch_size=self.batch_size, chat=self.chat, log_samples=pretrained,
                         device="cpu" if pretrained else None)


def _tasks(lengths_preset: str | None, variant: str, families: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The task names of one variant, family by family (of `families`, else every suite family),
    at the lengths each family declares for the preset (`suite_lengths`; None: every length)."""
    def lengths(family: Family) -> tuple[int, ...]:
        if lengths_preset is None:
            return family.lengths
        if lengths_preset == "smoke":
            return family.lengths[:SMOKE_LENGTHS]
        return suite_lengths(family).lengths(lengths_preset, variant)

    return tuple(family.task_name(length, variant == TEACHER_FORCED) for family in offline_families()
                 if families is None or family.name in families for length in lengths(family))


CHAT_SUFFIX = "-chat"


def plan(preset_name: str, labels: tuple[str, ...] | None = None, families: tuple[str, ...] | None = None
         ) -> list[SuiteRun]:
    """The runs of a preset, in order (those with the given labels, if any; on the given
    families, if any: to add families to a board built before them): one per model, its
    generation tasks then its teacher-forced ones (a pretrained model at the preset's doc count:
    doc i is the same doc in both variants, so their verdicts can be compared; one run loads the
    model once), and one more under the chat template for each chat model (label
    `<model>-chat`)."""
    preset = PRESETS[preset_name]
    runs = []
    for model in preset.models:
        if model in REFERENCE_MODELS:
            lengths = None if preset.references_at_every_length else preset_name
            tasks = _tasks(lengths, GENERATION, families) + _tasks(lengths, TEACHER_FORCED, families)
            runs.append(SuiteRun(model, model, "", tasks, preset.reference_docs))
            continue
        settings = [(model, preset_name, False)]
        if model in preset.chat_models:
            settings.append((model + CHAT_SUFFIX, "chat", True))
        for label, lengths_preset, chat in settings:
            tasks = tuple(task for variant in VARIANTS for task in _tasks(lengths_preset, variant, families))
            if not tasks:  # a chat run has no lengths of these families
                continue
            runs.append(SuiteRun(label, "hf_fast", f"pretrained={model}", tasks, preset.docs, MODEL_BATCH_SIZE,
                                 chat=chat, model=model))
    return [run for run in runs if labels is None or run.label in labels]


def run_labels(preset_name: str) -> list[str]:
    """The labels of a preset's runs, each once, in order."""
    return list(dict.fromkeys(run.label for run in plan(preset_name)))


class SuiteError(UserError):
    """An --out the suite cannot write into; the message says why and what to give."""


def prepare_out(out: Path) -> None:
    """Make `out/results/`, or refuse in one line: `out` a file, or a folder that cannot be written."""
    if out.exists() and not out.is_dir():
        raise SuiteError(f"--out {out} is a file; give a folder (new, or a leaderboard folder of an earlier suite)")
    try:
        (out / "results").mkdir(parents=True, exist_ok=True)
        probe = out / "results" / ".copy-tasks-write-check"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise SuiteError(f"--out {out}: cannot write there ({error.strerror or error}); give a folder you can "
                         "write to") from None


DEFAULT_DOCS = "each family's default"  # a run's docs per length when it sets none


def made_by(preset_name: str, runs: list[SuiteRun], labels: tuple[str, ...] | None = None) -> str:
    """The line the summary and the page open with: the command and the docs per length of its runs.

    >>> made_by("quick", plan("quick"))
    'Made by `copy-tasks suite --preset quick`: gemma-3-270m at 4 docs per length; ngram_copier, bounded_state at 20.'
    """
    command = f"copy-tasks suite --preset {preset_name}" + (f" --models {','.join(labels)}" if labels else "")
    by_docs: dict[int | None, list[str]] = {}
    for run in runs:
        by_docs.setdefault(run.docs, []).append(run.label)
    groups = [f"{', '.join(names)} at {DEFAULT_DOCS if docs is None else docs}" for docs, names in by_docs.items()]
    return f"Made by `{command}`: {groups[0]} docs per length" + "".join(f"; {group}" for group in groups[1:]) + "."


def concurrent_steps(runs: list[SuiteRun], verbose: bool = False) -> list[list[int]]:
    """The steps (1-based) of a suite's runs, grouped into those run at once: a pretrained model's
    run alone (it uses every core, and the memory of the model), the reference models' runs
    together (one core each, little memory: the main job's 15 s and 26 s become 26 s); with
    `verbose` (lm-eval's output on the terminal) every run alone.

    >>> concurrent_steps(plan("quick")), concurrent_steps(plan("quick"), verbose=True)
    ([[1], [2, 3]], [[1], [2], [3]])
    """
    groups: list[list[int]] = []
    for step, run in enumerate(runs, start=1):
        if not verbose and not run.model and groups and not runs[groups[-1][-1] - 1].model:
            groups[-1].append(step)
        else:
            groups.append([step])
    return groups


def run_suite(preset_name: str, out: Path, labels: tuple[str, ...] | None = None, verbose: bool = False,
              families: tuple[str, ...] | None = None) -> None:
    """Run every model of the preset into `out/results/<label>/`, then build the leaderboard in
    `out`. Each run's lm-eval output goes to `out/logs/<label>.log`, after the command that re-runs
    that step (with `verbose`, to the terminal instead: it is lm-eval's progress and tables); the
    terminal (stderr) gets the steps, a progress line every 20 s while one runs, and a summary;
    stdout gets the leaderboard folder alone, as `copy-tasks model` prints its model's folder. The
    reference models' runs run at once (`concurrent_steps`)."""
    from copy_tasks.common.files import cache_root
    from copy_tasks.experiments.real_models import MODELS, prepare
    from copy_tasks.report.build import build_leaderboard

    out = out.resolve()
    runs = plan(preset_name, labels, families)
    models_dir = cache_root() / "by_name"
    results_dir = out / "results"
    prepare_out(out)
    began = time.monotonic()

    def run_step(step: int, run: SuiteRun) -> None:
        started = time.monotonic()
        name = f"[{step}/{len(runs)}] {run.label}"
        print(f"{name}: {len(run.tasks)} tasks, {run.docs or 'default'} docs per task", file=sys.stderr, flush=True)
        if run.model in MODELS:
            link_models(models_dir, {run.model: prepare(run.model)})
        log = None if verbose else out / "logs" / f"{run.label}.log"
        launch(run.lm_eval_run(results_dir), cwd=models_dir if run.model in MODELS else results_dir, log=log,
               progress=name)
        print(f"{name}: done in {time.monotonic() - started:.0f} s"
              + ("" if log is None else f" (lm-eval's output: {log.relative_to(out)})"), file=sys.stderr, flush=True)

    for steps in concurrent_steps(runs, verbose):
        if len(steps) == 1:  # in this thread: an interrupt ends its lm-eval child (`launch`)
            run_step(steps[0], runs[steps[0] - 1])
            continue
        with ThreadPoolExecutor(max_workers=len(steps)) as pool:
            for finished in [pool.submit(run_step, step, runs[step - 1]) for step in steps]:
                finished.result()
    report = build_leaderboard([results_dir], out, made_by=made_by(preset_name, runs, labels))
    problems = f"; {len(report.problems)} results files named in the summary's notes" if report.problems else ""
    print(f"copy-tasks: {len(runs)} run{'s' * (len(runs) != 1)} in {time.monotonic() - began:.0f} s{problems}"
          + ("" if verbose else f"; lm-eval's output is in {out / 'logs'}")
          + "; the leaderboard (read summary.md or index.html):", file=sys.stderr, flush=True)
    print(out)  # the result's location, alone on stdout: `| tee` and scripts see it


def main(argv: list[str] | None = None) -> None:
    from copy_tasks.experiments.real_models import ModelError

    parser = argparse.ArgumentParser(prog="copy-tasks suite", description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=sorted(PRESETS), default="quick",
                        help="quick: the README's main job (Gemma 3 270M at 4 docs a length, about 2.5 minutes on "
                             "2 CPU cores); published: the published leaderboard (two pretrained models at 25 docs a "
                             "length, one also under its chat template: hours on CPU); smoke: every model on "
                             "each family's two shortest lengths, 2 docs, to check that everything runs")
    parser.add_argument("--models", default=None,
                        help="comma-separated subset of the preset's runs, by label (a model, or "
                        "<model>-chat for its chat-template runs)")
    parser.add_argument("--families", default=None,
                        help="comma-separated subset of the preset's families (to add families to a board built "
                             "before them)")
    parser.add_argument("--out", type=Path, required=True, help="the leaderboard folder to write")
    parser.add_argument("--verbose", action="store_true",
                        help="show lm-eval's own output (progress bars, tables) as it runs; it is always kept "
                             "in OUT/logs/ otherwise")
    args = parser.parse_args(argv)
    labels = None
    if args.models:
        labels = tuple(name.strip() for name in args.models.split(",") if name.strip())
        unknown = [name for name in labels if name not in run_labels(args.preset)]
        if unknown:
            parser.error(f"--models: unknown {', '.join(unknown)}; the preset {args.preset} runs "
                         f"{', '.join(run_labels(args.preset))}")
    families = None
    if args.families:
        families = tuple(name.strip() for name in args.families.split(",") if name.strip())
        known = [family.name for family in offline_families()]
        if unknown := [name for name in families if name not in known]:
            parser.error(f"--families: unknown {', '.join(unknown)}; the suite runs {', '.join(known)}")
    with one_line_errors("copy-tasks suite", {SuiteError: 2, ModelError: 1, LmEvalFailed: 1}):
        run_suite(args.preset, args.out, labels, verbose=args.verbose, families=families)
