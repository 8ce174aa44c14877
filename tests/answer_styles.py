"""Answers in the conformance battery's styles as text, and a real lm-eval run of the scripted
model: what the public scorer and the inspect tasks are checked against.

`backend_text` is what a backend returns for a doc answered in a style (the style's tokens up
to the doc's budget and EOS, special tokens dropped), before the stop sequences cut it; the
slow tests check it against the responses lm-eval logged for `--model scripted`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from copy_tasks.probes.chat import given_start
from copy_tasks.probes.conformance import EOS, STYLES, SpecialToken, write_answer_key


def words(text: str) -> list[str]:
    """A segmentation: each word with the spaces before it, and trailing spaces alone."""
    return re.findall(r"\s*\S+|\s+", text)


def backend_text(style: str, doc: dict, tokenize: Callable[[str], list[str]] = words) -> str:
    """The text of the doc's answer in `style`, as a backend writes it, not cut at stops."""
    text = ""
    tokens = STYLES[style].write(doc["continuation"], tokenize, given_start(doc["prompt"]))
    for token in tokens[:doc["generation_budget"]]:
        if token == EOS:
            break
        if not isinstance(token, SpecialToken):
            text += token
    return text


def canonical(tokenizer) -> Callable[[str], list[str]]:
    """A tokenizer's own segmentation as substrings (as the scripted model segments)."""
    def tokenize(text: str) -> list[str]:
        offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        return [text[start:end] for start, end in offsets]

    return tokenize


def scripted_samples(docs: Sequence[dict], tasks: Sequence[str], style: str, folder: Path,
                     metadata: dict) -> tuple[dict[str, list[dict]], Callable[[str], list[str]]]:
    """lm-eval's logged samples per task of `--model scripted` answering in `style`, and the
    segmentation its tokenizer (trained on the docs) gives."""
    import lm_eval

    import copy_tasks.models.scripted_lm  # noqa: F401  (registers `scripted`)
    from copy_tasks.experiments.tiny_models import build_tokenizer

    tokenizer = build_tokenizer([doc["prompt"] + doc["continuation"] for doc in docs], vocab_size=600)
    tokenizer.save_pretrained(folder / "tokenizer")
    answers = write_answer_key(docs, folder / "answers.json")
    results = lm_eval.simple_evaluate(model="scripted", model_args=f"style={style},answers={answers},"
                                      f"tokenizer={folder / 'tokenizer'}", tasks=list(tasks), metadata=metadata,
                                      log_samples=True)
    return results["samples"], canonical(tokenizer)
