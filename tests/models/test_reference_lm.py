"""The reference models as lm-eval models (`copy_tasks.models.reference_lm`): what `ngram_copier`
and `bounded_state` return for hand-made `loglikelihood` and `generate_until` requests (worked
out by hand from the copier's longest match or n-gram lookup, and the bounded reader's stored
letters), how their model args are read (as lm-eval passes them, with the batch and device
settings they ignore), the args they refuse, and the rolling loglikelihood they do not offer."""

from __future__ import annotations

import math

import pytest

from copy_tasks.harness.lm_eval_internals import new_request
from copy_tasks.models.reference_lm import BoundedStateLM, NgramCopierLM
from copy_tasks.probes.options import UserError

AGREES = math.log(0.99)  # answers.score_against: 1 - EPSILON per agreeing character
FIRST_DISAGREES = math.log(0.01 / 255)
LOST = math.log(1 / 256)

# The longest match of the prompt's end "x=" is at its start: the copier continues with what
# followed it, "42; y=7; x", then "=" after the whole prompt read again, and so on.
ASSIGNMENTS = "x=42; y=7; x="
# Words: the last word "q" first follows nothing ("q r"), while the longest match "p q" is
# followed by "s".
WORDS = "q r p q s p q"
# A copy prompt the bounded reader stores in 52 bits: the letters after the first, "b c".
COPY = "a b c\n\na b c\n\na"


def loglikelihoods(model, *pairs: tuple[str, str]) -> list[tuple[float, bool]]:
    requests = [new_request("loglikelihood", {}, pair) for pair in pairs]
    return model.loglikelihood(requests)


def generations(model, *requests: tuple[str, dict]) -> list[str]:
    return model.generate_until([new_request("generate_until", {}, request)
                                 for request in requests])


def test_copier_generations_stop_before_the_first_stop_sequence_or_at_the_budget():
    model = NgramCopierLM()
    assert generations(model, (ASSIGNMENTS, {"until": [";"]}), (ASSIGNMENTS, {"until": [], "max_gen_toks": 3}),
                       (ASSIGNMENTS, {"until": ["7", " "]})) == ["42", "42;", "42;"]


def test_a_single_stop_string_is_one_stop_sequence():
    assert generations(NgramCopierLM(), (ASSIGNMENTS, {"until": "; y"})) == ["42"]


def test_without_stop_sequences_the_copier_writes_256_units():
    """lm-eval's default budget, `max_gen_toks` 256: the copy repeats "42; y=7; x=" (11 chars)."""
    [text] = generations(NgramCopierLM(), (ASSIGNMENTS, {"until": None}))
    assert text == ("42; y=7; x=" * 24)[:256]


def test_copier_loglikelihoods_follow_its_copy():
    results = loglikelihoods(NgramCopierLM(), (ASSIGNMENTS, "42"), (ASSIGNMENTS, "42; y=7"), (ASSIGNMENTS, "43"),
                             (ASSIGNMENTS, "7; y"), (ASSIGNMENTS, ""))
    expected = [(2 * AGREES, True), (7 * AGREES, True), (AGREES + FIRST_DISAGREES, False),
                (FIRST_DISAGREES + 3 * LOST, False), (0.0, True)]
    assert [greedy for _, greedy in results] == [greedy for _, greedy in expected]
    assert [logprob for logprob, _ in results] == pytest.approx([logprob for logprob, _ in expected])


def test_answers_come_back_in_the_order_of_the_requests_whatever_their_prompts():
    model = NgramCopierLM()
    assert generations(model, ("ab1 ab", {"until": [" "]}), (ASSIGNMENTS, {"until": [";"]}),
                       ("ab1 ab", {"until": [" "]})) == ["1", "42", "1"]


@pytest.mark.parametrize("model_args, expected", [
    ("unit=word,n=1", " r p q r"),  # "q" -> " r", "r" -> " p", "p" -> " q", ...
    ("unit=word", " s p q s"),  # the longest match "p q" -> " s", then the copy goes on
    ("unit=word,n=none", " s p q s"),
    ("unit=char", " s p"),  # the budget counts characters
])
def test_model_args_choose_the_unit_and_the_lookup(model_args, expected):
    """As lm-eval builds the model: from `--model_args`, with its batch and device settings,
    which an analytic model ignores. The budget counts units."""
    model = NgramCopierLM.create_from_arg_string(model_args, {"batch_size": 8, "max_batch_size": None,
                                                              "device": "cpu"})
    assert generations(model, (WORDS, {"until": [], "max_gen_toks": 4})) == [expected]


@pytest.mark.parametrize("n, expected", [("", None), ("None", None), (None, None), ("3", 3), (5, 5)])
def test_n_reads_an_empty_or_none_value_as_the_longest_match(n, expected):
    assert NgramCopierLM(n=n).n == expected


