"""Which generation settings replace the greedy decoding our tasks are defined with.

Our templates decode greedily (`do_sample: false`, `temperature: 0.0`), the paper's protocol;
a user's `--gen_kwargs` is merged over them. Values come as lm-eval parsed them from the
command line (booleans and numbers) or as text, from a results file.

    >>> non_greedy({"do_sample": "True", "temperature": "0.7", "until": ["\\n"]})
    {'do_sample': 'True', 'temperature': '0.7'}
    >>> non_greedy({"do_sample": False, "temperature": 0.0, "max_gen_toks": 99})
    {}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _true(value: Any) -> bool:
    return value is True or str(value).strip().lower() in ("true", "1", "yes")


def non_greedy(gen_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The settings among `gen_kwargs` that make decoding other than greedy: sampling, a
    temperature above 0, more than one beam."""
    changed = {}
    if _true(gen_kwargs.get("do_sample")):
        changed["do_sample"] = gen_kwargs["do_sample"]
    if (temperature := _number(gen_kwargs.get("temperature"))) is not None and temperature > 0:
        changed["temperature"] = gen_kwargs["temperature"]
    if (beams := _number(gen_kwargs.get("num_beams"))) is not None and beams > 1:
        changed["num_beams"] = gen_kwargs["num_beams"]
    return changed
