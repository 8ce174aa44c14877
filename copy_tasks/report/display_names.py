"""The names a leaderboard shows for its models: a model folder's own name by default, a display
name where `copy-tasks leaderboard --name PATTERN=LABEL` gives one, and the same name for a model
in every build.

The CSV keeps the model id as lm-eval recorded it (`model`: a hub id, a local path, or a
reference model with its args) and the name shown beside it (`name`); the summary, the page and
the plots show the name. A local path is never shown: its last folder is (a hub cache snapshot,
`.../models--org--name/snapshots/<sha>`, is shown as `org/name`).

    >>> default_name("/home/ada/.cache/copy_tasks/models/gemma-3-270m")
    'gemma-3-270m'
    >>> default_name("google/gemma-3-270m"), default_name("ngram_copier(n=5)")
    ('google/gemma-3-270m', 'ngram_copier(n=5)')
    >>> rule = name_rule("gemma-3-*=Gemma 3 270M")
    >>> rule.matches("/home/ada/.cache/copy_tasks/models/gemma-3-270m")
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase

HUB_CACHE_FOLDER = re.compile(r"^models--(?P<org>[^/]+?)--(?P<name>.+)$")
WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def is_local_path(model: str) -> bool:
    """Whether a `pretrained=` value names a folder rather than a hub id (`org/name` or `name`):
    absolute (a Windows drive or share too), home- or dot-relative, or of more than two parts
    (not a URL).

    >>> [is_local_path(m) for m in ("/models/x", "~/x", "./x", "C:\\\\m\\\\x", "a/b/c", "org/name", "gpt2")]
    [True, True, True, True, True, False, False]
    >>> is_local_path("http://host/a/b"), is_local_path("a\\b")
    (False, False)
    """
    if model.startswith(("/", "~", "./", "../", "\\\\")) or WINDOWS_DRIVE.match(model):
        return True
    return model.count("/") >= 2 and "://" not in model


def default_name(model: str) -> str:
    """The name shown for a model id: a local path's last folder (a hub cache snapshot's
    `org/name`), anything else as it is.

    >>> default_name("/home/u/.cache/huggingface/hub/models--HuggingFaceTB--SmolLM2-135M/snapshots/93efa2f0")
    'HuggingFaceTB/SmolLM2-135M'
    >>> default_name("./out/trained-copy-lstm-s0/")
    'trained-copy-lstm-s0'
    """
    if not is_local_path(model):
        return model
    parts = [part for part in re.split(r"[\\/]+", model) if part not in ("", ".", "..", "~")]
    for index, part in enumerate(parts):
        if (found := HUB_CACHE_FOLDER.match(part)) and index + 1 < len(parts) and parts[index + 1] == "snapshots":
            return f"{found['org']}/{found['name']}"
    return parts[-1] if parts else model


@dataclass(frozen=True)
class NameRule:
    """`--name PATTERN=LABEL`: models whose id or default name matches the shell-style
    `pattern` (`*`, `?`, `[...]`; case-sensitive) are shown as `label`."""

    pattern: str
    label: str

    def matches(self, model: str) -> bool:
        return fnmatchcase(model, self.pattern) or fnmatchcase(default_name(model), self.pattern)

    def __str__(self) -> str:
        return f"{self.pattern}={self.label}"


def _first_equals_outside_parentheses(text: str) -> int:
    """The index of the first `=` outside parentheses, else of the first `=` (-1: none)."""
    depth = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "=" and depth == 0:
            return index
    return text.find("=")


def name_rule(text: str) -> NameRule:
    """Parse `PATTERN=LABEL`, split at the first `=` outside parentheses (a reference model's id
    holds its arguments); a ValueError names what is wrong.

    >>> name_rule("smollm2-135m=SmolLM2 135M")
    NameRule(pattern='smollm2-135m', label='SmolLM2 135M')
    >>> name_rule("bounded_state(bits=64)=Bounded state, 64 bits")
    NameRule(pattern='bounded_state(bits=64)', label='Bounded state, 64 bits')
    >>> name_rule("smollm2")
    Traceback (most recent call last):
    ...
    ValueError: --name 'smollm2': give PATTERN=LABEL (e.g. 'gemma-3-270m=Gemma 3 270M')
    """
    split = _first_equals_outside_parentheses(text)
    if split < 0:
        raise ValueError(f"--name {text!r}: give PATTERN=LABEL (e.g. 'gemma-3-270m=Gemma 3 270M')")
    pattern, label = text[:split], text[split + 1:]
    if not pattern.strip() or not label.strip():
        raise ValueError(f"--name {text!r}: both the pattern and the label must be non-empty")
    if any(char in label for char in "\r\n\t"):
        raise ValueError(f"--name {text!r}: a label may not hold a line break or a tab")
    return NameRule(pattern, label.strip())


def names_of_models(models: set[str], recorded: dict[str, list[str]], rules: list[NameRule]) -> dict[str, str]:
    """The name of each model: the first rule that matches it, else the name its rows in the CSV
    already carry (`recorded`: model -> the names on its rows; so a display name given once holds
    in later builds; the most common one, ties in name order, if a hand edit left several), else
    `default_name`.

    >>> recorded = {"/m/gemma": ["Gemma"]}
    >>> names_of_models({"/m/gemma", "/m/smol", "/x/y/smol2"}, recorded, [name_rule("smol=SmolLM2")])
    {'/m/gemma': 'Gemma', '/m/smol': 'SmolLM2', '/x/y/smol2': 'smol2'}
    """
    names = {}
    for model in sorted(models):
        rule = next((rule for rule in rules if rule.matches(model)), None)
        if rule is not None:
            names[model] = rule.label
        elif given := [name for name in recorded.get(model, []) if name]:
            names[model] = min(set(given), key=lambda name: (-given.count(name), name))
        else:
            names[model] = default_name(model)
    return names


def naming_notes(names: dict[str, str], rules: list[NameRule]) -> list[str]:
    """What a build says about its names: a rule that matched no model.

    >>> naming_notes({"/a/gemma": "gemma"}, [name_rule("x=X")])
    ["--name 'x=X' matches no model in the leaderboard"]
    """
    return [f"--name {str(rule)!r} matches no model in the leaderboard"
            for rule in rules if not any(rule.matches(model) for model in names)]


def name_clashes(names: dict[str, str], rules: list[NameRule]) -> list[str]:
    """Each name that several models would share, said in a line naming the name, the models and
    the rule that gave it (the summary and plots show a name as one model: points of different
    models would be joined); empty when every model has a name of its own.

    >>> name_clashes({"a": "Same", "b": "Same", "c": "c"}, [name_rule("*=Same")])
    ["--name '*=Same' gives models a, b the one name 'Same'"]
    >>> name_clashes({"/x/gemma": "gemma", "/y/gemma": "gemma"}, [])
    ["models /x/gemma, /y/gemma would all be shown as 'gemma'"]
    """
    sharing: dict[str, list[str]] = {}
    for model, name in sorted(names.items()):
        sharing.setdefault(name, []).append(model)
    clashes = []
    for name, models in sorted(sharing.items()):
        if len(models) < 2:
            continue
        rule = next((rule for rule in rules if rule.label == name and any(map(rule.matches, models))), None)
        said = f"--name {str(rule)!r} gives" if rule else "would all be shown as"
        clashes.append(f"{said} models {', '.join(models)} the one name {name!r}" if rule
                       else f"models {', '.join(models)} {said} {name!r}")
    return clashes
