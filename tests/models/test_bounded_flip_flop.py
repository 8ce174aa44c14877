"""The flip-flop reader of `bounded_state`: the bit last written, in 6.49 bits at any length (the
control where a fixed state wins); worked by hand, then on every length and mix of the family."""

import math

import pytest

from copy_tasks.models.bounded_flip_flop import FlipFlopReader
from copy_tasks.models.bounded_readers import bounded_state_read
from copy_tasks.models.bounded_state import MIN_BITS
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.families.flip_flop import HEADER, IGNORE_PROBABILITY
from copy_tasks.probes.task_docs import generate_docs

# which reader of five, where in its line (3 places), the line's letter (3), the bit kept
HAND_COUNT = math.log2(5) + math.log2(3) + math.log2(3) + 1  # 6.49


def test_it_keeps_the_bit_of_the_last_write_and_nothing_of_reads_or_ignores():
    prompt = f"{HEADER}\n\nw 1\ni 0\nr 1\ni 0\nr 1\nw 0\ni 1\nr 0\ni 1\nr"
    reader = FlipFlopReader(7).read(prompt)
    assert (reader.kept, reader.answer()) == (0, " 0")
    assert reader.peak_bits == pytest.approx(HAND_COUNT) and HAND_COUNT < 7
    with pytest.raises(ValueError, match="needs at least 7 bits"):
        FlipFlopReader(6)


@pytest.mark.parametrize("mix", sorted(IGNORE_PROBABILITY))
def test_bounded_state_at_its_smallest_budget_reads_every_doc_at_every_length(mix):
    family = FAMILIES["flip_flop"]
    for length in family.lengths:
        for doc in generate_docs("flip_flop", length, 1234, 20, (("mix", mix),)):
            reader = bounded_state_read(doc["prompt"], MIN_BITS)
            assert isinstance(reader, FlipFlopReader) and reader.peak_bits == pytest.approx(HAND_COUNT)
            assert family.score_one_reading(reader.answer(), doc)["exact_match"] == 1.0, (mix, length)
