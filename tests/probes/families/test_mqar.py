"""Multi-query associative recall: unique keys and values, queries drawn without replacement, and
8 questions a doc, each scored on its own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.mqar import QUERIES, ZOOLOGY_KEYS, ZOOLOGY_SYMBOLS, ZOOLOGY_VALUES, query_docs
from copy_tasks.probes.task_docs import generate_docs, task_rows

MQAR = FAMILIES["mqar"]


def pairs_of(doc: dict) -> list[tuple[str, str]]:
    return [tuple(line.split(": ")) for line in doc["prompt"].split("\n\n")[0].split("\n")]


@settings(max_examples=40, deadline=None)
@given(pairs=st.sampled_from(MQAR.lengths[:5]), seed=st.integers(0, 2**32 - 1), docs=st.integers(1, 4))
def test_keys_and_values_are_unique_no_key_is_a_prefix_and_queries_are_pairs_asked_once(pairs, seed, docs):
    for doc in generate_docs("mqar", pairs, seed, docs):
        book = pairs_of(doc)
        keys, values = [key for key, _ in book], [value for _, value in book]
        assert len(book) == pairs and len(set(keys)) == pairs and len(set(values)) == pairs
        assert not any(a != b and b.startswith(a) for a in keys for b in keys)
        assert all(len(key) == 4 and key.isalpha() and key.islower() for key in keys)
        assert all(len(value) == 4 and value.isdigit() and value[0] != "0" for value in values)
        positions = doc["query_positions"]
        assert len(positions) == QUERIES == len(set(positions))  # without replacement
        assert [book[i] for i in positions] == list(zip(doc["query_keys"], doc["query_values"]))
        assert doc["prompt"].endswith(f"\n\n{doc['query_keys'][0]}:") and doc["target"] == doc["query_values"][0]


def test_question_i_holds_the_earlier_questions_answered_rightly_then_its_key():
    doc = generate_docs("mqar", 16, 1234, 1)[0]
    questions = MQAR.request_docs(doc)
    assert questions[0] == doc and len(questions) == QUERIES
    for i, question in enumerate(questions):
        asked = question["prompt"].split("\n\n")[1].split("\n")
        answered = [f"{key}: {value}" for key, value in zip(doc["query_keys"][:i], doc["query_values"][:i])]
        assert asked == answered + [f"{doc['query_keys'][i]}:"]
        assert (question["target"], question["continuation"]) == (doc["query_values"][i], f" {doc['query_values'][i]}")


def test_docs_are_the_same_in_fresh_processes_under_other_hash_seeds():
    code = ("import json; from copy_tasks.probes.task_docs import generate_docs; "
            "print(json.dumps([d['query_keys'] for d in generate_docs('mqar', 32, 7, 3)]))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": hash_seed, "PATH": ""}).stdout for hash_seed in ("0", "1")}
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == [doc["query_keys"] for doc in generate_docs("mqar", 32, 7, 3)]


def test_fewer_pairs_than_queries_is_refused_naming_both():
    from copy_tasks.probes.families.mqar import make_mqar_doc
    from copy_tasks.probes.seeding import doc_rng

    with pytest.raises(ValueError, match=r"copy_tasks_length=5 is not allowed: a mqar length \(pairs\) must be an "
                                         "integer from 8"):
        task_rows("mqar", 5, "generation", {})
    with pytest.raises(ValueError, match="needs at least 8 pairs, got 5"):
        make_mqar_doc(doc_rng("mqar", "1.0", 5, 0, 0), 5)


DOC = {"family": "mqar", "prompt": "ab: 12\ncd: 34\nef: 56\n\ncd:", "target": "34", "continuation": " 34",
       "format": "natural", "query_keys": ["cd", "ef", "ab"], "query_values": ["34", "56", "12"]}


@pytest.mark.parametrize(("answers", "exact", "accuracy"), [
    ([" 34", " 56", " 12"], 1.0, 1.0),
    ([" 34 and so on", "cd: 34\nef: 56", " 12\nab: 12"], 0.0, 2 / 3),  # the second restates the wrong line
    ([" 34", " 5", " 120"], 0.0, 1 / 3),
    (["", "", ""], 0.0, 0.0),
])
def test_each_question_is_scored_on_its_own_and_the_doc_is_right_when_all_are(answers, exact, accuracy):
    assert MQAR.score_generations(answers, DOC) == {"exact_match": exact, "query_accuracy": pytest.approx(accuracy)}


def test_a_restated_key_is_read_past_and_there_is_no_authors_rule():
    assert MQAR.score_generations(["cd: 34", "ef: 56", "ab: 12"], DOC) == {"exact_match": 1.0, "query_accuracy": 1.0}
    assert MQAR.authors_metrics == () and MQAR.generation_metrics == ("exact_match", "query_accuracy")


def test_a_doc_needs_one_answer_a_question():
    with pytest.raises(ValueError, match="asks 3 question"):
        MQAR.score_generations([" 34"], DOC)


def test_teacher_forcing_scores_every_value_and_combines_them():
    from copy_tasks.harness.yaml_functions import process_teacher_forced

    assert [question["continuation"] for question in query_docs(DOC)] == [" 34", " 56", " 12"]
    metrics = process_teacher_forced(DOC, [(-0.3, True), (-3.0, False), (-0.3, True)])
    assert metrics == {"exact_match": 0.0, "query_accuracy": pytest.approx(2 / 3), "logprob": pytest.approx(-1.2),
                       "bits_per_char": pytest.approx((0.3 + 3.0 + 0.3) / 0.6931471805599453 / 3 / 3)}


ZOOLOGY = (("fmt", "zoology"),)


@settings(max_examples=30, deadline=None)
@given(pairs=st.sampled_from(MQAR.lengths), seed=st.integers(0, 2**32 - 1))
def test_zoologys_format_is_one_symbol_a_key_and_a_value_from_disjoint_vocabularies(pairs, seed):
    (doc,) = generate_docs("mqar", pairs, seed, 1, ZOOLOGY)
    context = doc["prompt"][:2 * pairs]
    keys, values = context[0::2], context[1::2]
    assert set(keys) <= set(ZOOLOGY_KEYS) and set(values) <= set(ZOOLOGY_VALUES)
    assert len(set(keys)) == len(set(values)) == pairs  # unique: no key is another's prefix, being one symbol
    assert doc["prompt"] == context + keys[doc["query_positions"][0]]  # the pairs, then the first bare key
    for i, question in enumerate(query_docs(doc)):
        position = doc["query_positions"][i]
        assert question["prompt"][-1] == keys[position] and question["target"] == values[position]
        assert question["continuation"] == question["target"]  # no space: the next symbol is the value
        # as Zoology's sequences: the keys asked before, no value written after them
        assert question["prompt"] == context + "".join(doc["query_keys"][:i]) + keys[position]


def test_zoologys_format_is_scored_by_the_first_symbol_and_refuses_more_pairs_than_keys():
    (doc,) = generate_docs("mqar", 8, 1234, 1, ZOOLOGY)
    right = [question["target"] for question in query_docs(doc)]
    assert MQAR.score_generations([f" {value}x" for value in right], doc) == {"exact_match": 1.0,
                                                                              "query_accuracy": 1.0}
    # the first answer's first symbol is right (what follows is not read), the second's is not
    answers = [right[0] * 2, ZOOLOGY_VALUES[0] if right[1] != ZOOLOGY_VALUES[0] else ZOOLOGY_VALUES[1], *right[2:]]
    assert MQAR.score_generations(answers, doc) == {"exact_match": 0.0, "query_accuracy": 7 / 8}
    with pytest.raises(ValueError, match=f"at most {ZOOLOGY_SYMBOLS} pairs, got 600"):
        generate_docs("mqar", 600, 1234, 1, ZOOLOGY)


def test_the_natural_format_is_the_default_and_keeps_its_docs():
    assert generate_docs("mqar", 8, 1234, 3) == generate_docs("mqar", 8, 1234, 3, (("fmt", "natural"),))
    assert {doc["format"] for doc in generate_docs("mqar", 8, 1234, 3)} == {"natural"}


def test_zoologys_format_gives_each_conformance_style_its_verdict():
    """The conformance battery's answer styles (`probes.conformance.STYLES`), written one
    character a token, generated and cut as lm-eval cuts them, on Zoology-format questions: the
    verdicts the battery states for mqar, except restating the prompt's last line, which in a
    format with no lines restates the whole sequence (its models write the next symbol)."""
    from copy_tasks.models.answers import cut_at_stops
    from copy_tasks.probes.conformance import END_OF_TURN, EOS, STYLES

    (doc,) = generate_docs("mqar", 8, 1234, 1, ZOOLOGY)
    for question in query_docs(doc):
        value = question["continuation"]
        other = next(symbol for symbol in ZOOLOGY_VALUES if symbol != value)
        for name, style in STYLES.items():
            changed = {"first_wrong": other, "last_missing": ""}  # a one-symbol value: another, or none
            tokens = ([*changed[name], EOS] if name in changed
                      else style.write(value, list, question["prompt"].rsplit("\n", 1)[-1]))
            written = tokens[:tokens.index(EOS)] if EOS in tokens else tokens
            text = cut_at_stops("".join(token for token in written if token is not END_OF_TURN),
                                list(MQAR.stop_sequences))
            expected = False if name == "restated_start" else style.expected("mqar", teacher_forced=False)
            assert MQAR.score_one_reading(text, question)["exact_match"] == float(expected), name
