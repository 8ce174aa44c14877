"""Census-weighted person names (`copy_tasks.probes.names`): a draw u in [0, 90) picks the first
name whose cumulative frequency exceeds it, so a name of zero frequency never comes up; the
census tables start with their most common names and run past the 90% cut-off; a full name
is a sex drawn with probability 1/2, a first name of that sex and a last name, each as often
as the census has it."""

from __future__ import annotations

import numpy as np

from copy_tasks.probes.names import CUMULATIVE_CUTOFF, NameTable, draw_full_names, first_names, last_names
from copy_tasks.probes.seeding import doc_rng


class ScriptedRandom:
    """Stands in for a numpy generator: each `random(count)` returns the next of the given draws."""

    def __init__(self, *draws: list[float]):
        self.draws = [np.array(draw, dtype=float) for draw in draws]

    def random(self, count: int) -> np.ndarray:
        draw = self.draws.pop(0)
        assert len(draw) == count, (len(draw), count)
        return draw


def table(*rows: tuple[str, float]) -> NameTable:
    return NameTable(np.array([name for name, _ in rows], dtype=object), np.array([cum for _, cum in rows]))


def test_a_draw_takes_the_first_name_whose_cumulative_frequency_exceeds_u():
    names = table(("Ann", 45.0), ("Bo", 72.0), ("Cy", 90.001))
    # u = 90 r: 0, 22.5, 45 (Ann's own cumulative belongs to the next name), 67.5, 89.991
    drawn = names.draw(ScriptedRandom([0.0, 0.25, 0.5, 0.75, 0.9999]), 5)
    assert drawn.tolist() == ["Ann", "Ann", "Bo", "Bo", "Cy"]


def test_a_name_of_zero_frequency_is_never_drawn():
    names = table(("Ann", 45.0), ("Zed", 45.0), ("Bo", 90.001))
    assert names.draw(ScriptedRandom([0.5]), 1).tolist() == ["Bo"]
    assert set(names.draw(np.random.default_rng(0), 2000).tolist()) == {"Ann", "Bo"}


def test_the_census_tables_start_with_their_most_common_names_and_pass_the_cutoff():
    female, male, last = first_names("female"), first_names("male"), last_names()
    assert (female.names[0], female.cumulative[0]) == ("Mary", 2.629)
    assert (male.names[0], male.cumulative[0]) == ("James", 3.318)
    assert (last.names[0], last.cumulative[0]) == ("Smith", 1.006)
    for names in (female, male, last):
        assert names.cumulative[-1] > CUMULATIVE_CUTOFF  # every u in [0, 90) finds a name
        assert names.cumulative[-2] <= CUMULATIVE_CUTOFF  # rows past the cut-off are not stored
        assert bool(np.all(np.diff(names.cumulative) >= 0))
        assert len(set(names.names.tolist())) == len(names.names)


def test_full_names_take_sex_then_first_names_of_each_sex_then_last_names():
    # sexes: 0.2 < 0.5 female, 0.7 and 0.5 male; u = 90 r for the female, the two male, then the last names
    script = ScriptedRandom([0.2, 0.7, 0.5], [0.0], [0.0, 0.05], [0.0, 0.015, 0.025])
    # male u 4.5: past James (3.318), within John (6.589); last u 1.35 and 2.25: Johnson (1.816), Williams (2.515)
    assert draw_full_names(script, 3) == ["Mary Smith", "James Johnson", "John Williams"]
    assert script.draws == []


def test_names_come_up_as_often_as_the_census_has_them():
    count = 20_000
    names = draw_full_names(doc_rng("names-test", "1", 0, 7, 0), count)
    smith = sum(name.endswith(" Smith") for name in names) / count
    mary = sum(name.startswith("Mary ") for name in names) / count
    assert abs(smith - 1.006 / 90) < 0.003  # about 4 standard errors
    assert abs(mary - 0.5 * 2.629 / 90) < 0.0035  # half the draws are women's names


def test_no_names_are_drawn_for_a_count_of_zero():
    assert draw_full_names(np.random.default_rng(0), 0) == []
