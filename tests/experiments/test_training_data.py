"""What `copy-tasks train` trains on (`copy_tasks.experiments.training_data`): one stream per task
in the authors' formats, apart from every evaluation seed's docs, the loss on the answers only,
rows packed as the authors pack."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.experiments.recipes import RECIPES
from copy_tasks.experiments.training_data import (
    UNKNOWN,
    Example,
    char_tokenizer,
    encode,
    packed_batch,
    packed_row,
    single_batch,
    tokenizer_for,
    training_example,
)
from copy_tasks.experiments.training_tasks import PAPER_TASKS, TRAINING_TASKS
from copy_tasks.probes.task_docs import generate_docs

QUICK = RECIPES["quick"]


@pytest.mark.parametrize("task", PAPER_TASKS)
def test_each_task_streams_the_authors_format_deterministically(task):
    stream = [training_example(QUICK, task, seed=0, index=index) for index in range(100)]
    assert stream == [training_example(QUICK, task, seed=0, index=index) for index in range(100)]
    assert stream != [training_example(QUICK, task, seed=1, index=index) for index in range(100)]
    low, high = TRAINING_TASKS[task].trained_lengths(QUICK)
    for example in stream:
        assert example.task == task and low <= example.length <= high
        assert example.text == example.prompt + example.answer + "."
        string = example.prompt[1:].split("|")[1 if task == "lookup_prefix" else 0]
        assert example.prompt.startswith("$") and len(string) == example.length and string.isalpha()
        if task == "copy":
            assert example.prompt == f"${example.answer}|"
        else:
            assert len(example.answer) == 4 and example.answer in string


@settings(max_examples=10, deadline=None)
@given(seed=st.one_of(st.just(0), st.just(1), st.integers(0, 2**63)))
def test_no_evaluation_seed_draws_a_training_doc(seed):
    """The training stream is not an evaluation stream: evaluation docs 0 to 299 of every
    (family, length) the first 200 examples of each task use share no prompt with them at 8
    letters or more, whatever the evaluation seed (the recipe's seeds included). Shorter strings
    may coincide by chance alone (26^5 is 12 million strings: hypothesis found one at length 5,
    seed 3768), but never as a shared stream would, doc i for doc i."""
    for task, family in ((name, declared.family) for name, declared in TRAINING_TASKS.items()):
        stream = [training_example(QUICK, task, seed=0, index=index) for index in range(200)]
        options = tuple(TRAINING_TASKS[task].options.items())
        first = [example.scored[0][0] for example in stream]  # a doc's prompt: its first question's
        for length in {example.length for example in stream}:
            evaluation = [doc["prompt"] for doc in generate_docs(family, length, seed, 300, options)]
            if length >= 8:
                assert not set(evaluation) & set(first), (task, length)
            assert not [index for index, example in enumerate(stream[:300])
                        if example.length == length and first[index] == evaluation[index]], (task, length)


def test_the_mqar_stream_is_zoologys_format_every_key_asked_and_every_value_scored():
    from copy_tasks.probes.families.mqar import ZOOLOGY_KEYS, ZOOLOGY_VALUES

    stream = [training_example(QUICK, "mqar", seed=0, index=index) for index in range(50)]
    assert stream == [training_example(QUICK, "mqar", seed=0, index=index) for index in range(50)]
    assert stream != [training_example(QUICK, "mqar", seed=1, index=index) for index in range(50)]
    tokenizer = tokenizer_for("mqar")
    low, high = QUICK.mqar_pairs
    for example in stream:
        assert low <= example.length <= high and len(example.questions) == example.length  # every key once
        pairs = example.prompt[:2 * example.length]
        assert set(pairs[0::2]) <= set(ZOOLOGY_KEYS) and set(pairs[1::2]) <= set(ZOOLOGY_VALUES)
        assert sorted(prompt[-1] for prompt, _ in example.questions) == sorted(pairs[0::2])
        for (prompt, _), (following, _) in zip(example.questions, example.questions[1:]):
            assert following == prompt + following[-1]  # the next query's key, no value written (Zoology's)
        assert (example.prompt, example.answer) == example.questions[-1]
        assert example.text == example.prompt + example.answer  # no end mark
        ids, labels = encode(tokenizer, example)
        assert UNKNOWN not in tokenizer.convert_ids_to_tokens(ids)  # every symbol is a token of its own
        # each query's value is the label after its key (the key's position predicts it), nothing else
        values = [tokenizer.convert_tokens_to_ids(answer) for _, answer in example.questions]
        pairs_end = 2 * example.length
        assert len(ids) == 3 * example.length + 1  # the pairs, the keys asked, the last value
        assert labels == [-100] * (pairs_end + 1) + values


def test_an_mqar_example_labels_its_values_and_nothing_after_the_last_hand_worked():
    """The loss on an end mark after the last value kept every attention model at chance
    (docs/training.md): two pairs, both keys asked (Zoology's: no value written after a query),
    and the labels are the two values alone, each after its key."""
    tokenizer = tokenizer_for("mqar")
    key_a, value_a, key_b, value_b = "\u4e00", "\uac00", "\u4e01", "\uac01"
    pairs = key_a + value_a + key_b + value_b
    questions = ((pairs + key_b, value_b), (pairs + key_b + key_a, value_a))
    example = Example("mqar", 2, *questions[-1], pairs + key_b + key_a + value_a, questions)
    ids, labels = encode(tokenizer, example)
    assert [tokenizer.decode([label]) if label != -100 else None for label in labels] == \
        [None, None, None, None, None, value_b, value_a]
    drawn = training_example(QUICK, "mqar", seed=0, index=0)
    assert not drawn.text.endswith(".") and not TRAINING_TASKS["mqar"].end_mark


def test_the_loss_covers_the_answer_and_its_end_only():
    tokenizer = char_tokenizer()
    example = training_example(QUICK, "lookup_suffix", 0, 0)
    ids, mask, labels = single_batch(tokenizer, [example])
    scored = [token for token in labels[0].tolist() if token != -100]
    assert tokenizer.decode(scored) == example.answer + "."
    assert mask.sum() == len(tokenizer(example.text)["input_ids"])


def test_packed_rows_are_full_and_score_only_the_whole_examples_hand_worked():
    tokenizer = char_tokenizer()
    copies = [Example("copy", 3, "$abc|", "abc", "$abc|abc."), Example("copy", 2, "$xy|", "xy", "$xy|xy.")] * 3
    ids, labels, whole = packed_row(tokenizer, iter(copies), 20)
    # "$abc|abc." (9) + "$xy|xy." (7) = 16 tokens whole; "$abc" of the third cut, not scored
    assert whole == 2 and tokenizer.decode(ids) == "$abc|abc.$xy|xy.$abc"
    assert tokenizer.decode([t for t in labels if t != -100]) == "abc.xy."
    ids, mask, labels, whole = packed_batch(tokenizer, iter(copies * 2), rows=2, context=20)
    assert ids.shape == (2, 20) and bool(mask.all()) and whole == 4


@pytest.mark.parametrize("task", list(TRAINING_TASKS))
def test_the_labels_are_the_answers_tokens_as_their_prompts_tokenize(task):
    """`encode` finds each answer's tokens from one tokenization of the whole text (offsets): the
    same as tokenizing each prompt and answer on its own, which is quadratic in the questions."""
    tokenizer = tokenizer_for(task)
    for index in range(40):
        example = training_example(QUICK, task, seed=3, index=index)
        ids, labels = encode(tokenizer, example)

        def length(text: str) -> int:
            return len(tokenizer(text, add_special_tokens=False)["input_ids"])

        expected = [-100] * len(ids)
        for prompt, answer in example.scored:
            answer_ids = tokenizer(prompt + answer, add_special_tokens=False)["input_ids"][length(prompt):]
            expected[length(prompt):length(prompt) + len(answer_ids)] = answer_ids
        if TRAINING_TASKS[task].end_mark:
            expected[-1] = ids[-1]  # the END
        assert labels == expected, (task, index)
