"""The report of `copy-tasks train`: the paper's four synthetic experiments as tables (each seed's
numbers, their mean and spread) and plots, from the scores of `train_evaluation`; for a run of
the `mqar` task, Zoology's multi-query associative recall by number of pairs.

    >>> spread([0.5, 0.75])
    '0.62 (0.50-0.75)'
    >>> examples_to(0.9, [(100, 0.5), (200, 0.95), (300, 0.85)])
    200
"""

from __future__ import annotations

import math
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

THRESHOLD = 0.9  # exact match at which a model has learned to copy (experiment 4)
GOAL_PAIRS = 64  # the pairs the mqar goals read (Zoology's figure reads 64)
ATTENTION_GOALS = {"largest": 0.99, "smallest": 0.95}  # attention's query accuracy at GOAL_PAIRS, by width
TRAIL = 0.3  # how far below the best attention model of its width a fixed-state model must be
RISE = 0.2  # how far above its smallest state a fixed-state architecture's largest must be
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
        """The pairs the goals and the memory plot read: `GOAL_PAIRS` where scored, else the most scored."""
        lengths = mqar_lengths(self.recipe)
        return GOAL_PAIRS if GOAL_PAIRS in lengths else lengths[-1]

    def mqar_at_goal(self, architecture: str, width: int | None) -> list[float | None]:
        """Each seed's query accuracy at `mqar_goal_pairs`."""
        return [self.mqar_curve(architecture, seed, (self.mqar_goal_pairs(),), width=width)[0] for seed in self.seeds]

    def summary_of(self, architecture: str, width: int | None) -> dict:
        """A trained model's summary (its first seed's: the seeds share their shapes), or {}."""
        return next((summary for seed in self.seeds
                     if (summary := self.summaries.get((MQAR.name, architecture, seed, width)))), {})

    def memory_bits(self, architecture: str, width: int | None, pairs: int) -> int | None:
        """What a model keeps after the last question of a doc of `pairs` pairs (2 x pairs + the
        8 keys asked, in Zoology's one-symbol format): its fixed state and what it keeps per
        token, as its summary records them; None where neither is recorded."""
        summary = self.summary_of(architecture, width)
        fixed, per_token = summary.get("state_bits"), summary.get("state_bits_per_token")
        if fixed is None and per_token is None:
            return None
        return (fixed or 0) + (per_token or 0) * (2 * pairs + QUERIES)

    def plateau_escape(self, architecture: str, seed: int, width: int | None) -> int | None:
        """The first logged step whose training loss is under ESCAPE_LOSS: where a model leaves the
        plateau of naming some value of the context (a loss near ln of the pairs)."""
        summary = self.summaries.get((MQAR.name, architecture, seed, width)) or {}
        return next((step for step, loss in summary.get("loss_curve", []) if loss < ESCAPE_LOSS), None)

    def mqar_models(self) -> list[tuple[str, int | None]]:
        """(architecture, width) of every model of the run, in the recipe's order."""
        return [(architecture, width) for architecture in self.architectures
                for width in self.recipe.widths_of(architecture)]

    def mqar_section(self) -> list[str]:
        lengths, (low, high) = mqar_lengths(self.recipe), self.recipe.mqar_pairs
        lines = [f"### Multi-query associative recall (`mqar_tf`, Zoology's format; trained on {low} to {high} pairs)",
                 "", f"Query accuracy (the fraction of the {QUERIES} queries whose value is the argmax, "
                 f"teacher-forced) by number of pairs, then exact match (all {QUERIES}). State bits: what a model "
                 "keeps that does not grow (a recurrent state, convolution inputs); bits a token: what grows "
                 "(attention's keys and values), both in float32, measured from the model's cache (by hand for "
                 "the LSTM and conv-then-attention).", "",
                 *_table(["model", "architecture", "width", "seed", "state bits", "bits a token", *map(str, lengths),
                          f"all {QUERIES} at {lengths[0]}", f"all {QUERIES} at {lengths[-1]}",
                          f"steps to loss < {ESCAPE_LOSS:g}"])]
        for architecture, width in self.mqar_models():
            for seed in self.seeds:
                summary = self.summaries.get((MQAR.name, architecture, seed, width)) or {}
                accuracy = self.mqar_curve(architecture, seed, lengths, width=width)
                exact = self.mqar_curve(architecture, seed, (lengths[0], lengths[-1]), "{task}", width)
                escape = self.plateau_escape(architecture, seed, width)
                bits = f"{summary['state_bits']:,}" if summary.get("state_bits") else "-"
                per_token = f"{summary['state_bits_per_token']:,}" if summary.get("state_bits_per_token") else "-"
                shown = summary.get("hidden_size", width or "-")
                lines.append(f"| {architecture} | {kind(architecture)} | {shown} | {seed} | {bits} | {per_token} | "
                             f"{_cells(accuracy)} | {_cells(exact)} | "
                             f"{'not reached' if escape is None else f'{escape:,}'} |")
                self.figures.setdefault(architecture, {}).setdefault("mqar_query_accuracy", []).append(accuracy)
        return lines + ["", *self.mqar_goal_lines(self.mqar_goal_pairs())]

    def mqar_goal_lines(self, goal: int) -> list[str]:
        """Query accuracy at the goal's pairs by model and width (mean of the seeds, range), and
        each goal: attention at >= `ATTENTION_GOALS` (the largest width's, the smallest's); each
        fixed-state model below the best attention model of its width by at least `TRAIL`; a
        fixed-state architecture's largest state at least `RISE` above its smallest."""
        widths = sorted({width for _, width in self.mqar_models()}, key=lambda width: width or 0)
        attention = [(a, width) for a, width in self.mqar_models() if "transformer" in kind(a)]
        best = {width: max((value for a, w in attention if w == width
                            if (value := mean(self.mqar_at_goal(a, w))) is not None), default=None) for width in widths}
        lines = [f"At {goal} pairs, query accuracy, mean of the seeds (range), against the goals: attention at >= "
                 f"{ATTENTION_GOALS['largest']} at width {widths[-1]} and >= {ATTENTION_GOALS['smallest']} at width "
                 f"{widths[0]}; each fixed-state model at least {TRAIL} below the best attention model of its width; "
                 f"each fixed-state architecture's largest state at least {RISE} above its smallest.", "",
                 *_table(["model", "width", f"query accuracy at {goal}", "memory at the last question (bits)", "goal"])]
        for architecture, width in self.mqar_models():
            values = self.mqar_at_goal(architecture, width)
            average = mean(values)
            if "transformer" in kind(architecture):
                wanted = {widths[0]: ATTENTION_GOALS["smallest"], widths[-1]: ATTENTION_GOALS["largest"]}.get(width)
                verdict = ("-" if wanted is None else f">= {wanted}: "
                           + ("reached" if average is not None and average >= wanted - 1e-9 else "not reached"))
            elif average is None or best.get(width) is None:
                verdict = "not scored"
            else:
                gap = best[width] - average
                verdict = f"{gap:.2f} below the best attention: {'reached' if gap >= TRAIL - 1e-9 else 'not reached'}"
            bits = self.memory_bits(architecture, width, goal)
            lines.append(f"| {architecture} | {width or self.recipe.hidden} | {spread(values)} | "
                         f"{'-' if bits is None else f'{bits:,}'} | {verdict} |")
            self.figures.setdefault(architecture, {}).setdefault("mqar_at_goal", []).append(average)
        return lines + ["", *self.mqar_rise_lines(goal)]

    def mqar_rise_lines(self, goal: int) -> list[str]:
        """Per fixed-state architecture family (Mamba-2 over its states, the LSTM over its
        widths): accuracy at the goal's pairs from its smallest state to its largest."""
        families: dict[str, list[tuple[int, float]]] = {}
        for architecture, width in self.mqar_models():
            bits, average = self.memory_bits(architecture, width, goal), mean(self.mqar_at_goal(architecture, width))
            if "transformer" not in kind(architecture) and bits is not None and average is not None:
                families.setdefault(architecture.split("-state")[0], []).append((bits, average))
        lines = []
        for family, points in families.items():
            if len(points) < 2:
                continue
            (low_bits, low), (high_bits, high) = min(points), max(points)
            lines.append(f"- {family}: {low:.2f} at {low_bits:,} bits, {high:.2f} at {high_bits:,} bits: rises with "
                         f"state bits by {high - low:+.2f} ({'reached' if high - low >= RISE - 1e-9 else 'not reached'}"
                         f", the goal {RISE})")
            self.figures.setdefault(family, {})["mqar_rise"] = high - low
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
            f"{phases[LOOKUP_PREFIX.name].packed_steps}{self.own_phases()}. "
            f"Scored through `lm_eval --model hf`, teacher-forced, {recipe.evaluation_docs} docs per length. "
            "How each departs from the authors: docs/training.md.", ""]

    def own_phases(self) -> str:
        """The architectures that train a task for steps of their own (`Recipe.architecture_phases`), as
        `; transformer-rope's copy: 900 single and 0 packed steps`.

        >>> from types import SimpleNamespace
        >>> from copy_tasks.experiments.recipes import RECIPES
        >>> Report.own_phases(SimpleNamespace(recipe=RECIPES["full"]))
        "; transformer-rope's copy: 900 single and 0 packed steps"
        """
        return "".join(f"; {architecture}'s {task}: {phases.single_steps} single and {phases.packed_steps} packed steps"
                       for architecture, tasks in self.recipe.architecture_phases.items()
                       for task, phases in tasks.items())

    def paper_sections(self) -> list[list[str]]:
        return [self.length_section(), [""], self.ngram_section(), [""], self.lookup_section(), [""],
                self.examples_section(), [""]]

    def mqar_intro(self) -> list[str]:
        """The opening of the report of a run of `mqar` alone."""
        recipe, phases = self.recipe, self.recipe.phases[MQAR.name]
        low, high = recipe.mqar_pairs
        models = "; ".join(f"{architecture} at width {', '.join(str(width or recipe.hidden) for width in widths)}"
                           for architecture in self.architectures
                           if (widths := recipe.widths_of(architecture)))
        rates = ", ".join(f"{architecture} {rate:g}" for architecture, rate in recipe.learning_rates.items()
                          if architecture in self.architectures)
        curriculum = (f"the first {phases.easy_steps} steps on {phases.easy_lengths[0]} to {phases.easy_lengths[1]} "
                      f"pairs, then {low} to {high}" if phases.easy_lengths else f"{low} to {high} pairs")
        tied = ", ".join(name for name in recipe.tied_heads if name in self.architectures)
        return ["## Trained from scratch: multi-query associative recall", "",
                f"Recipe `{self.recipe_name}`: one model per architecture, width and seed (seeds "
                f"{', '.join(map(str, self.seeds))}): {models}; {recipe.transformer_layers} attention, "
                f"{recipe.mamba_layers} Mamba-2 or {recipe.lstm_layers} LSTM layers, on `mqar` in Zoology's format "
                "(`copy_tasks_mqar_format=zoology`: one symbol a key and a value, keys and values from disjoint "
                "vocabularies of 512, then every key once in random order, no value written after a query, as "
                "Zoology's sequences; the loss on every value and nothing else); "
                f"{curriculum}; AdamW (weight decay {recipe.weight_decay}), learning rate {recipe.learning_rate:g}"
                + (f" ({rates})" if rates else "") + f", {recipe.warmup_steps} warm-up steps, linear decay, "
                f"{phases.single_steps} steps of {recipe.batch_size} examples"
                + (f"; heads tied to the embedding: {tied} and transformer-conv" if tied else "")
                + f". Scored through `lm_eval --model hf`, teacher-forced, {recipe.evaluation_docs} docs per number "
                f"of pairs, {QUERIES} keys asked a doc.", ""]

    def mqar_sections(self) -> list[list[str]]:
        return [self.mqar_section(), [""]]

    def mqar_plot(self) -> dict[str, bytes]:
        """Query accuracy against pairs (mean of the seeds, a line per model), against the memory
        each model holds at the goal's pairs (its fixed state plus its keys and values there: a
        point per model, a line per architecture over its widths or states) with the bound of a
        fixed state (`recall_bound`), and the training loss by step (the plateau and its escape)."""
        from copy_tasks.report.memory_axis import recall_bound

        lengths, goal = mqar_lengths(self.recipe), self.mqar_goal_pairs()
        models = self.mqar_models()

        def name(architecture: str, width: int | None) -> str:
            return architecture if width is None else f"{architecture} w{width}"

        smallest = min((width or 0) for _, width in models)
        pairs_lines = [Line(name(a, width), lengths, [mean(values) for values in zip(
            *(self.mqar_curve(a, seed, lengths, width=width) for seed in self.seeds))],
            dashed=(width or 0) != smallest) for a, width in models]
        memory_lines = []
        for family in dict.fromkeys(architecture.split("-state")[0] for architecture, _ in models):
            points = sorted((bits, mean(self.mqar_at_goal(a, width))) for a, width in models
                            if a.split("-state")[0] == family and (bits := self.memory_bits(a, width, goal)))
            memory_lines.append(Line(family, [bits for bits, _ in points], [value for _, value in points]))
        every = [bits for line in memory_lines for bits in line.xs]
        if every:
            span = [min(every) / 4 * 1.3 ** step for step in range(1 + int(math.log(16 * max(every) / min(every),
                                                                                   1.3)))]
            memory_lines.append(Line("a fixed state's bound (Theorem 2.7)", span, [recall_bound(b, goal) for b in span],
                                     grey=True))
        plots = {"training_mqar.png": line_plot(pairs_lines, "key-value pairs (K)", "query accuracy (mqar_tf)",
                                                log_x=True),
                 "training_mqar_state.png": line_plot(memory_lines, f"memory at {goal} pairs (bits: state, and "
                                                      "keys and values)", f"query accuracy at {goal} pairs",
                                                      log_x=True)}
        loss_lines = [Line(f"{name(a, width)} s{seed}", *zip(*curve), dashed=seed != self.seeds[0])
                      for a, width in models for seed in self.seeds
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
