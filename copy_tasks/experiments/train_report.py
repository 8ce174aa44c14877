"""The report of `copy-tasks train`: the paper's four synthetic experiments as tables (each seed's
numbers, their mean and spread) and plots, from the scores of `train_evaluation`; for a run of
the `mqar` task, Zoology's multi-query associative recall by number of pairs.

    >>> spread([0.5, 0.75])
    '0.62 (0.50-0.75)'
    >>> examples_to(0.9, [(100, 0.5), (200, 0.95), (300, 0.85)])
    200
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from copy_tasks.experiments.architectures import kind
from copy_tasks.experiments.recipes import Recipe
from copy_tasks.experiments.train_evaluation import QUERY_ACCURACY_KEY, model_label
from copy_tasks.experiments.training_jobs import Job
from copy_tasks.experiments.training_tasks import (
    COPY,
    DUPLICATED_NGRAMS,
    LOOKUP_PREFIX,
    LOOKUP_SUFFIX,
    MQAR,
    PAPER,
    PAPER_TASKS,
    copy_lengths,
    experiments,
    lookup_lengths,
    mqar_lengths,
    training_lengths,
)
from copy_tasks.probes.families.mqar import QUERIES
from copy_tasks.report.plots import Line, line_plot

THRESHOLD = 0.9  # exact match at which a model has learned to copy (experiment 4); the mqar goal's accuracy
ESCAPE_LOSS = 1.0  # nats: an mqar model whose training loss is under it has left the plateau (`plateau_escape`)
GOAL_FACTOR = 2.5  # the goal: Hard-ALiBi at >= 0.9 at 2.5 x its training length
# Below this a difference of exact match is not read as a sign: with 50 docs a length the
# standard error of a proportion near 0.5 is 0.07.
NOISE = 0.1
KEY_PLACES = {"prefix": LOOKUP_PREFIX, "suffix": LOOKUP_SUFFIX}  # experiment 3's key column: where its task's key is


def mean(values) -> float | None:
    values = [value for value in values if value is not None]
    return sum(values) / len(values) if values else None


def spread(values) -> str:
    """The mean of the seeds' values and their range."""
    values = [value for value in values if value is not None]
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{mean(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def examples_to(threshold: float, curve) -> int | None:
    """The first examples count at which the value reaches `threshold`, None if never (a mean
    such as (0.96 + 0.84) / 2, 0.8999999999999999 in floating point, reaches 0.9).

    >>> examples_to(0.9, [(100, (0.96 + 0.84) / 2)])
    100
    """
    return next((seen for seen, value in curve if value is not None and value >= threshold - 1e-9), None)


def cache_bits(layers: int, hidden: int, tokens: int) -> int:
    """The bits attention keeps after `tokens` tokens: a key and a value of `hidden` float32
    numbers a token a layer (what grows where a recurrent model has its fixed state).

    >>> cache_bits(2, 32, 143)
    585728
    """
    return 2 * layers * hidden * tokens * 32


def _cells(values) -> str:
    return " | ".join("-" if value is None else f"{value:.2f}" for value in values)


def _table(header: list[str]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]


class Report:
    """The experiments of one run: `markdown()`, `figures` (read off the tables), `plots()`."""

    def __init__(self, recipe: Recipe, recipe_name: str, scores: dict, summaries: list[dict], architectures,
                 tasks=PAPER_TASKS):
        self.recipe, self.recipe_name, self.scores = recipe, recipe_name, scores
        self.tasks = tuple(tasks)
        self.summaries = {(s["task"], s["architecture"], s["seed"], s.get("width")): s for s in summaries}
        self.architectures = tuple(architectures)
        self.seeds = recipe.seeds
        self.widths = tuple(dict.fromkeys(width for architecture in self.architectures
                                          for width in recipe.widths_of(architecture)))
        self.figures: dict = {}

    def score(self, label: str, task: str) -> float | None:
        return self.scores.get(label, {}).get(task)

    def curve(self, task: str, architecture: str, seed: int, family: str, lengths, step: int | None = None):
        label = model_label(Job(architecture, task, seed), step)
        return [self.score(label, f"{family}_tf_{length}") for length in lengths]

    def mean_curve(self, task, architecture, family, lengths):
        curves = [self.curve(task, architecture, seed, family, lengths) for seed in self.seeds]
        return [mean(values) for values in zip(*curves)]

    def models_section(self) -> list[str]:
        lines = ["| model | architecture | task | width | seed | parameters | state bits | final loss | examples | "
                 "training time (s) | started from |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for key in sorted(self.summaries, key=lambda key: (key[0], key[1], key[3] or 0, key[2])):
            summary, (task, architecture, seed, _) = self.summaries[key], key
            bits = f"{summary['state_bits']:,}" if summary.get("state_bits") else "-"
            start = f"`{summary['started_from']}`" if summary.get("started_from") else "scratch"
            lines.append(f"| {architecture} | {kind(architecture)} | {task} | {summary.get('hidden_size', '-')} | "
                         f"{seed} | {summary['parameters']:,} | {bits} | {summary['final_loss']:.4f} | "
                         f"{summary['examples']:,} | {summary['seconds']:.0f} | {start} |")
        return lines

    def length_section(self) -> list[str]:
        lengths = copy_lengths(self.recipe)
        trained = self.recipe.copy_lengths[1]
        goal = round(GOAL_FACTOR * trained)
        lines = [f"### 1. Length generalisation (copy; trained on {self.recipe.copy_lengths[0]} to {trained} letters)",
                 "", "Teacher-forced exact match on `random_copy_tf` (paper format) by string length.", "",
                 *_table(["model", "seed", *map(str, lengths)])]
        for architecture in self.architectures:
            for seed in self.seeds:
                curve = self.curve(COPY.name, architecture, seed, COPY.family, lengths)
                lines.append(f"| {architecture} | {seed} | {_cells(curve)} |")
        for label in self.reference_labels():
            lines.append(f"| {label} | - | {_cells(self.score(label, f'random_copy_tf_{n}') for n in lengths)} |")
        lines += ["", f"At {goal} letters ({GOAL_FACTOR} x the training length), mean of the seeds (range): "
                  "the goal is Hard-ALiBi at >= 0.9 and every other model below 0.5.", "",
                  *_table(["model", f"exact match at {goal}", "goal"])]
        for architecture in self.architectures:
            values = [self.score(model_label(Job(architecture, COPY.name, seed)), f"random_copy_tf_{goal}")
                      for seed in self.seeds]
            target = ">= 0.9" if architecture == "transformer-hard-alibi" else "< 0.5"
            reached = mean(values) is not None and ((mean(values) >= 0.9) if target == ">= 0.9" else mean(values) < 0.5)
            lines.append(f"| {architecture} | {spread(values)} | {target}: {'reached' if reached else 'not reached'} |")
            self.figures.setdefault(architecture, {})["copy_at_goal"] = values
        return lines

    def reference_labels(self) -> list[str]:
        return sorted(label for label in self.scores if not label.startswith("trained-"))

    def ngram_section(self) -> list[str]:
        lines = ["### 2. The 5-gram limit (copy models on `dup_ngram_copy_tf`, paper format: 20 letters, one "
                 "duplicated n-gram)", "", *_table(["model", "seed", *(f"n={n}" for n in DUPLICATED_NGRAMS)])]
        for architecture in self.architectures:
            for seed in self.seeds:
                curve = self.curve(COPY.name, architecture, seed, "dup_ngram_copy", DUPLICATED_NGRAMS)
                lines.append(f"| {architecture} | {seed} | {_cells(curve)} |")
        for label in self.reference_labels():
            curve = [self.score(label, f"dup_ngram_copy_tf_{n}") for n in DUPLICATED_NGRAMS]
            lines.append(f"| {label} | - | {_cells(curve)} |")
        return lines

    def lookup_section(self) -> list[str]:
        lengths = lookup_lengths(self.recipe)
        lines = [f"### 3. Prefix against suffix key (one model per task; trained on {self.recipe.lookup_lengths[0]} "
                 f"to {self.recipe.lookup_lengths[1]} letters, key 4, answer 4)", "",
                 *_table(["model", "seed", "key", *map(str, lengths)])]
        for architecture in self.architectures:
            for seed in self.seeds:
                for place, task in KEY_PLACES.items():
                    curve = self.curve(task.name, architecture, seed, task.family, lengths)
                    lines.append(f"| {architecture} | {seed} | {place} | {_cells(curve)} |")
        lines += ["", "Prefix minus suffix: the mean over lengths of the prefix-key model's exact match minus "
                  "the suffix-key model's, per seed. The paper's sign: positive for state-space and recurrent "
                  f"models, negative for transformers; a mean below {NOISE} either way, or models that score below "
                  f"{NOISE} on both keys, give no sign.", "",
                  *_table(["model", "architecture", *(f"seed {seed}" for seed in self.seeds), "mean", "paper's sign"])]
        for architecture in self.architectures:
            gaps = []
            for seed in self.seeds:
                prefix, suffix = (self.curve(task.name, architecture, seed, task.family, lengths)
                                  for task in (LOOKUP_PREFIX, LOOKUP_SUFFIX))
                pairs = [(p, s) for p, s in zip(prefix, suffix) if p is not None and s is not None]
                gaps.append(sum(p - s for p, s in pairs) / len(pairs) if pairs else None)
            wanted = 1 if kind(architecture) in ("ssm", "rnn") else -1
            average = mean(gaps)
            learned = max((value for task in KEY_PLACES.values() for seed in self.seeds
                           for value in self.curve(task.name, architecture, seed, task.family, lengths)
                           if value is not None), default=None)
            if average is None:
                sign = "-"
            elif learned is not None and learned < NOISE:
                sign = "neither learned"
            elif abs(average) < NOISE:
                sign = "no clear difference"
            else:
                sign = "yes" if average * wanted > 0 else "no (the other sign)"
            lines.append(f"| {architecture} | {kind(architecture)} | "
                         + " | ".join("-" if gap is None else f"{gap:+.2f}" for gap in gaps)
                         + f" | {'-' if average is None else f'{average:+.2f}'} | {sign} |")
            self.figures.setdefault(architecture, {})["prefix_minus_suffix"] = gaps
        return lines

    def examples_curve(self, architecture: str, seed: int) -> list[tuple[int, float | None]]:
        summary = self.summaries.get((COPY.name, architecture, seed, None))
        if summary is None:
            return []
        checkpoints = {int(step): seen for step, seen in summary["checkpoints"].items()}
        final = max(checkpoints)
        scored = set(self.recipe.checkpoint_steps) | {final}  # a checkpoint the recipe does not score is left out
        curve = []
        for step, seen in sorted(checkpoints.items()):
            if step not in scored:
                continue
            label = model_label(Job(architecture, COPY.name, seed), None if step == final else step)
            values = [self.score(label, f"random_copy_tf_{n}") for n in training_lengths(self.recipe)]
            curve.append((seen, mean(values)))
        return curve

    def examples_section(self) -> list[str]:
        lengths = ", ".join(map(str, training_lengths(self.recipe)))
        lines = [f"### 4. Examples needed (mean exact match on `random_copy_tf` at {lengths} letters, by examples "
                 "seen)",
                 "", *_table(["model", "seed", "exact match by examples seen", f"examples to {THRESHOLD:.0%}"])]
        for architecture in self.architectures:
            reached = []
            for seed in self.seeds:
                curve = self.examples_curve(architecture, seed)
                points = ", ".join(f"{seen:,}: {'-' if value is None else f'{value:.2f}'}" for seen, value in curve)
                first = examples_to(THRESHOLD, curve)
                reached.append(first)
                needed = "not reached" if first is None else f"{first:,}"
                lines.append(f"| {architecture} | {seed} | {points} | {needed} |")
            self.figures.setdefault(architecture, {})["examples_to_90"] = reached
        return lines

    def mqar_curve(self, architecture: str, seed: int, lengths, key: str = QUERY_ACCURACY_KEY,
                   width: int | None = None) -> list:
        label = model_label(Job(architecture, MQAR.name, seed, width))
        return [self.score(label, key.format(task=f"{MQAR.family}_tf_{pairs}")) for pairs in lengths]

    def mqar_goal_pairs(self) -> int:
        """The pairs the goal is read at: the most the models were trained on (the most scored
        up to there)."""
        return max(pairs for pairs in mqar_lengths(self.recipe) if pairs <= max(self.recipe.mqar_pairs[1], QUERIES))

    def mqar_at_goal(self, architecture: str, width: int | None) -> list[float | None]:
        """Each seed's query accuracy at `mqar_goal_pairs`."""
        return [self.mqar_curve(architecture, seed, (self.mqar_goal_pairs(),), width=width)[0] for seed in self.seeds]

    def state_bits(self, architecture: str, width: int | None) -> int | None:
        """A recurrent model's state bits (its summary); for attention, its cache at the goal's
        longest prompt (`cache_bits`: it grows with the input)."""
        summaries = [self.summaries.get((MQAR.name, architecture, seed, width)) for seed in self.seeds]
        summary = next((summary for summary in summaries if summary), None)
        if summary is None:
            return None
        if summary.get("state_bits"):
            return summary["state_bits"]
        tokens = 2 * self.mqar_goal_pairs() + 2 * QUERIES - 1
        return cache_bits(self.recipe.transformer_layers, summary["hidden_size"], tokens)

    def plateau_escape(self, architecture: str, seed: int, width: int | None) -> int | None:
        """The first logged step whose training loss is under ESCAPE_LOSS: where a model leaves the
        plateau of naming some value of the context (a loss near ln of the pairs)."""
        summary = self.summaries.get((MQAR.name, architecture, seed, width)) or {}
        return next((step for step, loss in summary.get("loss_curve", []) if loss < ESCAPE_LOSS), None)

    def mqar_section(self) -> list[str]:
        lengths, (low, high) = mqar_lengths(self.recipe), self.recipe.mqar_pairs
        goal = self.mqar_goal_pairs()
        lines = [f"### Multi-query associative recall (`mqar_tf`, Zoology's format; trained on {low} to {high} pairs)",
                 "", f"Query accuracy (the fraction of the {QUERIES} queries whose value is the argmax, "
                 f"teacher-forced) by number of pairs, then exact match (all {QUERIES}). State bits: a recurrent "
                 "model's state; attention has none (its cache grows with the input).", "",
                 *_table(["model", "architecture", "width", "seed", "state bits", *map(str, lengths),
                          f"all {QUERIES} at {lengths[0]}", f"all {QUERIES} at {lengths[-1]}",
                          f"steps to loss < {ESCAPE_LOSS:g}"])]
        for architecture in self.architectures:
            for width in self.widths:
                for seed in self.seeds:
                    summary = self.summaries.get((MQAR.name, architecture, seed, width)) or {}
                    accuracy = self.mqar_curve(architecture, seed, lengths, width=width)
                    exact = self.mqar_curve(architecture, seed, (lengths[0], lengths[-1]), "{task}", width)
                    escape = self.plateau_escape(architecture, seed, width)
                    bits = f"{summary['state_bits']:,}" if summary.get("state_bits") else "-"
                    shown = summary.get("hidden_size", width or "-")
                    lines.append(f"| {architecture} | {kind(architecture)} | {shown} | {seed} | {bits} | "
                                 f"{_cells(accuracy)} | {_cells(exact)} | "
                                 f"{'not reached' if escape is None else f'{escape:,}'} |")
                    self.figures.setdefault(architecture, {}).setdefault("mqar_query_accuracy", []).append(accuracy)
        return lines + ["", *self.mqar_goal_lines(goal)]

    def mqar_goal_lines(self, goal: int) -> list[str]:
        """Query accuracy at the goal's pairs by architecture and width (mean of the seeds, range),
        and whether the goal holds: attention at >= THRESHOLD at the smallest width, each
        fixed-state model below attention by more than NOISE at every width scored (the best
        attention model there: within the noise of an attention model that learned nothing is not
        below it) and rising with width."""
        widths = [width or self.recipe.hidden for width in self.widths]
        lines = [f"At {goal} pairs, query accuracy, mean of the seeds (range). The goal: attention at >= "
                 f"{THRESHOLD} at the smallest width; the fixed-state models below it and rising with width.", "",
                 *_table(["model", *(f"width {width}" for width in widths), "goal"])]
        attention = [[mean(self.mqar_at_goal(a, width)) for a in self.architectures if "transformer" in kind(a)]
                     for width in self.widths]
        attention_best = [max((value for value in values if value is not None), default=None) for values in attention]
        for architecture in self.architectures:
            means = [mean(self.mqar_at_goal(architecture, width)) for width in self.widths]
            if "transformer" in kind(architecture):
                reached = means[0] is not None and means[0] >= THRESHOLD - 1e-9
                verdict = f">= {THRESHOLD} at width {widths[0]}: {'reached' if reached else 'not reached'}"
            elif not (known := [value for value in means if value is not None]):
                verdict = "not scored"
            else:
                below = all(value is None or (best is not None and value <= best - NOISE)
                            for value, best in zip(means, attention_best))
                rising = len(known) > 1 and all(b >= a - NOISE for a, b in zip(known, known[1:])) \
                    and known[-1] - known[0] >= NOISE
                verdict = (f"below attention: {'yes' if below else 'no'}; rising with width: "
                           f"{'yes' if rising else 'no'}")
            cells = " | ".join(spread(self.mqar_at_goal(architecture, width)) for width in self.widths)
            lines.append(f"| {architecture} | {cells} | {verdict} |")
            self.figures.setdefault(architecture, {})["mqar_at_goal"] = means
        return lines

    def markdown(self) -> str:
        """The intro of the run's leading experiment, the models, then each experiment's sections."""
        experiments_run = [EXPERIMENTS[name] for name in experiments(self.tasks)]
        sections = [experiments_run[0].intro(self), self.models_section(), [""]]
        sections += [section for experiment in experiments_run for section in experiment.sections(self)]
        return "\n".join(line for section in sections for line in section)

    def paper_intro(self) -> list[str]:
        recipe = self.recipe
        phases = recipe.phases
        return [
            "## Trained from scratch: the paper's synthetic experiments", "",
            f"Recipe `{self.recipe_name}`: one model per task and seed (seeds {', '.join(map(str, self.seeds))}), "
            f"the authors' character formats, AdamW (weight decay {recipe.weight_decay}, learning rate "
            f"{recipe.learning_rate:g}, {recipe.warmup_steps} warm-up steps, linear decay); copy: "
            f"{phases[COPY.name].single_steps} steps of {recipe.batch_size} single examples, then "
            f"{phases[COPY.name].packed_steps} steps of {recipe.packed_rows} rows of {recipe.context} tokens packed "
            f"with examples; lookups: {phases[LOOKUP_PREFIX.name].single_steps} and "
            f"{phases[LOOKUP_PREFIX.name].packed_steps}. "
            f"Scored through `lm_eval --model hf`, teacher-forced, {recipe.evaluation_docs} docs per length. "
            "How each departs from the authors: docs/training.md.", ""]

    def paper_sections(self) -> list[list[str]]:
        return [self.length_section(), [""], self.ngram_section(), [""], self.lookup_section(), [""],
                self.examples_section(), [""]]

    def mqar_intro(self) -> list[str]:
        """The opening of the report of a run of `mqar` alone."""
        recipe, phases = self.recipe, self.recipe.phases[MQAR.name]
        low, high = recipe.mqar_pairs
        widths = ", ".join(str(width or recipe.hidden) for width in self.widths)
        curriculum = (f"the first {phases.easy_steps} steps on {phases.easy_lengths[0]} to {phases.easy_lengths[1]} "
                      f"pairs, then {low} to {high}" if phases.easy_lengths else f"{low} to {high} pairs")
        return ["## Trained from scratch: multi-query associative recall", "",
                f"Recipe `{self.recipe_name}`: one model per architecture, width ({widths}) and seed (seeds "
                f"{', '.join(map(str, self.seeds))}), {recipe.transformer_layers} attention, {recipe.mamba_layers} "
                f"Mamba-2 or {recipe.lstm_layers} LSTM layers, on `mqar` in Zoology's format "
                "(`copy_tasks_mqar_format=zoology`: one symbol a key and a value, keys and values from disjoint "
                "vocabularies of 512, then every key once in random order, each followed by its value, as Zoology's "
                f"training asks them; the loss on every value); {curriculum}; AdamW as for the paper's tasks, "
                f"{phases.single_steps} steps of {recipe.batch_size} examples"
                + (f", then {phases.packed_steps} steps of {recipe.packed_rows} packed rows of {recipe.context} tokens"
                   if phases.packed_steps else "")
                + f". Scored through `lm_eval --model hf`, teacher-forced, {recipe.evaluation_docs} docs per number "
                f"of pairs, {QUERIES} keys asked a doc.", ""]

    def mqar_sections(self) -> list[list[str]]:
        return [self.mqar_section(), [""]]

    def mqar_plot(self) -> dict[str, bytes]:
        """Query accuracy against pairs (mean of the seeds, a line per architecture and width),
        against state bits at the goal's pairs (a line per architecture over its widths), and the
        training loss by step (each model: the plateau and its escape)."""
        lengths, goal = mqar_lengths(self.recipe), self.mqar_goal_pairs()

        def name(architecture: str, width: int | None) -> str:
            return architecture if width is None else f"{architecture} w{width}"

        pairs_lines = [Line(name(a, width), lengths, [mean(values) for values in zip(
            *(self.mqar_curve(a, seed, lengths, width=width) for seed in self.seeds))], dashed=width != self.widths[0])
                       for a in self.architectures for width in self.widths]
        state_lines = []
        for architecture in self.architectures:
            points = [(self.state_bits(architecture, width), mean(self.mqar_at_goal(architecture, width)))
                      for width in self.widths]
            points = [(bits, value) for bits, value in points if bits is not None]
            state_lines.append(Line(architecture, [bits for bits, _ in points], [value for _, value in points]))
        plots = {"training_mqar.png": line_plot(pairs_lines, "key-value pairs (K)", "query accuracy (mqar_tf)",
                                                log_x=True),
                 "training_mqar_state.png": line_plot(state_lines, f"state bits (attention: its cache at {goal} pairs)",
                                                      f"query accuracy at {goal} pairs", log_x=True)}
        loss_lines = [Line(f"{name(a, width)} s{seed}", *zip(*curve), dashed=seed != self.seeds[0])
                      for a in self.architectures for width in self.widths for seed in self.seeds
                      if (curve := (self.summaries.get((MQAR.name, a, seed, width)) or {}).get("loss_curve"))]
        if loss_lines:
            plots["training_mqar_loss.png"] = line_plot(loss_lines, "training step", "training loss (nats)",
                                                        y_range=None)
        return plots

    def plots(self) -> dict[str, bytes]:
        """The experiments' PNGs by file name, each experiment's in the run's order."""
        return {name: png for experiment in experiments(self.tasks)
                for name, png in EXPERIMENTS[experiment].plots(self).items()}

    def paper_plots(self) -> dict[str, bytes]:
        """The paper's experiments' PNGs: the mean of the seeds per architecture."""
        lengths, lookups = copy_lengths(self.recipe), lookup_lengths(self.recipe)
        references = self.reference_labels()
        copy_lines = [Line(a, lengths, self.mean_curve(COPY.name, a, COPY.family, lengths))
                      for a in self.architectures]
        copy_lines += [Line(label, lengths, [self.score(label, f"random_copy_tf_{n}") for n in lengths], grey=True)
                       for label in references]
        ngram_lines = [Line(a, DUPLICATED_NGRAMS, self.mean_curve(COPY.name, a, "dup_ngram_copy", DUPLICATED_NGRAMS))
                       for a in self.architectures]
        ngram_lines += [Line(label, DUPLICATED_NGRAMS, [self.score(label, f"dup_ngram_copy_tf_{n}")
                                                        for n in DUPLICATED_NGRAMS], grey=True)
                        for label in references]
        lookup_lines = [Line(f"{a} {place}", lookups, self.mean_curve(task.name, a, task.family, lookups),
                             dashed=task is LOOKUP_SUFFIX)
                        for a in self.architectures for place, task in KEY_PLACES.items()]
        example_lines = []
        for architecture in self.architectures:
            for seed in self.seeds:
                curve = self.examples_curve(architecture, seed)
                example_lines.append(Line(f"{architecture} s{seed}", [seen for seen, _ in curve],
                                          [value for _, value in curve], dashed=seed != self.seeds[0]))
        return {
            "training_length_generalization.png": line_plot(copy_lines, "string length (letters)", log_x=True),
            "training_duplicated_ngrams.png": line_plot(ngram_lines, "duplicated n-gram (n)"),
            "training_prefix_suffix.png": line_plot(lookup_lines, "string length (letters)"),
            "training_examples_needed.png": line_plot(example_lines, "examples seen"),
        }


@dataclass(frozen=True)
class Experiment:
    """How the report reads the tasks of one experiment (`TrainingTask.experiment`)."""

    intro: Callable[[Report], list[str]]  # the report's opening where it leads the run
    sections: Callable[[Report], list[list[str]]]
    plots: Callable[[Report], dict[str, bytes]]


EXPERIMENTS = {PAPER: Experiment(Report.paper_intro, Report.paper_sections, Report.paper_plots),
               MQAR.experiment: Experiment(Report.mqar_intro, Report.mqar_sections, Report.mqar_plot)}
