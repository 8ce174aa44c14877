"""The checks before a model loads (`copy_tasks.harness.cli_checks`): every entry point refuses bad
options and unreadable sources first."""

from __future__ import annotations

import json

import pytest
from conftest import run_command

ENTRY_POINTS = {"lm_eval": ["lm_eval"], "copy-tasks run": ["copy-tasks", "run"],
                "python -m lm_eval run": ["python", "-m", "lm_eval", "run"]}


def run_without_a_model(tmp_path, entry_point: str, *args: str, fresh: bool = False):
    """lm-eval with a model that does not exist: an error must come before it tries to load it."""
    return run_command([*ENTRY_POINTS[entry_point], "--model", "hf", "--model_args",
                        f"pretrained={tmp_path / 'no-model'}", *args], cwd=tmp_path, fresh=fresh)


@pytest.mark.parametrize("entry_point", sorted(ENTRY_POINTS))
def test_every_entry_point_checks_options_before_loading_a_model(tmp_path, entry_point):
    result = run_without_a_model(tmp_path, entry_point, "--tasks", "phonebook_copy_20", "--metadata",
                                 '{"copy_tasks_docs": -5}', fresh=True)  # each as a user starts it
    assert result.returncode == 2
    assert "copy_tasks_docs=-5 is not allowed" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ('{"copy_tasks_seed": "x1"}', "copy_tasks_seed='x1' is not allowed"),
        ('{"copy_tasks_docs_count": 5}', "unknown option copy_tasks_docs_count=5"),
        ('{"copy_tasks_limit": 5}', "copy_tasks_limit=5 is not an option: it is recorded by copy-tasks in the results"),
        ('{"copy_tasks_docs": 1000000000}', "copy_tasks_docs=1000000000 is not allowed: the number of docs per "
                                            "task must be an integer from 1 to 10000"),
        (f'{{"copy_tasks_seed": {10**30}}}', f"copy_tasks_seed={10**30} is not allowed"),
        ('{"copy_tasks_length": 5}', "copy_tasks_length=5 is not an option: it is set by each task's YAML"),
        ('{"copy_tasks_variant": "x"}', "copy_tasks_variant='x' is not an option: it is set by each task's YAML"),
        ('{"copy_tasks_family": "x"}', "copy_tasks_family='x' is not an option"),
        ('{"copy_tasks_docs_sha256": "x"}', "copy_tasks_docs_sha256='x' is not an option: it is recorded by "
                                            "copy-tasks in the results"),
    ],
)
def test_cli_rejects_bad_metadata_before_loading_a_model(tmp_path, metadata, message):
    result = run_without_a_model(tmp_path, "lm_eval", "--tasks", "phonebook_copy_20", "--metadata", metadata)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("content", "message"), [
    (b"\x00\x9f\x92\x96 binary \xff", "is not UTF-8 text"),
    ("caf\u00e9 au lait ".encode("latin-1") * 5, "is not UTF-8 text"),
    (b"only five words in here", "has 5 words, fewer than the 1000 of the longest passage asked for"),
])
def test_a_text_source_that_cannot_serve_the_tasks_is_refused_before_the_model(tmp_path, content, message):
    source = tmp_path / "text.txt"
    source.write_bytes(content)
    result = run_without_a_model(tmp_path, "lm_eval", "--tasks", "c4_copy_25,c4_copy_1000", "--metadata",
                                 json.dumps({"copy_tasks_text_source": str(source)}))
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("content", [b"\xff\xfe{not json", b"[" * 5000 + b"]" * 5000, b'{"version": "v2"}'])
def test_a_squad_source_that_cannot_be_read_is_refused_before_the_model(tmp_path, content):
    source = tmp_path / "dev.json"
    source.write_bytes(content)
    result = run_without_a_model(tmp_path, "lm_eval", "--tasks", "squad_length_100", "--metadata",
                                 json.dumps({"copy_tasks_squad_source": str(source)}))
    assert result.returncode == 2
    assert "not a SQuAD-format" in result.stderr and "Traceback" not in result.stderr


def test_a_metadata_key_no_task_reads_is_warned_once(caplog):
    from copy_tasks.harness.cli_checks import check_run

    caplog.set_level("WARNING", logger="copy_tasks")
    check_run({"foo": 1, "copy_tasks_docs": 2, "pretrained": "m"}, "phonebook_copy_20,random_copy_tf_10",
              model_args={"pretrained": "m"})
    assert [record.getMessage().split(" is read")[0] for record in caplog.records] == [
        "copy-tasks: --metadata key 'foo'"]
    caplog.clear()
    check_run({"max_seq_lengths": [4096]}, ["phonebook_copy_20", "ruler"])  # another suite's task may read it
    check_run({"copy_tasks_docs": 2}, "phonebook_copy_20")
    assert caplog.records == []