@pytest.mark.parametrize("args, message", [
    ({"unit": "token"}, "unit='token'"),
    ({"n": 0}, "n=0: must be at least 1"),
    ({"unit": "word", "n": "-2"}, "n=-2"),
])
def test_the_copier_refuses_bad_args_before_any_request(args, message):
    with pytest.raises(UserError, match=message):
        NgramCopierLM(**args)


def test_bounded_state_generates_its_stored_copy_cut_at_the_stops():
    model = BoundedStateLM.create_from_arg_string("bits=52", {"batch_size": 1, "device": "cpu"})
    assert generations(model, (COPY, {"until": ["\n"]}), (COPY, {"until": [" c"]})) == [" b c", " b"]


def test_bounded_state_loglikelihoods_follow_its_stored_copy():
    results = loglikelihoods(BoundedStateLM(bits=52), (COPY, " b c"), (COPY, " b"), (COPY, " b d"),
                             (COPY, " b c d"))
    expected = [(4 * AGREES, True), (2 * AGREES, True), (3 * AGREES + FIRST_DISAGREES, False),
                (4 * AGREES + FIRST_DISAGREES + LOST, False)]  # its answer ends after " b c"
    assert [greedy for _, greedy in results] == [greedy for _, greedy in expected]
    assert [logprob for logprob, _ in results] == pytest.approx([logprob for logprob, _ in expected])


# The name first, then a book of three entries, its two examples and the question.
NAME_FIRST = ("Look up Cy Hu.\n\nAnn Lee: 6093237777\nBo Ray: 7000000001\nCy Hu: 8123456789\n\n"
              "Ann Lee: 6093237777\nBo Ray: 7000000001\n\nCy Hu:")


def test_bounded_state_answers_a_phone_book_asked_first_from_the_one_entry_it_kept():
    """128 bits hold the name given first and then its entry (103.26 bits), not the first three
    entries: asked last, Cy Hu's number is a guess."""
    model = BoundedStateLM(bits=128)
    assert generations(model, (NAME_FIRST, {"until": ["\n"]})) == [" 8123456789"]
    assert loglikelihoods(model, (NAME_FIRST, " 8123456789"))[0] == (pytest.approx(11 * AGREES), True)
    name_last = NAME_FIRST.split("\n\n", 1)[1]
    assert generations(model, (name_last, {"until": ["\n"]})) != [" 8123456789"]
    assert loglikelihoods(model, (name_last, " 8123456789"))[0][1] is False


def test_bounded_state_records_its_readers_version_as_its_revision():
    assert BoundedStateLM().get_model_info() == {"model_revision": "v3"}


def test_bounded_state_defaults_to_256_bits():
    assert BoundedStateLM().bits == 256


@pytest.mark.parametrize("bits", [51, "40", 48, 50])
def test_bounded_state_refuses_fewer_bits_than_its_control_registers_take(bits):
    with pytest.raises(UserError, match=f"^--model bounded_state: bits={bits}: at least 52 bits"):
        BoundedStateLM(bits=bits)


@pytest.mark.parametrize("model, name, value", [(BoundedStateLM, "bits", "abc"), (BoundedStateLM, "bits", 276.5),
                                                (BoundedStateLM, "bits", True), (NgramCopierLM, "n", 2.5),
                                                (NgramCopierLM, "n", "two")])
def test_a_model_arg_that_is_not_an_integer_is_refused_not_rounded(model, name, value):
    """lm-eval hands `n=2.5` over as 2.5 (once read as 2), `bits=true` as True (once 1)."""
    with pytest.raises(UserError, match=f"{name}={value} is not an integer: give a whole number"):
        model(**{name: value})


def test_a_bad_model_arg_on_the_command_line_is_one_line_before_any_doc(capsys, monkeypatch):
    from copy_tasks.cli import main
    from copy_tasks.harness import registration

    monkeypatch.setitem(registration.COMMAND_LINE, "run", False)  # the run sets it: restored after
    with pytest.raises(SystemExit) as stop:
        main(["run", "--model", "bounded_state", "--model_args", "bits=48", "--tasks", "random_copy_10"])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in error
    assert error.splitlines()[-1] == ("copy-tasks: error: --model bounded_state: bits=48: at least 52 bits are "
                                      "needed, the most its control registers can take")


def test_bounded_state_writes_at_most_max_gen_toks_characters():
    # its answer to COPY is " b c": 2 characters of it, then the whole of it within 4 or 256
    assert generations(BoundedStateLM(bits=52), (COPY, {"until": [], "max_gen_toks": 2}),
                       (COPY, {"until": [], "max_gen_toks": 4}), (COPY, {"until": []})) == [" b", " b c", " b c"]


@pytest.mark.parametrize("model", [NgramCopierLM(), BoundedStateLM()], ids=["ngram_copier", "bounded_state"])
def test_rolling_loglikelihood_is_refused_with_the_reason(model):
    request = new_request("loglikelihood_rolling", {}, ("a whole text",))
    with pytest.raises(NotImplementedError, match="score continuations of a prompt, not whole texts"):
        model.loglikelihood_rolling([request])
