"""The prompt tokens of runs scored before copy-tasks counted them (issue 53: a model whose memory
grows is placed on the memory axis by its bits a token times its prompts' tokens): each task's
prompts, as its logged samples hold them (chat template and all), or where none were logged its
docs drawn again (a plain prompt is the doc's; their fingerprint checked), counted in the model's own
tokens the way a run counts them (`harness.backend_limits`: lm-eval's `hf` with the model loaded,
or `ngram_copier`'s bytes), and written where nothing was recorded, with where they came from,
into copies of the results (new files in a folder of its own: the results read are never
changed); the model's memory too (`harness.state_size.memory_of`), where none was.

The model loaded must be the one the run scored: its parameter count must equal the one the run
recorded (none, for `ngram_copier`); the results of another model are left as they are, said.

    python -m copy_tasks.experiments.prompt_tokens_afterwards leaderboard/results/gemma-3-270m \\
        --pretrained ~/.cache/copy_tasks/models/gemma-3-270m --out filled/
    python -m copy_tasks.experiments.prompt_tokens_afterwards leaderboard/results/ngram_copier --model ngram_copier \\
        --out filled/

    >>> samples = [{"doc_id": 0, "arguments": {"gen_args_0": {"arg_0": "a b c", "arg_1": {}}}},
    ...            {"doc_id": 1, "arguments": {"gen_args_0": {"arg_0": "a b", "arg_1": " c"},
    ...                                        "gen_args_1": {"arg_0": "a b c d", "arg_1": " e"}}}]
    >>> counted(samples, lambda text: len(text.split()))
    (3.5, 4)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from copy_tasks.experiments.memory_afterwards import has_memory, print_filled
from copy_tasks.probes.options import Recorded
from copy_tasks.report.results import (
    add_to_task_metadata,
    find_result_files,
    read_results,
    read_samples,
    samples_beside,
)

SOURCE = Recorded.PROMPT_TOKENS_COUNTED  # where prompt tokens written afterwards came from


def counted(samples: list[dict], count: Callable[[str], int]) -> tuple[float, int]:
    """(mean, max) over the docs of each doc's longest prompt (a doc of several questions sends
    one request each), as a run records them."""
    prompts: dict[int, list[str]] = {}
    for sample in samples:
        prompts.setdefault(sample["doc_id"], []).extend(request["arg_0"] for request in sample["arguments"].values())
    return longest_prompts(list(prompts.values()), count)


def longest_prompts(prompts: list[list[str]], count: Callable[[str], int]) -> tuple[float, int]:
    """(mean, max) over the docs (each its requests' prompts) of each doc's longest prompt."""
    longest = [max(map(count, requests)) for requests in prompts]
    return sum(longest) / len(longest), max(longest)


def drawn_prompts(task: str, results: dict, path: Path) -> list[list[str]] | None:
    """The prompts of each doc a run without logged samples scored, drawn again from what the
    task recorded (the docs' fingerprint checked: `report.rescore`): a plain prompt is the doc's,
    each question's extending it; None for a chat-template run, whose prompts are not its docs'."""
    from copy_tasks.probes.families import family_named
    from copy_tasks.report.rescore import check_same_docs, run_docs

    if (results["configs"][task].get("metadata") or {}).get(Recorded.PROMPT_FORMAT) not in (None, "plain"):
        return None
    drawn = check_same_docs(task, results, path)
    indices, _ = run_docs(task, results, len(drawn))
    return [[question["prompt"] for question in family_named(drawn[index]["family"]).request_docs(drawn[index])]
            for index in indices]


def fill_results(path: Path, count: Callable[[str], int], source: str, out: Path, memory=None) -> list[str]:
    """Prompt tokens for every task of a results file whose run recorded none, from the samples
    logged beside it or else its docs drawn again (`drawn_prompts`), and `memory` (a `Memory`)
    where none was recorded, in a copy written to the folder `out` with its samples
    (`report.results.add_to_task_metadata`); the tasks given something."""
    samples, results = samples_beside(path), read_results(path)

    def additions(task: str, metadata: dict) -> dict:
        added = {}
        if metadata.get(Recorded.PROMPT_TOKENS_MEAN) is None:
            if task in samples:
                mean, longest = counted(read_samples(samples[task]), count)
                added = {Recorded.PROMPT_TOKENS_MEAN: mean, Recorded.PROMPT_TOKENS_MAX: longest, SOURCE: source}
            elif (prompts := drawn_prompts(task, results, path)) is not None:
                mean, longest = longest_prompts(prompts, count)
                added = {Recorded.PROMPT_TOKENS_MEAN: mean, Recorded.PROMPT_TOKENS_MAX: longest,
                         SOURCE: f"{source}, of the docs drawn again (no samples logged)"}
        if memory is not None and not has_memory(metadata):
            added |= {Recorded.STATE_BITS: memory.state_bits, Recorded.STATE_BITS_PER_TOKEN: memory.bits_per_token,
                      Recorded.MEMORY_MEASURED: "afterwards: from the model loaded to count the prompts"}
        return added

    return add_to_task_metadata(path, additions, out)


def fill_folder(folder: Path, lm, parameters: int | None, source: str, out: Path) -> list[str]:
    """Every results file under `folder` of a run of the model `lm` (`parameters` of them), copied
    under `out` (the same relative path) where it is given something."""
    from copy_tasks.harness.backend_limits import backend_limits
    from copy_tasks.harness.state_size import memory_of

    limits, memory, said = backend_limits(lm), memory_of(lm), []
    for path in find_result_files([folder])[0]:
        recorded = read_results(path).get("config", {}).get("model_num_parameters")
        if recorded != parameters:
            said.append(f"{path}: its run recorded {recorded} parameters, the model loaded has {parameters}; "
                        "left as it is")
            continue
        copy = out / path.parent.relative_to(folder)
        written = fill_results(path, limits.tokens, source, copy, memory)
        said.append(f"{copy / path.name}: prompt tokens or memory written for {len(written)} tasks" if written
                    else f"{path}: nothing to add")
    return said


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m copy_tasks.experiments.prompt_tokens_afterwards",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder of one model's results and logged samples")
    parser.add_argument("--model", choices=("hf", "ngram_copier"), default="hf", help="the backend the runs scored")
    parser.add_argument("--pretrained", help="the model the runs scored (lm-eval's hf pretrained=; hf only)")
    parser.add_argument("--out", type=Path, required=True, help="the folder the copies are written to")
    arguments = parser.parse_args(argv)
    if not arguments.folder.is_dir():
        parser.error(f"{arguments.folder} is not a folder")
    if (arguments.model == "hf") != (arguments.pretrained is not None):
        parser.error("--pretrained names the model of --model hf, and only of it")
    if arguments.model == "ngram_copier":
        from copy_tasks.models.reference_lm import NgramCopierLM

        lm, parameters = NgramCopierLM(), None
        source = "afterwards: the logged prompts counted with ngram_copier's bytes"
    else:
        from lm_eval.models.huggingface import HFLM

        lm = HFLM(pretrained=arguments.pretrained, device="cpu", batch_size=1)
        parameters = sum(parameter.numel() for parameter in lm.model.parameters())
        source = (f"afterwards: the logged prompts counted with {Path(arguments.pretrained).name}'s tokenizer "
                  "under lm-eval's hf")
    return print_filled(parser, lambda: fill_folder(arguments.folder, lm, parameters, source, arguments.out))


if __name__ == "__main__":
    sys.exit(main())
