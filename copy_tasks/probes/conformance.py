"""The conformance battery: styles of answering, and the verdict each scoring rule gives them.

A verdict must be a function of the answer's text: not of how a model ends its answer (EOS,
an end-of-turn token, one newline or two) nor of how it splits the answer into tokens. The
scripted model (`copy_tasks.models.scripted_lm`, `--model scripted`) answers every doc of every
family in one of the styles below; the test suite runs each style through lm-eval on every
family and variant and checks the verdicts stated here, under our rule (`exact_match`) and the
authors' (`authors_exact_match`, generation only), which the README's scoring section prints
(`verdict_table`).

A style turns the correct answer (the doc's continuation: what the model should write after
the prompt) into the tokens a model would write, given the tokenizer's canonical segmentation
and the prompt's last line (the answer's given start, `copy_tasks.probes.chat`). Under a chat
template (`--apply_chat_template`) the model writes them after the assistant's prefill, and the
verdicts are the same.
`EOS` and `END_OF_TURN` are special tokens: never text, and a backend drops them from the
generated text (EOS also ends the generation).

    >>> split = lambda text: text.split(" ")          # a toy segmentation
    >>> STYLES["blank_line"].write(" 6093237777", split, "Ann:")
    ['', '6093237777', '\\n\\n', EOS]
    >>> STYLES["first_wrong"].write(" 6093237777", split, "Ann:")
    ['', '7093237777', EOS]
    >>> STYLES["last_missing"].write(" Denver.", split, ""), STYLES["char_tokens"].write(" ab", split, "")
    (['', 'Denve.', EOS], [' ', 'a', 'b', EOS])
    >>> STYLES["restated_start"].write(" 6093237777", split, "Ann:")
    ['Ann:', '', '6093237777', END_OF_TURN, EOS]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from copy_tasks.probes.chat import given_start
from copy_tasks.probes.families import FAMILIES, family_named


@dataclass(frozen=True)
class SpecialToken:
    """A token that is not text (EOS, end of turn)."""

    name: str

    def __repr__(self) -> str:
        return self.name


EOS = SpecialToken("EOS")
END_OF_TURN = SpecialToken("END_OF_TURN")
Token = str | SpecialToken
Tokenize = Callable[[str], list[str]]
Write = Callable[[str, Tokenize, str], list[Token]]  # (answer, tokenize, given start) -> tokens



def scoring_groups() -> dict[str, tuple[str, ...]]:
    """{scoring group: its families}, from the families' declarations (`Family.scoring_group`),
    in the family table's order."""
    groups: dict[str, list[str]] = {}
    for family in FAMILIES.values():
        groups.setdefault(family.scoring_group, []).append(family.name)
    return {group: tuple(names) for group, names in groups.items()}


def _change_first_symbol(text: str) -> str:
    """The first letter or digit replaced by the next one (9 -> 0, z -> a)."""
    for i, char in enumerate(text):
        if char.isdigit():
            return text[:i] + str((int(char) + 1) % 10) + text[i + 1 :]
        if char.isascii() and char.isalpha():
            base = ord("a") if char.islower() else ord("A")
            return text[:i] + chr(base + (ord(char) - base + 1) % 26) + text[i + 1 :]
    raise ValueError(f"no letter or digit in {text!r}")


def _drop_last_symbol(text: str) -> str:
    """The text without its last letter or digit."""
    for i in range(len(text) - 1, -1, -1):
        if text[i].isalnum():
            return text[:i] + text[i + 1 :]
    raise ValueError(f"no letter or digit in {text!r}")


