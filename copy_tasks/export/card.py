"""The dataset card of an export: the hub's YAML header, then what the docs are and how to score them.

The header (`configs` with the data files of each split, `dataset_info` with the features as
`datasets` writes them, license, task categories, pretty name) is what `datasets.load_dataset`
and the hub read; the prose cites the paper and says how the docs were made (copy-tasks
version, seed, options, data version, each split's sha256) and how our tasks score them.

    >>> from copy_tasks.export import plan
    >>> card = dataset_card(plan(["random_copy"], [10], "generation", {"copy_tasks_docs": 2}), {})
    >>> card.splitlines()[0], "  - split: length_10" in card, "path: random_copy/length_10.parquet" in card
    ('---', True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from copy_tasks.common.version import __version__
from copy_tasks.probes.families import task_settings
from copy_tasks.probes.family import GENERATION
from copy_tasks.probes.options import SourceOption

PRETTY_NAME = "copy-tasks: recall probes after Repeat After Me (Jelassi et al., ICML 2024)"
CITATION = """\
@inproceedings{jelassi2024repeat,
  title         = {Repeat After Me: Transformers are Better than State Space Models at Copying},
  author        = {Jelassi, Samy and Brandfonbrener, David and Kakade, Sham M. and Malach, Eran},
  booktitle     = {Proceedings of the 41st International Conference on Machine Learning (ICML)},
  year          = {2024},
  eprint        = {2402.01032},
  archivePrefix = {arXiv}
}"""
SCORING = """\
## Scoring

Generation (configs named like the family): greedy decoding, the prompt as it is, the answer
cut before the first of the family's stop sequences and after at most `generation_budget` new
tokens. Each answer gets two verdicts, both functions of its text:

- **the authors' rule** ({authors}): the post-processing and comparison of the paper's code, the
  number the paper reports;
- **our rule** (`exact_match`, with partial credit {partial}): the answer at the start of the
  text whatever follows it, also after a restatement of the prompt's last line, as chat models
  write it.

Teacher-forced (configs ending in `_tf`): one log-likelihood of `continuation` after `prompt`;
`exact_match` is 1 when every token of the tokenizer's segmentation of the continuation is the
model's argmax (lm-eval's `is_greedy`), `bits_per_char` is the continuation's information
under the model per character.

The public scorer gives the verdicts our lm-eval tasks give, for a row of this dataset:

```python
import copy_tasks  # pip install copy-tasks

copy_tasks.score(row, answer)               # generation: both rules
copy_tasks.score_teacher_forced(row, logprob, is_greedy)
```
{several}
`docs/scoring.md` in copy-tasks states the rules family by family."""

SEVERAL_QUESTIONS = """
A row of {families} asks several questions in turn: `copy_tasks.questions(row)` gives one prompt
each (the questions before it answered rightly), and `copy_tasks.score(row, answers)` takes the
list of answers, one per question (`query_accuracy`: the fraction right; `exact_match`: all);
`copy_tasks.score_teacher_forced(row, logprobs, is_greedy)` the lists of each question's values.
"""


def _size_category(rows: int) -> str:
    for bound, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if rows < bound:
            return name
    return "100K<n<1M"


def header(splits: Sequence) -> str:
    """The card's YAML header, between `---` lines."""
    from datasets.info import DatasetInfo, DatasetInfosDict
    from datasets.splits import SplitDict, SplitInfo
    from huggingface_hub import DatasetCardData

    configs: dict[str, list] = {}
    for split in splits:
        configs.setdefault(split.config, []).append(split)
    infos = DatasetInfosDict()
    for config, members in configs.items():
        parts = SplitDict()
        for split in members:
            parts.add(SplitInfo(name=split.name, num_examples=len(split.rows)))
        infos[config] = DatasetInfo(features=members[0].dataset.features, splits=parts)
    card = DatasetCardData(
        language="en", license="mit", pretty_name=PRETTY_NAME, task_categories=["text-generation"],
        size_categories=_size_category(sum(len(split.rows) for split in splits)),
        tags=["recall", "copying", "long-context", "lm-evaluation-harness"],
        configs=[{"config_name": config, "data_files": [{"split": split.name, "path": split.path} for split in members]}
                 for config, members in configs.items()],
    )
    infos.to_dataset_card_data(card)
    return f"---\n{card.to_yaml()}\n---\n"


def _option_text(option, value: Any) -> str:
    """An option's value for the card: a local source by its file name, not the path."""
    if isinstance(option, SourceOption) and value != option.default:
        return f"a local source `{Path(value).name}`"
    return f"`{value}`"


