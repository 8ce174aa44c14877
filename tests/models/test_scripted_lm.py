"""The conformance battery's scripted model (`copy_tasks.models.scripted_lm`), on a hand-made
answer key and a hand-made tokenizer whose segmentation is known (" 1234" is " 12", "34"): what
each style generates (special tokens dropped, EOS ending it, the budget counting tokens, the text
cut at stops), the loglikelihood of continuations against the tokens it writes (1 - EPSILON per
agreeing token, EPSILON / vocabulary for the first that disagrees, 1 / vocabulary after), how it
finds a doc put as a chat, and the prompts, styles and texts it refuses."""

from __future__ import annotations

import json
import math

import pytest

from copy_tasks.experiments.tiny_models import CHAT_TEMPLATE
from copy_tasks.harness.lm_eval_internals import new_request
from copy_tasks.models.scripted_lm import ScriptedLM
from copy_tasks.probes.conformance import STYLES, chat_key, prompt_key

PROMPT = "Ann: 1234\nBo: 5678\n\nAnn:"
ANSWER, START = " 1234", "Ann:"  # the doc's continuation and the prompt's given start
CHAT_USER = "Give the number.\n\nAnn: 1234\nBo: 5678"  # the doc's chat form: the user's turn, then START
UNPREFILLED_USER = "Say the number."  # a chat form without a prefill (a one-line prompt has none)
CHARACTERS = " \n:0123456789ABNZabcdefghijklmnopqrstuvwxyz"
MERGES = [("1", "2"), ("3", "4"), (" ", "12"), ("\n", "\n")]
VOCABULARY = len(CHARACTERS) + len(MERGES) + 1  # and EOS
AGREES = math.log(0.99)
FIRST_DISAGREES = math.log(0.01 / VOCABULARY)
LOST = math.log(1 / VOCABULARY)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[str, str]:
    """(answer key, tokenizer folder): the key holds the doc by its prompt and by the chat keys
    of its chat forms; the tokenizer is a BPE over single characters with four merges, and a
    ChatML template."""
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("scripted")
    vocabulary = {character: index for index, character in enumerate(CHARACTERS)}
    for first, second in MERGES:
        vocabulary[first + second] = len(vocabulary)
    vocabulary["<|endoftext|>"] = len(vocabulary)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.BPE(vocab=vocabulary, merges=MERGES)),
                                        eos_token="<|endoftext|>", chat_template=CHAT_TEMPLATE)
    tokenizer.save_pretrained(folder / "tokenizer")
    key = {prompt_key(PROMPT): [ANSWER, START], chat_key(CHAT_USER, START): [ANSWER, START],
           chat_key(UNPREFILLED_USER, ""): [" 5678", ""]}
    (folder / "answers.json").write_text(json.dumps(key))
    return str(folder / "answers.json"), str(folder / "tokenizer")


def scripted(files, style: str) -> ScriptedLM:
    """The model as lm-eval builds it from `--model_args`, with the settings it ignores."""
    answers, tokenizer = files
    return ScriptedLM.create_from_arg_string(f"style={style},answers={answers},tokenizer={tokenizer}",
                                             {"batch_size": 1, "max_batch_size": None, "device": "cpu"})


def generate(model: ScriptedLM, until: list[str], max_gen_toks: int, prompt: str = PROMPT) -> str:
    request = new_request("generate_until", {}, (prompt, {"until": until, "max_gen_toks": max_gen_toks}))
    return model.generate_until([request])[0]


def loglikelihood(model: ScriptedLM, continuation: str) -> tuple[float, bool]:
    return model.loglikelihood([new_request("loglikelihood", {}, (PROMPT, continuation))])[0]


def test_the_tokenizer_segments_as_the_tests_assume(files):
    model = scripted(files, "eos")
    assert model.tokenize(" 1234\n\n") == [" 12", "34", "\n\n"]
    assert model.tokenize("Ann:") == ["A", "n", "n", ":"]
    assert len(model.tokenizer) == VOCABULARY


GENERATIONS = {
    "eos": " 1234",
    "newline": " 1234\n",
    "blank_line": " 1234\n\n",
    "end_of_turn": " 1234",  # the end-of-turn token is not text
    "char_tokens": " 1234",
    "next_line_text": " 1234\nmore text",
    "blank_line_text": " 1234\n\nmore text",
    "run_on": " 1234 and so on",
    "trailing_space": " 1234 ",
    "no_leading_space": "1234",
    "first_wrong": " 2234",
    "last_missing": " 123",
    "restated_start": "Ann: 1234",
}


def test_every_style_has_a_worked_generation():
    assert set(GENERATIONS) == set(STYLES)


