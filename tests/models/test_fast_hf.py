"""`hf_fast` returns what lm-eval's `hf` returns for loglikelihood requests, batched or not."""

from __future__ import annotations

import pytest
import torch
from lm_eval.models.huggingface import HFLM

from copy_tasks.harness import lm_eval_internals as internals
from copy_tasks.harness.lm_eval_internals import new_request
from copy_tasks.models import fast_hf
from copy_tasks.models.banded_attention import BANDED_SDPA
from copy_tasks.models.fast_hf import FastLoglikelihoodHFLM
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs


def requests():
    # Lengths of 100 to 2,700 tokens: the 200-entry books exceed the tiny models' 2048 tokens, so
    # left truncation must match too, and batches mix very different lengths; an `mqar` doc's
    # 8 questions, each a prefix of the next, are scored from one forward pass.
    docs = (generate_docs("random_copy", 50, 1, 3) + generate_docs("phonebook_copy", 200, 1, 2)
            + generate_docs("lookup_suffix", 20, 1, 2) + generate_docs("dup_ngram_copy", 3, 1, 2)
            + tuple(FAMILIES["mqar"].request_docs(generate_docs("mqar", 8, 1, 1)[0])))
    return [new_request("loglikelihood", d, (d["prompt"], d["continuation"]))
            for d in docs]


@pytest.mark.parametrize("architecture", ["gpt_neox", "mamba", "gemma3"])
def test_same_logprobs_and_verdicts_as_lm_eval_hf_at_batch_1_and_4(tiny_models, architecture):
    # On Gemma 3 (sliding window) hf_fast's banded attention takes every long prompt.
    path = str(tiny_models[architecture])
    expected = HFLM(pretrained=path, device="cpu", batch_size=4).loglikelihood(requests())
    for batch_size in (1, 4):
        fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=batch_size)
        assert (fast.model.config._attn_implementation == BANDED_SDPA) == (architecture == "gemma3")
        assert fast._logits_of is not None  # hf_fast applies the output layer itself
        got = fast.loglikelihood(requests())
        assert [greedy for _, greedy in got] == [greedy for _, greedy in expected], batch_size
        assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-3)


def own_greedy_requests(lm, count: int = 16) -> list[tuple]:
    """Token-level loglikelihood requests (lm-eval's (key, context, continuation) tokens) whose
    continuations are the model's own greedy tokens in its dtype: where a bfloat16 log-softmax
    ties, `is_greedy` depends on how it is taken."""
    found = []
    for index in range(count):
        ids = lm.tok_encode(f"Ann Lee: {6093237777 + 7919 * index}\nBob Ray: {index}")
        with torch.no_grad():
            written = lm.model.generate(torch.tensor([ids]), max_new_tokens=4, do_sample=False, pad_token_id=0,
                                        bad_words_ids=[[lm.tokenizer.eos_token_id]])[0, len(ids):].tolist()
        found.append((None, ids, written))
    return found


@pytest.mark.parametrize("settings", [{"dtype": "float32"}, {"dtype": "bfloat16"},
                                      {"dtype": "float32", "mixed_precision_dtype": "bfloat16"},
                                      {"dtype": "bfloat16", "softmax_dtype": "float32"}],
                         ids=["float32", "bfloat16", "mixed_precision_bfloat16", "bfloat16_softmax_float32"])
@pytest.mark.parametrize("architecture", ["gpt_neox", "mamba"])
def test_hf_fast_gives_hfs_numbers_in_every_dtype_setting(tiny_models, architecture, settings):
    """Issue 51: under bfloat16 `hf` takes its log-softmax in bfloat16 (ties), hf_fast took it in
    float32 (27 of 36 greedy under `hf`, 36 under hf_fast on the model's own tokens), and
    ignored `mixed_precision_dtype` in its teacher-forced pass; now the same numbers in each."""
    path = str(tiny_models[architecture])
    hf = HFLM(pretrained=path, device="cpu", batch_size=4, **settings)
    cases = own_greedy_requests(hf)
    expected = hf._loglikelihood_tokens(cases)
    got = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=4, **settings)._loglikelihood_tokens(cases)
    assert got == expected
    if architecture == "gpt_neox" and settings == {"dtype": "bfloat16"}:  # its own tokens, yet some tie in bfloat16
        assert 0 < sum(greedy for _, greedy in expected) < len(cases)


