"""`flip_flop`: write, ignore and read instructions over bits, the answer the last bit written:
the control where a fixed state wins (Liu et al. 2023, "Exposing Attention Glitches with
Flip-Flop Language Modeling", which the paper names as the task where such models do better).

A header line says what the instructions do; then `L` instructions, one a line, each a letter
and a bit: `w` writes its bit, `i` is ignored, `r` reads the bit last written (and shows it).
The first is a write and the last a read left bare, `r`, answered by ` {bit}`: the line
completed as every read before it is. The instructions between are drawn independently, an
ignore with probability p, else a write or a read alike, every bit uniform: Liu et al.'s
FFL(p), p set by `--metadata copy_tasks_flip_flop_mix=` `sparse` (0.8, their usual setting,
the default), `dense` (0.1: writes and reads everywhere) or `rare` (0.98: a write can lie far
back). One bit is all a reader must keep, whatever the length: a fixed state keeps it, and an
attention model must find the last `w` among many lines that look alike. Each doc records
`since_write`, the instructions between the last write and the question.
"""

from __future__ import annotations

import numpy as np

from copy_tasks.probes.families.passkey_recall import NUMBER_ANSWER_WITHOUT_AUTHORS_RULE
from copy_tasks.probes.family import Family, register
from copy_tasks.probes.options import ChoiceOption

HEADER = "Each line is an instruction: w writes a bit, i ignores its bit, r reads the bit last written."
IGNORE_PROBABILITY = {"sparse": 0.8, "dense": 0.1, "rare": 0.98}  # Liu et al.'s FFL(p)
MIX = ChoiceOption("copy_tasks_flip_flop_mix", "mix", "the flip_flop instruction mix", default="sparse",
                   choices=tuple(IGNORE_PROBABILITY))
MIN_INSTRUCTIONS = 2  # the first write and the last read


def instructions(rng: np.random.Generator, count: int, ignore: float) -> list[tuple[str, int]]:
    """`count` instructions, (letter, bit): a write first, a read last, between them an ignore
    with probability `ignore`, else a write or a read alike; each read shows the bit last
    written.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> instructions(doc_rng("flip_flop", "1.0", 6, 0, 0), 6, 0.5)
    [('w', 0), ('i', 0), ('i', 1), ('i', 0), ('w', 0), ('r', 0)]
    """
    letters = ["w", *rng.choice(["i", "w", "r"], size=count - 2, p=[ignore, (1 - ignore) / 2, (1 - ignore) / 2]), "r"]
    bits, drawn, last = [], rng.integers(2, size=count), 0
    for letter, bit in zip(letters, drawn):
        if letter == "w":
            last = int(bit)
        bits.append(last if letter == "r" else int(bit))
    return list(zip(map(str, letters), bits))


def make_flip_flop_doc(rng: np.random.Generator, count: int, mix: str = MIX.default) -> dict:
    """One doc: `count` instructions of the mix, the last read's bit asked.

    >>> from copy_tasks.probes.seeding import doc_rng
    >>> doc = make_flip_flop_doc(doc_rng("flip_flop", "1.0", 6, 1234, 0), 6, "dense")
    >>> print(doc["prompt"])
    Each line is an instruction: w writes a bit, i ignores its bit, r reads the bit last written.
    <BLANKLINE>
    w 0
    i 0
    w 0
    r 0
    w 1
    r
    >>> doc["continuation"], doc["target"], doc["since_write"]
    (' 1', '1', 0)
    """
    lines = instructions(rng, count, IGNORE_PROBABILITY[mix])
    *shown, (_, answer) = lines
    last_write = max(index for index, (letter, _) in enumerate(lines) if letter == "w")
    body = "\n".join(f"{letter} {bit}" for letter, bit in shown)
    return {
        "prompt": f"{HEADER}\n\n{body}\nr",
        "target": str(answer),
        "continuation": f" {answer}",
        "since_write": count - 1 - last_write - 1,
        "mix": mix,
    }


FAMILY = register(Family(
    name="flip_flop",
    summary="the bit last written, among write, ignore and read instructions (a fixed state keeps it)",
    unit="instructions",
    lengths=(16, 64, 256, 1024, 4096),
    default_docs=100,
    min_length=MIN_INSTRUCTIONS,
    draw_doc=make_flip_flop_doc,
    **NUMBER_ANSWER_WITHOUT_AUTHORS_RULE,  # the bit, read as the number the answer starts with
    scoring_group="flip-flop",
    options=(MIX,),
    task_version="1.0",
    field_notes=(("since_write", "the instructions between the last write and the question"),
                 ("mix", "the instruction mix (sparse, dense or rare: the probability of an ignore, 0.8, 0.1 "
                         "or 0.98)")),
    chat_instruction="Each line below is an instruction over bits. Finish the last line with the bit it reads.",
))
