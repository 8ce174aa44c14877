"""Which generation settings make decoding other than greedy (`copy_tasks.probes.decoding`):
sampling switched on, a temperature above 0 or more than one beam, whether lm-eval parsed the
value from the command line or it is text read back from a results file; each is returned as
given, and every other setting is left out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from copy_tasks.probes.decoding import non_greedy

GREEDY_TEMPLATE = {"do_sample": False, "temperature": 0.0, "until": ["\n\n"], "max_gen_toks": 50}


@pytest.mark.parametrize("gen_kwargs", [
    {},
    GREEDY_TEMPLATE,
    {"do_sample": "False", "temperature": "0.0"},  # as text, from a results file
    {"do_sample": "0", "temperature": "0", "num_beams": "1"},
    {"do_sample": None, "temperature": None, "num_beams": None},
    {"temperature": -1.0, "num_beams": 0},  # not above 0, not more than one
    {"temperature": "hot", "num_beams": "many"},  # not numbers
    {"top_p": 0.9, "top_k": 5, "max_gen_toks": 9999},  # matter only when sampling
])
def test_settings_that_leave_decoding_greedy_are_not_reported(gen_kwargs):
    assert non_greedy(gen_kwargs) == {}


@pytest.mark.parametrize(("gen_kwargs", "changed"), [
    ({"do_sample": True}, {"do_sample": True}),
    ({"do_sample": " TRUE "}, {"do_sample": " TRUE "}),
    ({"do_sample": "yes"}, {"do_sample": "yes"}),
    ({"do_sample": 1}, {"do_sample": 1}),
    ({"temperature": 0.2}, {"temperature": 0.2}),
    ({"temperature": "1e-3"}, {"temperature": "1e-3"}),
    ({"num_beams": 4}, {"num_beams": 4}),
    ({"num_beams": "2"}, {"num_beams": "2"}),
    ({**GREEDY_TEMPLATE, "temperature": "0.70"}, {"temperature": "0.70"}),  # a user's --gen_kwargs merged over ours
    ({"do_sample": "true", "temperature": 0.7, "num_beams": 3, "until": ["\n"]},
     {"do_sample": "true", "temperature": 0.7, "num_beams": 3}),
])
def test_each_setting_that_changes_decoding_is_reported_as_given(gen_kwargs, changed):
    assert non_greedy(gen_kwargs) == changed


@settings(max_examples=40, deadline=None)
@given(temperature=st.floats(allow_nan=False), as_text=st.booleans())
def test_a_temperature_is_reported_exactly_when_it_is_above_zero(temperature, as_text):
    value = repr(temperature) if as_text else temperature
    assert ("temperature" in non_greedy({"temperature": value})) == (temperature > 0)
