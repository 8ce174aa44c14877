"""The tiny random models the tests run (`copy_tasks.experiments.tiny_models`): a folder that
transformers loads as any model, with its byte-level BPE tokenizer trained offline on phone-book
text drawn apart from the tasks' docs, the ChatML template, the architectures' settings, seeded
weights, and `stop_at_once`, which ends every greedy generation at its first token."""

from __future__ import annotations

import shutil

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, GenerationConfig

from copy_tasks.experiments.tiny_models import (
    ARCHITECTURES,
    CONTEXT,
    SLIDING_WINDOW,
    VOCAB_SIZE,
    build_tiny_model,
    build_tokenizer,
    phone_book_texts,
    stop_at_once,
)
from copy_tasks.probes.task_docs import generate_docs

MODEL_TYPES = {"gpt_neox": "gpt_neox", "mamba": "mamba", "gemma3": "gemma3_text"}
END_OF_TEXT = "<|endoftext|>"


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_each_architecture_is_a_folder_transformers_loads_with_its_tokenizer(tiny_models, architecture):
    folder = tiny_models[architecture]
    config = AutoConfig.from_pretrained(folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert (config.model_type, config.hidden_size, config.vocab_size) == (MODEL_TYPES[architecture], 32, VOCAB_SIZE)
    assert len(tokenizer) == VOCAB_SIZE
    assert tokenizer.convert_ids_to_tokens([config.bos_token_id, config.eos_token_id, config.pad_token_id]) == [
        END_OF_TEXT] * 3
    model = AutoModelForCausalLM.from_pretrained(folder)
    ids = tokenizer("Ann Lee: 5551234567\nBo Ray:", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        assert model(ids).logits.shape == (1, ids.shape[1], VOCAB_SIZE)


def test_the_architectures_settings(tiny_models):
    neox, mamba, gemma = (AutoConfig.from_pretrained(tiny_models[name]) for name in ("gpt_neox", "mamba", "gemma3"))
    assert (neox.num_hidden_layers, neox.num_attention_heads, neox.max_position_embeddings) == (2, 2, CONTEXT)
    assert (mamba.num_hidden_layers, mamba.state_size, mamba.expand) == (2, 4, 2)
    assert gemma.sliding_window == SLIDING_WINDOW == 16
    assert gemma.layer_types == ["sliding_attention", "sliding_attention", "full_attention"]
    assert (gemma.num_key_value_heads, gemma.head_dim, gemma.max_position_embeddings) == (1, 16, CONTEXT)


def test_an_unknown_architecture_is_named_and_nothing_is_written(tmp_path):
    with pytest.raises(ValueError, match=r"architecture='llama': allowed are \('gpt_neox', 'mamba', 'gemma3'\)"):
        build_tiny_model("llama", tmp_path / "model")
    assert not (tmp_path / "model").exists()


def test_the_weights_are_a_function_of_the_seed(tmp_path):
    texts = ["Ann Lee: 5551234567\n"]  # a small tokenizer: the test is about the weights
    weights = {name: load_file(build_tiny_model("mamba", tmp_path / name, seed=seed, tokenizer_texts=texts,
                                                vocab_size=300) / "model.safetensors")
               for name, seed in (("first", 0), ("again", 0), ("other", 1))}
    assert weights["first"].keys() == weights["again"].keys() == weights["other"].keys()
    assert all(torch.equal(weights["first"][name], weights["again"][name]) for name in weights["first"])
    assert not all(torch.equal(weights["first"][name], weights["other"][name]) for name in weights["first"])


def test_the_tokenizer_corpus_is_40_phone_books_of_50_entries_apart_from_the_tasks_docs():
    texts = phone_book_texts()
    assert len(texts) == 40
    for text in texts:
        lines = text.split("\n")
        # 50 entries, a blank line, two example lookups, a blank line, the query and its answer
        assert len(lines) == 55 and lines[50] == lines[53] == "" and lines[54] in lines[:50]
    task_books = {doc["prompt"].split("\n\n")[0] for doc in generate_docs("phonebook_copy", 50, 0, 40)}
    assert task_books.isdisjoint(text.split("\n\n")[0] for text in texts)  # same length, seed and indices


def test_the_tokenizer_is_byte_level_bpe_with_as_many_merges_as_its_vocabulary_allows():
    # 256 bytes and <|endoftext|> are 257 tokens: a vocabulary of 258 has room for one merge, the
    # most frequent pair of "abababab" ("ab" four times, "ba" three).
    one_merge, no_merge = build_tokenizer(["abababab"], 258), build_tokenizer(["abababab"], 257)
    assert one_merge.convert_ids_to_tokens(one_merge("abababab")["input_ids"]) == ["ab"] * 4
    assert no_merge.convert_ids_to_tokens(no_merge("abababab")["input_ids"]) == list("abababab")
    text = "Zoë Ng: 5550001111\n\n"  # bytes it never saw come through whole
    assert one_merge.decode(one_merge(text)["input_ids"]) == text


def test_the_tokenizer_has_one_special_token_a_context_and_a_chatml_template():
    tokenizer = build_tokenizer(["Ann Lee: 5551234567\n"])
    assert (tokenizer.bos_token, tokenizer.eos_token, tokenizer.pad_token) == (END_OF_TEXT,) * 3
    assert tokenizer(END_OF_TEXT)["input_ids"] == [tokenizer.eos_token_id]
    assert tokenizer.model_max_length == CONTEXT
    chat = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Bo Ray:"}]
    assert tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True) == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nBo Ray:<|im_end|>\n<|im_start|>assistant\n")


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_stop_at_once_ends_greedy_generation_at_its_first_token_and_keeps_the_logits(tiny_models, tmp_path,
                                                                                    architecture):
    random_model = tiny_models[architecture]
    stopping = shutil.copytree(random_model, tmp_path / "stopping")
    assert stop_at_once(str(stopping)) == stopping
    generation = GenerationConfig.from_pretrained(stopping)
    assert generation.eos_token_id == 0
    assert sorted(generation.suppress_tokens) == list(range(1, VOCAB_SIZE))
    tokenizer = AutoTokenizer.from_pretrained(stopping)
    ids = tokenizer("Ann Lee: 5551234567\nBo Ray: 5559876543\n\nBo Ray:", return_tensors="pt")["input_ids"]
    written, logits = {}, {}
    for name, folder in (("random", random_model), ("stopping", stopping)):
        model = AutoModelForCausalLM.from_pretrained(folder)
        with torch.no_grad():
            written[name] = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=8,
                                           do_sample=False)[0, ids.shape[1]:].tolist()
            logits[name] = model(ids).logits
    assert written["stopping"] == [0]
    assert len(written["random"]) == 8 and 0 not in written["random"]  # a random model runs to its budget
    assert torch.equal(logits["random"], logits["stopping"])