@dataclass(frozen=True)
class Style:
    """How a model writes the answer, and the verdicts that should follow.

    `generation` is the expected generation verdict under our rule for every family, except
    those whose scoring group (`Family.scoring_group`) `generation_except` names; `authors`
    and `authors_except` the same under the authors' rule (by default, as ours);
    `teacher_forced` the expected teacher-forced verdict (every family; teacher forcing has
    only our rule).
    """

    name: str
    writes: str  # what the model writes, for the README
    write: Write
    generation: bool
    teacher_forced: bool
    generation_except: Mapping[str, bool] = field(default_factory=dict)
    authors: bool | None = None  # None: as `generation`
    authors_except: Mapping[str, bool] | None = None  # None: as `generation_except`
    why: str = ""

    def expected(self, family: str, teacher_forced: bool, authors: bool = False) -> bool:
        if teacher_forced:
            return self.teacher_forced
        group = family_named(family).scoring_group
        if authors:
            default = self.generation if self.authors is None else self.authors
            return (self.generation_except if self.authors_except is None else self.authors_except).get(group, default)
        return self.generation_except.get(group, self.generation)


def _after(text: str) -> Write:
    return lambda answer, tokenize, start: [*tokenize(answer), *tokenize(text), EOS]


def _except(verdict: bool, *groups: str) -> dict[str, bool]:
    return dict.fromkeys(groups, verdict)


STYLES: dict[str, Style] = {
    style.name: style
    for style in (
        Style("eos", "the answer, then EOS", lambda answer, tokenize, start: [*tokenize(answer), EOS], True, True),
        Style("newline", "the answer, `\\n`, EOS", _after("\n"), True, True),
        Style("blank_line", "the answer, `\\n\\n`, EOS", _after("\n\n"), True, True),
        Style("end_of_turn", "the answer, an end-of-turn token, EOS",
              lambda answer, tokenize, start: [*tokenize(answer), END_OF_TURN, EOS], True, True),
        Style("char_tokens", "the answer one character per token, EOS",
              lambda answer, tokenize, start: [*answer, EOS], True, False,
              why="teacher forcing asks whether each of the tokenizer's own tokens is the argmax"),
        Style("next_line_text", "the answer, `\\n`, more text", _after("\nmore text"), True, True,
              authors_except=_except(False, "copies", "SQuAD"),
              why="the authors read a copy or a SQuAD answer up to a blank line, so the next line is part of "
                  "their answer; the phone book and the lookups stop at the newline"),
        Style("blank_line_text", "the answer, `\\n\\n`, more text", _after("\n\nmore text"), True, True),
        Style("run_on", "the answer, then ` and so on` on the same line", _after(" and so on"), True, True,
              generation_except=_except(False, "SQuAD"), authors=False, authors_except=_except(True, "lookups"),
              why="our rule reads the answer at the start (a copy's first words, the number, a lookup's first "
                  "k letters) whatever follows, but a SQuAD answer has no length to read, so it is the whole "
                  "line; the authors' rule reads the whole line, except for a lookup's first k letters; "
                  "teacher forcing scores the answer, not what follows"),
        Style("trailing_space", "the answer, a space, EOS", _after(" "), True, True),
        Style("no_leading_space", "the answer without its leading space, EOS",
              lambda answer, tokenize, start: [*tokenize(answer.lstrip()), EOS], True, False,
              why="teacher forcing scores the exact continuation, leading space included"),
        Style("first_wrong", "the answer with its first letter or digit changed, EOS",
              lambda answer, tokenize, start: [*tokenize(_change_first_symbol(answer)), EOS], False, False),
        Style("last_missing", "the answer without its last letter or digit, EOS",
              lambda answer, tokenize, start: [*tokenize(_drop_last_symbol(answer)), EOS], False, False),
        Style("restated_start", "the prompt's last line again, the answer, an end-of-turn token, EOS",
              lambda answer, tokenize, start: [*tokenize(start), *tokenize(answer), END_OF_TURN, EOS], True, False,
              authors=False,
              why="a chat model whose turn starts afresh restates the answer's given start (`Name:`, a copy's "
                  "first word); our rule also reads the answer after that restatement, the authors' reads the "
                  "answer as written, and teacher forcing scores the continuation right after the prompt"),
    )
}