def test_hf_fast_pads_as_hf_does_with_a_pad_id_past_the_embedding(tiny_models, tmp_path):
    """Issue 51: a tokenizer whose pad id is past the embedding: `hf` pads its rows with 0,
    hf_fast padded them with the pad id and died with IndexError."""
    import shutil

    from transformers import AutoTokenizer

    folder = tmp_path / "model"
    shutil.copytree(tiny_models["gpt_neox"], folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.add_special_tokens({"pad_token": "<|padding-past-the-embedding|>"})
    tokenizer.save_pretrained(folder)
    assert tokenizer.pad_token_id >= 384  # the embedding's rows
    cases = requests()[:6]
    expected = HFLM(pretrained=str(folder), device="cpu", batch_size=4).loglikelihood(cases)
    got = FastLoglikelihoodHFLM(pretrained=str(folder), device="cpu", batch_size=4).loglikelihood(cases)
    assert [greedy for _, greedy in got] == [greedy for _, greedy in expected]
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-4)


def forward_inputs(fast, monkeypatch) -> list[tuple[int, int]]:
    """The shapes (rows, width) of the inputs of `fast`'s model, a forward pass each."""
    calls = []
    forward = fast.model.forward
    monkeypatch.setattr(fast.model, "forward", lambda *args, **kwargs: calls.append(tuple(args[0].shape)) or forward(
        *args, **kwargs))
    return calls


def test_a_batch_within_forward_tokens_is_one_forward_pass(tiny_models, monkeypatch):
    fast = FastLoglikelihoodHFLM(pretrained=str(tiny_models["gpt_neox"]), device="cpu", batch_size=4)
    calls = forward_inputs(fast, monkeypatch)
    fast.loglikelihood(requests())
    assert [rows for rows, _ in calls] == [4, 4, 2]  # 17 requests, 10 rows (an mqar doc's 8 questions, one)


def test_a_batch_of_long_rows_runs_in_passes_of_at_most_forward_tokens(tiny_models, monkeypatch):
    """Issue 41 goal: a batch of 8 rows of a 1,000-entry phone book (15,900 tokens each) ran as
    one forward pass, and Gemma 3 270M's activations for 127,000 tokens took its peak to 6.9 GB;
    a pass now holds at most FORWARD_TOKENS padded tokens, with the same scores."""
    path = str(tiny_models["gemma3"])
    fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=4)
    monkeypatch.setattr(fast_hf, "FORWARD_TOKENS", 100, raising=False)
    calls = forward_inputs(fast, monkeypatch)
    cases = mixed_lengths(fast) + mixed_lengths(fast, " c")  # inputs of 83, 25, 83 and 25 tokens: one batch
    got = fast.loglikelihood(cases)
    assert calls == [(1, 83), (1, 83), (2, 25)]
    expected = HFLM(pretrained=path, device="cpu", batch_size=1).loglikelihood(cases)
    assert [greedy for _, greedy in got] == [greedy for _, greedy in expected]
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-4)


@pytest.fixture(scope="module")
def lstm_folder(tiny_models, tmp_path_factory):
    """A tiny LSTM (`copy-tasks train`'s model type) with large random weights, so that reading
    the wrong positions changes every log-probability, and the tiny models' tokenizer."""
    from transformers import AutoTokenizer

    from copy_tasks.models.lstm_lm import LstmConfig, LstmForCausalLM
    from copy_tasks.models.trained_architectures import register

    register()
    tokenizer = AutoTokenizer.from_pretrained(tiny_models["gpt_neox"])
    torch.manual_seed(0)
    model = LstmForCausalLM(LstmConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1,
                                       pad_token_id=tokenizer.pad_token_id))
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_()
    folder = tmp_path_factory.mktemp("lstm")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_the_lstm_gives_the_same_logprobs_as_lm_eval_hf(lstm_folder):
    # It once ignored logits_to_keep, and hf_fast read its first positions as the last ones.
    cases = requests()[:3]
    expected = HFLM(pretrained=lstm_folder, device="cpu", batch_size=4).loglikelihood(cases)
    fast = FastLoglikelihoodHFLM(pretrained=lstm_folder, device="cpu", batch_size=4)
    assert fast._logits_of is not None and fast.model.get_output_embeddings() is fast.model.head
    got = fast.loglikelihood(cases)
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-3)


@pytest.mark.parametrize("architecture_known", [True, False])
def test_a_model_ignoring_logits_to_keep_is_read_at_the_scored_positions_or_refused(tiny_models, monkeypatch,
                                                                                   architecture_known):
    # Known: hf_fast applies the output layer to the hidden states; unknown: it reads the logits.
    path = str(tiny_models["gpt_neox"])
    cases = requests()[:3]
    expected = HFLM(pretrained=path, device="cpu", batch_size=4).loglikelihood(cases)
    fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=4)
    if not architecture_known:
        monkeypatch.setattr(fast, "_logits_of", None)
    forward = fast.model.forward
    monkeypatch.setattr(fast.model, "forward", lambda *args, logits_to_keep, **kwargs: forward(*args, **kwargs))
    got = fast.loglikelihood(cases)  # every position returned: the last ones read
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-3)
    monkeypatch.setattr(fast.model, "forward", lambda *args, logits_to_keep, **kwargs: forward(
        *args, logits_to_keep=logits_to_keep + 1, **kwargs))
    with pytest.raises(RuntimeError, match="returned .* does not honour logits_to_keep"):
        fast.loglikelihood(cases)


