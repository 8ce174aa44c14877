"""Generation that stops once a row holds its answer (`copy_tasks.harness.answer_stops`): a
stopped row gets the verdict of every text it could have gone on to write, on hand-worked
answers, on the answers every published model wrote, and in a run of a model that never stops."""

from __future__ import annotations

import json
import random
from functools import partial
from pathlib import Path

import pytest

from copy_tasks.harness.answer_stops import row_is_done, stopping_point
from copy_tasks.probes.chat import given_start
from copy_tasks.probes.families import FAMILIES, family_named, parse_task_name
from copy_tasks.probes.public_scorer import cut_at_stops
from copy_tasks.probes.task_docs import generate_docs

RESULTS = Path(__file__).resolve().parents[2] / "leaderboard" / "results"
WITH_RULES = [name for name, family in FAMILIES.items() if family.our_reading_settled is not None
              and not family.needs_download]
FORMATS = {"random_copy": "paper", "dup_ngram_copy": "paper", "lookup_prefix": "paper", "lookup_suffix": "paper",
           "mqar": "zoology"}


def stopped_text(family, text: str, question: dict) -> str:
    """What a row writing `text` holds when it stops (decoding a character a token)."""
    return text[:stopping_point(text, family.stop_sequences, False, partial(family.answer_settled, doc=question))]


def both_rules(family, text: str, question: dict) -> dict:
    return family.score_both_rules(cut_at_stops(text, family.stop_sequences), question)


def questions(name: str, fmt: str | None):
    family = FAMILIES[name]
    options = (("fmt", fmt),) if fmt else ()
    return [question for doc in generate_docs(name, family.lengths[0], 0, 2, options)
            for question in family.request_docs(doc)]


@pytest.mark.parametrize("name, fmt", [(name, None) for name in WITH_RULES]
                         + [(name, fmt) for name, fmt in FORMATS.items()])
def test_a_settled_answer_gets_the_verdict_of_every_text_that_may_follow(name, fmt):
    family, rng = FAMILIES[name], random.Random(name)
    for question in questions(name, fmt)[:4]:
        answer = question["continuation"]
        pieces = [answer, answer.strip(), given_start(question["prompt"]), question["target"][:3], " ", "  ", "\n",
                  "\n\n", ".", "x", " x", "7", "<", "\uac01"]
        for _ in range(25):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
            stopped = stopped_text(family, text, question)
            if not row_is_done(stopped, family.stop_sequences, False, partial(family.answer_settled, doc=question)):
                continue  # it never settled: the row runs to its stop sequence or budget
            for more in [text[len(stopped):], *pieces, *(rng.choice(pieces) + rng.choice(pieces) for _ in range(4))]:
                assert both_rules(family, stopped + more, question) == both_rules(family, stopped, question), (
                    stopped, more)


def test_a_phone_book_row_stops_where_both_verdicts_are_final():
    family = family_named("phonebook_copy")
    doc = {"prompt": "Ann Lee: 6093237777\n\nAnn Lee:", "target": "6093237777"}

    assert stopped_text(family, " 6093237777\nBo Ray: 7", doc) == " 6093237777\n"  # its stop sequence
    assert stopped_text(family, " 6093237777 Bo Ray", doc) == " 6093237777 B"  # ours right, the authors' wrong: final
    assert stopped_text(family, " 7000 and more", doc) == " 7"  # wrong under both
    assert stopped_text(family, " Ann Lee: 6093237777 Bo", doc) == " Ann Lee: 6093237777 "  # restated: final
    assert stopped_text(family, " 6093237777   ", doc) == " 6093237777   "  # spaces: a newline may still come


def test_a_row_waits_for_text_that_a_later_token_may_change():
    settled = lambda text: len(text.split()) >= 2  # noqa: E731
    assert not row_is_done(" ab\ufffd", ["\n"], False, lambda text: len(text) >= 4)  # a character not yet whole
    assert not row_is_done(" a b", ["\n"], True, settled)  # " b" may still become " b." -> "b."
    assert row_is_done(" a b c", ["\n"], True, settled)
    assert not row_is_done(" a b\n", ["\n\n"], False, lambda text: text.endswith("\n"))  # a cut may start there


