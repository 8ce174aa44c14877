"""A row's flags (the leaderboard column `flags`, `name` or `name=value` joined by `;`): what made
a run differ from the tasks' defaults, written from its results file (`flags_of`), and read back
as the run's setting and the task's own flags (`split_flags`)."""

from __future__ import annotations

import json
from typing import Any

from copy_tasks.probes.decoding import non_greedy
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.options import Recorded

# The flags (leaderboard column `flags`, `name` or `name=value` joined by `;`) that change
# what every number of a run means.
RUN_FLAGS = ("limit", "samples", "gen_kwargs", "not_greedy", "chat_template", "system_instruction", "num_fewshot")


# Run flags whose value is the task's own (the docs `--samples` chose for it): the setting names
# the flag, the cell shows its value.
PER_TASK_VALUES = ("samples",)


def split_flags(flags: str) -> tuple[str, str]:
    """(the run's setting, the task's own flags) of a row's flags.

    >>> split_flags("limit=5;chat_template;copy_tasks_lookup_format=paper")
    ('limit=5;chat_template', 'copy_tasks_lookup_format=paper')
    >>> split_flags("samples=3|7;not_greedy")
    ('samples;not_greedy', 'samples=3|7')
    """
    run, task = [], []
    for flag in (flag for flag in flags.split(";") if flag):
        name = flag.partition("=")[0]
        if name in PER_TASK_VALUES:
            run.append(name)
            task.append(flag)
        elif name in RUN_FLAGS:
            run.append(flag)
        else:
            task.append(flag)
    return ";".join(run), ";".join(task)


def _gen_kwargs(value: Any) -> dict:
    """lm-eval's recorded `--gen_kwargs`: a dict, or the command line's `k=v,k=v` string."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        pairs = (item.partition("=") for item in value.split(","))
        return {key.strip(): raw.strip() for key, _, raw in pairs if key.strip()}
    return {}


FLAG_LENGTH = 120  # a flag's text is cut to this many characters (a results file can hold anything)


def _capped(flag: str) -> str:
    """A flag cut to `FLAG_LENGTH` characters, saying how long it was.

    >>> _capped("limit=" + "9" * 200)[-20:]
    '... (206 characters)'
    """
    return flag if len(flag) <= FLAG_LENGTH else f"{flag[:FLAG_LENGTH - 24]}... ({len(flag)} characters)"


def _listed(values: list) -> str:
    """A list of doc indices for a flag: `3|7`, at most 10 shown.

    >>> _listed([3, 7]), _listed(list(range(12)))
    ('3|7', '0|1|2|3|4|5|6|7|8|9|... (12 docs)')
    """
    shown = "|".join(str(value) for value in values[:10])
    return shown + (f"|... ({len(values)} docs)" if len(values) > 10 else "")


def flags_of(data: dict, config: dict, n_shot: Any, metadata: dict, family_name: str) -> str:
    """What made a run differ from the tasks' defaults: the docs scored (`limit`, `samples`),
    the decoding (`max_gen_toks_sent`, `gen_kwargs`, and `not_greedy` when they replace greedy
    decoding), the prompt (`chat_template`, `system_instruction`, `num_fewshot`), and options
    of the family (a lookup in the authors' format is other docs than the default). A user's
    `max_gen_toks` is shown as the budgets our task really sent (it only raises budgets), when
    the task recorded them. `data`: the results file; `config`: its `config` object."""
    flags = []
    limit = metadata.get(Recorded.LIMIT, config.get("limit"))
    if limit is not None:
        flags.append(f"limit={limit}")
    if isinstance(metadata.get(Recorded.SAMPLES), list):
        flags.append("samples=" + _listed(metadata[Recorded.SAMPLES]))
    gen_kwargs = dict(_gen_kwargs(config.get("gen_kwargs")))
    sent = metadata.get(Recorded.GENERATION_BUDGETS)
    if "max_gen_toks" in gen_kwargs and isinstance(sent, list) and sent:
        del gen_kwargs["max_gen_toks"]
        flags.append("max_gen_toks_sent=" + "|".join(str(budget) for budget in sent))
    if gen_kwargs:
        flags.append("gen_kwargs=" + json.dumps(gen_kwargs, sort_keys=True))
    if non_greedy(gen_kwargs):
        flags.append("not_greedy")
    if (data.get("chat_template") or data.get("chat_template_sha")
            or metadata.get(Recorded.PROMPT_FORMAT) == "chat"):
        flags.append("chat_template")
    if metadata.get(Recorded.SYSTEM_INSTRUCTION_SENT) is False:  # the template dropped it: never seen
        flags.append("system_instruction_dropped")
    elif data.get("system_instruction") or data.get("system_instruction_sha"):
        flags.append(f"system_instruction={str(data.get('system_instruction_sha') or '')[:12]}".rstrip("="))
    if n_shot not in (None, 0, "0"):
        flags.append(f"num_fewshot={n_shot}")
    for option in FAMILIES[family_name].options:
        value = metadata.get(option.key, option.default)
        if value != option.default and isinstance(value, (str, int)):
            flags.append(f"{option.key}={value}")
    return ";".join(_capped(flag) for flag in flags)
