"""The inspect-ai tasks: our docs, greedy generation with the family's stops and each doc's
budget, and the public scorer's verdicts under both rules, run offline against inspect's mock
model, logs in a temporary folder."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import pytest
from answer_styles import backend_text, scripted_samples
from conftest import source_options

pytestmark = pytest.mark.integration  # the extra `inspect`: without it the module is skipped
pytest.importorskip("inspect_ai")
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

import copy_tasks  # noqa: E402
from copy_tasks import inspect_tasks  # noqa: E402
from copy_tasks.export import export  # noqa: E402
from copy_tasks.probes.conformance import STYLES  # noqa: E402
from copy_tasks.probes.families import FAMILIES  # noqa: E402
from copy_tasks.probes.task_docs import task_rows  # noqa: E402

STYLE_OF_INDEX = ("eos", "first_wrong", "restated_start")  # doc i is answered in STYLE_OF_INDEX[i]
TASKS = ("phonebook_copy", "random_copy", "lookup_suffix")


def refuse(*args, **kwargs):
    raise OSError(f"the test is offline: {args[:2]} refused")


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to look up a host or open an internet connection fails the run."""
    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            refuse(address)
        return unix_connect(self, address)

    unix_connect = socket.socket.connect
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


class Mock:
    """inspect's mock model, answering each prompt as `answer(doc)` says; records the
    generation config it was called with, per prompt."""

    def __init__(self, docs: list[dict], answer):
        self.docs = {doc["prompt"]: doc for doc in docs}
        self.answer, self.configs = answer, {}

    def __call__(self, messages, tools, tool_choice, config):
        doc = self.docs[messages[-1].text]
        self.configs[doc["prompt"]] = config
        output = ModelOutput.from_content("mockllm/model", self.answer(doc))
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # else it counts with tiktoken
        return output

    def model(self):
        return get_model("mockllm/model", custom_outputs=self)


def run(tasks, mock: Mock, log_dir: Path):
    logs = inspect_eval(tasks, model=mock.model(), log_dir=str(log_dir), display="none")
    assert all(log.status == "success" for log in logs), [str(log.error)[:2000] for log in logs]
    return logs


@pytest.fixture(scope="module")
def docs() -> dict[str, list[dict]]:
    return {name: [row for length in FAMILIES[name].lengths[:2]
                   for row in task_rows(name, length, "generation", {"copy_tasks_docs": 3})] for name in TASKS}


def test_answers_get_the_public_scorers_verdicts_under_both_rules(docs, tmp_path, no_network):
    mock = Mock([doc for rows in docs.values() for doc in rows],
                lambda doc: backend_text(STYLE_OF_INDEX[doc["index"]], doc))
    logs = run([getattr(inspect_tasks, name)(lengths=FAMILIES[name].lengths[:2], docs=3) for name in TASKS],
               mock, tmp_path / "logs")
    for name, log in zip(TASKS, logs):
        assert len(log.samples) == 6
        for sample in log.samples:
            doc, verdicts = sample.metadata, sample.scores["recall_verdicts"].value
            style = STYLES[STYLE_OF_INDEX[doc["index"]]]
            assert verdicts == copy_tasks.score(doc, sample.output.completion)
            assert (verdicts["exact_match"], verdicts["authors_exact_match"]) == (
                float(style.expected(name, False)), float(style.expected(name, False, authors=True)))
        metrics = {score.name: {key: metric.value for key, metric in score.metrics.items()}
                   for score in log.results.scores}
        assert set(metrics) == set(FAMILIES[name].generation_metrics)
        # eos right, first_wrong wrong, restated_start right by ours and wrong by the authors'
        assert metrics["exact_match"]["mean"] == pytest.approx(2 / 3)
        assert metrics["authors_exact_match"]["mean"] == pytest.approx(1 / 3)
        assert {key for key in metrics["exact_match"] if key.startswith("grouped")} == {
            f"grouped_{length}" for length in FAMILIES[name].lengths[:2]}
    assert [path.suffix for path in (tmp_path / "logs").iterdir()] == [".eval"] * len(TASKS)


def test_a_doc_of_several_questions_is_asked_each_in_turn(tmp_path, no_network):
    rows = task_rows("mqar", 8, "generation", {"copy_tasks_docs": 2})
    questions = {question["prompt"]: question for doc in rows for question in copy_tasks.questions(doc)}
    # doc 0 answered rightly; doc 1 wrong on its first question only
    mock = Mock(list(questions.values()), lambda question: (
        " 0000" if question["index"] == 1 and question["prompt"] == rows[1]["prompt"] else question["continuation"]))
    (log,) = run(inspect_tasks.mqar(lengths=8, docs=2), mock, tmp_path)
    assert set(mock.configs) == set(questions)  # every question's prompt was sent, alone
    verdicts = [sample.scores["recall_verdicts"].value for sample in log.samples]
    assert verdicts == [{"exact_match": 1.0, "query_accuracy": 1.0}, {"exact_match": 0.0, "query_accuracy": 0.875}]


