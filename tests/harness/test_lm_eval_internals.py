"""The lm-eval internals copy-tasks relies on (`copy_tasks.harness.lm_eval_internals`) behave as we
use them: each is called, none is checked by reading lm-eval's source, so an lm-eval upgrade that
moves or changes one fails here, by name."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import sys
import types

import pytest

from copy_tasks.harness import lm_eval_internals as internals


class Reached(Exception):
    """Raised by a stand-in for an lm-eval function, to show that a run reached it."""


def parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


@pytest.mark.parametrize("target", sorted(internals.PATCH_TARGETS))
def test_every_patch_target_is_a_function_of_its_module(target):
    where = internals.PATCH_TARGETS[target]
    owner = where.owner(importlib.import_module(where.module))
    assert callable(getattr(owner, where.attribute))
    assert isinstance(inspect.getattr_static(owner, where.attribute), staticmethod) == where.static


def test_the_task_index_indexes_a_folder_into_entries_of_our_codec(tmp_path):
    (tmp_path / "mine.yaml").write_text("task: my_probe\ndataset_path: json\noutput_type: generate_until\n")
    module = importlib.import_module(internals.INDEX_MODULE)
    index = internals.PATCH_TARGETS["task_index"].owner(module).build([tmp_path])
    entry_class, kind = internals.task_index_entry_classes(module)
    entry = index["my_probe"]
    assert isinstance(entry, entry_class) and entry.kind == kind.TASK and str(entry.yaml_path).endswith("mine.yaml")
    assert [field.name for field in dataclasses.fields(entry_class)] == ["name", "kind", "yaml_path", "cfg", "tags"]


def test_every_command_line_run_builds_its_tasks_through_process_tasks(monkeypatch):
    """`lm_eval run` reaches `EvaluatorConfig.process_tasks` (where we check our options) before
    a model loads: replaced by a stand-in that raises, the run stops there."""
    config_class = internals.PATCH_TARGETS["option_checks"].owner(importlib.import_module(internals.CONFIG_MODULE))

    def reached(self, metadata=None):
        assert internals.evaluator_config_fields(self)[1:3] == (["random_copy_10"], "dummy")
        raise Reached

    monkeypatch.setattr(config_class, "process_tasks", reached)
    monkeypatch.setattr(sys, "argv", ["lm_eval", "run", "--model", "dummy", "--tasks", "random_copy_10"])
    from lm_eval.__main__ import cli_evaluate

    with pytest.raises(Reached):
        cli_evaluate()


def test_simple_evaluate_hands_evaluate_the_model_and_the_task_dict(monkeypatch):
    evaluator = importlib.import_module(internals.EVALUATOR_MODULE)
    seen = {}

    def reached(lm, task_dict, *args, **kwargs):
        seen.update(lm=lm, tasks=task_dict)
        raise Reached

    monkeypatch.setattr(evaluator, "evaluate", reached)
    with pytest.raises(Reached):
        evaluator.simple_evaluate(model="dummy", tasks=["random_copy_10"], limit=1)
    from copy_tasks.harness.registration import bind_model_to_tasks

    assert type(seen["lm"]).__name__ == "DummyLM"
    assert [task.config.task for task in bind_model_to_tasks(seen["lm"], seen["tasks"])] == ["random_copy_10"]


def test_the_run_tracker_names_the_run_from_its_arguments():
    tracker_module = importlib.import_module(internals.TRACKER_MODULE)
    target = internals.PATCH_TARGETS["run_naming"]
    assert parameters(getattr(target.owner(tracker_module), target.attribute))[:3] == ["self", "model_source",
                                                                                      "model_args"]
    assert internals.sanitized_model_name(tracker_module, "org/model:v1") == "org__model__v1"


def test_the_cache_wrapper_keeps_the_model_it_wraps(tmp_path):
    from lm_eval.api.model import CachingLM
    from lm_eval.models.dummy import DummyLM

    model = DummyLM()
    assert internals.unwrap_model(CachingLM(model, str(tmp_path / "cache.db"))) is model
    assert internals.unwrap_model(model) is model


def test_a_task_exposes_the_requests_it_built_and_keys_its_cache_on_tokenizer_name():
    from lm_eval.api.task import ConfigurableTask
    from lm_eval.tasks import TaskManager

    assert "tokenizer_name" in parameters(ConfigurableTask.build_all_requests)
    task = TaskManager().load_task_or_group(["random_copy_10"])["random_copy_10"]
    task.build_all_requests(limit=2, rank=0, world_size=1)
    assert [request.doc_id for request in internals.built_requests(task)] == [0, 1]


def test_hflm_scores_token_requests_through_the_method_hf_fast_replaces():
    from lm_eval.models.huggingface import HFLM
    from lm_eval.models.utils import Collator

    assert parameters(HFLM._loglikelihood_tokens) == ["self", "requests", "disable_tqdm", "override_bs"]
    assert callable(HFLM._batch_scheduler)
    assert issubclass(internals.scored_tokens_hflm(), HFLM)
    reordering = Collator([("b", 2), ("a", 1), ("c", 3)], sort_fn=lambda request: request[1])
    batches = list(reordering.get_batched(n=2, batch_fn=None))
    assert batches == [[("a", 1), ("b", 2)], [("c", 3)]]
    assert reordering.get_original([1, 2, 3]) == [2, 1, 3]


def test_the_results_of_evaluate_are_read_where_lm_eval_puts_them():
    results = {"results": {"t": {"exact_match,none": 1.0}}, "groups": {"g": {}}, "group_subtasks": {"g": ["t"]},
               "samples": {"t": [{"doc_id": 0}]}}
    assert internals.results_table(results)["t"][internals.results_key("exact_match")] == 1.0
    assert internals.results_table(results, "groups") == {"g": {}}
    assert internals.group_subtasks(results) == {"g": ["t"]}
    assert internals.logged_samples(results, "t") == [{"doc_id": 0}]
    assert internals.logged_samples({"results": {}}, "t") == [] and internals.results_table({}, "groups") == {}


@pytest.mark.parametrize("method", ["construct_requests", "process_results", "download"])
def test_the_task_methods_our_task_class_extends(method):
    from lm_eval.api.task import ConfigurableTask

    assert callable(getattr(ConfigurableTask, method))
    if method == "construct_requests":
        assert parameters(ConfigurableTask.construct_requests)[:3] == ["self", "doc", "ctx"]
    if method == "process_results":
        assert parameters(ConfigurableTask.process_results) == ["self", "doc", "results"]


def test_the_git_lookup_is_asked_only_inside_a_repository(tmp_path, monkeypatch, capfd):
    import subprocess

    calls = []
    quiet = internals.git_hash_quietly(lambda: calls.append("asked") or "abc1234")
    monkeypatch.chdir(tmp_path)
    if subprocess.run(["git", "rev-parse", "--git-dir"], capture_output=True).returncode == 0:
        pytest.skip("the temporary folder is inside a git repository")
    assert quiet() is None and calls == [] and capfd.readouterr().err == ""
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    monkeypatch.chdir(tmp_path / "repo")
    assert quiet() == "abc1234" and calls == ["asked"]


def test_the_results_keys_are_those_lm_evals_evaluate_writes():
    results = importlib.import_module(internals.EVALUATOR_MODULE).simple_evaluate(
        model="dummy", tasks=["random_copy_10"], limit=1)["results"]["random_copy_10"]
    keys = [internals.results_key(metric, stderr=stderr) for metric in ("exact_match", "overflow")
            for stderr in (False, True)]
    assert set(keys) <= set(results)
    assert [internals.parse_results_key(key) for key in keys] == [
        ("exact_match", internals.NO_FILTER, False), ("exact_match", internals.NO_FILTER, True),
        ("overflow", internals.NO_FILTER, False), ("overflow", internals.NO_FILTER, True)]
    assert internals.parse_results_key("alias") is None and "alias" in results


def test_the_wrapped_calls_arguments_are_read_by_lm_evals_own_parameter_names():
    evaluator = importlib.import_module(internals.EVALUATOR_MODULE)
    assert internals.evaluate_model_and_tasks(evaluator.evaluate, ("lm", {"t": 1}), {}) == ("lm", {"t": 1})
    assert internals.evaluate_model_and_tasks(evaluator.evaluate, (), {"lm": "lm", "task_dict": {}}) == ("lm", {})
    simple = evaluator.simple_evaluate
    assert internals.simple_evaluate_metadata_and_task_manager(simple, ("hf",), {"metadata": {"a": 1},
                                                               "task_manager": "tm"}) == ({"a": 1}, "tm")
    args, kwargs = internals.with_response_cache_path(simple, ("hf", "pretrained=x"), {"use_cache": "runs/U"},
                                                      lambda path, model, model_args: f"{path}|{model}|{model_args}")
    assert internals.simple_evaluate_metadata_and_task_manager(simple, args, kwargs) == ({}, None)
    assert inspect.signature(simple).bind(*args, **kwargs).arguments["use_cache"] == "runs/U|hf|pretrained=x"
    config_class = internals.PATCH_TARGETS["option_checks"].owner(importlib.import_module(internals.CONFIG_MODULE))
    assert internals.process_tasks_arguments(config_class.process_tasks, ("config", {"m": 1}), {}) == ("config",
                                                                                                        {"m": 1})
    target = internals.PATCH_TARGETS["run_naming"]
    log_experiment_args = getattr(target.owner(importlib.import_module(internals.TRACKER_MODULE)), target.attribute)
    assert internals.experiment_arguments(log_experiment_args, ("tracker", "hf", "pretrained=x"), {}) == (
        "tracker", "hf", "pretrained=x")


def test_the_build_arguments_read_are_build_all_requests_own():
    from lm_eval.api.task import ConfigurableTask

    accepted = set(parameters(ConfigurableTask.build_all_requests))
    run = internals.build_all_requests_arguments({name: name for name in accepted})
    assert {name for name, value in vars(run).items() if value == name} == set(vars(run)) <= accepted
    assert set(internals.without_request_cache({})) <= accepted


def test_hf_fast_reads_token_requests_as_hflm_builds_them():
    """`HFLM._loglikelihood_tokens` gets (cache key, context tokens, continuation tokens) tuples;
    its automatic batch size (`_detect_batch_size`) unpacks them as such: a `TokenRequest` still
    is that tuple."""
    lm = types.SimpleNamespace(batch_size=2)
    reordering, batches = internals.batched(lm, [("a", [1], [2]), ("b", [1, 2, 3], [4])], lambda request: -len(
        request.context))
    batches = list(batches)
    assert [[request.cache_key for request in batch] for batch in batches] == [["b", "a"]]
    _, context, continuation = batches[0][0]
    assert (context, continuation) == ([1, 2, 3], [4]) and reordering.get_original(["B", "A"]) == ["A", "B"]
    added = []
    lm.cache_hook = types.SimpleNamespace(add_partial=lambda *entry: added.append(entry))
    internals.cache_answer(lm, batches[0][0], (-1.0, True))
    internals.cache_answer(lm, internals.TokenRequest((None, [1], [2])), (-2.0, False))
    assert added == [("loglikelihood", "b", (-1.0, True))]


def test_the_command_line_and_its_message_for_bad_json(monkeypatch):
    from lm_eval._cli.utils import try_parse_json

    assert internals.command_line().__module__ == "lm_eval.__main__"
    with pytest.raises(ValueError) as refused:
        try_parse_json("{'copy_tasks_seed': 7}")
    assert internals.is_bad_json_argument(refused.value) and not internals.is_bad_json_argument(ValueError("other"))
    seen = []
    monkeypatch.setattr(sys, "argv", [])
    internals.run_command_line(lambda: seen.append(list(sys.argv)), ["--tasks", "t"])
    assert seen == [["lm-eval", "run", "--tasks", "t"]]


def test_the_hf_backend_module_holds_hflm():
    assert hasattr(importlib.import_module(internals.HF_BACKEND_MODULE), "HFLM")


def test_a_seed_for_a_module_not_yet_imported_is_set_right_after_it_is(tmp_path, monkeypatch):
    """Issue 41 finding 8: lm-eval imported torch only to seed it, for models that never use it."""
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "fake_torch_41.py").write_text("draws = []\n")
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    seeded = []
    seed = internals.torch_seeded_on_import(lambda value: seeded.append((value, "fake_torch_41" in sys.modules)),
                                            module="fake_torch_41")
    seed(1234)
    assert seeded == [] and "fake_torch_41" not in sys.modules
    monkeypatch.delitem(sys.modules, "fake_torch_41", raising=False)
    import fake_torch_41  # noqa: F401

    assert seeded == [(1234, True)]
    seed(99)  # imported: seeded at once
    assert seeded == [(1234, True), (99, True)]
    assert not any(isinstance(finder, internals.SeedOnImport) for finder in sys.meta_path)


def test_the_environment_of_a_run_without_torch_keeps_lm_evals_other_fields(monkeypatch):
    import lm_eval.utils
    import transformers
    from lm_eval.loggers.utils import add_env_info

    monkeypatch.delitem(sys.modules, "torch")  # as in a run of a reference model (put back after the test)
    available = lm_eval.utils.is_torch_available
    storage = {}
    internals.env_info_without_torch(add_env_info)(storage)
    assert storage["pretty_env_info"].startswith("N/A (this run never imported torch")
    assert storage["transformers_version"] == transformers.__version__
    assert storage["lm_eval_version"] == importlib.metadata.version("lm_eval") and "upper_git_hash" in storage
    assert lm_eval.utils.is_torch_available is available and "torch" not in sys.modules


@pytest.mark.slow
def test_a_reference_model_run_never_imports_torch_and_records_its_seed(tmp_path):
    import re

    from conftest import read_results, run_command

    result = run_command(["python", "-X", "importtime", "-m", "copy_tasks", "run", "--model", "ngram_copier",
                          "--tasks", "random_copy_10", "--limit", "1", "--output_path", str(tmp_path / "out")],
                         cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert not re.search(r"\|\s+torch$", result.stderr, re.MULTILINE)
    results, _ = read_results(tmp_path / "out")
    assert results["config"]["torch_seed"] == 1234 and results["lm_eval_version"]


def test_what_the_lm_eval_0_5_pre_release_cannot_run_is_named_and_0_4_runs_everything():
    """lm-eval 0.5.0.dev1 fails `--samples` with `--log_samples` after the run, and several processes as it
    gathers their results: refused in one line before the model, naming the lm-eval line that fails."""
    import types

    import lm_eval

    logged = types.SimpleNamespace(samples={"phonebook_copy_10": [3]}, log_samples=True)
    plain = types.SimpleNamespace(samples=None, log_samples=True)
    verdicts = (internals.unsupported_on_this_lm_eval(logged, {}),
                internals.unsupported_on_this_lm_eval(plain, {"WORLD_SIZE": "2"}),
                internals.unsupported_on_this_lm_eval(plain, {"WORLD_SIZE": "1"}))
    if str(lm_eval.__version__).startswith("0.5.0.dev"):
        assert "doc_id_true = indices[doc_id]" in verdicts[0] and "several processes" in verdicts[1]
        assert verdicts[2] is None
    else:
        assert verdicts == (None, None, None)