def head_inputs(fast, monkeypatch, chunk_positions: int) -> list[tuple[int, ...]]:
    """The shapes (less the hidden size) of the inputs of `fast`'s output layer, a call each,
    with hf_fast applying it to at most `chunk_positions` positions at a time."""
    monkeypatch.setattr(fast_hf, "HEAD_CHUNK_LOGITS", chunk_positions * fast.model.config.vocab_size)
    shapes = []
    fast.model.get_output_embeddings().register_forward_hook(lambda module, args, output: shapes.append(
        tuple(args[0].shape[:-1])))
    return shapes


def mixed_lengths(fast, filler: str = " a"):
    """Two requests of 84 and 26 tokens scoring 4 and 10 (the tiny tokenizer has no merges: " a"
    is two tokens), their prompts made of `filler`."""
    cases = [new_request("loglikelihood", {}, (filler * 8, " b" * 5)),
             new_request("loglikelihood", {}, (filler * 40, " b" * 2))]
    assert [len(fast.tok_encode(text)) for text in (filler * 8, " b" * 5, filler * 40, " b" * 2)] == [16, 10, 80, 4]
    return cases


def test_the_output_layer_sees_only_each_rows_scored_positions(tiny_models, monkeypatch):
    """Issue 41 finding 1: one `logits_to_keep` per batch kept the logits of [batch, keep] positions,
    keep set by the row with the most positions after its first scored one (for Gemma 3, 811
    positions x 262,144 logits x 8 rows: 6.8 GB)."""
    path = str(tiny_models["gpt_neox"])
    fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=2)
    shapes = head_inputs(fast, monkeypatch, chunk_positions=3)
    cases = mixed_lengths(fast)
    got = fast.loglikelihood(cases)
    # One batch: the forward's own call gets no position; then the rows' 4 + 10 scored positions
    # together, at most 3 at a time (the output layer's weights read once a chunk, not once a row).
    assert shapes == [(2, 0), (3,), (3,), (3,), (3,), (2,)]
    expected = HFLM(pretrained=path, device="cpu", batch_size=1).loglikelihood(cases)
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-4)


def test_an_architecture_not_known_to_hf_fast_is_scored_from_its_logits(tiny_models, monkeypatch):
    path = str(tiny_models["gpt_neox"])
    monkeypatch.setattr(fast_hf, "PLAIN_HEAD", fast_hf.PLAIN_HEAD - {"gpt_neox"})
    fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=2)
    shapes = head_inputs(fast, monkeypatch, chunk_positions=3)
    cases = mixed_lengths(fast)
    got = fast.loglikelihood(cases)
    # logits_to_keep: the padded width is 83 inputs; the shorter row's first scored input is 15.
    assert shapes == [(2, 83 - 15)]
    expected = HFLM(pretrained=path, device="cpu", batch_size=1).loglikelihood(cases)
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-4)


def questions_of_one_doc():
    """Three requests of one doc whose later questions follow the earlier answers (as `mqar`'s
    do), and one of another doc: each of the first two begins the third."""
    return [new_request("loglikelihood", {}, arguments) for arguments in (
        (" a b c d", " e"), (" a b c d e f", " g"), (" a b c d e f g h", " i"), (" b b", " c"))]


@pytest.mark.parametrize("architecture", ["gpt_neox", "mamba"])
def test_requests_that_begin_another_are_scored_from_its_forward_pass(tiny_models, monkeypatch, architecture):
    """Issue 41 (the main job under 3 minutes): `mqar_tf` at 16 pairs asks 16 questions a doc,
    each a prefix of the next, and ran 16 forward passes a doc; a causal model's pass over the
    last computes every earlier one's logits, with the same scores."""
    path = str(tiny_models[architecture])
    fast = FastLoglikelihoodHFLM(pretrained=path, device="cpu", batch_size=4)
    calls = forward_inputs(fast, monkeypatch)
    got = fast.loglikelihood(questions_of_one_doc())
    assert [rows for rows, _ in calls] == [2]  # the third question's row and the other doc's
    expected = HFLM(pretrained=path, device="cpu", batch_size=1).loglikelihood(questions_of_one_doc())
    assert [greedy for _, greedy in got] == [greedy for _, greedy in expected]
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-4)


