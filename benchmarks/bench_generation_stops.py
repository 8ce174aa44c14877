"""Generation that stops once each row holds its answer (`copy_tasks.harness.answer_stops`).

1. A tiny random GPT-NeoX, which never writes a stop sequence, through lm-eval's `hf` at batch 8:
   tokens decoded per doc and steps per batch, with lm-eval's own stopping alone (before) and
   with our rows' rule (after), side by side in one run, with the answers' own token counts and
   whether every verdict is the same.
2. The published generation samples of a model (`leaderboard/results/<model>`, by default Gemma
   3 270M): each recorded answer cut where its row would stop, re-scored; its tokens before and
   after, in the model's tokenizer where `--tokenizer` gives it (else characters).
3. A scripted model under a byte-fallback tokenizer writing right answers in multi-byte
   characters (`copy_tasks.probes.conformance.MULTIBYTE_WRITINGS`), at batch 4: tokens decoded a
   doc and verdicts against the finished answers', under the rule before issue 51 (one U+FFFD
   dropped from a row's end) and the present one (the whole trailing run), side by side.

    python benchmarks/bench_generation_stops.py [--tokenizer ~/.cache/copy_tasks/models/gemma-3-270m]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from functools import partial
from pathlib import Path

TASKS = ["phonebook_copy_10", "phonebook_copy_50", "phonebook_query_first_10", "lookup_suffix_20",
         "lookup_prefix_100", "mqar_8", "random_copy_20"]
RESULTS = Path(__file__).resolve().parent.parent / "leaderboard" / "results"


def counting_hflm():
    from lm_eval.models.huggingface import HFLM

    class CountingHFLM(HFLM):
        """lm-eval's `hf`, counting the tokens each row decodes and the steps of each batch."""

        def _model_generate(self, context, *args, **kwargs):
            out = super()._model_generate(context, *args, **kwargs)
            generated = out[:, context.shape[1]:]
            self.rows += (generated != self.tokenizer.pad_token_id).sum(dim=1).tolist()
            self.steps.append(generated.shape[1])
            return out

    return CountingHFLM


def run_tiny(folder: Path, tasks: list[str], docs: int, stops: bool) -> dict:
    import lm_eval

    import copy_tasks
    from copy_tasks.harness import answer_stops, task

    lm = counting_hflm()(pretrained=str(folder), device="cpu", batch_size=8)
    lm.rows, lm.steps = [], []
    original = task.register_rows
    task.register_rows = answer_stops.register_rows if stops else (lambda lm: None)
    start = time.perf_counter()
    try:
        results = lm_eval.simple_evaluate(model=lm, tasks=tasks, limit=docs, log_samples=True,
                                          task_manager=copy_tasks.task_manager())
    finally:
        task.register_rows = original
    verdicts = {(name, sample["doc_id"]): {key: sample.get(key) for key in ("exact_match", "authors_exact_match")}
                for name, samples in results["samples"].items() for sample in samples}
    return {"rows": lm.rows, "steps": lm.steps, "seconds": time.perf_counter() - start, "verdicts": verdicts,
            "tokenizer": lm.tokenizer}


def tiny_model_table(docs: int) -> None:
    from copy_tasks.experiments.tiny_models import build_tiny_model
    from copy_tasks.probes.families import family_named, parse_task_name
    from copy_tasks.probes.task_docs import generate_docs

    with tempfile.TemporaryDirectory() as folder:
        model = build_tiny_model("gpt_neox", Path(folder) / "neox")
        print(f"## A model that never stops (tiny random GPT-NeoX, lm-eval hf, batch 8, {docs} docs a task)")
        print("| task | answer tokens | tokens a doc before | after | steps a batch before | after | "
              "seconds before | after | verdicts equal |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name in TASKS:
            before, after = (run_tiny(model, [name], docs, stops) for stops in (False, True))
            family, _, length = parse_task_name(name)
            questions = [question for doc in generate_docs(family, length, 1234, docs)
                         for question in family_named(family).request_docs(doc)]
            tokenizer = after["tokenizer"]
            answer = sum(len(tokenizer(question["continuation"], add_special_tokens=False)["input_ids"])
                         for question in questions) / len(questions)
            mean = lambda values: sum(values) / len(values)  # noqa: E731
            print(f"| {name} | {answer:.1f} | {mean(before['rows']):.1f} | {mean(after['rows']):.1f} | "
                  f"{mean(before['steps']):.1f} | {mean(after['steps']):.1f} | {before['seconds']:.1f} | "
                  f"{after['seconds']:.1f} | {before['verdicts'] == after['verdicts']} |")


def published_table(model: str, tokenizer_folder: str | None) -> None:
    from copy_tasks.harness.answer_stops import stopping_point
    from copy_tasks.probes.families import family_named, parse_task_name

    count = len
    if tokenizer_folder:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(tokenizer_folder)
        count = lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])  # noqa: E731
    unit = "tokens" if tokenizer_folder else "characters"
    totals: dict[str, list] = {}
    for path in sorted((RESULTS / model).rglob("samples_*.jsonl")):
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        if (parsed := parse_task_name(task)) is None or parsed[1] != "generation":
            continue
        family = family_named(parsed[0])
        for line in path.read_text().splitlines():
            sample = json.loads(line)
            texts = [resp[0] for resp in sample["resps"]]
            questions = family.request_docs(sample["doc"])
            cut = [text[:stopping_point(text, family.stop_sequences, False, partial(family.answer_settled, doc=doc))]
                   for text, doc in zip(texts, questions)]
            scored = family.score_generations(cut, sample["doc"])
            row = totals.setdefault(family.name, [0, 0, 0, 0])
            row[0] += 1
            row[1] += sum(map(count, texts))
            row[2] += sum(map(count, cut))
            row[3] += all(sample[name] == value for name, value in scored.items())
    print(f"## Published answers of {model}, cut where each row would stop and re-scored ({unit})")
    print(f"| family | answers | {unit} recorded | {unit} kept | verdicts equal |")
    print("|---|---|---|---|---|")
    for name, (samples, recorded, kept, equal) in sorted(totals.items()):
        print(f"| {name} | {samples} | {recorded} | {kept} | {equal} of {samples} |")


