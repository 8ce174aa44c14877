"""The README holds the essentials: at most 2,000 words, every `copy-tasks` and `lm_eval` command
in it parses as written, every page it moved to docs/ is linked, and its tables, like the
docs' own, are the ones the code derives."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

import pytest

from copy_tasks.probes.conformance import verdict_table
from copy_tasks.probes.families import family_table
from copy_tasks.report.schema import column_table

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
MOVED = ("backends.md", "budgets_and_batching.md", "gpu_check.md", "benchmarks.md", "reference_models.md",
         "training.md", "registration.md", "scoring.md", "leaderboard.md", "adding_a_family.md",
         "export.md", "leaderboard_history.md")


def test_the_readme_has_at_most_2000_words():
    assert len(re.findall(r"\S+", README)) <= 2000


def test_every_page_moved_to_docs_is_linked_and_every_link_resolves():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    assert {f"docs/{page}" for page in MOVED} <= set(links)
    for link in links:
        if not link.startswith("http"):
            assert (ROOT / link).exists(), link
    assert {path.name for path in (ROOT / "docs").glob("*.md")} <= {*MOVED, "reference_curves.md"}


def test_the_tables_are_the_derived_ones():
    assert family_table() in README
    assert verdict_table() in (ROOT / "docs" / "scoring.md").read_text()
    assert column_table() in (ROOT / "docs" / "leaderboard.md").read_text()


def readme_commands() -> list[list[str]]:
    """Every `copy-tasks` and `lm_eval` command of the README's shell blocks, as arguments;
    a `$(...)` is replaced by a folder and its command is checked too."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            for inner in re.findall(r"\$\(([^)]*)\)", line):
                commands.append(shlex.split(inner))
            words = shlex.split(re.sub(r"\$\([^)]*\)", "/tmp/a-model", line))
            if words and words[0] in ("copy-tasks", "lm_eval"):
                commands.append(words)
    return commands


class Parsed(Exception):
    """Raised in place of running a command once its arguments have parsed."""


@pytest.fixture
def parse_only(monkeypatch):
    original = argparse.ArgumentParser.parse_args

    def parse_and_stop(self, args=None, namespace=None):
        raise Parsed(original(self, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_and_stop)


def test_the_readme_has_commands_of_both_kinds():
    programs = [command[0] for command in readme_commands()]
    assert programs.count("copy-tasks") >= 6 and programs.count("lm_eval") >= 2


@pytest.mark.parametrize("command", readme_commands(), ids=lambda command: " ".join(command)[:60])
def test_every_readme_command_parses(parse_only, monkeypatch, command):
    from copy_tasks.cli import main
    from copy_tasks.harness.lm_eval_internals import command_line

    monkeypatch.setattr(sys, "argv", ["lm_eval", *command[1:]])
    with pytest.raises(Parsed):
        main(command[1:]) if command[0] == "copy-tasks" else command_line()()


def test_every_relative_link_of_the_docs_resolves():
    for page in (ROOT / "docs").glob("*.md"):
        for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text()):
            if not link.startswith("http"):
                assert (page.parent / link).exists(), f"{page.name}: {link}"


def test_the_readme_says_what_accelerate_does_on_cpu_as_docs_backends_does():
    """Finding 21: the README said that on CPU every process runs every doc, where `--cpu` starts one process."""
    readme, backends = (ROOT / "README.md").read_text(), (ROOT / "docs" / "backends.md").read_text()
    for text in (readme, backends):
        assert "ACCELERATE_USE_CPU=1" in text and "--multi_gpu" in text
    assert "`accelerate launch --cpu`\n  starts one process" in readme or "--cpu` starts one process" in readme
    assert "on CPU or one GPU each process runs every doc" not in readme