def spaced_by_ideographic_space(answer: str) -> str:
    """A lookup's letters `' r u j z'` as `' r\\u3000u\\u3000j\\u3000z'`.

    >>> spaced_by_ideographic_space(" r u j z")
    ' r\u3000u\u3000j\u3000z'
    """
    return answer[:1] + answer[1:].replace(" ", "\u3000")


FULL_WIDTH_DIGITS = str.maketrans("0123456789", "".join(chr(0xFF10 + digit) for digit in range(10)))

# Answers in multi-byte characters, for a model whose tokenizer writes them byte by byte (byte
# fallback: `models.scripted_hf`): task -> how a question's right continuation is written. Each
# must get the verdict of the finished text whatever the batch (`harness.answer_stops` stopped a
# row after the first byte of a character). All right but the full-width digits, which are not
# the number's digits.
MULTIBYTE_WRITINGS: dict[str, Callable[[str], str]] = {
    "mqar_8": lambda answer: answer + "\n",  # in Zoology's format the value is a Hangul syllable
    "lookup_suffix_20": spaced_by_ideographic_space,
    "lookup_prefix_20": spaced_by_ideographic_space,
    "random_copy_10": lambda answer: answer + "\n\u3000",
    "phonebook_copy_10": lambda answer: answer + "\u3000",
    "passkey_recall_100": lambda answer: answer + "\u00a0more",
    "flip_flop_16": lambda answer: answer + "\u3000\n",
    "phonebook_query_first_10": lambda answer: answer.translate(FULL_WIDTH_DIGITS) + "\n",
    "dup_ngram_copy_2": lambda answer: answer + "\u00a0\n",
}
MULTIBYTE_OPTIONS = {"mqar": (("fmt", "zoology"),)}  # the family options their docs are drawn with


def style_named(name: str) -> Style:
    if name not in STYLES:
        raise ValueError(f"style={name!r}: allowed are {', '.join(STYLES)}")
    return STYLES[name]


def verdict_table() -> str:
    """The expected verdicts as a Markdown table, then why they differ where they do (printed
    in the README). A generation cell reads "ours / the authors'" ("—" where the family has no
    authors' rule).

    >>> print(verdict_table().splitlines()[2][:88])
    | `eos` | the answer, then EOS | right / right | right / — | right / right | right / — |
    """
    mark = {True: "right", False: "wrong"}
    groups = scoring_groups()
    header = ["style", "the model writes", *(f"{group} (gen.)" for group in groups), "teacher-forced"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def authors(style: Style, family: str) -> str:  # "—": the family has no authors' rule (`mqar`)
        return mark[style.expected(family, False, authors=True)] if FAMILIES[family].authors_metrics else "—"

    for style in STYLES.values():
        cells = [f"{mark[style.expected(group[0], False)]} / {authors(style, group[0])}" for group in groups.values()]
        lines.append(f"| `{style.name}` | {style.writes} | " + " | ".join(cells) + f" | {mark[style.teacher_forced]} |")
    lines.append("")
    lines += [f"- `{style.name}`: {style.why}." for style in STYLES.values() if style.why]
    return "\n".join(lines)


def prompt_key(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def chat_key(user: str, prefill: str) -> str:
    """The key of a doc put as a chat: its user's turn and the assistant's prefill."""
    return prompt_key(json.dumps([user, prefill]))


def write_answer_key(docs: Iterable[dict], path: Path) -> Path:
    """Write {key: [the continuation, the prompt's given start]} of every question of the docs
    (`Family.request_docs`), keyed by the sha256 of its prompt and by the `chat_key` of its chat
    form: what the scripted model answers."""
    key = {}
    for doc in docs:
        family = family_named(doc["family"])
        for question in family.request_docs(doc):
            answer = [question["continuation"], given_start(question["prompt"])]
            chat = family.chat_form(question)
            key[prompt_key(question["prompt"])] = key[chat_key(chat.user, chat.prefill)] = answer
    path.write_text(json.dumps(key), encoding="utf-8")
    return path


def read_answer_key(path: str | Path) -> dict[str, list[str]]:
    return json.loads(Path(path).read_text(encoding="utf-8"))
