"""Prompt tokens counted afterwards from logged samples (`copy_tasks.experiments.prompt_tokens_afterwards`)
equal what a run records itself: a real lm-eval run of the tiny GPT-NeoX and of `ngram_copier` (a
generation task, and mqar's questions, several requests a doc), its counts (and the copier's
memory) removed from the results file, counted again from its samples."""

import json
from pathlib import Path

from lm_eval.loggers import EvaluationTracker
from lm_eval.models.huggingface import HFLM

from copy_tasks.experiments.prompt_tokens_afterwards import SOURCE, fill_folder
from copy_tasks.probes.options import Recorded
from tests.hf_runs import evaluate

TASKS = ["phonebook_copy_10", "mqar_tf_8"]
COUNTS = (Recorded.PROMPT_TOKENS_MEAN, Recorded.PROMPT_TOKENS_MAX)
MEMORY = (Recorded.STATE_BITS, Recorded.STATE_BITS_PER_TOKEN)


def written_run(folder: Path, output: dict, removed=COUNTS) -> Path:
    """The run's results and samples written by lm-eval's own tracker (as `lm_eval --log_samples`
    writes them), its prompt counts then taken out of the results file."""
    tracker = EvaluationTracker(output_path=str(folder))
    tracker.general_config_tracker.model_name_sanitized = "tiny"
    tracker.save_results_aggregated(results=output, samples=output["samples"])
    for task in TASKS:
        tracker.save_results_samples(task_name=task, samples=output["samples"][task])
    [path] = folder.rglob("results_*.json")
    data = json.loads(path.read_text())
    for task in TASKS:
        for key in removed:
            data["configs"][task]["metadata"][key] = None
    path.write_text(json.dumps(data, indent=2))
    return path


def copy_of(path: Path, run: Path, out: Path) -> Path:
    return out / path.relative_to(run)


def test_counts_from_the_samples_equal_the_runs_own(stopping_neox, tmp_path):
    lm = HFLM(pretrained=str(stopping_neox), device="cpu", batch_size=1)
    output = evaluate(lm, TASKS)
    recorded = {task: tuple(output["configs"][task]["metadata"][key] for key in COUNTS) for task in TASKS}
    assert all(mean > 0 for mean, _ in recorded.values())
    path = written_run(tmp_path / "run", output)
    before = path.read_text()
    parameters = output["config"]["model_num_parameters"]

    said = fill_folder(tmp_path / "run", lm, parameters, "afterwards: test", tmp_path / "filled")

    copy = copy_of(path, tmp_path / "run", tmp_path / "filled")
    assert said == [f"{copy}: prompt tokens or memory written for 2 tasks"]
    assert path.read_text() == before  # the results read are never changed; their samples come along
    assert sorted(item.name for item in copy.parent.iterdir()) == sorted(item.name for item in path.parent.iterdir())
    configs = json.loads(copy.read_text())["configs"]
    assert {task: tuple(configs[task]["metadata"][key] for key in COUNTS) for task in TASKS} == recorded
    assert configs["mqar_tf_8"]["metadata"][SOURCE] == "afterwards: test"
    again = fill_folder(tmp_path / "filled", lm, parameters, "again", tmp_path / "again")
    assert again == [f"{copy}: nothing to add"] and not (tmp_path / "again").exists()

    other = fill_folder(tmp_path / "run", lm, parameters + 1, "another model", tmp_path / "other")
    assert other == [f"{path}: its run recorded {parameters} parameters, the model loaded has {parameters + 1}; "
                     "left as it is"]


def test_the_ngram_copier_counts_bytes_and_keeps_8_bits_of_each(tmp_path):
    """Its memory is its prompt's text: a run records it, and a run from before gets it afterwards."""
    from copy_tasks.models.reference_lm import NgramCopierLM

    lm = NgramCopierLM()
    output = evaluate(lm, TASKS)
    phonebooks = [sample["arguments"][0][0] for sample in output["samples"]["phonebook_copy_10"]]
    metadata = output["configs"]["phonebook_copy_10"]["metadata"]
    assert metadata[Recorded.PROMPT_TOKENS_MAX] == max(len(text.encode()) for text in phonebooks)
    assert (metadata[Recorded.STATE_BITS], metadata[Recorded.STATE_BITS_PER_TOKEN]) == (0, 8)
    recorded = {task: tuple(output["configs"][task]["metadata"][key] for key in COUNTS + MEMORY) for task in TASKS}
    path = written_run(tmp_path / "run", output, COUNTS + MEMORY)

    unlogged = tmp_path / "unlogged"  # the reference models' runs log no samples: their docs are drawn again
    unlogged.mkdir()
    (unlogged / path.name).write_text(path.read_text())

    said = fill_folder(tmp_path / "run", lm, None, "afterwards: bytes", tmp_path / "filled")
    drawn = fill_folder(unlogged, lm, None, "afterwards: bytes", tmp_path / "drawn")

    copies = (copy_of(path, tmp_path / "run", tmp_path / "filled"), tmp_path / "drawn" / path.name)
    assert said == [f"{copies[0]}: prompt tokens or memory written for 2 tasks"]
    assert drawn == [f"{copies[1]}: prompt tokens or memory written for 2 tasks"]
    for written in copies:
        configs = json.loads(written.read_text())["configs"]
        assert {task: tuple(configs[task]["metadata"][key] for key in COUNTS + MEMORY) for task in TASKS} == recorded
    assert json.loads(copies[1].read_text())["configs"]["mqar_tf_8"]["metadata"][SOURCE] == \
        "afterwards: bytes, of the docs drawn again (no samples logged)"
