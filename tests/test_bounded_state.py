"""The bounded-state copier: never above B bits, and the paper's separation on our tasks."""

from __future__ import annotations

import json
import math

import pytest
from conftest import read_results, run_command, source_options

from copy_tasks.bounded_state import CONTROL_BITS, LETTER_BITS, BoundedStateReader, StateOverflow
from copy_tasks.docs import generate_docs
from copy_tasks.families import FAMILIES

KEEPS_50 = CONTROL_BITS + math.ceil(50 * LETTER_BITS)  # room for 50 letters: 276 bits


def exact_matches(family: str, length: int, bits: int, count: int = 200, options=()) -> list[float]:
    scores = []
    for doc in generate_docs(family, "1.0", length, 1234, count, options):
        reader = BoundedStateReader(bits).read(doc["prompt"])
        assert reader.peak_bits <= bits
        scores.append(FAMILIES[family].score_generation(reader.answer(doc["prompt"]), doc)["exact_match"])
    return scores


@pytest.mark.parametrize("bits", [40, 64, KEEPS_50, 1000])
def test_never_holds_more_than_b_bits_on_any_doc(bits, local_sources):
    for family, spec in FAMILIES.items():
        options = source_options(family, local_sources)
        for length in spec.lengths:
            for doc in generate_docs(family, "1.0", length, 1234, spec.default_docs, options):
                assert BoundedStateReader(bits).read(doc["prompt"]).peak_bits <= bits


@pytest.mark.parametrize("length", FAMILIES["random_copy"].lengths)
def test_random_copy_accuracy_is_at_most_and_close_to_the_bound(length):
    bound = min(1.0, 2 ** (KEEPS_50 - length * LETTER_BITS))  # Theorem 2.7: 2^B / D^L
    scores = exact_matches("random_copy", length, KEEPS_50)
    accuracy = sum(scores) / len(scores)
    sampling_error = 3 * math.sqrt(max(bound * (1 - bound), 1 / len(scores)) / len(scores))
    assert accuracy <= bound + sampling_error
    assert accuracy >= bound - sampling_error  # close to the bound: fits -> copies, else fails
    assert accuracy == (1.0 if length <= 50 else 0.0)


@pytest.mark.parametrize("fmt", ["natural", "paper"])
def test_lookups_separate_prefix_key_from_suffix_key(fmt):
    options = (("key_length", 4), ("answer_length", 4), ("fmt", fmt))
    string_bits = {}
    for length in FAMILIES["lookup_prefix"].lengths:
        prefix = exact_matches("lookup_prefix", length, KEEPS_50, 100, options)
        suffix = exact_matches("lookup_suffix", length, KEEPS_50, 100, options)
        assert sum(prefix) == len(prefix), f"prefix key, {length} letters"  # perfect at any length
        string_bits[length] = sum(suffix) / len(suffix)
    assert string_bits[20] == 1.0  # 94 bits of string fit in B
    for length in (100, 200, 500, 1000):  # the string carries 2 to 17 times B bits: it fails
        assert string_bits[length] <= 0.5
    assert string_bits[1000] <= 0.05


def test_storing_beyond_b_is_an_error_not_a_silent_overflow():
    reader = BoundedStateReader(CONTROL_BITS + 5)
    reader._store(reader.stored, "a")
    with pytest.raises(StateOverflow, match="exceeds B"):
        reader._store(reader.stored, "b")


def test_copy_tasks_run_with_the_bounded_state_model(tmp_path):
    result = run_command(
        ["copy-tasks", "run", "--model", "bounded_state", "--model_args", f"bits={KEEPS_50}",
         "--tasks", "random_copy_20,random_copy_100,random_copy_tf_20,lookup_prefix_tf_1000",
         "--limit", "5", "--metadata", json.dumps({"copy_tasks_docs": 5}), "--output_path", str(tmp_path / "out")],
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    results = read_results(tmp_path / "out")[0]["results"]
    assert [results[t]["exact_match,none"] for t in ("random_copy_20", "random_copy_100", "random_copy_tf_20",
                                                     "lookup_prefix_tf_1000")] == [1.0, 0.0, 1.0, 1.0]
