"""What a run was asked that changes what its numbers mean is recorded and shown, no result
vanishes, and neither lm-eval's request cache nor a switched-off start-up hook turns a score wrong."""

from __future__ import annotations

import csv
import json

import dill
import pytest
from conftest import read_results, run_command
from lm_eval.caching import cache

import copy_tasks
from copy_tasks.harness.lm_eval_internals import results_key
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.options import UserError
from copy_tasks.report.positions import third_of

pytestmark = pytest.mark.slow  # every test here runs lm-eval or copy-tasks end to end

SAMPLES = {"phonebook_copy_10": [3, 7], "random_copy_10": [0, 1, 2]}


@pytest.fixture(scope="module")
def sampled_run(tmp_path_factory):
    """The n-gram copier, two chosen docs of one task and three of another, sampled decoding,
    results written where an `--output_path` naming a file puts them; then the leaderboard."""
    folder = tmp_path_factory.mktemp("sampled")
    result = run_command(
        ["copy-tasks", "run", "--model", "ngram_copier", "--model_args", "n=5", "--tasks", ",".join(SAMPLES),
         "--samples", json.dumps(SAMPLES), "--gen_kwargs", "temperature=0.7,do_sample=True",
         "--output_path", str(folder / "asfile" / "myres.json"), "--log_samples"], cwd=folder)
    assert result.returncode == 0, result.stderr[-3000:]
    built = run_command(["copy-tasks", "leaderboard", str(folder / "asfile"), "--out", str(folder / "board")],
                        cwd=folder)
    return folder, result, built


def _random_copy_task():
    return copy_tasks.task_manager().load(["random_copy_10"])["tasks"][
        "random_copy_10"]


NO_SYSTEM_ROLE = (
    "{% for message in messages %}{% if message['role'] == 'system' %}"
    "{{ raise_exception('System role not supported') }}{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


NO_PREFILL = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}{% if messages[-1]['role'] == 'assistant' %}"
    "{{ raise_exception('the last message must be the user\\'s') }}{% endif %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def test_a_sampled_run_warns_at_start(sampled_run):
    _, result, _ = sampled_run
    assert "replaces the greedy decoding our tasks are defined with" in result.stderr
    assert '{"do_sample": true, "temperature": 0.7}' in result.stderr


def test_an_output_path_naming_a_file_is_found_as_lm_eval_wrote_it(sampled_run):
    folder, _, built = sampled_run
    (written,) = (folder / "asfile").glob("myres_*.json")  # lm-eval's name for --output_path .../myres.json
    assert built.returncode == 0, built.stderr
    # 2 tasks x 4 metrics, 2 x its prompts' length (mean and max, the copier's in bytes), and the phone
    # book's two verdicts in each third of the book its 2 docs sit in
    (samples,) = (folder / "asfile").glob("samples_phonebook_copy_10_*.jsonl")
    thirds = {third_of(json.loads(line)["doc"]["query_depth"]) for line in samples.read_text().splitlines()}
    added = f"{8 + 4 + 2 * len(thirds)} rows added"
    assert added in built.stderr
    again = run_command(["copy-tasks", "leaderboard", str(folder / "asfile" / "myres.json"),
                         "--out", str(folder / "again")], cwd=folder)
    assert again.returncode == 0 and added in again.stderr, again.stderr
    assert {row["source_file"] for row in csv.DictReader((folder / "board" / "leaderboard.csv").open())} == {
        written.name}


def test_samples_and_sampling_are_recorded_and_flagged_in_csv_and_summary(sampled_run):
    folder, _, _ = sampled_run
    results = json.loads(next((folder / "asfile").glob("myres_*.json")).read_text())
    for task, chosen in SAMPLES.items():
        assert results["configs"][task]["metadata"]["copy_tasks_samples"] == chosen
    rows = list(csv.DictReader((folder / "board" / "leaderboard.csv").open()))
    flags = {row["task"]: row["flags"] for row in rows}
    sampling = 'gen_kwargs={"do_sample": true, "temperature": 0.7};not_greedy'
    assert flags == {"phonebook_copy_10": f"samples=3|7;{sampling}", "random_copy_10": f"samples=0|1|2;{sampling}"}
    assert {row["n"] for row in rows if row["task"] == "phonebook_copy_10"} == {"2"}
    summary = (folder / "board" / "summary.md").read_text()
    row = next(line for line in summary.splitlines() if line.startswith("| ngram_copier"))
    assert "| samples;gen_kwargs={\"do_sample\": true, \"temperature\": 0.7};not_greedy |" in row
    assert "[samples=3\\|7]" in row and "[samples=0\\|1\\|2]" in row


