"""Check our options on an lm-eval run before any model loads.

lm-eval builds tasks only after loading the model, so an option error raised by the dataset
hook would surface minutes later as a traceback from deep inside lm-eval. Every command-line
run (`lm_eval`, `python -m lm_eval`, `copy-tasks run`, with or without `--config`) passes
through `check_or_exit` first (see `copy_tasks.harness.registration`): it checks our keys in
the merged `--model_args` and `--metadata` and reads the data sources of the families the run
asks for (C4 or local text, SQuAD), including that a text source has passages long enough for
the requested lengths (`copy_tasks.probes.run_checks`), warns of `--metadata` keys no task of
the run reads, and refuses `--batch_size auto` on lm-eval's `hf` backend (below), a chat
template on a reference model (`check_chat_template`), a model argument the backend does not
take (`check_model_args`: `bounded_state` with `bit=64` ran at its default 256 bits), a
`--limit` that scores no doc (`check_limit`) and task
names lm-eval cannot find as written (`--tasks "a, b"`: lm-eval 0.4.13 looks up " b", spaces
included). A `UserError` becomes one line on stderr and exit status 2.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from copy_tasks.harness.model_info import ANALYTIC_MODEL_ARGS, LM_EVAL_MODEL_ARGS, REFERENCE_MODELS
from copy_tasks.probes.options import UserError
from copy_tasks.probes.run_checks import check_options_and_sources, requested, task_names, unused_metadata_keys

log = logging.getLogger("copy_tasks")

# Backends whose `--batch_size auto` sizes the batch by a forward pass at the model's whole
# context with every logit of its vocabulary (lm-eval's HFLM): for Gemma 3 270M, 32,768 tokens
# x 262,144 logits, which the kernel's out-of-memory killer ended at 20.7 GB on a 24 GB machine.
# `hf_fast` sizes it from the run's own requests and the memory free (`copy_tasks.models.fast_hf`).
AUTO_BATCH_SIZED_BY_FULL_CONTEXT = ("hf",)


def check_batch_size(model: str | None, batch_size: Any) -> None:
    """Refuse `--batch_size auto` (or `auto:N`) on `hf`, which sizes it at the model's full
    context, far beyond our prompts, and can exhaust memory.

    >>> check_batch_size("hf", 8), check_batch_size("vllm", "auto"), check_batch_size("hf_fast", "auto")
    (None, None, None)
    >>> check_batch_size("hf", "auto:4")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    copy_tasks.probes.options.UserError: --batch_size auto:4 is not allowed with --model hf on copy-tasks tasks: ...
    """
    if model in AUTO_BATCH_SIZED_BY_FULL_CONTEXT and str(batch_size).strip().lower().startswith("auto"):
        raise UserError(f"--batch_size {batch_size} is not allowed with --model {model} on copy-tasks tasks: lm-eval "
                        "sizes it by a forward pass at the model's whole context with every logit of its vocabulary "
                        "(Gemma 3 270M: 32,768 tokens, over 20 GB), not at our prompts' lengths; pass a number, e.g. "
                        "--batch_size 8 (any number gives the same scores: a model whose rows read the rows beside "
                        "them, as RWKV, runs at batch 1), or use --model hf_fast, which sizes auto from the run's "
                        "requests")


def check_chat_template(model: str | None, chat_template: Any) -> None:
    """Refuse `--apply_chat_template` on a reference model: it reads plain prompts and has no chat
    template (lm-eval would stop in a traceback, asking it for its tokenizer's name).

    >>> check_chat_template("ngram_copier", False), check_chat_template("hf", True)
    (None, None)
    >>> check_chat_template("bounded_state", True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    copy_tasks.probes.options.UserError: --apply_chat_template: bounded_state is a reference model ...
    """
    if chat_template and model in REFERENCE_MODELS:
        raise UserError(f"--apply_chat_template: {model} is a reference model and has no chat template (it reads "
                        "the plain prompt); run it without --apply_chat_template")


def check_model_args(model: str | None, model_args: Mapping[str, Any] | None) -> None:
    """Refuse a model argument the backend does not take: for our analytic models
    (`ANALYTIC_MODEL_ARGS`) any other than theirs and lm-eval's own; for lm-eval's `hf` (and
    `hf_fast`), whose other arguments go on to transformers' `from_pretrained` and config (where
    any key is taken), one a letter or two from an argument of `hf`'s own (`max_lenght`).

    >>> check_model_args("bounded_state", {"bits": 64, "device": "cpu"}), check_model_args("hf", {"dtype": "auto"})
    (None, None)
    >>> check_model_args("bounded_state", {"bit": 64})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    copy_tasks.probes.options.UserError: --model_args bit=64: bounded_state takes no such argument (did you mean ...
    >>> check_model_args("hf_fast", {"pretrained": "x", "max_lenght": 4096})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    copy_tasks.probes.options.UserError: --model_args max_lenght=4096: hf_fast takes no such argument (did you mean ...
    """
    import difflib

    given = [str(key) for key in (model_args or {})]
    if model in ANALYTIC_MODEL_ARGS:
        known = ANALYTIC_MODEL_ARGS[model]
        unknown = [key for key in given if key not in known and key not in LM_EVAL_MODEL_ARGS]
    elif model in HF_BACKENDS:
        known = hf_model_args()
        unknown = [key for key in given if key not in known and difflib.get_close_matches(key, known, n=1, cutoff=0.8)]
    else:
        return
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        takes = ", ".join(known) if model in ANALYTIC_MODEL_ARGS else "the arguments of lm-eval's hf"
        raise UserError(f"--model_args {key}={model_args[key]}: {model} takes no such argument{hint}; it takes {takes}")


HF_BACKENDS = ("hf", "hf_fast")


def hf_model_args() -> tuple[str, ...]:
    """The parameters of lm-eval's `HFLM` (`hf`, and `hf_fast`, its subclass)."""
    import inspect

    from lm_eval.models.huggingface import HFLM

    return tuple(name for name, parameter in inspect.signature(HFLM.__init__).parameters.items()
                 if name != "self" and parameter.kind not in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL))


def check_task_names(tasks: Iterable[str] | str) -> None:
    """Refuse a name of `--tasks` with spaces around it, or an empty one (`a,,b`, `a,`): lm-eval
    splits `--tasks` at its commas and looks each piece up as written, so it would find no task
    of that name (after our checks, which must read the names as lm-eval does).

    >>> check_task_names("random_copy_10,random_copy_20"), check_task_names([])
    (None, None)
    >>> check_task_names("random_copy_10, random_copy_20")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    copy_tasks.probes.options.UserError: --tasks: ' random_copy_20' has spaces around it: ...
    """
    for name in task_names(tasks):
        if not name or name != name.strip():
            what = f"{name!r} has spaces around it" if name.strip() else "a name is empty"
            raise UserError(f"--tasks: {what}: lm-eval looks each name up as written and would find no task; "
                            "separate the names with commas alone, e.g. --tasks random_copy_10,random_copy_20")


def check_limit(limit: Any) -> None:
    """Refuse a `--limit` that scores no doc: lm-eval reads a number under 1 as a fraction of
    the docs and 1 or more as a count, and `--limit 0` (or less) ended in its traceback.

    >>> check_limit(None), check_limit(5), check_limit(0.5)
    (None, None, None)
    >>> check_limit(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    copy_tasks.probes.options.UserError: --limit 0 scores no doc: give a count of docs a task (e.g. --limit 5) or ...
    """
    if limit is not None and float(limit) <= 0:
        raise UserError(f"--limit {limit:g} scores no doc: give a count of docs a task (e.g. --limit 5) or a "
                        "fraction of them (e.g. --limit 0.1)")


def check_run(metadata: Mapping[str, Any], tasks: Iterable[str] | str, model: str | None = None,
              batch_size: Any = None, model_args: Mapping[str, Any] | None = None, chat_template: Any = False,
              limit: Any = None) -> None:
    """Raise UserError for a task name lm-eval cannot find as written (`check_task_names`), a
    chat template on a reference model (`check_chat_template`), a bad or unknown `copy_tasks_*`
    key, a data source that a requested task cannot read or that is too short for its lengths,
    or `--batch_size auto` on a backend that sizes it at the model's full context (when the run
    asks for any of our tasks); warn, once each, of `--metadata` keys no task of the run reads."""
    check_task_names(tasks)
    check_limit(limit)
    check_model_args(model, model_args)
    check_chat_template(model, chat_template)
    if requested(task_names(tasks)):
        check_batch_size(model, batch_size)
    check_options_and_sources(metadata, tasks)
    for key in unused_metadata_keys(metadata, tasks, model_args):
        log.warning("copy-tasks: --metadata key %r is read by no task of this run (copy-tasks tasks read only "
                    "copy_tasks_* keys: copy-tasks list, and each family's README); it changes nothing.", key)


def check_or_exit(metadata: Mapping[str, Any], tasks: Iterable[str] | str, model: str | None = None,
                  batch_size: Any = None, model_args: Mapping[str, Any] | None = None, chat_template: Any = False,
                  limit: Any = None) -> None:
    try:
        check_run(metadata, tasks or [], model, batch_size, model_args, chat_template, limit)
    except UserError as error:
        print(f"copy-tasks: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
