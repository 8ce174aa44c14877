"""No silent truncation: the backend that runs a task decides which docs overflow. A generation
doc reports overflow = 1 exactly when its prompt and answer do not fit that backend's context
(then it generates one token), and one that fits is sent whole with a budget that fits beside
it; a teacher-forced doc reports overflow = 1 exactly when lm-eval cuts its request. Checked by recording what each
backend really sends: `hf` (an LM object from Python, with and without a chat template),
`local-completions` against a fake OpenAI-compatible server on localhost, and `vllm` with a
stub engine; where the backend cannot say, overflow is NaN, the metadata says `unknown`, and
one warning says why."""

from __future__ import annotations

import importlib.metadata
import json
import logging
import math
import shutil
import sys
import types

import pytest
from fake_openai import FakeOpenAI
from hf_runs import CONTEXT, PHONE_BOOKS, SCORED, RecordingHFLM, evaluate

import copy_tasks.models.reference_lm  # noqa: F401  (registers ngram_copier)
from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.budgets import ANSWER_MARGIN, OVERFLOW_BUDGET


def overflow_of(results: dict, task: str) -> dict[int, float]:
    return {sample["doc"]["index"]: sample["overflow"] for sample in results["samples"][task]}


def sent_for(full: list[int], sent: list[list[int]]) -> list[int]:
    """What the backend sent of a request whose whole encoding is `full`: the one recorded
    token list that is a suffix of it."""
    matches = [tokens for tokens in sent if tokens and full[-len(tokens):] == tokens]
    assert len(matches) == 1, len(matches)
    return matches[0]


def assert_overflow_is_where_the_answer_does_not_fit(results, tasks, encode, sent, context,
                                                     scored_sends_last_token=False) -> None:
    """Generation: a doc overflows exactly when its prompt and answer (in the backend's tokens)
    plus the margin exceed the context; one that fits is sent whole, with a budget that fits
    beside it; one that does not generates one token. Teacher-forced: a doc overflows exactly
    when lm-eval cuts its request. Every sample holds exact_match, NaN exactly when it overflowed."""
    outcome = {}
    for task in tasks:
        for sample in results["samples"][task]:
            doc = sample["doc"]
            prompt = encode(doc["prompt"])
            if "_tf_" in task:  # a scored request sends context and continuation (a model: without the last token)
                full = encode(doc["prompt"] + doc["continuation"])[: None if scored_sends_last_token else -1]
                overflowed = len(sent_for(full, sent)) < len(full)
            else:
                answer = len(encode(doc["prompt"] + doc["continuation"])) - len(prompt)
                overflowed = len(prompt) + answer + ANSWER_MARGIN > context
                budget = sample["arguments"][0][1]["max_gen_toks"]
                if overflowed:
                    assert budget == OVERFLOW_BUDGET, (task, doc["index"])
                else:
                    assert sent_for(prompt, sent) == prompt, (task, doc["index"])  # sent whole
                    assert len(prompt) + budget <= context and budget >= answer + ANSWER_MARGIN, (task, doc["index"])
            assert sample["overflow"] == float(overflowed), (task, doc["index"])
            assert math.isnan(sample["exact_match"]) == overflowed, (task, doc["index"])  # no score from a cut prompt
            outcome[(task, doc["index"])] = overflowed
    assert any(outcome.values()) and not all(outcome.values())  # both kinds occurred


def test_hf_docs_overflow_exactly_where_their_answer_does_not_fit(hf_run):
    lm, results = hf_run
    assert_overflow_is_where_the_answer_does_not_fit(results, PHONE_BOOKS + SCORED, lm.tok_encode, lm.sent, CONTEXT)


def test_an_lm_object_from_python_records_its_model_and_the_docs_that_ran(hf_run):
    _, results = hf_run
    for task in PHONE_BOOKS + SCORED:
        metadata = results["configs"][task]["metadata"]
        assert metadata["copy_tasks_model_type"] == "gpt_neox"
        # a transformer keeps nothing fixed; a key and a value of 32 numbers a token in each of its 2 layers
        assert (metadata["copy_tasks_state_bits"], metadata["copy_tasks_state_bits_per_token"]) == (0, 2 * 2 * 32 * 32)
        assert metadata["copy_tasks_architecture"] == "transformer (RoPE)"
        assert (metadata["copy_tasks_context_tokens"], metadata["copy_tasks_context_source"]) == (
            CONTEXT, "RecordingHFLM's max_length")
        # --limit 4: the count is over the 4 docs that ran, not the task's 200
        assert metadata["copy_tasks_overflow_docs"] == sum(overflow_of(results, task).values()) <= 4
    assert results["results"]["phonebook_copy_30"][results_key("overflow")] == 1.0


