"""The public scorer (`copy_tasks.score`) gives the verdicts our lm-eval tasks give: the
conformance battery's stated verdict for every style on every family, under both rules; the
per-sample metrics lm-eval logged for a real run; and the same for a row read back from
Parquet, whatever types the reader gives."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from answer_styles import backend_text
from conftest import source_options
from hypothesis import given, settings
from hypothesis import strategies as st

import copy_tasks
from copy_tasks.harness.yaml_functions import process_teacher_forced
from copy_tasks.probes.conformance import STYLES
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import task_rows

RULES = {"exact_match": False, "authors_exact_match": True}  # metric -> is the authors' rule


@pytest.fixture(scope="module")
def rows(local_sources) -> dict[str, list[dict]]:
    """3 docs at each of the two shortest lengths of every family (C4 and SQuAD on local stand-ins)."""
    found = {}
    for family in FAMILIES.values():
        metadata = {"copy_tasks_docs": 3} | {f"copy_tasks_{argument}": path for argument, path
                                             in source_options(family.name, local_sources)}
        found[family.name] = [row for length in family.lengths[:2]
                              for row in task_rows(family.name, length, "generation", metadata)]
    return found


@pytest.mark.parametrize("style", STYLES)
def test_every_style_gets_the_batterys_verdict_on_every_family_under_both_rules(rows, style):
    got, expected = {}, {}
    for family, docs in rows.items():
        several = FAMILIES[family].queries is not None
        for doc in docs:
            answers = [backend_text(style, question) for question in copy_tasks.questions(doc)]
            verdicts = copy_tasks.score(doc, answers if several else answers[0])
            for metric, authors in RULES.items():
                if authors and metric not in FAMILIES[family].authors_metrics:
                    assert metric not in verdicts
                    continue
                got[family, doc["length"], doc["index"], metric] = verdicts[metric]
                expected[family, doc["length"], doc["index"], metric] = float(
                    STYLES[style].expected(family, False, authors=authors))
    assert got == expected


def test_the_answer_is_cut_at_the_familys_stop_sequences_as_a_backend_cuts_it(rows):
    phone, copy = rows["phonebook_copy"][0], rows["random_copy"][0]
    # the phone book stops at a newline: the next line is not part of the answer under any rule
    assert copy_tasks.score(phone, phone["continuation"] + "\n" + phone["continuation"][::-1]) == {
        "exact_match": 1.0, "prefix_match": 1.0, "authors_exact_match": 1.0}
    # a copy stops at a blank line only: the authors read the next line as part of the copy
    assert copy_tasks.score(copy, copy["continuation"] + "\nx y\n\nz")["authors_exact_match"] == 0.0
    assert copy_tasks.score(copy, copy["continuation"] + "\n\nx y")["authors_exact_match"] == 1.0


def test_a_wrong_answer_gets_partial_credit_by_our_rule_only():
    doc = {"family": "phonebook_copy", "prompt": "Ann Lee: 6093237777\n\nAnn Lee:", "target": "6093237777",
           "continuation": " 6093237777"}
    verdicts = copy_tasks.score(doc, " 6093230000")
    assert verdicts["exact_match"] == 0.0 and verdicts["authors_exact_match"] == 0.0
    assert verdicts["prefix_match"] == pytest.approx(0.6)  # the first 6 of 10 digits


def test_a_row_read_back_from_parquet_scores_as_the_row_itself(rows):
    """pandas gives lists as numpy arrays and numbers as numpy scalars; datasets gives lists."""
    for family in ("squad_length", "lookup_suffix", "phonebook_copy"):
        frame = pa.Table.from_pylist(rows[family]).to_pandas()
        for doc, (_, read) in zip(rows[family], frame.iterrows()):
            read = read.to_dict()
            assert any(isinstance(value, np.ndarray) for value in read.values()), family  # the types did change
            for answer in (doc["continuation"], " " + doc["target"][::-1], "\n" + doc["continuation"]):
                assert copy_tasks.score(read, answer) == copy_tasks.score(doc, answer), (family, answer)


def test_an_answer_must_be_text():
    doc = {"family": "random_copy", "prompt": "a b\n\na b\n\na", "target": " b", "continuation": " b"}
    with pytest.raises(TypeError, match="a str"):
        copy_tasks.score(doc, [" b"])  # lm-eval's list of generations


def test_a_doc_of_several_questions_takes_one_answer_each(rows):
    doc = rows["mqar"][0]
    values = [question["continuation"] for question in copy_tasks.questions(doc)]
    assert len(values) == 8 and values[0] == doc["continuation"]
    with pytest.raises(TypeError, match="a list of str"):
        copy_tasks.score(doc, values[0])
    with pytest.raises(ValueError, match="asks 8 question"):
        copy_tasks.score(doc, values[:7])
    assert copy_tasks.score(doc, values) == {"exact_match": 1.0, "query_accuracy": 1.0}
    # three answers wrong: 5 of 8 right, and not every one
    assert copy_tasks.score(doc, [" 0000"] * 3 + values[3:]) == {"exact_match": 0.0, "query_accuracy": 0.625}


def test_an_answer_that_is_not_text_is_named_with_its_position(rows):
    """Issue 45 finding 25: `[' 2', None]` was said to be a bad list, not a bad element."""
    with pytest.raises(TypeError, match=r"answer\[1\] must be the text written after question 2's prompt .*"
                                        r"got NoneType: None"):
        copy_tasks.score(rows["mqar"][0], [" 2", None])


def test_a_doc_of_several_questions_without_questions_is_a_clear_error(rows):
    """Issue 45 finding 20: empty `query_keys` gave an IndexError."""
    doc = {**rows["mqar"][0], "query_keys": [], "query_values": []}
    with pytest.raises(ValueError, match=r"asks at least one query: .*got 0 key\(s\) and 0 value\(s\)"):
        copy_tasks.score(doc, [])
    with pytest.raises(ValueError, match=r"got 0 key\(s\) and 2 value\(s\)"):
        copy_tasks.questions({**doc, "query_values": ["1", "2"]})


def test_teacher_forced_metrics_of_several_questions_take_one_value_each(rows):
    """Issue 45 finding 9: one (logprob, is_greedy) was taken as the whole mqar doc's verdict."""
    doc = rows["mqar"][0]
    logprobs, greedy = [-0.5] * 6 + [-2.0, -4.0], [True] * 6 + [False, False]
    metrics = copy_tasks.score_teacher_forced(doc, logprobs, greedy)
    # 6 of 8 values greedy; the mean log-probability (6 * 0.5 + 2 + 4) / 8 = 1.125 nats, each over 5 characters
    assert metrics == {"exact_match": 0.0, "query_accuracy": 0.75, "logprob": pytest.approx(-1.125),
                       "bits_per_char": pytest.approx(1.125 / math.log(2) / 5)}
    assert process_teacher_forced(doc, list(zip(logprobs, greedy))) == metrics  # what the task reports
    with pytest.raises(TypeError, match="lists, one per question"):
        copy_tasks.score_teacher_forced(doc, -0.5, True)
    with pytest.raises(ValueError, match=r"asks 8 question\(s\); got 7"):
        copy_tasks.score_teacher_forced(doc, logprobs[:7], greedy[:7])


