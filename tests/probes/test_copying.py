"""The copy families: natural text, shuffled text, random strings, duplicated n-grams."""

from __future__ import annotations

from collections import Counter

import pytest
from text_corpus import DOCUMENT_WORDS, write_corpus

from copy_tasks.harness.yaml_functions import build_dataset
from copy_tasks.probes.copying import score_copy
from copy_tasks.probes.families import FAMILIES, task_settings
from copy_tasks.probes.families.dup_ngram_copy import dup_ngram_alphabet
from copy_tasks.probes.families.random_copy import LETTERS
from copy_tasks.probes.options import OptionError
from copy_tasks.probes.task_docs import generate_docs
from copy_tasks.probes.text_sources import TextSourceError, load_documents


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("corpus"))


def source(path) -> tuple[tuple[str, str], ...]:
    return (("text_source", str(path)),)


def passage(doc: dict) -> list[str]:
    return doc["prompt"].split("\n\n")[0].split(" ")


@pytest.mark.parametrize("length", FAMILIES["c4_copy"].lengths)
def test_passages_have_exactly_l_words_from_one_document(corpus, length):
    texts = [" ".join((corpus / f"doc{i}.txt").read_text().split()) for i in range(len(DOCUMENT_WORDS))]
    for doc in generate_docs("c4_copy", length, 1234, 50, source(corpus)):
        words = passage(doc)
        assert len(words) == length == doc["words"]
        assert "\n" not in " ".join(words)
        assert DOCUMENT_WORDS[doc["document"]] >= length
        assert " ".join(words) in texts[doc["document"]]
        assert doc["prompt"] == f"{' '.join(words)}\n\n{' '.join(words)}\n\n{words[0]}"
        assert doc["target"] == " " + " ".join(words[1:])


def test_too_short_source_runs_across_documents_and_warns(tmp_path, caplog):
    for i in range(3):
        (tmp_path / f"{i}.txt").write_text(" ".join(f"w{i}_{j}" for j in range(10)))
    docs = generate_docs("c4_copy", 25, 1, 5, source(tmp_path))
    assert all(doc["document"] == -1 and doc["words"] == 25 for doc in docs)
    assert "passages run across documents" in caplog.text


@pytest.mark.parametrize("length", [25, 200, 1000])
def test_shuffled_passages_are_permutations_of_the_originals(corpus, length):
    originals = generate_docs("c4_copy", length, 1234, 30, source(corpus))
    shuffled = generate_docs("c4_copy_shuffled", length, 1234, 30, source(corpus))
    moved = 0
    for original, mixed in zip(originals, shuffled):
        assert Counter(passage(original)) == Counter(passage(mixed))
        assert original["document"] == mixed["document"]
        moved += passage(original) != passage(mixed)
    assert moved == 30


def test_local_sources_file_folder_and_saved_dataset(tmp_path, corpus):
    import datasets

    single = corpus / "doc3.txt"
    assert len(load_documents(str(single))) == 1
    assert len(load_documents(str(corpus))) == len(DOCUMENT_WORDS)
    saved = tmp_path / "saved"
    datasets.Dataset.from_dict({"text": [single.read_text(), "two words"]}).save_to_disk(str(saved))
    assert load_documents(str(saved))[1] == "two words"
    docs = generate_docs("c4_copy", 100, 3, 3, source(saved))
    assert all(doc["document"] == 0 for doc in docs)


@pytest.mark.parametrize("bad", ["/no/such/text.txt", 5])
def test_missing_source_is_an_option_error(bad):
    with pytest.raises(OptionError, match="copy_tasks_text_source=.* is not allowed: the natural-text source"):
        task_settings(FAMILIES["c4_copy"], {"copy_tasks_text_source": bad})


def test_unreachable_c4_says_how_to_use_local_text(monkeypatch):
    import datasets

    # datasets 3 and later read HF_HUB_OFFLINE when imported: offline here, the hub fails at
    # once (with the network unreachable it would retry for 23 s); earlier ones read it later.
    if hasattr(datasets.config, "HF_HUB_OFFLINE"):
        monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    load_documents.cache_clear()
    with pytest.raises(TextSourceError) as error:
        build_dataset("c4_copy", 25, "generation", version=1.0, copy_tasks_docs=2)
    assert "could not load allenai/c4" in str(error.value)
    assert "--metadata copy_tasks_text_source=PATH" in str(error.value)


@pytest.mark.parametrize("length", FAMILIES["random_copy"].lengths)
def test_random_strings_use_the_alphabet_and_have_the_length(length):
    docs = generate_docs("random_copy", length, 1234, 200)
    for doc in docs:
        symbols = passage(doc)
        assert len(symbols) == length and set(symbols) <= set(LETTERS)
        assert doc["bits"] == pytest.approx(length * 4.7004397)
    if length >= 100:  # uniform: every letter shows up
        assert set(passage(docs[0])) == set(LETTERS)


def repeated_grams(symbols: list[str], n: int) -> dict[tuple, int]:
    counts = Counter(tuple(symbols[i : i + n]) for i in range(len(symbols) - n + 1))
    return {gram: count for gram, count in counts.items() if count > 1}


@pytest.mark.parametrize("n", FAMILIES["dup_ngram_copy"].lengths)
def test_exactly_one_repeated_ngram_and_no_longer_repeat(n):
    alphabet = set(dup_ngram_alphabet())
    assert len(alphabet) == 256
    for doc in generate_docs("dup_ngram_copy", n, 1234, 500):
        symbols = passage(doc)
        assert len(symbols) == 64 and set(symbols) <= alphabet
        repeats = repeated_grams(symbols, n)
        assert list(repeats.values()) == [2]
        assert list(repeats) == [tuple(symbols[doc["first"] : doc["first"] + n])]
        assert symbols[doc["second"] : doc["second"] + n] == symbols[doc["first"] : doc["first"] + n]
        assert symbols[doc["first"] + n] != symbols[doc["second"] + n]  # different continuations
        assert repeated_grams(symbols, n + 1) == {}


@pytest.mark.parametrize(
    ("generation", "exact", "prefix"),
    [
        (" b c d e\n\nb c d e", 1.0, 1.0),  # stops at the blank line
        (" b c d e", 1.0, 1.0),  # no stop at all
        (" b c d e f g", 1.0, 1.0),  # the copy, then more: how the answer ends is not scored
        (" b c d e\nf", 1.0, 1.0),  # the copy, then a new line
        (" b c d f", 0.0, 0.75),  # a wrong last word
        (" b c d", 0.0, 0.75),  # missing last word
        ("b  c\nd   e ", 1.0, 1.0),  # whitespace differences
        (" b x d e", 0.0, 0.25),  # one wrong word
        (" c d e", 0.0, 0.0),  # skipped the first word
        ("", 0.0, 0.0),  # empty output
        ("\n\n b c d e", 0.0, 0.0),  # blank line first: the copy comes too late
    ],
)
def test_copy_scoring_hand_worked(generation, exact, prefix):
    assert score_copy(generation, " b c d e") == {"exact_match": exact, "prefix_match": prefix}