@pytest.fixture(scope="module")
def chat_model(stopping_neox, tmp_path_factory):
    """The tiny GPT-NeoX (its generations ending at once) with a chat template that wraps the
    prompt in 80 words of preamble."""
    folder = tmp_path_factory.mktemp("chat") / "model"
    shutil.copytree(stopping_neox, folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    preamble = " ".join(["Please read the following text with care."] * 10)
    config["chat_template"] = (f"{preamble}\n{{% for m in messages %}}{{{{ m['content'] }}}}{{% endfor %}}"
                               "{% if add_generation_prompt %} Answer:{% endif %}")
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    (folder / "chat_template.jinja").unlink(missing_ok=True)  # the tiny tokenizer's own (ChatML) would win
    return folder


def test_a_chat_templates_tokens_count_toward_the_context(chat_model):
    plain = evaluate(RecordingHFLM(pretrained=str(chat_model), device="cpu", max_length=CONTEXT),
                     ["phonebook_copy_10"])
    assert set(overflow_of(plain, "phonebook_copy_10").values()) == {0.0}
    lm = RecordingHFLM(pretrained=str(chat_model), device="cpu", max_length=CONTEXT)
    templated = evaluate(lm, ["phonebook_copy_10", "phonebook_copy_20"], apply_chat_template=True)
    assert set(overflow_of(templated, "phonebook_copy_10").values()) == {1.0}  # the preamble tips it over
    for task in ("phonebook_copy_10", "phonebook_copy_20"):
        for sample in templated["samples"][task]:
            context = sample["arguments"][0][0]
            assert context.startswith("Please read")
            assert sample["overflow"] == float(len(sent_for(lm.tok_encode(context), lm.sent)) < len(lm.tok_encode(
                context)))


# lm-eval's completion-API backends need its `api` extra (tenacity, tiktoken): copy-tasks' extra `api`.
NEEDS_API = "lm-eval's API backends need the extra api: pip install 'copy-tasks[api]'"


@pytest.mark.integration
def test_local_completions_docs_overflow_exactly_where_their_answer_does_not_fit(tiny_models):
    pytest.importorskip("tenacity", reason=NEEDS_API)
    tokenizer = str(tiny_models["gpt_neox"])
    with FakeOpenAI() as server:
        results = evaluate("local-completions", PHONE_BOOKS + SCORED,
                           model_args=f"model=tiny,base_url={server.url},tokenizer={tokenizer},max_length={CONTEXT}")
    from transformers import AutoTokenizer

    encode = AutoTokenizer.from_pretrained(tokenizer)
    assert_overflow_is_where_the_answer_does_not_fit(
        results, PHONE_BOOKS + SCORED, lambda text: encode(text, add_special_tokens=False)["input_ids"],
        server.prompts, CONTEXT, scored_sends_last_token=True)
    assert results["configs"]["phonebook_copy_10"]["metadata"]["copy_tasks_context_source"] == \
        "LocalCompletionsAPI's max_length"


@pytest.mark.integration
def test_a_backend_that_sends_text_reports_unknown_with_one_warning(tiny_models, caplog):
    pytest.importorskip("tenacity", reason=NEEDS_API)
    with FakeOpenAI() as server, caplog.at_level(logging.WARNING, logger="copy_tasks"):
        results = evaluate("local-completions", PHONE_BOOKS,
                           model_args=f"model=tiny,base_url={server.url},tokenizer_backend=none")
    assert all(isinstance(prompt, str) for prompt in server.prompts)
    for task in PHONE_BOOKS:
        assert math.isnan(results["results"][task][results_key("overflow")])
        assert results["configs"][task]["metadata"]["copy_tasks_overflow_docs"] == "unknown"
    warnings = [record.getMessage() for record in caplog.records if "overflow is unknown" in record.getMessage()]
    assert len(warnings) == 1 and "sends prompts as text" in warnings[0] and "tokenizer=" in warnings[0]


@pytest.fixture
def stub_vllm(monkeypatch):
    """lm-eval's own `VLLM` class over a stub engine (vllm itself needs a GPU): the real
    `max_length`, `tok_encode` and truncation code runs; the stub records what it is sent."""
    stub = types.ModuleType("vllm")

    class Params:
        def __init__(self, **kwargs) -> None:
            self.__dict__.update(kwargs)

    stub.LLM, stub.SamplingParams, stub.TokensPrompt = object, Params, dict
    lora, lora_request, tokenizers = (types.ModuleType(name) for name in (
        "vllm.lora", "vllm.lora.request", "vllm.tokenizers"))
    lora_request.LoRARequest, tokenizers.get_tokenizer = object, None
    # lm-eval 0.5's vLLM backend also imports ray (its data-parallel path) and vllm.utils' get_open_port
    ray, utils = types.ModuleType("ray"), types.ModuleType("vllm.utils")
    utils.get_open_port = None
    for name, module in (("vllm", stub), ("vllm.lora", lora), ("vllm.lora.request", lora_request),
                         ("vllm.tokenizers", tokenizers), ("vllm.utils", utils),
                         *((("ray", ray),) if "ray" not in sys.modules else ())):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "lm_eval.models.vllm_causallms", raising=False)
    installed = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "0.8.0" if name == "vllm" else installed(name))
    from lm_eval.models.vllm_causallms import VLLM

    return VLLM