def test_teacher_forced_metrics_are_the_tasks_and_worked_by_hand():
    doc = {"family": "phonebook_copy", "continuation": " 12"}
    metrics = copy_tasks.score_teacher_forced(doc, -6 * math.log(2), True)
    assert metrics == {"exact_match": 1.0, "logprob": pytest.approx(-4.1588830833596715), "bits_per_char": 2.0}
    assert process_teacher_forced(doc, [(-6 * math.log(2), True)]) == metrics
    assert copy_tasks.score_teacher_forced(doc, -6 * math.log(2), False)["exact_match"] == 0.0


def test_the_public_scorer_loads_neither_lm_eval_nor_torch():
    probe = ("import sys, copy_tasks\n"
             "doc = {'family': 'random_copy', 'prompt': 'a b\\n\\na b\\n\\na', 'target': ' b', 'continuation': ' b'}\n"
             "print(copy_tasks.score(doc, ' b')['exact_match'], copy_tasks.score_teacher_forced(doc, -1.0, True))\n"
             "print(sorted(name for name in ('torch', 'lm_eval', 'transformers') if name in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines()[-1] == "[]", result.stdout
    assert result.stdout.startswith("1.0 ")


def test_a_pandas_row_of_an_export_is_scored_like_its_dict(tmp_path):
    """Finding 18: `pd.read_parquet(f).iloc[0]` raised TypeError though Parquet readers' types are promised."""
    import pandas

    from copy_tasks.export import export

    export(["random_copy"], [10], "generation", {"copy_tasks_docs": 2}, tmp_path / "docs")
    row = pandas.read_parquet(tmp_path / "docs" / "random_copy" / "length_10.parquet").iloc[0]
    assert copy_tasks.score(row, row["continuation"])["exact_match"] == 1.0
    assert copy_tasks.score(row, row["continuation"]) == copy_tasks.score(row.to_dict(), row["continuation"])


@pytest.mark.parametrize("damage, says", [({"prompt": None}, "lacks 'prompt'"), ({"target": ""}, "target is empty")])
def test_a_doc_without_a_prompt_or_with_an_empty_target_is_a_clear_error(damage, says):
    """Finding 18: no prompt gave a bare KeyError, target="" a ZeroDivisionError."""
    doc = {"family": "random_copy", "prompt": "a b\n\na b\n\na", "target": " b", "continuation": " b"}
    doc = {key: value for key, value in {**doc, **damage}.items() if value is not None}
    with pytest.raises(ValueError, match=says.replace("target is empty", r"\['target'\] is empty")):
        copy_tasks.score(doc, " b")


@settings(max_examples=50, deadline=None)
@given(logprob=st.floats(allow_nan=True, allow_infinity=True), continuation=st.text(max_size=5))
def test_teacher_forced_metrics_are_given_for_a_log_probability_only(logprob, continuation):
    """Finding 18: a log-probability of 5.0 gave a negative bits_per_char; an empty continuation divided by 0."""
    doc = {"family": "random_copy", "prompt": "p", "target": continuation, "continuation": continuation}
    if logprob > 0 or logprob != logprob or not continuation:
        with pytest.raises(ValueError):
            copy_tasks.score_teacher_forced(doc, logprob, False)
    else:
        assert copy_tasks.score_teacher_forced(doc, logprob, False)["bits_per_char"] >= 0
