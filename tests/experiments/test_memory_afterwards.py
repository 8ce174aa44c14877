"""Memory written afterwards into trained models' results that recorded none
(`copy_tasks.experiments.memory_afterwards`): hand-counted for recipe `quick`'s transformer, never
over what a run recorded, never for a model the recipe does not build, never through a link."""

import json

import pytest

from copy_tasks.experiments.memory_afterwards import SOURCE, fill_folder, main
from copy_tasks.experiments.recipes import RECIPES
from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.options import Recorded
from copy_tasks.report.memory_axis import memory_points
from copy_tasks.report.rows import rows_from_file
from copy_tasks.report.table import format_rows

QUICK = RECIPES["quick"]
# recipe quick's NoPE transformer: a key and a value of 32 float32 numbers in each of its 2 layers a token
PER_TOKEN = 2 * QUICK.transformer_layers * QUICK.hidden * 32
NOPE_PARAMETERS = 33_472  # what recipe quick builds for the copy task (checked below against the recipe)


def results_file(folder, label, parameters, metadata_extra=None):
    """A results file of one teacher-forced copy task as lm-eval writes it, recorded before memory was measured."""
    path = folder / label / label / "results_2026-12-05T01-04-01.563996.json"
    path.parent.mkdir(parents=True)
    task = "random_copy_tf_10"
    metadata = {"copy_tasks_model_type": "gpt_neox", "copy_tasks_positions": "NoPE", Recorded.STATE_BITS: None,
                Recorded.PROMPT_TOKENS_MEAN: 22.0, **(metadata_extra or {})}
    path.write_text(json.dumps({
        "results": {task: {"alias": task, results_key("exact_match"): 1.0,
                           results_key("exact_match", stderr=True): 0.0}},
        "configs": {task: {"task": task, "metadata": metadata}}, "versions": {task: 3.1},
        "n-samples": {task: {"original": 4, "effective": 4}},
        "config": {"model": "hf", "model_args": {"pretrained": label}, "model_num_parameters": parameters,
                   "model_dtype": "torch.float32"},
        "model_name": label, "date": 1764896641.0}))
    return path


def metadata_of(path):
    return json.loads(path.read_text())["configs"]["random_copy_tf_10"]["metadata"]


def test_the_recipes_model_gets_its_measured_memory_and_lands_on_the_memory_axis(tmp_path):
    from copy_tasks.experiments.architectures import parameters
    from copy_tasks.experiments.memory_afterwards import parse_label, rebuilt

    label = "trained-copy-transformer-nope-s0"
    assert parameters(rebuilt(parse_label(label), QUICK)) == NOPE_PARAMETERS
    path = results_file(tmp_path / "board", label, NOPE_PARAMETERS)
    before = path.read_text()
    rows, _ = rows_from_file(path)
    assert not memory_points(format_rows(rows))

    said = fill_folder(tmp_path / "board", "quick", tmp_path / "filled")

    copy = tmp_path / "filled" / path.relative_to(tmp_path / "board")
    assert said == [f"{copy}: 1 tasks given 0 bits fixed and {PER_TOKEN:,} a token"]
    assert path.read_text() == before  # the results read are never changed
    path = copy
    metadata = metadata_of(path)
    assert (metadata[Recorded.STATE_BITS], metadata[Recorded.STATE_BITS_PER_TOKEN]) == (0, PER_TOKEN)
    assert metadata[Recorded.ARCHITECTURE] == "transformer (NoPE)"
    assert "built again (untrained" in metadata[SOURCE]
    rows, _ = rows_from_file(path)
    points = memory_points(format_rows(rows))
    assert [(point.length, point.bits) for point in points["random_copy"]] == [(10, PER_TOKEN * 22)]


def test_what_a_run_recorded_and_what_the_recipe_does_not_build_are_left_as_they_are(tmp_path):
    recorded = results_file(tmp_path, "trained-copy-transformer-rope-s0", NOPE_PARAMETERS,
                            {Recorded.STATE_BITS: 0, Recorded.STATE_BITS_PER_TOKEN: 123})
    other_recipe = results_file(tmp_path, "trained-copy-transformer-nope-s1", 3_223_552)
    reference = results_file(tmp_path, "ngram_copier(n=5)", None)
    before = {path: path.read_text() for path in (recorded, other_recipe, reference)}

    said = fill_folder(tmp_path, "quick", tmp_path / "filled")

    assert {path: path.read_text() for path in before} == before and not (tmp_path / "filled").exists()
    assert f"{recorded}: memory recorded already" in said
    assert f"{other_recipe}: its run recorded 3223552 parameters, recipe quick builds {NOPE_PARAMETERS}; " \
           "left as it is" in said
    assert f"{reference}: ngram_copier(n=5) is no final model of recipe quick; left as it is" in said


def test_only_new_files_are_written_and_a_link_in_the_way_is_refused(tmp_path):
    path = results_file(tmp_path / "board", "trained-copy-transformer-nope-s0", NOPE_PARAMETERS)
    copy = tmp_path / "filled" / path.relative_to(tmp_path / "board")
    copy.parent.mkdir(parents=True)
    elsewhere = tmp_path / "someone_elses.json"
    elsewhere.write_text("theirs")
    copy.symlink_to(elsewhere)
    with pytest.raises(FileExistsError, match="exist already; only new files are written"):
        fill_folder(tmp_path / "board", "quick", tmp_path / "filled")
    assert elsewhere.read_text() == "theirs"


def test_a_folder_that_is_not_one_is_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / "missing"), "--recipe", "quick", "--out", str(tmp_path / "filled")])
    assert stopped.value.code == 2
    assert "missing is not a folder" in capsys.readouterr().err
