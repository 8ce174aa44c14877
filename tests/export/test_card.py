"""The dataset card (`copy_tasks.export.card`): every split, its features, how the docs were made."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from export_fixtures import FAMILIES, LENGTHS, PINNED

from copy_tasks.export.folder import MARKER
from copy_tasks.probes.task_docs import task_rows


def card_row(family: str, length: int, sha256: str) -> str:
    """The card's provenance line of a split of 5 docs made with the defaults."""
    options = "copy_tasks_copy_format = `natural`" if family == "random_copy" else "none"
    return f"| {family} | length_{length} | 5 | 1234 | 1.0 | 3.1 | {options} | `{sha256}` |"


def header(folder: Path) -> dict:
    card = (folder / "README.md").read_text()
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n")[1])


def test_the_card_names_every_split_and_its_features_and_says_how_the_docs_were_made(exported):
    meta = header(exported)
    assert meta["license"] == "mit" and meta["task_categories"] == ["text-generation"] and meta["pretty_name"]
    assert [config["config_name"] for config in meta["configs"]] == list(FAMILIES)
    for config in meta["configs"]:
        assert config["data_files"] == [{"split": f"length_{length}", "path": f"{config['config_name']}/length_"
                                         f"{length}.parquet"} for length in LENGTHS]
    for info in meta["dataset_info"]:
        columns = [feature["name"] for feature in info["features"]]
        assert columns == list(task_rows(info["config_name"], 10, "generation", {"copy_tasks_docs": 1})[0])
        assert [(split["name"], split["num_examples"]) for split in info["splits"]] == [
            (f"length_{length}", 5) for length in LENGTHS]
    card = (exported / "README.md").read_text()
    assert "arXiv:2402.01032" in card and "eprint        = {2402.01032}" in card and "copy_tasks.score(" in card
    for family in FAMILIES:
        for length in LENGTHS:
            assert card_row(family, length, PINNED[f"{family}_{length}"]) in card
    assert json.loads((exported / MARKER).read_text())["files"][-1] == "README.md"


def test_the_card_explains_each_family_field_shows_an_example_row_and_names_its_folder(tmp_path):
    from copy_tasks import cli
    from copy_tasks.probes.families import FAMILIES as FAMILIES_TABLE

    out = tmp_path / "phone-docs"
    cli.main(["export", "phonebook_copy", "--lengths", "10", "--docs", "2", "--out", str(out)])
    card = (out / "README.md").read_text()
    assert "PATH_OR_REPO" not in card
    assert 'datasets.load_dataset("phone-docs", "phonebook_copy", split="length_10")' in card
    assert "copy-tasks" in card and "pip install copy-tasks" in card
    for field, _ in FAMILIES_TABLE["phonebook_copy"].field_notes:
        assert f"- `{field}`: " in card
    assert "query_position / (entries - 1)" in card
    assert '"query_depth": ' in card and '"family": "phonebook_copy"' in card  # the example row
    assert "C4" not in card and "SQuAD" not in card.split("## Scoring")[0]  # neither was exported


def test_a_card_of_mqar_says_how_to_ask_its_questions_and_that_it_has_no_authors_rule(tmp_path):
    from copy_tasks import cli

    cli.main(["export", "mqar", "--lengths", "8", "--docs", "2", "--out", str(tmp_path / "mq")])
    card = (tmp_path / "mq" / "README.md").read_text()
    assert "A row of `mqar` asks several questions in turn: `copy_tasks.questions(row)`" in card
    assert "the authors' rule** (none for these families" in card
    cli.main(["export", "random_copy", "--lengths", "10", "--docs", "2", "--out", str(tmp_path / "rc")])
    card = (tmp_path / "rc" / "README.md").read_text()
    assert "questions(row)" not in card and "the authors' rule** (`authors_exact_match`)" in card
