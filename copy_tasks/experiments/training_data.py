"""What the small models of `copy-tasks train` are trained on: one model per task, its examples
drawn by the family and in the format its declaration names (`copy_tasks.experiments.training_tasks`:
the authors' character formats, Zoology's for `mqar`), contexts packed with examples. Strings are
uniform over a-z, drawn by our own generators in a hash domain of their own (a
training stream is no evaluation seed's stream; strings of 5 letters can still coincide by
chance). The loss is on what the model must write and, where the task has an end mark
(`TrainingTask.end_mark`; not `mqar`), the `.` after it (`encode`). Rows are
single examples (`single_batch`) or `context` tokens packed with examples end to end, the last
cut where the row ends (unscored), as the authors pack (`packed_batch`).

A character tokenizer (`char_tokenizer`) is saved with every checkpoint, so `lm_eval --model hf
--model_args pretrained=<folder>` loads it as any model.

    >>> from copy_tasks.experiments.recipes import RECIPES
    >>> example = training_example(RECIPES["quick"], "copy", seed=0, index=0)
    >>> example.text == example.prompt + example.answer + "." and example.prompt.startswith("$")
    True
    >>> mqar = training_example(RECIPES["quick"], "mqar", seed=0, index=0)  # no end mark: the answers alone
    >>> mqar.text == mqar.prompt + mqar.answer
    True
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from copy_tasks.experiments.architectures import CONTEXT
from copy_tasks.experiments.recipes import Recipe
from copy_tasks.experiments.training_tasks import TRAINING_TASKS
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.seeding import doc_rng

TRAINING_DOMAIN = "copy-tasks-training"  # the stream's hash domain, apart from every evaluation seed's


PAD, EOS, UNKNOWN = "<pad>", "<eos>", "<unk>"


END = "."  # the authors' end of an answer


CHARACTERS = [chr(code) for code in range(32, 127)] + ["\n"]


SPACED_LETTERS = [" " + letter for letter in "abcdefghijklmnopqrstuvwxyz"]


@dataclass(frozen=True)
class Example:
    task: str
    length: int
    prompt: str
    answer: str  # what the model must write
    text: str  # prompt, answer and END where the task has an end mark
    # A doc of several questions (`mqar`): each question's prompt and answer, the last the
    # example's; every answer is scored. Empty: the one question (prompt, answer).
    questions: tuple[tuple[str, str], ...] = ()

    @property
    def scored(self) -> tuple[tuple[str, str], ...]:
        return self.questions or ((self.prompt, self.answer),)


def training_example(recipe: Recipe, task: str, seed: int, index: int, lengths: tuple[int, int] | None = None
                     ) -> Example:
    """Example `index` of the seed's stream of `task`: its length drawn from `lengths` (by default
    the task's training lengths; a curriculum's step gives its own) by a generator seeded by
    (task, seed, index), its doc from its family's own generator, both in the training domain."""
    declared = TRAINING_TASKS[task]
    family = FAMILIES[declared.family]
    chooser = doc_rng("training-stream", "2", 0, seed, index, domain=f"{TRAINING_DOMAIN}/{task}")
    low, high = lengths or declared.trained_lengths(recipe)
    length = int(chooser.integers(low, high + 1))
    rng = doc_rng(family.data_name, family.data_version, length, seed, index, domain=f"{TRAINING_DOMAIN}/{task}")
    doc = family.draw_doc(rng, length, **declared.options)
    questions = tuple((question["prompt"], question["continuation"]) for question in family.request_docs(doc))
    prompt, answer = questions[-1]
    end = END if declared.end_mark else ""
    return Example(task, length, prompt, answer, prompt + answer + end, questions if len(questions) > 1 else ())