def published_generations():
    """(task, sample) of every published generation sample."""
    for path in sorted(RESULTS.rglob("samples_*.jsonl")):
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        parsed = parse_task_name(task)
        if parsed is None or parsed[1] != "generation":
            continue
        for line in path.read_text().splitlines():
            yield task, json.loads(line)


def test_every_published_answer_cut_where_its_row_would_stop_gets_its_published_verdicts():
    compared = 0
    for task, sample in published_generations():
        doc = sample["doc"]
        family = family_named(doc["family"])
        texts = [resp[0] for resp in sample["resps"]]
        cut = [stopped_text(family, text, question) for text, question in zip(texts, family.request_docs(doc))]
        scored = family.score_generations(cut, doc)
        assert {name: sample[name] for name in scored} == scored, (task, sample["doc_id"], texts, cut)
        compared += 1
    assert compared > 2000


@pytest.mark.slow  # two lm-eval runs of a tiny model
def test_a_model_that_never_stops_decodes_until_its_answers_settle_with_the_verdicts_of_running_on(tiny_models,
                                                                                                  monkeypatch):
    import lm_eval
    from lm_eval.models.huggingface import HFLM

    import copy_tasks
    from copy_tasks.harness import task as task_module

    class CountingHFLM(HFLM):
        """lm-eval's `hf`, counting the tokens each row of a batch decodes (padding aside)."""

        decoded: list[int] = []

        def _model_generate(self, context, *args, **kwargs):
            out = super()._model_generate(context, *args, **kwargs)
            self.decoded += (out[:, context.shape[1]:] != self.tokenizer.pad_token_id).sum(dim=1).tolist()
            return out

    def run() -> tuple[list[int], dict]:
        lm = CountingHFLM(pretrained=str(tiny_models["gpt_neox"]), device="cpu", batch_size=4)
        lm.decoded = []
        results = lm_eval.simple_evaluate(model=lm, tasks=["phonebook_copy_10", "lookup_suffix_20"], limit=4,
                                          log_samples=True, task_manager=copy_tasks.task_manager())
        verdicts = {(task, sample["doc_id"]): {name: sample[name] for name in ("exact_match", "authors_exact_match")}
                    for task, samples in results["samples"].items() for sample in samples}
        return lm.decoded, verdicts

    decoded, verdicts = run()
    with monkeypatch.context() as patched:
        patched.setattr(task_module, "register_rows", lambda lm: None)  # lm-eval's own stopping alone
        decoded_before, verdicts_before = run()
    assert decoded_before == [50] * 8  # the random model writes no stop sequence: every budget to its end
    assert max(decoded) <= 4 < 50  # ends at once: its first tokens are no answer; a lookup's 4 letters at most
    assert verdicts == verdicts_before


@pytest.mark.slow  # two lm-eval runs of a tiny model
def test_a_sampled_run_is_not_stopped_early_so_its_random_draws_are_lm_evals(tiny_models, monkeypatch):
    """Issue 51: rows that stopped early drew fewer random numbers, so later docs' samples
    changed (17 of 20 right with the early stop, 20 of 20 without). Sampling runs as lm-eval
    runs it: the same answers with our tasks' early stop as with lm-eval's stopping alone."""
    import lm_eval

    import copy_tasks
    from copy_tasks.harness import task as task_module

    def answers() -> dict:
        results = lm_eval.simple_evaluate(
            model="hf", model_args=f"pretrained={tiny_models['gpt_neox']}", tasks=["phonebook_copy_10"], limit=4,
            batch_size=2, device="cpu", log_samples=True, gen_kwargs="do_sample=True,temperature=1.0",
            random_seed=1234, numpy_random_seed=1234, torch_random_seed=1234, task_manager=copy_tasks.task_manager())
        return {sample["doc_id"]: sample["resps"] for sample in results["samples"]["phonebook_copy_10"]}

    ours = answers()
    with monkeypatch.context() as patched:
        patched.setattr(task_module, "register_rows", lambda lm: None)  # lm-eval's own stopping alone
        assert answers() == ours
