"""The leaderboard CSV's schema: `LeaderboardRow`, one row of `leaderboard.csv`, whose fields are
the CSV's columns, in order, each with what it holds (`column_table` prints them for
docs/leaderboard.md), and the schema's version with the older ones a build upgrades."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields


def column(meaning: str, numeric: bool = False):
    """A field of `LeaderboardRow`: what its column holds, and whether it is written as a number."""
    return field(metadata={"meaning": meaning, "numeric": numeric})


Cell = str | int | float | None  # "" or None: an empty cell


@dataclass(frozen=True)
class LeaderboardRow:
    """One (run, task, metric) of the leaderboard: its key."""

    run: str = column("`<model>@<date of the lm-eval run>`: two runs of one model are two sets of rows")
    model: str = column("the model: its `pretrained=` name, or an analytic model with its args")
    name: str = column("the name the summary, page and plots show: a local path's last folder, a hub id as it is, "
                       "or the label of `copy-tasks leaderboard --name PATTERN=LABEL`; one per model, kept by "
                       "later builds")
    model_revision: Cell = column("hub sha or revision, as lm-eval records them")
    model_source: Cell = column("the PyPI source of a model `copy-tasks model` prepared")
    backend: str = column("the lm-eval backend (`hf`, `hf_fast`, `vllm`, `ngram_copier`, ...)")
    dtype: str = column("the model's dtype, as lm-eval records it")
    parameters: Cell = column("the model's parameter count", numeric=True)
    architecture: str = column("`transformer` (with its position scheme where the run recorded it, e.g. "
                               "`transformer (Hard-ALiBi)`), `ssm`, `rnn`, `hybrid`, `reference model` or "
                               "`unknown`, from the `model_type` of the model's config")
    model_type: Cell = column("the `model_type` of the model's config")
    state_bits: Cell = column("the bits the model keeps that do not grow with the prompt, as the run recorded them "
                              "(`copy_tasks_state_bits`: measured from its cache, at the width each tensor is kept "
                              "in: recurrent states, convolution inputs, full sliding windows; by hand for our LSTM "
                              "and conv-then-attention; an analytic model's budget); 0 for a plain transformer, "
                              "empty where the run could not tell", numeric=True)
    state_bits_per_token: Cell = column("the bits it keeps per token of the prompt (full attention's keys and values; "
                                        "`copy_tasks_state_bits_per_token`); 0 for a fixed state, empty where the "
                                        "run could not tell", numeric=True)
    lm_eval_version: Cell = column("lm-eval's version in the run")
    copy_tasks_version: Cell = column("copy-tasks' version in the run")
    task: str = column("the lm-eval task, `<family>[_tf]_<length>`")
    family: str = column("the probe family")
    variant: str = column("`generation` or `teacher_forced`")
    task_version: Cell = column("the task's version (the family README's changelog says what changed)", numeric=True)
    task_hash: Cell = column("lm-eval's hash of the task's samples")
    docs_sha256: Cell = column("copy-tasks' fingerprint of the docs: the same docs, the same value")
    seed: Cell = column("the data seed", numeric=True)
    length: int = column("the length, in `unit`", numeric=True)
    unit: str = column("the family's unit of length (entries, symbols, words, letters, n)")
    metric: str = column("the metric (`exact_match`, `authors_exact_match`, `overflow`, ...)")
    n: Cell = column("the docs behind the value", numeric=True)
    value: float | None = column("the metric's value (empty: not reported, or NaN)", numeric=True)
    stderr: float | None = column("its standard error", numeric=True)
    overflow_docs: Cell = column("docs whose prompt and answer did not fit the context, or `unknown`", numeric=True)
    date: str = column("the run's date, UTC")
    flags: str = column("what changes what the number means, `;`-separated (`limit=5`, `samples=3|7`, "
                        "`gen_kwargs={...}`, `not_greedy`, `chat_template`, `system_instruction=<sha>` (or "
                        "`system_instruction_dropped` where the chat template dropped it), "
                        "`num_fewshot=k`, `max_gen_toks_sent=...`, family options other than their defaults), "
                        "each cut at 120 characters")
    source_file: str = column("the name of the results file the row came from")

    def cells(self) -> dict[str, Cell]:
        """The row as {column: value}, without `schema_version`."""
        return asdict(self)


SCHEMA_VERSION = "4"


# Schema 1 had no `name`, schema 2 no `state_bits`, schema 3 no `state_bits_per_token`: a build
# reads such a CSV and writes it back as schema 4.
ADDED_IN_SCHEMA = {"name": "2", "state_bits": "3", "state_bits_per_token": "4"}


UPGRADABLE_SCHEMAS = {version: tuple(entry.name for entry in fields(LeaderboardRow)
                                     if ADDED_IN_SCHEMA.get(entry.name, "1") <= version)
                      for version in ("1", "2", "3")}


COLUMNS = ("schema_version", *(entry.name for entry in fields(LeaderboardRow)))


NUMERIC_COLUMNS = frozenset(entry.name for entry in fields(LeaderboardRow) if entry.metadata["numeric"])


def column_table() -> str:
    """The CSV's columns as a Markdown table, in order (docs/leaderboard.md prints it).

    >>> print(column_table().splitlines()[3])
    | `run` | `<model>@<date of the lm-eval run>`: two runs of one model are two sets of rows |
    """
    lines = ["| column | holds |", "|---|---|",
             f"| `schema_version` | the CSV's schema, `{SCHEMA_VERSION}`; a build upgrades a CSV of schema 1 (which "
             "had no `name`, `state_bits` or `state_bits_per_token`), 2 (no `state_bits` or "
             "`state_bits_per_token`) or 3 (no `state_bits_per_token`) and refuses any other |"]
    for entry in fields(LeaderboardRow):
        meaning = entry.metadata["meaning"].replace("|", "\\|")  # a `|` would end the Markdown cell
        lines.append(f"| `{entry.name}` | {meaning} |")
    return "\n".join(lines)