def test_a_limit_is_flagged_and_analytic_models_results_are_named_after_them(tmp_path):
    # in a new interpreter, as a user starts the console script (the other commands run forked)
    result = run_command(["copy-tasks", "run", "--model", "ngram_copier", "--model_args", "unit=word,n=5",
                          "--tasks", "random_copy_10", "--limit", "2", "--output_path", str(tmp_path / "out")],
                         cwd=tmp_path, fresh=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert [path.name for path in (tmp_path / "out").iterdir()] == ["ngram_copier(n=5,unit=word)"]
    results, _ = read_results(tmp_path / "out")
    assert results["configs"]["random_copy_10"]["metadata"]["copy_tasks_limit"] == 2
    built = run_command(["copy-tasks", "leaderboard", str(tmp_path / "out"), "--out", str(tmp_path / "board")],
                        cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert {row["flags"] for row in csv.DictReader((tmp_path / "board" / "leaderboard.csv").open())} == {"limit=2"}
    summary = (tmp_path / "board" / "summary.md").read_text()
    assert "| ngram_copier\\(n=5,unit=word\\) | reference model | limit=2 |" in summary


def test_requests_from_a_cache_built_from_other_docs_are_refused(tmp_path, monkeypatch):
    """Our cache key holds the docs' fingerprint, so only a cache file written under this
    key with other docs (an lm-eval that changes its key, a damaged file) can pair them:
    then the run stops, naming the cache and the fix."""
    monkeypatch.setattr(cache, "PATH", str(tmp_path))
    _random_copy_task().build_all_requests(cache_requests=True, limit=3)
    (cache_file,) = tmp_path.glob("requests-random_copy_10-*")
    cached = dill.loads(cache_file.read_bytes())
    cached[1][0].doc = dict(cached[1][0].doc, prompt="another doc")
    cache_file.write_bytes(dill.dumps(cached))
    with pytest.raises(UserError, match=r"request cache \(--cache_requests\) holds a request for doc 1 that was "
                                        r"built from another doc; rerun with --cache_requests refresh"):
        _random_copy_task().build_all_requests(cache_requests=True, limit=3)
    untouched = _random_copy_task()
    untouched.build_all_requests(cache_requests=True, limit=3, rewrite_requests_cache=True)
    assert [request.doc["prompt"] for request in untouched.instances] == [
        doc["prompt"] for doc in list(untouched.test_docs())[:3]]


def test_with_the_start_up_hook_off_a_cut_prompt_is_detected_not_scored(tiny_models, tmp_path):
    result = run_command(
        ["lm_eval", "--model", "hf", "--model_args", f"pretrained={tiny_models['gpt_neox']},max_length=512",
         "--include_path", str(copy_tasks.task_config_dir()), "--tasks", "phonebook_copy_10,phonebook_copy_50",
         "--limit", "2", "--device", "cpu", "--output_path", str(tmp_path)],
        cwd=tmp_path, COPY_TASKS_AUTOREGISTER="0")
    assert result.returncode == 0, result.stderr[-3000:]
    results, _ = read_results(tmp_path)
    assert results["results"]["phonebook_copy_50"][results_key("overflow")] == 1.0
    assert results_key("exact_match") not in results["results"]["phonebook_copy_50"]  # never scored
    assert results["results"]["phonebook_copy_10"][results_key("overflow")] == 0.0
    assert results["configs"]["phonebook_copy_50"]["metadata"]["copy_tasks_overflow_docs"] == 2


def test_lm_evals_hf_backend_sends_the_chat_form_and_the_leaderboard_flags_it(tiny_models, tmp_path):
    """The tiny models' tokenizer has a ChatML template: `hf` renders the user's turn and leaves
    the assistant's prefill open (lm-eval's gen_prefix, transformers' continue_final_message)."""
    result = run_command(
        ["lm_eval", "--model", "hf", "--model_args", f"pretrained={tiny_models['gpt_neox']}", "--device", "cpu",
         "--tasks", "phonebook_copy_10,random_copy_tf_10", "--limit", "2", "--apply_chat_template", "--log_samples",
         "--output_path", str(tmp_path / "out")], cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    results, samples = read_results(tmp_path / "out")
    for task in ("phonebook_copy_10", "random_copy_tf_10"):
        assert results["configs"][task]["metadata"]["copy_tasks_prompt_format"] == "chat"
        for sample in samples[task]:
            chat = FAMILIES[sample["doc"]["family"]].chat_form(sample["doc"])
            context = sample["arguments"]["gen_args_0"]["arg_0"]
            assert context == f"<|im_start|>user\n{chat.user}<|im_end|>\n<|im_start|>assistant\n{chat.prefill}"
    assert chat.prefill == sample["doc"]["prompt"].rpartition("\n\n")[2]  # a copy's first symbol
    built = run_command(["copy-tasks", "leaderboard", str(tmp_path / "out"), "--out", str(tmp_path / "board")],
                        cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    flags = {row["flags"] for row in csv.DictReader((tmp_path / "board" / "leaderboard.csv").open())}
    assert flags == {"limit=2;chat_template"}


def test_a_system_instruction_the_template_drops_is_recorded_and_flagged_as_dropped(tiny_models, tmp_path):
    """Finding 4: lm-eval drops --system_instruction under a template with no system role, with a warning;
    the results recorded it and the leaderboard flagged system_instruction=<sha>, though no prompt held it."""
    import shutil

    from transformers import AutoTokenizer

    folder = tmp_path / "no-system"
    shutil.copytree(tiny_models["gpt_neox"], folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.chat_template = NO_SYSTEM_ROLE
    tokenizer.save_pretrained(folder)
    runs = {}
    for name, template in (("dropped", folder), ("kept", tiny_models["gpt_neox"])):
        result = run_command(
            ["lm_eval", "--model", "hf", "--model_args", f"pretrained={template}", "--device", "cpu",
             "--tasks", "phonebook_copy_10", "--limit", "1", "--apply_chat_template", "--log_samples",
             "--system_instruction", "Answer exactly.", "--output_path", str(tmp_path / name)], cwd=tmp_path)
        assert result.returncode == 0, result.stderr[-3000:]
        results, samples = read_results(tmp_path / name)
        context = samples["phonebook_copy_10"][0]["arguments"]["gen_args_0"]["arg_0"]
        runs[name] = results["configs"]["phonebook_copy_10"]["metadata"]["copy_tasks_system_instruction_sent"]
        assert runs[name] == ("Answer exactly." in context)
        built = run_command(["copy-tasks", "leaderboard", str(tmp_path / name), "--out", str(tmp_path / f"b-{name}")],
                            cwd=tmp_path)
        assert built.returncode == 0, built.stderr
        flags = {row["flags"] for row in csv.DictReader((tmp_path / f"b-{name}" / "leaderboard.csv").open())}
        assert all(("system_instruction_dropped" in flag) == (name == "dropped") for flag in flags), flags
        assert all(("system_instruction=" in flag) == (name == "kept") for flag in flags), flags
    assert runs == {"dropped": False, "kept": True}


def test_a_template_that_refuses_the_prefill_is_one_line_saying_what_our_chat_form_needs(tiny_models, tmp_path):
    """Finding 15: a chat template refusing an assistant-last message ended in a jinja2 TemplateError."""
    import shutil

    from transformers import AutoTokenizer

    folder = tmp_path / "no-prefill"
    shutil.copytree(tiny_models["gpt_neox"], folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.chat_template = NO_PREFILL
    tokenizer.save_pretrained(folder)
    result = run_command(["lm_eval", "--model", "hf", "--model_args", f"pretrained={folder}", "--device", "cpu",
                          "--tasks", "phonebook_copy_10", "--limit", "1", "--apply_chat_template",
                          "--output_path", str(tmp_path / "out")], cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-3000:]
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("copy-tasks: error: phonebook_copy_10: the model's chat template refuses")
    assert "assistant prefill" in last and "Traceback" not in result.stderr


def test_two_models_sharing_a_response_cache_are_each_served_their_own_answers(tmp_path):
    """Issue 45 finding 5: lm-eval's `--use_cache` keys answers by request alone, so
    `bounded_state` (bits=276) after the perfect copier with the same path was served the
    copier's answers: 1.0 on `lookup_suffix_100`, where it answers 1 of these 6 docs."""
    import lm_eval

    from copy_tasks.models import register_backends

    register_backends()

    def run(model: str, model_args: str = "") -> float:
        results = lm_eval.simple_evaluate(model=model, model_args=model_args, tasks=["lookup_suffix_100"],
                                          use_cache=str(tmp_path / "U"),
                                          task_manager=copy_tasks.task_manager(metadata={"copy_tasks_docs": 6}))
        return results["results"]["lookup_suffix_100"][results_key("exact_match")]

    assert run("ngram_copier") == 1.0
    assert run("bounded_state", "bits=276") == pytest.approx(1 / 6)
    assert run("ngram_copier") == 1.0  # its own answers, from its own file
    assert len(list(tmp_path.glob("U_ngram_copier-*_rank0.db"))) == len(list(tmp_path.glob("U_bounded_state-*"))) == 1


def test_a_new_version_of_bounded_state_is_not_served_its_older_versions_answers(tmp_path, monkeypatch):
    """Issue 42: the phone-book reader (readers' version 2) answers the name-first book that
    version 1 guessed; under one `--use_cache` path, lm-eval's response cache (keyed by request
    alone) served the new reader the old one's guesses: 0.0 where it scores 1.0."""
    import lm_eval

    from copy_tasks.models import register_backends
    from copy_tasks.models.reference_lm import BoundedStateLM

    register_backends()

    def run() -> tuple[float, str]:
        results = lm_eval.simple_evaluate(model="bounded_state", model_args="bits=128",
                                          tasks=["phonebook_query_first_10"], use_cache=str(tmp_path / "U"),
                                          task_manager=copy_tasks.task_manager(metadata={"copy_tasks_docs": 4}))
        return results["results"]["phonebook_query_first_10"][results_key("exact_match")], \
            results["config"]["model_revision"]

    with monkeypatch.context() as older:  # version 1, which had no phone-book reader: it guessed
        older.setattr(BoundedStateLM, "copy_tasks_model_version", 1)
        older.setattr(BoundedStateLM, "_answer", lambda self, prompt: " 0000000000")
        assert run() == (0.0, "v1")
    assert run() == (1.0, "v3")
    assert len(list(tmp_path.glob("U_bounded_state-*_rank0.db"))) == 2