def test_requests_are_not_shared_where_the_model_is_not_known_causal_or_a_row_is_cut(tiny_models, monkeypatch):
    fast = FastLoglikelihoodHFLM(pretrained=str(tiny_models["gpt_neox"]), device="cpu", batch_size=4)
    calls = forward_inputs(fast, monkeypatch)
    monkeypatch.setattr(fast.model.config, "use_bidirectional_attention", True, raising=False)
    fast.loglikelihood(questions_of_one_doc())
    assert [rows for rows, _ in calls] == [4]
    # A context of 14 tokens: the third question (18 tokens) is cut, the first two are not.
    short = FastLoglikelihoodHFLM(pretrained=str(tiny_models["gpt_neox"]), device="cpu", batch_size=4, max_length=14)
    calls = forward_inputs(short, monkeypatch)
    short.loglikelihood(questions_of_one_doc())
    assert [rows for rows, _ in calls] == [3]


@pytest.mark.parametrize(("rows_that_fit", "batches"), [(3, [3, 1]), (0, [1, 1, 1, 1])])
def test_batch_size_auto_is_what_the_free_memory_holds_of_the_longest_request(tiny_models, monkeypatch,
                                                                              rows_that_fit, batches):
    """Issue 41 finding 6: `--batch_size auto` was refused on hf_fast; it is sized from the run's
    longest request (here 84 tokens: 83 inputs), never past the memory free, and recorded."""
    fast = FastLoglikelihoodHFLM(pretrained=str(tiny_models["gpt_neox"]), device="cpu", batch_size="auto")
    config = fast.model.config
    row = fast_hf.row_bytes(config, 83, element_bytes=4)
    head = 3 * 4 * min(fast_hf.HEAD_CHUNK_LOGITS, config.vocab_size * 83)
    monkeypatch.setattr(fast_hf, "free_memory_bytes", lambda device: (rows_that_fit * row + head) * 4 // 3 + 4)
    calls = []
    forward = fast.model.forward
    monkeypatch.setattr(fast.model, "forward", lambda *args, **kwargs: calls.append(args[0].shape[0]) or forward(
        *args, **kwargs))
    cases = mixed_lengths(fast) + mixed_lengths(fast, " c")  # 4 requests
    got = fast.loglikelihood(cases)
    assert calls == batches and fast.batch_sizes == {0: batches[0]}
    expected = HFLM(pretrained=str(tiny_models["gpt_neox"]), device="cpu", batch_size=1).loglikelihood(cases)
    assert [logprob for logprob, _ in got] == pytest.approx([logprob for logprob, _ in expected], abs=1e-4)


def test_batch_size_auto_of_generation_is_sized_from_prompt_and_budget(tiny_models, monkeypatch):
    fast = FastLoglikelihoodHFLM(pretrained=str(tiny_models["gpt_neox"]), device="cpu", batch_size="auto")
    monkeypatch.setattr(fast, internals.HF_BATCH_SIZE_TRIAL, lambda *args, **kwargs: pytest.fail("lm-eval's trial ran"))
    # 16 prompt tokens + a budget of 5, with the keys and values of every layer: room for 2 rows.
    row = fast_hf.row_bytes(fast.model.config, 16 + 5, element_bytes=4, cache=True)
    head = 3 * 4 * min(fast_hf.HEAD_CHUNK_LOGITS, fast.model.config.vocab_size * 21)
    monkeypatch.setattr(fast_hf, "free_memory_bytes", lambda device: (2 * row + head) * 4 // 3 + 4)
    options = {"until": ["\n"], "max_gen_toks": 5, "do_sample": False}
    cases = [new_request("generate_until", {}, (prompt, options))
             for prompt in (" a" * 8, " a" * 4, " a" * 2)]
    batches = []
    generate = fast.model.generate
    monkeypatch.setattr(fast.model, "generate",
                        lambda **kwargs: batches.append(kwargs["input_ids"].shape[0]) or generate(**kwargs))
    assert len(fast.generate_until(cases)) == 3
    assert batches == [2, 1] and fast.batch_sizes == {0: 2} and fast.batch_size == "auto"


def test_batch_size_auto_on_a_config_without_the_shape_it_reads_is_batch_1_not_a_crash(tmp_path):
    """Found running the red-team paths of issue 51: `--batch_size auto` on a model whose config
    gives no `hidden_size` (the scripted model) died with AttributeError."""
    from copy_tasks.experiments.tiny_models import build_byte_fallback_tokenizer
    from copy_tasks.models.scripted_hf import write_scripted_model

    folder = write_scripted_model(tmp_path, build_byte_fallback_tokenizer(), {"ab:": " 12"})
    fast = FastLoglikelihoodHFLM(pretrained=str(folder), device="cpu", batch_size="auto")
    request = new_request("loglikelihood", {}, ("ab:", " 12"))
    assert fast.loglikelihood([request]) == [(0.0, True)] and list(fast.batch_sizes.values()) == [1]