def test_vllm_docs_overflow_exactly_where_their_answer_does_not_fit(tiny_models, stub_vllm):
    from lm_eval.api.model import LM
    from transformers import AutoTokenizer

    lm = stub_vllm.__new__(stub_vllm)
    LM.__init__(lm)
    engine_config = types.SimpleNamespace(max_model_len=CONTEXT)  # what `--model_args max_model_len=` sets
    lm.__dict__.update(
        tokenizer=AutoTokenizer.from_pretrained(tiny_models["gpt_neox"]), _max_length=None, data_parallel_size=1,
        model=types.SimpleNamespace(llm_engine=types.SimpleNamespace(model_config=engine_config)),
        custom_prefix_token_id=None, add_bos_token=False, truncation_side="left", think_end_token=None,
        batch_size=1, _max_gen_toks=256, lora_request=None,
    )
    sent = []

    def generate(requests, generate, sampling_params, **kwargs):
        sent.extend(list(tokens) for tokens in requests)
        return [types.SimpleNamespace(outputs=[types.SimpleNamespace(text=" 6093237777")]) for _ in requests]

    lm._model_generate = generate
    results = evaluate(lm, PHONE_BOOKS)
    assert_overflow_is_where_the_answer_does_not_fit(results, PHONE_BOOKS, lm.tok_encode, sent, CONTEXT)
    assert results["configs"]["phonebook_copy_10"]["metadata"]["copy_tasks_context_tokens"] == CONTEXT


def test_max_gen_toks_raises_budgets_never_lowers_them_and_is_recorded_as_sent():
    results = evaluate("ngram_copier", ["phonebook_copy_10", "random_copy_50"], gen_kwargs="max_gen_toks=64")
    sent = {task: {sample["arguments"][0][1]["max_gen_toks"] for sample in results["samples"][task]}
            for task in ("phonebook_copy_10", "random_copy_50")}
    # The phone book's 50 rises to 64; a 50-symbol copy needs 98 bytes (budget 100), kept.
    assert sent == {"phonebook_copy_10": {64}, "random_copy_50": {100}}
    for task, budgets in sent.items():
        assert results["configs"][task]["metadata"]["copy_tasks_generation_budgets"] == sorted(budgets)
        assert results["results"][task][results_key("exact_match")] == 1.0


def test_an_hf_run_records_its_prompts_in_the_models_own_tokens_and_the_leaderboard_shows_them(hf_run, tmp_path):
    """Each task records the mean and the longest of its prompts as the backend tokenized them
    (lm-eval's `tok_encode`, no special tokens for GPT-NeoX), and the leaderboard's rows carry them."""
    import json

    from copy_tasks.report.rows import rows_from_file

    lm, results = hf_run
    for task in PHONE_BOOKS:
        counts = [len(lm.tok_encode(sample["doc"]["prompt"])) for sample in results["samples"][task]]
        metadata = results["configs"][task]["metadata"]
        assert metadata["copy_tasks_prompt_tokens_mean"] == sum(counts) / len(counts)
        assert metadata["copy_tasks_prompt_tokens_max"] == max(counts)
    # longer books, longer prompts: 10 entries fit the 300-token context, 30 do not
    means = [results["configs"][task]["metadata"]["copy_tasks_prompt_tokens_mean"] for task in PHONE_BOOKS]
    assert means == sorted(means) and means[0] < CONTEXT < means[-1]
    path = tmp_path / "results_2026-11-01T10-00-00.json"
    path.write_text(json.dumps({key: value for key, value in results.items() if key != "samples"}, default=str))
    rows = {(row.task, row.metric): row.value for row in rows_from_file(path)[0]}
    assert rows[("phonebook_copy_10", "prompt_tokens_mean")] == means[0]
    assert rows[("phonebook_copy_30", "prompt_tokens_max")] == results["configs"]["phonebook_copy_30"]["metadata"][
        "copy_tasks_prompt_tokens_max"]
