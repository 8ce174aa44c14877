"""Which reader `bounded_state` reads a prompt with: each family's prompts by the reader meant
for them, and the choice among them counted as the readers count it."""

from __future__ import annotations

import math

from conftest import source_options

from copy_tasks.models.bounded_flip_flop import FlipFlopReader
from copy_tasks.models.bounded_number import PasskeyReader
from copy_tasks.models.bounded_pairs import PairsReader
from copy_tasks.models.bounded_phonebook import PhoneBookReader
from copy_tasks.models.bounded_readers import READERS, reader_for
from copy_tasks.models.bounded_state import READER_CHOICE_BITS, BoundedStateReader
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.task_docs import generate_docs

MEANT_FOR = {"mqar": PairsReader, "passkey_recall": PasskeyReader, "phonebook_copy": PhoneBookReader,
             "phonebook_query_first": PhoneBookReader, "flip_flop": FlipFlopReader}  # the others: BoundedStateReader


def test_the_choice_costs_log2_of_the_readers_there_are():
    assert READER_CHOICE_BITS == math.log2(len(READERS) + 1) == math.log2(5)  # `BoundedStateReader` reads the rest


def test_each_familys_prompts_are_read_by_the_reader_meant_for_them(local_sources):
    for family, spec in FAMILIES.items():
        for length in spec.lengths[:2]:
            for doc in generate_docs(family, length, 1234, 3, source_options(family, local_sources)):
                for question in spec.request_docs(doc):
                    assert type(reader_for(question["prompt"], 256)) is MEANT_FOR.get(family, BoundedStateReader)