@pytest.mark.parametrize(("tasks", "message"), [
    ("random_copy_10, lookup_suffix_20", "' lookup_suffix_20' has spaces around it"),
    (["random_copy_10", " lookup_suffix_20"], "' lookup_suffix_20' has spaces around it"),  # "a, b" split by lm-eval
    (["random_copy_10 "], "'random_copy_10 ' has spaces around it"),
    (["random_copy_10", "", "lookup_suffix_20"], "a name is empty"),  # `--tasks a, b`
])
def test_a_task_name_lm_eval_would_not_find_as_written_is_refused_first(tasks, message):
    """lm-eval (0.4.13) looks " lookup_suffix_20" up as written and finds no task: our checks,
    which read the names as lm-eval does, once skipped it (and a C4 task's source check with
    it), and lm-eval failed after them with a traceback."""
    from copy_tasks.harness.cli_checks import check_run
    from copy_tasks.probes.options import UserError

    with pytest.raises(UserError, match=f"^--tasks: {message}: .* e.g. --tasks random_copy_10,random_copy_20$"):
        check_run({}, tasks)
    check_run({}, ["random_copy_10", "lookup_suffix_20"])


@pytest.mark.parametrize(("model", "model_args", "message"), [
    ("bounded_state", "bit=64", "--model_args bit=64: bounded_state takes no such argument (did you mean bits?)"),
    ("ngram_copier", "n=5,units=word", "--model_args units=word: ngram_copier takes no such argument (did you mean "
                                       "unit?); it takes unit, n"),
    ("hf", "pretrained=no-model,max_lenght=4096", "--model_args max_lenght=4096: hf takes no such argument (did you "
                                                  "mean max_length?)"),
])
def test_a_model_argument_the_backend_does_not_take_is_refused_in_one_line_before_the_model(tmp_path, model,
                                                                                          model_args, message):
    """Issue 51: `--model bounded_state --model_args bit=64` ran at the default 256 bits and the
    leaderboard showed a row `bounded_state(bit=64)` with 256 bits' scores."""
    result = run_command(["copy-tasks", "run", "--model", model, "--model_args", model_args, "--tasks",
                          "random_copy_20", "--output_path", str(tmp_path / "out")], cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not (tmp_path / "out").exists()


def test_the_analytic_models_take_the_arguments_the_check_names():
    """`ANALYTIC_MODEL_ARGS`, which the check reads without importing the models, is each model
    class's own parameters; lm-eval's own (`LM_EVAL_MODEL_ARGS`) it takes and ignores."""
    import inspect

    from copy_tasks.harness.model_info import ANALYTIC_MODEL_ARGS, LM_EVAL_MODEL_ARGS
    from copy_tasks.models import BACKENDS
    from copy_tasks.probes.options import UserError

    for name, arguments in ANALYTIC_MODEL_ARGS.items():
        module, _, cls = BACKENDS[name].partition(":")
        model_class = getattr(__import__(module, fromlist=[cls]), cls)
        parameters = [parameter for parameter, kind in inspect.signature(model_class.__init__).parameters.items()
                      if parameter != "self" and kind.kind is not kind.VAR_KEYWORD]
        assert parameters == [*arguments, *LM_EVAL_MODEL_ARGS], name
    from copy_tasks.models.reference_lm import BoundedStateLM

    assert BoundedStateLM(bits=64, batch_size=1, device="cpu").bits == 64
    with pytest.raises(UserError, match="it takes no argument bit"):
        BoundedStateLM(bit=64)


def test_a_limit_that_scores_no_doc_is_refused_in_one_line(tmp_path):
    """Issue 51: `--limit 0` ended in lm-eval's traceback."""
    result = run_command(["copy-tasks", "run", "--model", "ngram_copier", "--tasks", "random_copy_10", "--limit", "0",
                          "--output_path", str(tmp_path / "out")], cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == ("copy-tasks: error: --limit 0 scores no doc: give a count of docs a task (e.g. "
                                     "--limit 5) or a fraction of them (e.g. --limit 0.1)")


def test_a_max_gen_toks_below_the_budget_is_said_at_run_time(tmp_path):
    """Issue 51: `--gen_kwargs max_gen_toks=2` was raised to the task's budget without a word."""
    result = run_command(["copy-tasks", "run", "--model", "ngram_copier", "--tasks", "random_copy_10", "--limit", "2",
                          "--gen_kwargs", "max_gen_toks=2", "--output_path", str(tmp_path / "out")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr.count("--gen_kwargs max_gen_toks=2 is less than random_copy_10's answers may take") == 1
