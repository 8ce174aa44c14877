"""The checks of a run's options and sources (`copy_tasks.probes.run_checks`): which families and
lengths a list of task and group names asks for, and the errors, naming the bad key, value or
source, for an unknown or bad option, a source a requested task cannot read, or one too short
for the longest length asked for; a source only requested tasks read is checked."""

from __future__ import annotations

import json

import pytest

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.options import UserError
from copy_tasks.probes.run_checks import check_options_and_sources, requested

DOWNLOADING = {"c4_copy", "c4_copy_shuffled", "squad_length"}


def by_name(tasks: list[str]) -> dict[str, list[int]]:
    return {family.name: sorted(lengths) for family, lengths in requested(tasks).items()}


def test_task_names_ask_for_their_own_lengths_and_other_tasks_for_nothing():
    assert by_name(["phonebook_copy_20", "phonebook_copy_tf_50", "arc_easy", "lookup_prefix_1000"]) == {
        "phonebook_copy": [20, 50], "lookup_prefix": [1000]}
    assert by_name(["arc_easy", "phonebook_copy_", "c4_copy_x", "mmlu_5"]) == {}


def test_a_family_group_asks_for_all_its_lengths():
    assert by_name(["dup_ngram_copy_3", "dup_ngram_copy"]) == {"dup_ngram_copy": [1, 2, 3, 4, 5, 6, 7, 8]}
    assert by_name(["random_copy_tf"]) == {"random_copy": [10, 20, 50, 100, 200, 500, 1000]}


def test_the_umbrella_groups_ask_for_every_family_or_those_without_a_download():
    everything = by_name(["copy_tasks"])
    offline = by_name(["copy_tasks_offline"])
    assert set(everything) == set(FAMILIES)
    assert everything["c4_copy"] == [25, 50, 100, 200, 500, 1000]
    assert {"phonebook_copy", "random_copy", "lookup_prefix", "lookup_suffix", "dup_ngram_copy"} <= set(offline)
    assert not DOWNLOADING & set(offline)


@pytest.mark.parametrize(("metadata", "message"), [
    ({"copy_tasks_sead": 1}, "unknown option copy_tasks_sead=1"),
    ({"copy_tasks_docs": 0}, "copy_tasks_docs=0 is not allowed"),
    ({"copy_tasks_copy_format": "fancy"}, "copy_tasks_copy_format='fancy' is not allowed"),
    ({"copy_tasks_text_source": "/no/such/corpus"}, "copy_tasks_text_source='/no/such/corpus' is not allowed"),
])
def test_a_bad_option_is_refused_whatever_the_tasks(metadata, message):
    with pytest.raises(UserError, match=message):
        check_options_and_sources(metadata, "phonebook_copy_20")


def test_keys_without_our_prefix_are_left_to_others():
    assert check_options_and_sources({"pretrained": "gpt2", "trust_remote_code": True}, "phonebook_copy_20") is None
    with pytest.raises(UserError, match="unknown option copy_tasks_pretrained='gpt2'"):
        check_options_and_sources({"copy_tasks_pretrained": "gpt2"}, "phonebook_copy_20")


def test_zoologys_format_above_its_512_pairs_is_refused_before_a_model_loads_naming_both():
    """Issue 45 finding 18: mqar_600 in Zoology's format was a traceback from the dataset hook,
    after the model had loaded."""
    zoology = {"copy_tasks_mqar_format": "zoology"}
    with pytest.raises(UserError, match=r"^mqar_600 cannot be drawn: .*at most 512 pairs, got 600$"):
        check_options_and_sources(zoology, "mqar_8,mqar_600")
    assert check_options_and_sources(zoology, "mqar_512,mqar") is None  # every shipped length fits
    assert check_options_and_sources({}, "mqar_600") is None  # the natural format has no such limit


def test_a_text_source_must_hold_the_longest_passage_asked_for(tmp_path):
    source = tmp_path / "thirty.txt"
    source.write_text(" ".join(["word"] * 30))
    metadata = {"copy_tasks_text_source": str(source)}
    assert check_options_and_sources(metadata, "c4_copy_25") is None  # 30 words hold a passage of 25
    with pytest.raises(UserError, match=r"thirty\.txt' has 30 words, fewer than the 50 of the longest passage"):
        check_options_and_sources(metadata, "c4_copy_25,c4_copy_shuffled_tf_50")
    with pytest.raises(UserError, match="fewer than the 1000 of the longest passage"):
        check_options_and_sources(metadata, ["c4_copy"])


def test_a_source_is_read_only_for_the_tasks_that_need_it(tmp_path):
    source = tmp_path / "binary.txt"
    source.write_bytes(b"\x00\x9f\x92\x96 binary \xff")
    metadata = {"copy_tasks_text_source": str(source)}
    assert check_options_and_sources(metadata, "phonebook_copy_20,copy_tasks_offline") is None
    with pytest.raises(UserError, match=r"binary\.txt is not UTF-8 text"):
        check_options_and_sources(metadata, "phonebook_copy_20,c4_copy_25")


def test_a_squad_source_that_is_not_squad_is_refused_naming_it(tmp_path):
    source = tmp_path / "dev.json"
    source.write_text(json.dumps({"version": "v2"}))
    with pytest.raises(UserError, match=r"dev\.json: not a SQuAD-format file"):
        check_options_and_sources({"copy_tasks_squad_source": str(source)}, "squad_length_100")


def test_the_offline_group_reads_no_default_source(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")  # reading C4 or SQuAD from the hub would fail
    assert check_options_and_sources({}, "copy_tasks_offline") is None


def test_every_family_passes_with_local_sources(local_sources):
    metadata = {"copy_tasks_text_source": local_sources["text_source"],
                "copy_tasks_squad_source": local_sources["squad_source"]}
    assert check_options_and_sources(metadata, "copy_tasks") is None