@pytest.mark.parametrize("style", sorted(GENERATIONS))
def test_each_style_writes_the_answer_as_it_says(files, style):
    assert generate(scripted(files, style), until=[], max_gen_toks=50) == GENERATIONS[style]


@pytest.mark.parametrize("style, until, expected", [
    ("blank_line", ["\n"], " 1234"),
    ("next_line_text", ["\n\n"], " 1234\nmore text"),
    ("blank_line_text", ["\n\n"], " 1234"),
    ("run_on", [" and", "so"], " 1234"),
    ("restated_start", [":"], "Ann"),
])
def test_the_text_is_cut_before_its_first_stop_sequence(files, style, until, expected):
    assert generate(scripted(files, style), until=until, max_gen_toks=50) == expected


@pytest.mark.parametrize("style, budget, expected", [
    ("eos", 1, " 12"),  # one canonical token
    ("char_tokens", 3, " 12"),  # three one-character tokens
    ("next_line_text", 5, " 1234\nmo"),  # " 12", "34", "\n", "m", "o"
    ("end_of_turn", 3, " 1234"),  # the end-of-turn token takes the third place
    ("restated_start", 4, "Ann:"),
])
def test_the_budget_counts_tokens(files, style, budget, expected):
    assert generate(scripted(files, style), until=[], max_gen_toks=budget) == expected


@pytest.mark.parametrize("style, continuation, expected", [
    ("eos", " 1234", (2 * AGREES, True)),
    ("eos", " 12", (AGREES, True)),  # the first of the tokens it writes
    ("eos", "", (0.0, True)),
    ("eos", " 1234\n", (2 * AGREES + FIRST_DISAGREES, False)),  # it writes EOS, not "\n"
    ("newline", " 1234\n", (3 * AGREES, True)),
    ("last_missing", " 1234", (AGREES + FIRST_DISAGREES, False)),  # " 12", then "3" where "34" is asked
    ("char_tokens", " 1234", (FIRST_DISAGREES + LOST, False)),  # " " is not the canonical " 12"
    ("restated_start", " 1234", (FIRST_DISAGREES + LOST, False)),  # it writes "A" first
    ("first_wrong", " 12", (FIRST_DISAGREES, False)),  # it writes " ", "2", ...
])
def test_loglikelihood_compares_canonical_tokens_with_the_tokens_it_writes(files, style, continuation, expected):
    logprob, greedy = loglikelihood(scripted(files, style), continuation)
    assert (logprob, greedy) == (pytest.approx(expected[0]), expected[1])


def test_a_chat_with_a_prefill_is_found_by_its_turns(files):
    """Rendered by the tokenizer's template with the assistant's turn left open; the rendered
    text is not in the key, the chat key of its turns is."""
    model = scripted(files, "eos")
    rendered = model.apply_chat_template([{"role": "user", "content": CHAT_USER},
                                          {"role": "assistant", "content": START}], add_generation_prompt=False)
    assert rendered == f"<|im_start|>user\n{CHAT_USER}<|im_end|>\n<|im_start|>assistant\n{START}"
    assert generate(model, until=["\n"], max_gen_toks=50, prompt=rendered) == ANSWER


def test_a_chat_without_a_prefill_opens_the_assistants_turn(files):
    model = scripted(files, "newline")
    rendered = model.apply_chat_template([{"role": "user", "content": UNPREFILLED_USER}])
    assert rendered == f"<|im_start|>user\n{UNPREFILLED_USER}<|im_end|>\n<|im_start|>assistant\n"
    assert generate(model, until=[], max_gen_toks=50, prompt=rendered) == " 5678\n"


def test_it_names_its_tokenizer_and_template_as_lm_eval_asks(files):
    model = scripted(files, "eos")
    assert model.tokenizer_name == files[1].replace("/", "__")
    assert model.chat_template() == CHAT_TEMPLATE


def test_a_prompt_outside_the_answer_key_is_refused_with_its_start(files):
    prompt = "Zed: " + "9" * 80
    with pytest.raises(KeyError, match=r"the answer key has no doc with the prompt 'Zed: 9{55}'\.\.\."):
        generate(scripted(files, "eos"), until=[], max_gen_toks=5, prompt=prompt)


def test_an_unknown_style_is_refused_with_the_allowed_ones(files):
    with pytest.raises(ValueError, match="style='loud': allowed are eos, newline, "):
        scripted(files, "loud")


def test_a_text_the_tokenizer_cannot_cover_is_refused(files):
    """"!" is not in the vocabulary: the tokenizer drops it, and its pieces no longer spell the text."""
    with pytest.raises(ValueError, match=r"the tokenizer's offsets do not cover 'a!b'"):
        scripted(files, "eos").tokenize("a!b")
