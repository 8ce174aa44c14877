"""A toy family, declared in this one module as a new family would be in copy_tasks/probes/families/:
copy a string of `length` digits."""

from copy_tasks.probes.copying import copy_doc, copy_family
from copy_tasks.probes.family import register


def make_digits_doc(rng, length: int) -> dict:
    """`length` random digits separated by spaces, copied as `random_copy` copies letters."""
    return copy_doc([str(digit) for digit in rng.integers(10, size=length).tolist()])


FAMILY = register(copy_family("toy_digits_copy", "a string of random digits", "digits", (5, 12), make_digits_doc))
