"""`scripted`: an lm-eval model that answers every doc correctly, in a chosen style.

The conformance battery's model (`copy_tasks.probes.conformance`). It knows the answers from an
answer key (`conformance.write_answer_key`: prompt sha256 -> the doc's continuation) and
writes them as the style says, in the canonical segmentation of a tokenizer. It behaves
as lm-eval's backends do:
- generation: the style's tokens, at most `max_gen_toks` of them, ending at EOS; special
  tokens are dropped from the text; the text is cut before its first stop sequence;
- loglikelihood: `is_greedy` is true iff the continuation's canonical tokens are the first
  tokens the model writes (lm-eval's argmax check, token by token); each agreeing token has
  probability 1 - EPSILON, the first that disagrees EPSILON / vocabulary size, and every
  later one 1 / vocabulary size.

- chat: under `--apply_chat_template` it renders the turns with the tokenizer's chat template,
  as `hf` does, and finds the doc by its chat form (`conformance.chat_key`); it then writes
  the style's tokens after the assistant's prefill.

Model args: `style` (a name in `conformance.STYLES`), `answers` (the key's path) and
`tokenizer` (an HF tokenizer folder, with a chat template for chat runs; the tasks count
prompt tokens with it too).

    copy-tasks run --model scripted --model_args style=eos,answers=key.json,tokenizer=DIR ...
"""

from __future__ import annotations

import math

from lm_eval.api.registry import register_model

from copy_tasks.models.answers import EPSILON, cut_at_stops
from copy_tasks.models.reference_lm import ReferenceLM, refuse_unknown_args
from copy_tasks.probes.conformance import (
    EOS,
    SpecialToken,
    Token,
    chat_key,
    prompt_key,
    read_answer_key,
    style_named,
)


@register_model("scripted")
class ScriptedLM(ReferenceLM):
    def __init__(self, style: str, answers: str, tokenizer: str, batch_size=None, max_batch_size=None, device=None,
                 trust_remote_code=None, **unknown) -> None:
        from transformers import AutoTokenizer

        super().__init__()
        refuse_unknown_args("scripted", unknown)
        self.style = style_named(style)
        self.answers = read_answer_key(answers)
        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer)
        self.chats: dict[str, tuple[str, str]] = {}  # a rendered chat -> its user turn and prefill

    @property
    def tokenizer_name(self) -> str:
        return self.tokenizer.name_or_path.replace("/", "__")

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return self.tokenizer.chat_template

    def apply_chat_template(self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        """The turns rendered by the tokenizer's chat template, the assistant's last turn left
        open when there is one to continue (as `hf` renders them)."""
        rendered = self.tokenizer.apply_chat_template(
            chat_history, tokenize=False, add_generation_prompt=add_generation_prompt,
            continue_final_message=not add_generation_prompt)
        turns = {turn["role"]: turn["content"] for turn in chat_history}
        self.chats[rendered] = (turns.get("user", ""), turns.get("assistant", ""))
        return rendered

    def answer_key(self, prompt: str) -> str:
        """The answer key's key of a prompt: of the chat it renders, or of a rendered chat it
        extends (a later question of a doc of several, `Family.queries`, is its doc's chat with
        the questions before it in the assistant's turn), else of the prompt itself."""
        if prompt in self.chats:
            return chat_key(*self.chats[prompt])
        extended = [rendered for rendered in self.chats if prompt.startswith(rendered)]
        if extended:
            rendered = max(extended, key=len)
            user, prefill = self.chats[rendered]
            return chat_key(user, prefill + prompt[len(rendered):])
        return prompt_key(prompt)

    def tokenize(self, text: str) -> list[str]:
        """The tokenizer's canonical segmentation of `text`, as substrings."""
        offsets = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        pieces = [text[start:end] for start, end in offsets]
        if "".join(pieces) != text:
            raise ValueError(f"the tokenizer's offsets do not cover {text!r}")
        return pieces

    def written(self, prompt: str) -> list[Token]:
        """The tokens the model writes after `prompt`."""
        try:
            answer, start = self.answers[self.answer_key(prompt)]
        except KeyError:
            raise KeyError(f"the answer key has no doc with the prompt {prompt[:60]!r}...") from None
        return self.style.write(answer, self.tokenize, start)

    def generate(self, prompt: str, until: list[str], budget: int) -> str:
        text = ""
        for token in self.written(prompt)[:budget]:
            if token == EOS:
                break
            if not isinstance(token, SpecialToken):
                text += token
        return cut_at_stops(text, until)

    def score(self, prompt: str, continuation: str) -> tuple[float, bool]:
        vocabulary = len(self.tokenizer)
        wanted, written = self.tokenize(continuation), self.written(prompt)
        agree = 0
        while agree < len(wanted) and agree < len(written) and written[agree] == wanted[agree]:
            agree += 1
        logprob = agree * math.log(1 - EPSILON)
        if agree < len(wanted):
            logprob += math.log(EPSILON / vocabulary) + (len(wanted) - agree - 1) * math.log(1 / vocabulary)
        return logprob, agree == len(wanted)