def test_the_offline_guard_refuses_a_download(no_network):
    with pytest.raises(OSError, match="the test is offline"):
        urllib.request.urlopen("https://pypi.org/simple/", timeout=5)


def test_generation_is_greedy_with_the_familys_stops_and_each_docs_budget(docs, tmp_path, no_network):
    mock = Mock(docs["random_copy"], lambda doc: doc["continuation"])
    run(inspect_tasks.random_copy(lengths="10,20", docs=3), mock, tmp_path)
    for doc in docs["random_copy"]:
        config = mock.configs[doc["prompt"]]
        assert (config.temperature, config.stop_seqs, config.max_tokens) == (0.0, ["\n\n"], doc["generation_budget"])
    assert {doc["generation_budget"] for doc in docs["random_copy"]} == {50}  # short copies: the authors' 50


def test_every_family_has_a_task_holding_the_docs_our_tasks_score(local_sources):
    for family in FAMILIES.values():
        metadata = {f"copy_tasks_{argument}": path for argument, path in source_options(family.name, local_sources)}
        task = getattr(inspect_tasks, family.name)(lengths=family.lengths[0], docs=2, seed=7, metadata=metadata)
        rows = task_rows(family.name, family.lengths[0], "generation",
                         {"copy_tasks_docs": 2, "copy_tasks_seed": 7, **metadata})
        assert [sample.metadata for sample in task.dataset] == rows, family.name
        assert [sample.input for sample in task.dataset] == [row["prompt"] for row in rows]


def test_a_task_reads_its_docs_from_an_export(tmp_path):
    export(["random_copy"], [10], "generation", {"copy_tasks_docs": 4}, tmp_path / "docs")
    task = inspect_tasks.random_copy(lengths=10, docs=3, dataset=str(tmp_path / "docs"))
    assert [sample.metadata for sample in task.dataset] == task_rows("random_copy", 10, "generation",
                                                                       {"copy_tasks_docs": 3})
    with pytest.raises(ValueError, match="seed and metadata make docs"):
        inspect_tasks.random_copy(lengths=10, seed=3, dataset=str(tmp_path / "docs"))


@pytest.mark.slow
def test_verdicts_equal_those_lm_eval_logged_for_the_same_answers(tmp_path, no_network):
    metadata = {"copy_tasks_docs": 3}
    docs = task_rows("phonebook_copy", 10, "generation", metadata)
    samples, _ = scripted_samples(docs, ["phonebook_copy_10"], "restated_start", tmp_path, metadata)
    logged = {sample["doc"]["prompt"]: sample for sample in samples["phonebook_copy_10"]}
    mock = Mock(docs, lambda doc: logged[doc["prompt"]]["resps"][0][0])
    (log,) = run(inspect_tasks.phonebook_copy(lengths=10, docs=3), mock, tmp_path / "logs")
    for sample in log.samples:
        lm_eval_sample = logged[sample.metadata["prompt"]]
        assert sample.scores["recall_verdicts"].value == {
            name: lm_eval_sample[name] for name in lm_eval_sample["metrics"] if name != "overflow"}


@pytest.mark.parametrize("arguments, says", [
    ({"docs": -1}, "copy_tasks_docs=-1"),
    ({"metadata": {"copy_tasks_sed": 3}}, "unknown option copy_tasks_sed=3"),
    ({"metadata": {"pretrained": "x"}}, "'pretrained' is not an option"),
    ({"lengths": "10,10"}, "10 given more than once"),
])
def test_bad_task_arguments_are_refused_naming_them(arguments, says, tmp_path):
    """Finding 19: docs=-1 silently gave 3 of 4 docs, unknown metadata keys were accepted, and repeated
    lengths failed only at eval time with "duplicate sample ids"."""
    dataset = None
    if "docs" in arguments:
        export(["random_copy"], [10], "generation", {"copy_tasks_docs": 4}, tmp_path / "docs")
        dataset = str(tmp_path / "docs")
    with pytest.raises(ValueError, match=says):
        inspect_tasks.random_copy(**{"lengths": 10, "dataset": dataset, **arguments})


WITHOUT_INSPECT = """
import doctest, sys
sys.modules["inspect_ai"] = None  # as on an install without the inspect extra
import copy_tasks.inspect_tasks as tasks
print(doctest.testmod(tasks).failed, hasattr(tasks, "random_copy"))
try:
    tasks.recall_task("random_copy", lengths=10)
except ModuleNotFoundError as error:
    print(error)
"""


def test_without_the_inspect_extra_the_module_imports_and_its_doctests_run():
    """Finding 22: `pytest --doctest-modules --pyargs copy_tasks` failed collecting this module without
    inspect-ai (`No module named 'inspect_ai'`)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", WITHOUT_INSPECT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    needs = "the inspect tasks need inspect-ai: pip install 'copy-tasks[inspect]'"
    assert done.stdout.splitlines() == ["0 False", needs]
