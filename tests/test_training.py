"""`copy-tasks train`: one model per task in the authors' formats, six architectures that plain
`lm_eval --model hf` loads as trained (or refuses), deterministic training, and a report whose
figures are read off its tables."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest
import torch
from conftest import offline_env
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.experiments.architectures import build_model, parameters, state_bits
from copy_tasks.experiments.train_report import Report
from copy_tasks.experiments.training import (
    ARCHITECTURES,
    COPY_OPTIONS,
    LOOKUP_OPTIONS,
    RECIPES,
    TASKS,
    Example,
    char_tokenizer,
    packed_batch,
    packed_row,
    single_batch,
    train,
    training_example,
)
from copy_tasks.probes.task_docs import generate_docs

QUICK = RECIPES["quick"]


@pytest.mark.parametrize("task", TASKS)
def test_each_task_streams_the_authors_format_deterministically(task):
    stream = [training_example(QUICK, task, seed=0, index=index) for index in range(100)]
    assert stream == [training_example(QUICK, task, seed=0, index=index) for index in range(100)]
    assert stream != [training_example(QUICK, task, seed=1, index=index) for index in range(100)]
    low, high = QUICK.lengths(task)
    for example in stream:
        assert example.task == task and low <= example.length <= high
        assert example.text == example.prompt + example.answer + "."
        string = example.prompt[1:].split("|")[1 if task == "lookup_prefix" else 0]
        assert example.prompt.startswith("$") and len(string) == example.length and string.isalpha()
        if task == "copy":
            assert example.prompt == f"${example.answer}|"
        else:
            assert len(example.answer) == 4 and example.answer in string


@settings(max_examples=10, deadline=None)
@given(seed=st.one_of(st.just(0), st.just(1), st.integers(0, 2**63)))
def test_no_evaluation_seed_draws_a_training_doc(seed):
    """Evaluation docs 0 to 299 of every (family, length) the first 200 examples of each task
    use share no prompt with them, whatever the evaluation seed (the recipe's seeds included)."""
    for task, family in TASKS.items():
        stream = [training_example(QUICK, task, seed=0, index=index) for index in range(200)]
        options = tuple((COPY_OPTIONS if task == "copy" else LOOKUP_OPTIONS).items())
        for length in {example.length for example in stream}:
            evaluation = {doc["prompt"] for doc in generate_docs(family, length, seed, 300, options)}
            assert not evaluation & {example.prompt for example in stream}, (task, length)


def test_the_loss_covers_the_answer_and_its_end_only():
    tokenizer = char_tokenizer()
    example = training_example(QUICK, "lookup_suffix", 0, 0)
    ids, mask, labels = single_batch(tokenizer, [example])
    scored = [token for token in labels[0].tolist() if token != -100]
    assert tokenizer.decode(scored) == example.answer + "."
    assert mask.sum() == len(tokenizer(example.text)["input_ids"])


def test_packed_rows_are_full_and_score_only_the_whole_examples_hand_worked():
    tokenizer = char_tokenizer()
    copies = [Example("copy", 3, "$abc|", "abc", "$abc|abc."), Example("copy", 2, "$xy|", "xy", "$xy|xy.")] * 3
    ids, labels, whole = packed_row(tokenizer, iter(copies), 20)
    # "$abc|abc." (9) + "$xy|xy." (7) = 16 tokens whole; "$abc" of the third cut, not scored
    assert whole == 2 and tokenizer.decode(ids) == "$abc|abc.$xy|xy.$abc"
    assert tokenizer.decode([t for t in labels if t != -100]) == "abc.xy."
    ids, mask, labels, whole = packed_batch(tokenizer, iter(copies * 2), rows=2, context=20)
    assert ids.shape == (2, 20) and bool(mask.all()) and whole == 4


def test_the_six_architectures_have_about_one_size():
    counts = {name: parameters(build_model(name, RECIPES["full"], char_tokenizer(), 0)) for name in ARCHITECTURES}
    assert max(counts.values()) / min(counts.values()) < 1.05, counts


def test_nope_has_no_position_information_and_rope_has():
    """One layer, no positions: the last output is a function of the set of earlier tokens."""
    recipe = replace(QUICK, transformer_layers=1, hidden=64)
    tokens = torch.tensor([[5, 9, 14, 20, 31, 7]])
    permuted = torch.tensor([[20, 14, 31, 9, 5, 7]])  # the earlier tokens reordered, the last kept
    for architecture, invariant in (("transformer-nope", True), ("transformer-rope", False)):
        model = build_model(architecture, recipe, char_tokenizer(), 0).eval()
        with torch.no_grad():
            same = torch.allclose(model(tokens).logits[0, -1], model(permuted).logits[0, -1], atol=1e-5)
        assert same == invariant, architecture


def test_hard_alibi_heads_see_only_their_window_with_and_without_a_cache():
    """One layer, every head windowed (heads 0 and 1: 0 and 1 back): the last output depends on
    the last two tokens only, and decoding with a cache gives the full forward's logits."""
    recipe = replace(QUICK, transformer_layers=1, hidden=64, attention_heads=2, masked_heads=2)
    model = build_model("transformer-hard-alibi", recipe, char_tokenizer(), 0).eval()
    tokens = torch.tensor([[5, 9, 14, 20, 31, 7]])
    far, near = tokens.clone(), tokens.clone()
    far[0, 3], near[0, 4] = 40, 40
    with torch.no_grad():
        last = model(tokens).logits[0, -1]
        assert torch.allclose(model(far).logits[0, -1], last, atol=1e-6)
        assert not torch.allclose(model(near).logits[0, -1], last, atol=1e-4)
        deep = build_model("transformer-hard-alibi", replace(QUICK, hidden=64, attention_heads=4, masked_heads=2),
                           char_tokenizer(), 0).eval()
        full = deep(tokens).logits
        prefix = deep(tokens[:, :4], use_cache=True)
        step = deep(tokens[:, 4:5], past_key_values=prefix.past_key_values, use_cache=True)
        assert torch.allclose(step.logits[0, -1], full[0, 4], atol=1e-5)


def test_state_bits_hand_worked():
    mamba = build_model("mamba2", QUICK, char_tokenizer(), 0)
    config = mamba.config  # 2 layers, 2 heads of width 32, state 64, conv kernel 4, 64 + 128 conv channels
    assert (config.num_hidden_layers, config.num_heads, config.head_dim, config.state_size) == (2, 2, 32, 64)
    assert state_bits(mamba) == 32 * (2 * 2 * 32 * 64 + 2 * 3 * (2 * 32 + 2 * 64)) == 299_008
    assert state_bits(build_model("lstm", QUICK, char_tokenizer(), 0)) == 32 * 2 * 2 * 32  # h and c, 2 layers of 32
    assert state_bits(build_model("transformer-hard-alibi", QUICK, char_tokenizer(), 0)) is None


@pytest.mark.parametrize("architecture", ["transformer-hard-alibi", "lstm"])
def test_training_reproduces_from_its_seed(architecture, tmp_path):
    first = train(architecture, "copy", 0, QUICK, tmp_path / "one")
    second = train(architecture, "copy", 0, QUICK, tmp_path / "two")
    assert first["final_loss"] == second["final_loss"] and first["examples"] == second["examples"]
    for name in ("model.safetensors", "config.json"):
        assert (tmp_path / "one" / "copy" / architecture / "seed-0" / "final" / name).read_bytes() == \
            (tmp_path / "two" / "copy" / architecture / "seed-0" / "final" / name).read_bytes()
    log = [json.loads(line) for line in (tmp_path / "one" / "copy" / architecture / "seed-0" / "log.jsonl")
           .read_text().splitlines()]
    assert [entry["phase"] for entry in log] == ["single", "single", "packed"]  # 4 single steps, then 2 packed
    assert log[1]["examples"] == 4 * QUICK.batch_size and log[-1]["examples"] == first["examples"]
    assert set(first["checkpoints"]) == {3, 6}


def test_a_run_in_the_folder_of_an_earlier_one_keeps_what_it_finished(tmp_path):
    from copy_tasks.experiments.training import train_all

    said: list[str] = []
    first = train_all("quick", tmp_path, ("lstm",), report=said.append)
    final = tmp_path / "copy" / "lstm" / "seed-0" / "final" / "model.safetensors"
    trained_at = final.stat().st_mtime_ns
    (tmp_path / "lookup_suffix" / "lstm" / "seed-0" / "summary.json").unlink()  # as if interrupted there
    again = train_all("quick", tmp_path, ("lstm",), report=said.append)
    assert said == [f"2 of 3 models already trained in {tmp_path}: kept"]
    assert final.stat().st_mtime_ns == trained_at  # not trained again
    assert sorted(s["task"] for s in again) == sorted(s["task"] for s in first)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Each architecture after a quick training on the copy task, and the logits it computes."""
    out = tmp_path_factory.mktemp("trained")
    tokens = torch.tensor([char_tokenizer()("$abcde|abc")["input_ids"]])
    logits = {}
    for architecture in ARCHITECTURES:
        train(architecture, "copy", 0, QUICK, out)
        from transformers import AutoModelForCausalLM

        with torch.no_grad():
            model = AutoModelForCausalLM.from_pretrained(out / "copy" / architecture / "seed-0" / "final").eval()
            logits[architecture] = model(tokens).logits
    return out, tokens, logits


def test_lm_eval_loads_each_saved_architecture_as_trained(trained):
    from lm_eval.models.huggingface import HFLM

    out, tokens, logits = trained
    for architecture in ARCHITECTURES:
        lm = HFLM(pretrained=str(out / "copy" / architecture / "seed-0" / "final"), device="cpu", batch_size=1)
        with torch.no_grad():
            assert torch.allclose(lm.model(tokens).logits, logits[architecture], atol=1e-5), architecture


LOAD_WITHOUT_OUR_CODE = """
import sys
from transformers import AutoModelForCausalLM
try:
    AutoModelForCausalLM.from_pretrained(sys.argv[1])
except (ValueError, KeyError) as error:
    print("refused:", error)
else:
    print("loaded")
"""


@pytest.mark.parametrize("architecture, model_type", [("transformer-hard-alibi", "copy_tasks_hard_alibi"),
                                                      ("lstm", "copy_tasks_lstm")])
def test_a_load_without_the_registration_fails_instead_of_scoring_another_model(trained, architecture, model_type):
    folder = trained[0] / "copy" / architecture / "seed-0" / "final"
    env = offline_env(COPY_TASKS_AUTOREGISTER="0")
    loaded = subprocess.run([sys.executable, "-c", LOAD_WITHOUT_OUR_CODE, str(folder)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert loaded.stdout.startswith("refused:") and model_type in loaded.stdout, loaded.stdout + loaded.stderr[-2000:]


def test_hard_alibi_refuses_another_attention(trained):
    from transformers import AutoModelForCausalLM

    with pytest.raises(ValueError, match="runs only its own attention"):
        AutoModelForCausalLM.from_pretrained(trained[0] / "copy" / "transformer-hard-alibi" / "seed-0" / "final",
                                             attn_implementation="sdpa")


def test_the_report_reads_its_figures_off_its_tables_hand_worked():
    full = RECIPES["full"]  # copies trained to 20: scored 10 ... 200; lookups 10 ... 100; seeds 0 and 1
    architectures = ("transformer-hard-alibi", "mamba2")
    scores, summaries = {}, []
    copy = {"transformer-hard-alibi": {0: 1.0, 1: 0.8}, "mamba2": {0: 0.25, 1: 0.75}}  # at every length
    lookup = {"transformer-hard-alibi": (0.5, 1.0), "mamba2": (1.0, 0.25)}  # (prefix, suffix) at every length
    for architecture in architectures:
        for seed in full.seeds:
            name = f"{architecture}-s{seed}"
            scores[f"trained-copy-{name}"] = {f"random_copy_tf_{n}": copy[architecture][seed]
                                              for n in (10, 20, 30, 40, 50, 75, 100, 150, 200)}
            for step, value in ((100, 0.5), (200, 0.95), (300, 0.95)):
                scores[f"trained-copy-{name}-step{step}"] = {"random_copy_tf_10": value, "random_copy_tf_20": value}
            for place, value in zip(("prefix", "suffix"), lookup[architecture]):
                scores[f"trained-lookup_{place}-{name}"] = {f"lookup_{place}_tf_{n}": value
                                                            for n in (10, 20, 30, 50, 75, 100)}
            for task in TASKS:
                summaries.append({"task": task, "architecture": architecture, "seed": seed, "parameters": 1,
                                  "state_bits": None, "final_loss": 0.5, "examples": 10, "seconds": 1.0,
                                  "checkpoints": {"100": 3_200, "200": 6_400, "300": 9_600, "450": 20_000}})
    report = Report(full, "full", scores, summaries, architectures)
    markdown = report.markdown()
    assert "| transformer-hard-alibi | 0.90 (0.80-1.00) | >= 0.9: reached |" in markdown
    assert "| mamba2 | 0.50 (0.25-0.75) | < 0.5: not reached |" in markdown
    assert "| transformer-hard-alibi | transformer (Hard-ALiBi) | -0.50 | -0.50 | -0.50 | yes |" in markdown
    assert "| mamba2 | ssm | +0.75 | +0.75 | +0.75 | yes |" in markdown
    # Hard-ALiBi seed 1 scores 0.8 at the end: 0.95 at 6,400 examples is its first at or above 0.9
    assert report.figures["transformer-hard-alibi"]["examples_to_90"] == [6_400, 6_400]
    assert report.figures["mamba2"]["prefix_minus_suffix"] == [0.75, 0.75]
    assert set(report.plots()) == {"training_length_generalization.png", "training_duplicated_ngrams.png",
                                   "training_prefix_suffix.png", "training_examples_needed.png"}