def one_replacement_dropped(text: str, cleans_up_spaces: bool) -> str:
    """The rule before issue 51: one trailing U+FFFD dropped (a byte-fallback decoder writes one
    a byte of an unfinished character)."""
    from copy_tasks.harness.answer_stops import REPLACEMENT

    text = text.removesuffix(REPLACEMENT)
    if cleans_up_spaces:
        text = text[:max((i for i, char in enumerate(text) if char.isspace()), default=0)]
    return text


def run_scripted(folder: Path, tasks: list[str], docs: int, rule) -> dict:
    """The scripted model's run at batch 4 under `rule` (`lasting_text` or the old one)."""
    import lm_eval

    import copy_tasks
    from copy_tasks.harness import answer_stops

    lm = counting_hflm()(pretrained=str(folder), device="cpu", batch_size=4)
    lm.rows, lm.steps = [], []
    original, answer_stops.lasting_text = answer_stops.lasting_text, rule
    try:
        results = lm_eval.simple_evaluate(model=lm, tasks=tasks, limit=docs, log_samples=True,
                                          task_manager=copy_tasks.task_manager(metadata={
                                              "copy_tasks_docs": docs, "copy_tasks_mqar_format": "zoology"}))
    finally:
        answer_stops.lasting_text = original
    return {"rows": lm.rows, "samples": results["samples"]}


def byte_fallback_table(docs: int) -> None:
    from copy_tasks.experiments.tiny_models import build_byte_fallback_tokenizer
    from copy_tasks.harness.answer_stops import lasting_text
    from copy_tasks.models.scripted_hf import write_scripted_model
    from copy_tasks.probes.conformance import MULTIBYTE_OPTIONS, MULTIBYTE_WRITINGS
    from copy_tasks.probes.families import family_named, parse_task_name
    from copy_tasks.probes.public_scorer import cut_at_stops
    from copy_tasks.probes.task_docs import generate_docs

    tokenizer = build_byte_fallback_tokenizer()
    script, answer_tokens = {}, {}
    for name, write in MULTIBYTE_WRITINGS.items():
        family, _, length = parse_task_name(name)
        questions = [question for doc in generate_docs(family, length, 1234, docs, MULTIBYTE_OPTIONS.get(family, ()))
                     for question in family_named(family).request_docs(doc)]
        script.update({question["prompt"]: write(question["continuation"]) for question in questions})
        stops = family_named(family).stop_sequences  # the written answer as lm-eval returns it: its tokens
        answer_tokens[name] = sum(len(tokenizer.encode(cut_at_stops(write(question["continuation"]), stops),
                                                       add_special_tokens=False))
                                  for question in questions) / len(questions)

    def right(samples, name) -> str:
        family = family_named(name.rsplit("_", 1)[0])
        equal = 0
        for sample in samples:
            whole = [cut_at_stops(MULTIBYTE_WRITINGS[name](question["continuation"]), family.stop_sequences)
                     for question in family.request_docs(sample["doc"])]
            expected = family.score_generations(whole, sample["doc"])
            equal += all(sample[metric] == value for metric, value in expected.items())
        return f"{equal} of {len(samples)}"

    with tempfile.TemporaryDirectory() as folder:
        model = write_scripted_model(Path(folder) / "scripted", tokenizer, script)
        print(f"## Multi-byte answers under a byte-fallback tokenizer (scripted model, lm-eval hf, batch 4, {docs} "
              "docs a task)")
        print("| task | written answer's tokens | tokens a doc, old rule | present rule | present / (answer + 1) | "
              "finished verdicts, old rule | present rule |")
        print("|---|---|---|---|---|---|---|")
        for name in MULTIBYTE_WRITINGS:
            old, new = (run_scripted(model, [name], docs, rule) for rule in (one_replacement_dropped, lasting_text))
            mean = lambda values: sum(values) / len(values)  # noqa: E731
            ratio = mean(new["rows"]) / (answer_tokens[name] + 1)
            print(f"| {name} | {answer_tokens[name]:.1f} | {mean(old['rows']):.1f} | {mean(new['rows']):.1f} | "
                  f"{ratio:.2f} | {right(old['samples'][name], name)} | {right(new['samples'][name], name)} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=8)
    parser.add_argument("--model", default="gemma-3-270m", help="a folder of leaderboard/results")
    parser.add_argument("--tokenizer", default=None, help="the model's tokenizer folder, to count tokens")
    args = parser.parse_args(argv)
    tiny_model_table(args.docs)
    print()
    published_table(args.model, args.tokenizer)
    print()
    byte_fallback_table(args.docs)


if __name__ == "__main__":
    main()
