"""Shared fixtures: tiny local models and a runner for the real `lm_eval` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# The tests need no network and never reach a hub; huggingface_hub and datasets read these
# when imported, so they are set before anything imports them.
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
os.environ.update(OFFLINE)

import pytest  # noqa: E402
import torch  # noqa: E402
from forked_command import ENTRY_POINTS, run_forked  # noqa: E402

from copy_tasks.experiments.tiny_models import ARCHITECTURES, build_tiny_model  # noqa: E402
from copy_tasks.probes.families import FAMILIES  # noqa: E402
from copy_tasks.probes.options import SourceOption  # noqa: E402

BIN = Path(sys.executable).parent
TESTS = Path(__file__).resolve().parent  # the tests' own files (fixtures, pinned values) are here
ROOT = TESTS.parent  # the checkout
# The toy family registers itself when imported: only its own tests import it (not the
# doctest collection, which would add it to every test's family table).
collect_ignore = ["toy_family.py", "fake_preparation.py"]  # the latter is a script the tests run
if os.environ.get("COPY_TASKS_TEST_TOY_FAMILY") == "1":  # benchmarks/bench_family_cost.py: a family more
    import toy_family  # noqa: F401  (registers itself in every test's family table)
# Fixtures that tests of several modules share, each in a helper module of its own.
pytest_plugins = ["conformance_battery", "export_fixtures", "hf_runs", "text_corpus", "trained_models"]


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-models")
    return {arch: build_tiny_model(arch, root / arch) for arch in ARCHITECTURES}


# The tests' models are tiny: their operations are too small to share between threads, and on a
# busy machine (a test process per core) threads wait on each other: a quick training took 13 s
# on two threads, 0.5 s on one. Every test process and every command it runs uses one.
torch.set_num_threads(1)


def offline_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **OFFLINE)
    env.update(extra)
    return env


def run_command(args: list[str], cwd: Path, fresh: bool = False, **env: str) -> subprocess.CompletedProcess:
    """Run one of the installed console scripts (`lm_eval`, `copy-tasks`): in a fork of this
    process (`forked_command`: the same command without 5-10 s of imports), or with `fresh` or
    variables read at start-up (`env`) in a new interpreter, as a user starts it."""
    if fresh or env or args[0] not in ENTRY_POINTS:
        command = [str(BIN / args[0]), *args[1:]]
        return subprocess.run(command, cwd=cwd, env=offline_env(**env), capture_output=True,
                              text=True, timeout=900)
    return run_forked(args, cwd, offline_env())


def read_results(output: Path) -> tuple[dict, dict[str, list[dict]]]:
    """The results JSON and the logged samples per task of one `--output_path` run."""
    results_file = next(output.rglob("results_*.json"))
    samples = {}
    for path in output.rglob("samples_*.jsonl"):
        task = path.name[len("samples_"):].rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text().splitlines()]
    return json.loads(results_file.read_text()), samples


# squad_length asks questions about a paragraph, flip_flop for the bit last written (which the
# line a copy would repeat need not hold); the copy, phone-book and lookup families are answered
# by copying, which is what the reference models are checked on.
COPY_FAMILIES = tuple(name for name in FAMILIES if name not in ("squad_length", "flip_flop"))


@pytest.fixture(scope="session")
def local_sources(tmp_path_factory) -> dict[str, str]:
    """Local stand-ins for the sources that need a download: text for C4, a SQuAD file."""
    from squad_fixture import write_squad_file
    from text_corpus import write_corpus

    folder = tmp_path_factory.mktemp("sources")
    return {"text_source": str(write_corpus(folder / "corpus")),
            "squad_source": str(write_squad_file(folder / "dev-v2.0.json"))}


def source_options(family: str, sources: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The (argument, path) pairs pointing a family's data sources at the local stand-ins."""
    return tuple((option.argument, sources[option.argument])
                 for option in FAMILIES[family].options if isinstance(option, SourceOption))
