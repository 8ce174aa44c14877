"""`copy-tasks train`: a deterministic shared stream from our own families, models of the stated
kinds, and checkpoints that plain `lm_eval` loads and scores."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import torch
from conftest import read_results, run_command
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.experiments.train import experiments_markdown
from copy_tasks.experiments.training import (
    LOOKUP_OPTIONS,
    RECIPES,
    batch,
    build_model,
    char_tokenizer,
    state_bits,
    train,
    training_example,
)
from copy_tasks.probes.doc_sets import generate_docs

QUICK = RECIPES["quick"]
def test_the_stream_is_deterministic_mixed_and_apart_from_the_evaluation_docs():
    first = [training_example(QUICK, index) for index in range(200)]
    assert first == [training_example(QUICK, index) for index in range(200)]
    families = [example.family for example in first]
    assert {families.count(name) for name in ("random_copy", "lookup_prefix", "lookup_suffix")} <= set(range(30, 130))
    evaluation = {doc["prompt"] for length in range(5, 11) for doc in generate_docs("random_copy", length, 1234, 200)}
    assert not evaluation & {example.prompt for example in first}


@settings(max_examples=10, deadline=None)
@given(seed=st.one_of(st.just(0), st.just(10**12), st.integers(0, 2**63)))
def test_no_evaluation_seed_draws_the_training_docs(seed):
    """Any evaluation seed, the recipe's own (0) and the old offset's (10^12 + 0) included:
    evaluation docs 0 to 299 at every (family, length) of the stream's first 300 examples share
    no prompt with them (the old offset put 5 of 150 evaluation docs into the stream)."""
    stream = [training_example(QUICK, index) for index in range(300)]
    prompts = {example.prompt for example in stream}
    for family, length in {(example.family, example.length) for example in stream}:
        options = () if family == "random_copy" else tuple(LOOKUP_OPTIONS.items())
        evaluation = {doc["prompt"] for doc in generate_docs(family, length, seed, 300, options)}
        assert not evaluation & prompts, (family, length)


def test_the_loss_covers_what_the_model_must_write_and_its_end():
    tokenizer = char_tokenizer()
    copy = next(example for index in range(50) if (example := training_example(QUICK, index)).family == "random_copy")
    ids, mask, labels = batch(tokenizer, [copy])
    scored = [token for token in labels[0].tolist() if token != -100]
    assert tokenizer.decode(scored[:-1]) == copy.text[len(copy.prompt):].removesuffix("<eos>")
    assert scored[-1] == tokenizer.eos_token_id and mask.sum() == len(ids[0])


def test_the_character_tokenizer_round_trips_and_reads_a_spaced_letter_as_one_token():
    tokenizer = char_tokenizer()
    text = "a b\n\n$xy|z. A 1"
    assert tokenizer.decode(tokenizer(text)["input_ids"]) == text
    assert len(tokenizer(text)["input_ids"]) == len(text) - 1  # " b" is one token
    spaced = training_example(QUICK, 0).prompt  # a random_copy prompt: every symbol one token
    assert len(tokenizer(spaced)["input_ids"]) == len(spaced.replace(" ", ""))


def test_nope_has_no_position_information_and_rope_has():
    """One layer, no positions: the last output is a function of the set of earlier tokens."""
    recipe = replace(QUICK, transformer_layers=1, hidden=64)
    tokens = torch.tensor([[5, 9, 14, 20, 31, 7]])
    permuted = torch.tensor([[20, 14, 31, 9, 5, 7]])  # the earlier tokens reordered, the last kept
    for architecture, invariant in (("transformer-nope", True), ("transformer-rope", False)):
        model = build_model(architecture, recipe, char_tokenizer()).eval()
        with torch.no_grad():
            same = torch.allclose(model(tokens).logits[0, -1], model(permuted).logits[0, -1], atol=1e-5)
        assert same == invariant, architecture


def test_mamba_state_bits_hand_worked():
    model = build_model("mamba2", QUICK, char_tokenizer())
    config = model.config  # 2 layers, 2 heads of width 32, state 64, conv kernel 4, 64 + 128 conv channels
    assert (config.num_hidden_layers, config.num_heads, config.head_dim, config.state_size) == (2, 2, 32, 64)
    assert state_bits(model) == 32 * (2 * 2 * 32 * 64 + 2 * 3 * (2 * 32 + 2 * 64)) == 299_008
    assert state_bits(build_model("transformer-rope", QUICK, char_tokenizer())) is None


@pytest.mark.parametrize("architecture", ["transformer-nope", "mamba2"])
def test_training_reproduces_from_its_seed(architecture, tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    first = train(architecture, QUICK, tmp_path / "one", progress=False)
    second = train(architecture, QUICK, tmp_path / "two", progress=False)
    assert first["final_loss"] == second["final_loss"]
    log = [json.loads(line) for line in (tmp_path / "one" / "train_log.jsonl").read_text().splitlines()]
    assert [entry["examples"] for entry in log] == list(range(16, QUICK.examples + 1, 16))
    assert {"loss", "seconds", "step"} <= set(log[0])


@pytest.mark.slow
def test_quick_training_gives_checkpoints_plain_lm_eval_scores(tmp_path):
    result = run_command(["copy-tasks", "train", "--quick", "--models", "transformer-rope,mamba2",
                          "--out", str(tmp_path / "run")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    experiments = (tmp_path / "run" / "experiments.md").read_text()
    assert "experiments" in experiments.lower()
    (tmp_path / "run" / "experiments.md").unlink()
    again = run_command(["copy-tasks", "train", "--out", str(tmp_path / "run"), "--report-only"], cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (tmp_path / "run" / "experiments.md").read_text() == experiments  # from the results, not re-run
    for results in (tmp_path / "run" / "results").rglob("results_*.json"):
        assert str(tmp_path) not in results.read_text()  # the --include_path folder is named relatively
    for architecture, model_type in (("transformer-rope", "gpt_neox"), ("mamba2", "mamba2")):
        checkpoint = tmp_path / "run" / architecture / f"examples-{QUICK.examples}"
        scored = run_command(["lm_eval", "--model", "hf", "--model_args", f"pretrained={checkpoint}", "--device",
                              "cpu", "--tasks", "random_copy_10", "--limit", "3",
                              "--output_path", str(tmp_path / architecture)], cwd=tmp_path)
        assert scored.returncode == 0, scored.stderr[-3000:]
        results = read_results(tmp_path / architecture)[0]
        assert results["results"]["random_copy_10"]["exact_match,none"] in (0.0, 1 / 3, 2 / 3, 1.0)
        assert results["configs"]["random_copy_10"]["metadata"]["copy_tasks_model_type"] == model_type


def test_the_experiments_figures_are_read_off_their_tables_hand_worked():
    full = RECIPES["full"]  # checkpoints 3,200 ... 51,200; copies scored at 10 and 20 symbols
    rope_checkpoints = [(0.0, 0.0), (0.0, 0.2), (0.8, 0.9), (1.0, 0.9), (1.0, 1.0), (1.0, 1.0)]
    scores = {}
    for seen, (at_10, at_20) in zip(full.checkpoints, rope_checkpoints):
        scores[f"trained-transformer-rope-{seen}ex"] = {"random_copy_10": at_10, "random_copy_20": at_20}
        scores[f"trained-mamba2-{seen}ex"] = {"random_copy_10": 0.5, "random_copy_20": 0.0}
    copy_curves = {"transformer-rope": (1.0, 1.0, 0.9, 0.4, 0.0, 0.0, 0.0, 0.0, 0.0),  # 10 ... 200 symbols
                   "mamba2": (0.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)}
    lookups = {"transformer-rope": (0.5, 1.0), "mamba2": (0.75, 0.25)}  # prefix, suffix at every length
    for architecture in ("transformer-rope", "mamba2"):
        final = dict(zip((f"random_copy_{n}" for n in (10, 15, 20, 25, 30, 40, 50, 100, 200)),
                         copy_curves[architecture]))
        for n in (10, 20, 30, 50, 100):
            final[f"lookup_prefix_{n}"], final[f"lookup_suffix_{n}"] = lookups[architecture]
        scores[f"trained-{architecture}"] = final
    summaries = {name: {"parameters": 1, "final_loss": 0.5, "seconds": 1.0} for name in ("transformer-rope", "mamba2")}

    markdown, figures = experiments_markdown(full, scores, summaries, ("transformer-rope", "mamba2"), None)

    # rope: means 0, 0.1, 0.85, 0.95, ... first at or above 0.9 at 19,200; mamba2: 0.25, then 0.2
    assert figures["trained-transformer-rope"]["examples_to_90"] == 19_200
    assert figures["trained-mamba2"]["examples_to_90"] is None
    assert figures["trained-transformer-rope"]["effective_length"] == 20  # 0.9 at 20, 0.4 at 25
    assert figures["trained-mamba2"]["effective_length"] is None  # below 50% from the first length
    assert figures["trained-transformer-rope"]["prefix_minus_suffix"] == pytest.approx(-0.5)
    assert figures["trained-mamba2"]["prefix_minus_suffix"] == pytest.approx(0.5)
    assert "| trained-transformer-rope | 19,200 | 20 | -0.50 |" in markdown
    assert "| trained-mamba2 | not reached | <10 | +0.50 |" in markdown
