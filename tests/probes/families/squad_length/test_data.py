"""squad_length's data (`copy_tasks.probes.families.squad_length.data`): loading, binning,
demonstrations, the manifest, malformed files."""

from __future__ import annotations

import json

import pytest
from conftest import run_command
from squad_fixture import WORD_COUNTS, write_squad_file

from copy_tasks.probes.families.squad_length.data import (
    BIN_EDGES,
    SquadSourceError,
    bin_edge,
    load_paragraphs,
    manifest,
    question_and_demonstration,
    select_paragraphs,
)
from copy_tasks.probes.task_docs import generate_docs


@pytest.mark.parametrize(("edit", "message"), [
    (lambda qa: qa.update(question=7), r"data\[0\].paragraphs\[0\].qas\[0\].question is a int, not a str"),
    (lambda qa: qa.update(answers=[{"text": 5}]), r"qas\[0\].answers\[0\].text is a int, not a str"),
    ("huge", r"not a SQuAD-format JSON file \(ValueError: Exceeds the limit"),
])
def test_a_malformed_squad_file_is_one_line_naming_where(tmp_path, edit, message):
    from copy_tasks.probes.families.squad_length.data import SquadSourceError, load_paragraphs

    qa = {"id": "q1", "question": "Who?", "answers": [{"text": "Ann"}]}
    if edit != "huge":
        edit(qa)
    text = json.dumps({"data": [{"title": "t", "paragraphs": [{"context": "Ann won.", "qas": [qa]}]}]})
    path = tmp_path / "squad.json"
    path.write_text(text.replace('"q1"', "9" * 5000) if edit == "huge" else text)
    with pytest.raises(SquadSourceError, match=message):
        load_paragraphs(str(path))


def test_qas_that_is_a_list_of_lists_and_a_folder_not_saved_by_datasets_are_one_line(tmp_path):
    from copy_tasks.probes.families.squad_length.data import SquadSourceError, load_paragraphs
    from copy_tasks.probes.text_sources import TextSourceError, load_documents

    path = tmp_path / "squad.json"
    path.write_text(json.dumps({"data": [{"paragraphs": [{"context": "c", "qas": [["q"]]}]}]}))
    with pytest.raises(SquadSourceError, match=r"qas\[0\] is a list, not a dict"):
        load_paragraphs(str(path))
    (tmp_path / "bogus").mkdir()
    (tmp_path / "bogus" / "state.json").write_text("{}")
    with pytest.raises(SquadSourceError, match="not a folder saved by datasets' save_to_disk"):
        load_paragraphs(str(tmp_path / "bogus"))
    with pytest.raises(TextSourceError, match="not a folder saved by datasets' save_to_disk"):
        load_documents(str(tmp_path / "bogus"))


@pytest.fixture
def squad_file(tmp_path):
    return str(write_squad_file(tmp_path / "dev-v2.0.json"))


def test_loader_keeps_answerable_questions_of_paragraphs_with_two_distinct_questions(squad_file):
    paragraphs = load_paragraphs(squad_file)
    assert len(paragraphs) == len(WORD_COUNTS) + 1  # the one-question paragraph is left out; twins stay
    ids = {question.id for paragraph in paragraphs for question in paragraph.questions}
    assert not any(qid.endswith("-x") for qid in ids) and "lonely-q0" not in ids
    assert {"twins-q0", "twins-q1", "twins-q2"} <= ids


def test_bin_edges():
    assert [bin_edge(words) for words in (1, 100, 101, 150, 151, 300, 301, 1000, 1001)] == \
        [100, 100, 150, 150, 200, 300, 1000, 1000, None]


def test_every_paragraph_lands_in_exactly_one_bin(squad_file):
    paragraphs = load_paragraphs(squad_file)
    selected = {edge: select_paragraphs(paragraphs, edge, seed=1234) for edge in BIN_EDGES}
    placed = [paragraph for edge in BIN_EDGES for paragraph in selected[edge]]
    assert len(placed) == len(set(placed))
    assert set(placed) == {paragraph for paragraph in paragraphs if paragraph.words <= 1000}
    for edge, members in selected.items():
        lower = max([e for e in BIN_EDGES if e < edge], default=0)
        assert all(lower < paragraph.words <= edge for paragraph in members)
    assert [p.words for p in selected[150]] and sorted(p.words for p in selected[150]) == [101, 150]


def test_the_demonstration_is_never_the_test_question(squad_file):
    for seed in range(50):
        for paragraph in load_paragraphs(squad_file):
            test, demonstration = question_and_demonstration(paragraph, seed)
            assert test.id != demonstration.id
            assert test.question.strip() != demonstration.question.strip()


def test_docs_carry_the_prompt_answers_and_ids(squad_file):
    docs = generate_docs("squad_length", 100, 1234, 10, (("squad_source", squad_file),))
    assert len(docs) == 4  # the bin holds 4 paragraphs: 12, 60, 90 (twins) and 100 words
    for doc in docs:
        assert doc["prompt"].endswith("\nAnswer:") and doc["prompt"].count("Question: ") == 2
        assert doc["continuation"] == " " + doc["answers"][0] and doc["target"] == doc["answers"][0]
        assert doc["question_id"] != doc["demonstration_id"] and doc["paragraph_words"] <= 100


def test_selection_ignores_file_order(tmp_path, squad_file):
    data = json.loads(open(squad_file).read())
    data["data"][0]["paragraphs"].reverse()
    reversed_file = tmp_path / "reversed.json"
    reversed_file.write_text(json.dumps(data))
    assert manifest(str(reversed_file), 1234, 100) == manifest(squad_file, 1234, 100)


def test_the_manifest_reproduces_the_selection_and_detects_changed_data(tmp_path, squad_file):
    published = manifest(squad_file, 1234, 100)
    for edge in BIN_EDGES:
        docs = generate_docs("squad_length", edge, 1234, 100, (("squad_source", squad_file),))
        assert published["bins"][str(edge)] == [[d["question_id"], d["demonstration_id"]] for d in docs]
    data = json.loads(open(squad_file).read())
    del data["data"][0]["paragraphs"][1]  # the 60-word paragraph
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data))
    assert manifest(str(changed), 1234, 100)["bins"]["100"] != published["bins"]["100"]


def test_offline_without_a_local_copy_fails_before_any_model_loads(tmp_path):
    run = run_command(["lm_eval", "--model", "hf", "--model_args", "pretrained=/no/such/model",
                       "--tasks", "squad_length_100"], cwd=tmp_path)
    assert run.returncode == 2
    assert "could not load rajpurkar/squad_v2" in run.stderr
    assert "copy_tasks_squad_source=PATH" in run.stderr and "no/such/model" not in run.stderr


def test_a_missing_or_malformed_local_copy_is_named(tmp_path):
    with pytest.raises(SquadSourceError, match="no such file or folder"):
        load_paragraphs(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"paragraphs": []}))
    with pytest.raises(SquadSourceError, match="not a SQuAD-format file"):
        load_paragraphs(str(bad))


def test_the_manifest_command_prints_the_selection(tmp_path, squad_file):
    import subprocess
    import sys

    printed = subprocess.run([sys.executable, "-m", "copy_tasks.probes.families.squad_length.data", squad_file,
                              "--docs", "2"], capture_output=True, text=True, check=True).stdout
    assert json.loads(printed) == manifest(squad_file, 1234, 2)
    assert [len(pairs) for pairs in json.loads(printed)["bins"].values()] == [2, 2, 2, 2, 2]