def provenance(splits: Sequence, metadata: Mapping[str, Any]) -> str:
    """How the docs were made: versions, seed, options, and each split's sha256."""
    lines = ["## How the docs were made", "",
             f"Drawn by copy-tasks {__version__} (`copy-tasks export`). Doc `i` of a split depends only on "
             "(family, data version, length, seed, `i`) and the options below, through a sha256-derived "
             "generator: the same command writes the same docs. Each split's sha256 is over the JSON of "
             "`[prompt, target, continuation]` of its docs in order; an lm-eval run of the same task records "
             "the same value in its results, under `configs.<task>.metadata.copy_tasks_docs_sha256`.", "",
             "| config | split | docs | seed | data version | task version | options | sha256 |",
             "|---|---|---|---|---|---|---|---|"]
    for split in splits:
        family, settings = split.family, task_settings(split.family, metadata)
        options = ", ".join(f"{option.key} = {_option_text(option, value)}"
                            for option, (_, value) in zip(family.options, settings.doc_options)) or "none"
        lines.append(f"| {split.config} | {split.name} | {len(split.rows)} | {settings.seed} | {family.data_version} | "
                     f"{family.task_version} | {options} | `{split.sha256}` |")
    return "\n".join(lines)


def contents(splits: Sequence) -> str:
    """What each config holds, and the fields of a row."""
    lines = ["## Configs", "", "| config | what | unit | splits | stop sequences | variant |",
             "|---|---|---|---|---|---|"]
    seen = {}
    for split in splits:
        seen.setdefault(split.config, []).append(split)
    for config, members in seen.items():
        family = members[0].family
        stops = ", ".join(f"`{stop!r}`" for stop in family.stop_sequences)
        variant = "generation" if members[0].variant == GENERATION else "teacher-forced"
        lines.append(f"| `{config}` | {family.summary} | {family.unit} | "
                     f"{', '.join(split.name for split in members)} | {stops} | {variant} |")
    lines += ["", "Every row has `prompt` (what the model reads), `continuation` (what it should write after "
              "the prompt: the teacher-forced target), `target` (the answer as the scorers compare it), "
              "`generation_budget` (the new tokens our tasks allow: room for every accepted answer in any "
              "segmentation), `family`, `length`, `unit`, `seed` and `index` (doc `i` of the split), and the "
              "fields of its family, below."]
    if any(members[0].family.needs_download for members in seen.values()):
        lines += ["", "The families marked as downloading in the table hold text from their sources (C4, "
                  "SQuAD), under those sources' licenses."]
    for config, members in seen.items():
        lines += ["", f"### `{config}`", ""]
        lines += [f"- `{field}`: {note}" for field, note in members[0].family.field_notes]
        lines += ["", f"An example row (`{members[0].name}`, doc 0; long text cut at {EXAMPLE_CHARACTERS} "
                  "characters):", "", "```json", example_row(members[0].rows[0]), "```"]
    return "\n".join(lines)


EXAMPLE_CHARACTERS = 300


def example_row(row: Mapping[str, Any]) -> str:
    """A row as indented JSON, each text over `EXAMPLE_CHARACTERS` cut and marked.

    >>> print(example_row({"prompt": "a" * 301, "length": 10}))
    {
      "prompt": "aaa...aaa[... 1 more characters]",
      "length": 10
    }
    """
    import json

    def shown(value: Any) -> Any:
        if isinstance(value, str) and len(value) > EXAMPLE_CHARACTERS:
            return value[:EXAMPLE_CHARACTERS] + f"[... {len(value) - EXAMPLE_CHARACTERS} more characters]"
        return value

    return json.dumps({key: shown(value) for key, value in row.items()}, indent=2, ensure_ascii=False)


def _listed(names) -> str:
    """Names in code spans, each once, in order."""
    return ", ".join(f"`{name}`" for name in dict.fromkeys(names))


def dataset_card(splits: Sequence, metadata: Mapping[str, Any], folder: str = "copy-tasks-docs") -> str:
    """The README.md of an export written into the folder named `folder`."""
    configs = list(dict.fromkeys(split.config for split in splits))
    usage = (f'```python\nimport datasets\n\n# this folder; once pushed to the hub (push_to_hub), its repository id\n'
             f'docs = datasets.load_dataset("{folder}", "{configs[0]}", split="{splits[0].name}")\n```\n\n'
             f"Written by copy-tasks {__version__} (`pip install copy-tasks`; the same docs as its lm-eval tasks "
             f"`{splits[0].config}_{splits[0].length}` and the like score).")
    families = list({split.family.name: split.family for split in splits}.values())
    asked = "; ".join(f"`{family.name}`: {family.summary}" for family in families)
    intro = (f"The docs that copy-tasks' lm-eval tasks score, for {asked}. Recall probes after Jelassi, "
             "Brandfonbrener, Kakade and Malach, *Repeat After Me: Transformers are Better than State Space Models "
             "at Copying*, ICML 2024 (arXiv:2402.01032). One config per family and variant, one split per length "
             "in the family's unit.")
    several = [family.name for family in families if family.queries is not None]
    authors = _listed(name for family in families for name in family.authors_metrics)
    scoring = SCORING.format(authors=authors or "none for these families: their sources give no rule for a "
                                                "generated answer",
                             partial=_listed(name for family in families for name in family.partial_credit),
                             several=SEVERAL_QUESTIONS.format(families=_listed(several)) if several else "")
    return "\n\n".join([header(splits) + f"# {PRETTY_NAME}", intro, usage, contents(splits),
                        provenance(splits, metadata), scoring, f"## Citation\n\n```bibtex\n{CITATION}\n```", ""])