def char_tokenizer(symbols: tuple[str, ...] = ()):
    """A character-level tokenizer over printable ASCII and newline, in which a space and the
    letter after it are one token (a `PreTrainedTokenizerFast`); the authors' formats have no
    spaces, so each of their characters is one token. `symbols`: more one-character tokens
    (Zoology's key and value symbols for the `mqar` models: `tokenizer_for`).

    >>> tokenizer = char_tokenizer()
    >>> tokenizer.convert_ids_to_tokens(tokenizer("$ab|q r\\n")["input_ids"])
    ['$', 'a', 'b', '|', 'q', ' r', '\\n']
    >>> len(tokenizer_for("mqar")) - len(tokenizer), tokenizer_for("mqar")("\u4e00\uac00")["input_ids"]
    (1024, [125, 637])
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocabulary = {token: index for index, token in enumerate([PAD, EOS, UNKNOWN, *CHARACTERS, *SPACED_LETTERS,
                                                              *symbols])}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token=UNKNOWN))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r" [a-z]|[\s\S]"), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token=PAD, eos_token=EOS, bos_token=EOS,
                                   unk_token=UNKNOWN, model_max_length=CONTEXT)


def tokenizer_for(task: str):
    """The tokenizer of a task's models: `char_tokenizer` with the task's symbols (Zoology's for `mqar`)."""
    return char_tokenizer(TRAINING_TASKS[task].symbols)


def encode(tokenizer, example: Example) -> tuple[list[int], list[int]]:
    """Token ids of the example, and labels: the ids of every answer and of the END after the
    last where the example has one (`training_example`), -100 elsewhere (prompts are not scored).
    An answer that the text does not write after its prompt (in Zoology's format a query's value
    is never written; the next query's key follows) is labelled where it would stand: the
    position after its prompt predicts it.

    >>> ids, labels = encode(char_tokenizer(), Example("copy", 2, "$ab|", "ab", "$ab|ab."))
    >>> len(ids), sum(label != -100 for label in labels)
    (7, 3)
    >>> two = Example("x", 2, "a1b", "2", "a1b2.", questions=(("a", "1"), ("a1b", "2")))
    >>> ids, labels = encode(char_tokenizer(), two)
    >>> [label == token for label, token in zip(labels, ids)]  # a, 1, b, 2, .
    [False, True, False, True, True]
    >>> zoology = Example("x", 2, "a1b2ba", "1", "a1b2ba1", questions=(("a1b2b", "2"), ("a1b2ba", "1")))
    >>> [char_tokenizer().decode([label]) if label != -100 else "-" for label in encode(char_tokenizer(), zoology)[1]]
    ['-', '-', '-', '-', '-', '2', '1']
    """
    encoded = tokenizer(example.text, add_special_tokens=False, return_offsets_mapping=True)
    ids, token_starts = encoded["input_ids"], [start for start, _ in encoded["offset_mapping"]]

    def tokens_before(characters: int) -> int:  # prompts and answers end on token boundaries
        return bisect.bisect_left(token_starts, characters)

    labels = [-100] * len(ids)
    for prompt, answer in example.scored:
        start, end = tokens_before(len(prompt)), tokens_before(len(prompt) + len(answer))
        if example.text.startswith(prompt + answer):
            labels[start:end] = ids[start:end]
        else:  # an answer not written after its prompt (Zoology's queries): its tokens where it would stand
            answer_ids = tokenizer(answer, add_special_tokens=False)["input_ids"]
            labels[start:start + len(answer_ids)] = answer_ids
    labels[end:] = ids[end:]  # the END after the last answer, if any
    return ids, labels


def _tensors(tokenizer, rows: list[tuple[list[int], list[int]]]):
    import torch

    width = max(len(ids) for ids, _ in rows)
    ids = torch.full((len(rows), width), tokenizer.pad_token_id)
    labels = torch.full((len(rows), width), -100)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for row, (token_ids, token_labels) in enumerate(rows):
        ids[row, : len(token_ids)] = torch.tensor(token_ids)
        labels[row, : len(token_labels)] = torch.tensor(token_labels)
        mask[row, : len(token_ids)] = 1
    return ids, mask, labels


def single_batch(tokenizer, examples: list[Example]):
    """Right-padded input ids, attention mask and labels, one example a row."""
    return _tensors(tokenizer, [encode(tokenizer, example) for example in examples])


def packed_row(tokenizer, examples, context: int) -> tuple[list[int], list[int], int]:
    """One row of `context` tokens packed with examples from the iterator `examples`, end to
    end; the example that does not fit is cut at the row's end and not scored. Returns ids,
    labels and the number of whole examples.

    >>> stream = iter([Example("copy", 2, "$ab|", "ab", "$ab|ab.")] * 3)
    >>> ids, labels, whole = packed_row(char_tokenizer(), stream, 10)
    >>> len(ids), whole, sum(label != -100 for label in labels)
    (10, 1, 3)
    """
    ids, labels, whole = [], [], 0
    while len(ids) < context:
        example_ids, example_labels = encode(tokenizer, next(examples))
        room = context - len(ids)
        if len(example_ids) > room:
            ids += example_ids[:room]
            labels += [-100] * room
            break
        ids += example_ids
        labels += example_labels
        whole += 1
    return ids, labels, whole


def packed_batch(tokenizer, examples, rows: int, context: int):
    """`rows` packed rows (`packed_row`) and the whole examples they hold."""
    packed = [packed_row(tokenizer, examples, context) for _ in range(rows)]
    return (*_tensors(tokenizer, [(ids, labels) for ids, labels, _ in packed]),
            sum(whole for _, _, whole in packed))
