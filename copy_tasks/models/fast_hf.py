"""`hf_fast`: lm-eval's `hf` model with a loglikelihood that computes only the logits it uses.

lm-eval's HF backend scores a continuation by computing the logits and a log-softmax over the
whole vocabulary at every position of prompt plus continuation, then keeping the
continuation's positions. For a copy prompt of a few thousand tokens and a model with a large
vocabulary (Gemma 3: 262,144 tokens) that is gigabytes of logits, most of the teacher-forced
cost. This subclass scores batches of `--batch_size` requests sorted by length and padded on
the right as `hf` pads them, with the same left truncation to `max_length`, and returns the
same (log-probability, is_greedy) pairs. Generation is lm-eval's.

Where the model's architecture is one whose logits are known to be its output layer applied to
the final hidden states, followed at most by a soft cap (`LOGITS_FROM_HEAD`: read in
transformers' modeling code and ours), the model's forward runs up to its output layer, and
the output layer is applied to each row's own scored positions only, those of the batch's rows
together, a few hundred positions at a time: a batch mixing short and long rows keeps no logits
for positions it does not score, and the layer's weights are read once a chunk, not once a row.
Its numbers are `hf`'s under the same model arguments: logits in the dtype the model's forward
returns them in, the log-softmax in `softmax_dtype` (by default theirs: under bfloat16 weights,
bfloat16, ties and all), the forward pass and output layer under `mixed_precision_dtype`'s
autocast, and rows padded on the right with token 0, as `hf` pads them (a pad token whose id is
past the embedding is never looked up).
A request whose tokens begin another request's (the questions of one `mqar` doc, each a prefix
of the next) is scored from that request's forward pass where the model is causal and neither
is cut (`shared_rows`): one pass a doc, not one a question.
Any other model is asked for the last positions of the batch (transformers' `logits_to_keep`,
as many as its row with the most positions to score needs); a model that ignores
`logits_to_keep` and returns every position is read at the positions kept (with a warning: it
saves nothing); logits of any other length are refused, never read.

A batch whose rows are long runs as several forward passes of a few rows each, at most
`FORWARD_TOKENS` padded tokens a pass (`forward_slices`): the model's activations grow with
the tokens of one pass, and rows of thousands of tokens gain nothing from sharing one.

`--batch_size auto` is sized from the run's own requests (the longest prompt plus
continuation, or plus generation budget), the model's shape and dtype and the memory free on
its device (`batch_size_that_fits`), not by lm-eval's trial at the model's whole context; the
size chosen is logged and recorded in the results' `config.batch_sizes`.

Models with sliding-window layers (Gemma 3) that run PyTorch's SDPA switch to the banded SDPA
of `copy_tasks.models.banded_attention`, which gives those layers only the keys in their window, with
the same results; it serves the teacher-forced forward pass and the generation's prompt alike.
In generation their cache layers keep only their window of the prompt's keys and values
(`copy_tasks.models.sliding_cache`), not the whole prompt's.

    copy-tasks run --model hf_fast --model_args pretrained=... --tasks random_copy_tf --batch_size 8
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

import torch
from lm_eval.api.registry import register_model
from tqdm import tqdm

from copy_tasks.harness.lm_eval_internals import TokenRequest, batched, cache_answer, scored_tokens_hflm
from copy_tasks.models.banded_attention import use_banded_attention
from copy_tasks.models.sliding_cache import keep_only_windows

log = logging.getLogger("copy_tasks")

# Model types whose causal-LM forward computes its logits as its output embeddings applied to
# the final hidden states at the positions kept, and nothing more (transformers 5's modeling
# files; Mamba's casts the hidden states to the head's dtype first, as `head_logits` does) ...
PLAIN_HEAD = frozenset({"gpt_neox", "mamba", "mamba2", "llama", "gemma", "qwen2", "qwen3", "mistral", "phi3", "olmo2",
                        "smollm3", "copy_tasks_hard_alibi", "copy_tasks_lstm",
                        # state-space models and hybrids (tested against `hf` one by one: the architecture sweep)
                        "falcon_mamba", "jamba", "zamba2", "bamba", "nemotron_h", "lfm2", "lfm2_moe",
                        "lfm3", "qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "kimi_linear", "minimax",
                        "olmo_hybrid", "bailing_hybrid", "lara_mini", "zaya"})
# ... and those that then soft-cap them: cap * tanh(logits / cap), cap = `final_logit_softcapping`.
SOFTCAPPED_HEAD = frozenset({"gemma2", "gemma3_text"})
# Those whose forward returns its logits in float32 whatever the weights' dtype (Mamba's `.float()`):
# the others return them in the output layer's dtype (bfloat16 under bfloat16 weights).
FLOAT32_LOGITS = frozenset({"mamba", "mamba2", "falcon_mamba", "nemotron_h"})
# Logits computed at once by the output layer: positions x vocabulary (2**25: 128 MB in float32,
# 128 positions of Gemma 3's 262,144-token vocabulary).
HEAD_CHUNK_LOGITS = 2 ** 25
# Padded tokens one forward pass holds at most. Activations grow with them: Gemma 3 270M's MLP
# holds three [tokens, 2,048] float32 tensors at once, 24 KB a token, 3.1 GB for a batch of 8
# rows of a 1,000-entry phone book (15,900 tokens each); that batch peaked at 6.8 GB as one
# pass. Within this bound a pass of that model adds under 1 GB, and a batch of shorter rows
# (8 x 3,200 tokens at 200 entries) is still one pass.
FORWARD_TOKENS = 2 ** 15


def last_positions(logits: torch.Tensor, keep: int, width: int) -> torch.Tensor:
    """The logits (or the hidden states given to the output layer) of the last `keep` of `width`
    input positions, from a forward pass asked for them with `logits_to_keep=keep`: as
    returned, or cut from every position's when the model ignored the request.

    >>> last_positions(torch.arange(5.0)[None, :, None], 2, 5)[0, :, 0].tolist()
    [3.0, 4.0]
    """
    if logits.shape[1] == keep:
        return logits
    if logits.shape[1] == width:
        return logits[:, width - keep:]
    raise RuntimeError(f"hf_fast: asked for the logits of the last {keep} of {width} positions, the model returned "
                       f"{logits.shape[1]}: it does not honour logits_to_keep; use --model hf")


def forward_slices(widths: list[int], most: int) -> list[slice]:
    """Consecutive slices of a batch's rows (their input widths given) whose forward passes,
    each padded to its widest row, hold at most `most` tokens; a row wider than `most` alone.

    >>> forward_slices([10, 9, 8, 3, 3], most=20)
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    >>> forward_slices([30, 5], most=20)
    [slice(0, 1, None), slice(1, 2, None)]
    """
    slices, start, widest = [], 0, 0
    for end, width in enumerate(widths):
        if end > start and (end - start + 1) * max(widest, width) > most:
            slices.append(slice(start, end))
            start, widest = end, 0
        widest = max(widest, width)
    return [*slices, slice(start, len(widths))] if widths else slices


def head_logits(model) -> Callable[[torch.Tensor], torch.Tensor] | None:
    """The function from final hidden states to logits that `model`'s forward applies, in the
    dtype it returns them in (`FLOAT32_LOGITS`), where its architecture is listed in
    `PLAIN_HEAD` or `SOFTCAPPED_HEAD`; None for any other model."""
    model_type = getattr(model.config, "model_type", None)
    head = model.get_output_embeddings()
    if head is None or model_type not in PLAIN_HEAD | SOFTCAPPED_HEAD:
        return None
    cap = getattr(model.config, "final_logit_softcapping", None) if model_type in SOFTCAPPED_HEAD else None
    upcast = model_type in FLOAT32_LOGITS

    def logits(hidden: torch.Tensor) -> torch.Tensor:
        values = head(hidden.to(head.weight.dtype))
        values = values.float() if upcast else values
        return values if cap is None else torch.tanh(values / cap) * cap

    return logits


class HiddenStatesAtHead:
    """While active, a forward pre-hook on a model's output layer that keeps the hidden states
    it is given and passes it none of their positions: the forward computes no logits."""

    def __init__(self, model) -> None:
        self.head = model.get_output_embeddings()
        self.hidden: torch.Tensor | None = None

    def __enter__(self) -> HiddenStatesAtHead:
        self.handle = self.head.register_forward_pre_hook(self._keep)
        return self

    def __exit__(self, *exc) -> None:
        self.handle.remove()

    def _keep(self, module, args):
        if self.hidden is not None or not args:
            raise RuntimeError(f"hf_fast: {type(module).__name__} was called other than once on the hidden states")
        self.hidden = args[0]
        return (args[0][..., :0, :],)


def target_scores(logits_of: Callable[[torch.Tensor], torch.Tensor], inputs: torch.Tensor, targets: torch.Tensor,
                  counts: list[int], chunk: int, softmax_dtype: torch.dtype | None = None) -> list[tuple[float, bool]]:
    """(sum of the log-probabilities of its targets, whether every one is the argmax) of each run
    of `counts` consecutive targets, from the logits `logits_of` gives for `inputs` (one per
    target), `chunk` positions at a time across the runs: the output layer's weights are read
    once a chunk, not once a request (Gemma 3's are 671 MB in float32). The log-softmax, the
    argmax and the sum are taken as `hf` takes them: in `softmax_dtype` (its `softmax_dtype`
    model argument), by default in the logits' own dtype (ties under bfloat16 included).

    >>> logits = torch.log(torch.tensor([[0.5, 0.5], [0.25, 0.75], [0.9, 0.1]]))
    >>> target_scores(lambda x: x, logits, torch.tensor([0, 1, 1]), [2, 1], chunk=2)
    [(-0.9808292388916016, True), (-2.3025851249694824, False)]
    """
    logprobs, greedy = [], []
    for start in range(0, len(targets), chunk):
        values = torch.log_softmax(logits_of(inputs[start:start + chunk]), dim=-1, dtype=softmax_dtype)
        wanted = targets[start:start + chunk]
        logprobs.append(values.gather(1, wanted[:, None])[:, 0])
        greedy.append(values.argmax(-1) == wanted)
    if not logprobs:
        return [(0.0, True)] * len(counts)
    return [(float(part.sum()), bool(hits.all())) for part, hits in
            zip(torch.cat(logprobs).split(counts), torch.cat(greedy).split(counts))]


def shared_rows(rows: list[tuple[int, ...]]) -> list[int]:
    """For each row of tokens, the index of a row that begins with it (its own where no other
    does): a causal model's forward pass over that row computes this row's logits too, so one
    pass serves both (the questions of one `mqar` doc are prefixes of its last).

    >>> shared_rows([(1, 2), (1, 2, 3, 4), (5,), (1, 2, 3)])
    [1, 1, 2, 1]
    """
    order = sorted(range(len(rows)), key=rows.__getitem__)
    carrier = list(range(len(rows)))
    for shorter, longer in zip(reversed(order[:-1]), reversed(order[1:])):
        if rows[longer][:len(rows[shorter])] == rows[shorter]:
            carrier[shorter] = carrier[longer]
    return carrier


def free_memory_bytes(device) -> int:
    """Memory free for new tensors on `device`: the GPU's free memory, or the machine's available
    memory (psutil where installed, else the free pages)."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.mem_get_info(device)[0]
    try:
        import psutil
    except ImportError:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return psutil.virtual_memory().available


def row_bytes(config, tokens: int, element_bytes: int, cache: bool = False) -> int:
    """An upper bound of the memory one row of `tokens` tokens adds to a forward pass: one
    layer's activations at a time (residual stream, attention projections, the MLP's
    intermediate tensors), the attention masks transformers builds for a padded batch (one
    boolean `tokens x tokens` per kind of layer, full and sliding), one block of attention scores
    per query, and with `cache` the keys and values of every layer (generation).

    >>> from types import SimpleNamespace
    >>> row_bytes(SimpleNamespace(hidden_size=8, intermediate_size=16, num_attention_heads=2, num_hidden_layers=3),
    ...           tokens=10, element_bytes=4)
    8520
    """
    hidden = config.hidden_size
    heads = getattr(config, "num_attention_heads", None) or 0
    head_dim = getattr(config, "head_dim", None) or (hidden // heads if heads else 0)
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    intermediate = getattr(config, "intermediate_size", None) or 4 * hidden
    per_token = 8 * hidden + 4 * intermediate + 3 * heads * head_dim + 2 * kv_heads * head_dim
    attention = 2 * tokens * (1 + element_bytes * heads) if heads else 0  # masks, scores of one query block
    kept = 2 * config.num_hidden_layers * kv_heads * head_dim * element_bytes if cache else 0
    return tokens * (per_token * element_bytes + attention + kept)


def batch_size_that_fits(config, tokens: int, element_bytes: int, free: int, vocabulary: int, most: int,
                         cache: bool = False) -> int:
    """The largest batch, 1 to `most`, of rows of `tokens` tokens whose forward pass (`row_bytes`)
    and output-layer chunk (three tensors of `HEAD_CHUNK_LOGITS` float32 logits) fit in
    three quarters of `free` bytes; 1 when even one row does not.

    >>> from types import SimpleNamespace
    >>> shape = SimpleNamespace(hidden_size=8, intermediate_size=16, num_attention_heads=2, num_hidden_layers=3)
    >>> batch_size_that_fits(shape, 10, 4, free=120_000, vocabulary=100, most=64)  # (90,000 - 12,000) // 8,520
    9
    >>> batch_size_that_fits(shape, 10, 4, free=1_000, vocabulary=100, most=64)
    1
    """
    chunk = 3 * 4 * min(HEAD_CHUNK_LOGITS, max(vocabulary, 1) * tokens)
    room = free * 3 // 4 - chunk
    return max(1, min(most, room // row_bytes(config, tokens, element_bytes, cache)))


def _length_order(request) -> tuple:
    """Longest first (as `hf` orders them), so a batch holds requests of similar lengths."""
    tokens = request.context + request.continuation
    return -len(tokens), tuple(tokens)


@register_model("hf_fast")
class FastLoglikelihoodHFLM(scored_tokens_hflm()):
    """lm-eval's HFLM whose token-level loglikelihood computes logits only where continuations are
    scored, and whose `--batch_size auto` is sized from the run's requests."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        use_banded_attention(self.model)
        keep_only_windows(self.model)
        self._warned_of_all_positions = False
        self._logits_of = head_logits(self.model)

    def score_token_requests(self, requests, disable_tqdm: bool = False, override_bs=None):
        requests = [TokenRequest(request) for request in requests]
        if self.batch_size == "auto" and not override_bs and requests:
            longest = max(min(len(request.context) + len(request.continuation), self.max_length + 1)
                          for request in requests)
            override_bs = self._auto_batch_size("loglikelihood", longest - 1, cache=False)
        # Each forwarded request carries, as a fourth item, the indices of the requests it scores.
        carried = [(*requests[index], tuple(group)) for index, group in self._carriers(requests).items()]
        _, chunks = batched(self, carried, _length_order, override_bs)
        answers: list = [None] * len(requests)
        with tqdm(total=len(requests), disable=disable_tqdm or self.rank != 0,
                  desc="Running loglikelihood requests") as progress:
            for chunk in chunks:
                groups = [[requests[index] for index in carrier[3]] for carrier in chunk]
                for carrier, group_answers in zip(chunk, self._score_batch(chunk, groups)):
                    for index, answer in zip(carrier[3], group_answers):
                        answers[index] = answer
                        cache_answer(self, requests[index], answer)
                        progress.update(1)
        return answers

    def _carriers(self, requests) -> dict[int, list[int]]:
        """The requests to run forward passes for, each with the requests its pass scores (itself
        among them): a request whose tokens begin another's is scored from that one's pass
        (`shared_rows`) where the model is causal and neither is cut to the context."""
        whole = [i for i, request in enumerate(requests) if self._is_causal()
                 and len(request.context) + len(request.continuation) <= self.max_length + 1]
        carrier = list(range(len(requests)))
        for i, shared in zip(whole, shared_rows([tuple(requests[i].context + requests[i].continuation)
                                                 for i in whole])):
            carrier[i] = whole[shared]
        groups: dict[int, list[int]] = {}
        for i, j in enumerate(carrier):
            groups.setdefault(j, []).append(i)
        return groups

    def _is_causal(self) -> bool:
        """Whether the model is a causal decoder whose logits at a position depend on the tokens up
        to it alone: an architecture hf_fast knows, without bidirectional attention."""
        return self._logits_of is not None and not getattr(self.model.config, "use_bidirectional_attention", False)

    def generate_until(self, requests, disable_tqdm: bool = False):
        if self.batch_size != "auto" or not requests:
            return super().generate_until(requests, disable_tqdm)
        longest = max(len(self.tok_encode(context)) + int(options.get("max_gen_toks", self.max_gen_toks))
                      for context, options in (request.args for request in requests))
        self.batch_size_per_gpu = self._auto_batch_size("generate_until", min(longest, self.max_length), cache=True)
        try:
            return super().generate_until(requests, disable_tqdm)
        finally:
            self.batch_size_per_gpu = "auto"

    def _auto_batch_size(self, request_type: str, tokens: int, cache: bool) -> int:
        """`batch_size_that_fits` rows of `tokens` tokens on this model and device, logged and
        recorded in `batch_sizes` (lm-eval writes them into the results' config)."""
        config = self.model.config.get_text_config()
        if not all(isinstance(getattr(config, name, None), int) for name in ("hidden_size", "num_hidden_layers")):
            size = 1  # its config does not give the shape the memory bound reads
            log.warning("hf_fast: --batch_size auto: %s's config gives no hidden_size and num_hidden_layers to size a "
                        "batch from; batch 1", type(self.model).__name__)
        else:
            size = batch_size_that_fits(config, tokens, self.model.dtype.itemsize, free_memory_bytes(self.device),
                                        config.vocab_size, self.max_batch_size or 64, cache)
        self.batch_sizes[len(self.batch_sizes)] = size
        log.info("hf_fast: --batch_size auto: %d for %s requests of up to %d tokens", size, request_type, tokens)
        return size

    def _score_batch(self, chunk, groups) -> list[list[tuple[float, bool]]]:
        """(log-probability, is_greedy) of the requests each request of a batch carries (`groups`),
        from forward passes of at most `FORWARD_TOKENS` padded tokens each (`forward_slices`)."""
        rows = [(request.context + request.continuation)[-(self.max_length + 1):] for request in chunk]
        windows = [[(len(row), min(len(row) - 1, len(carrier.continuation)))] if len(group) == 1 else
                   [(len(member.context) + len(member.continuation), len(member.continuation)) for member in group]
                   for carrier, group, row in zip(chunk, groups, rows)]
        return [answers for part in forward_slices([len(row) - 1 for row in rows], FORWARD_TOKENS)
                for answers in self._score_rows(rows[part], windows[part])]

    @torch.no_grad()
    def _score_rows(self, rows: list[list[int]], windows: list[list[tuple[int, int]]]
                    ) -> list[list[tuple[float, bool]]]:
        """(log-probability, is_greedy) of each window (end, count) of each row of tokens, cut to
        the context (as `hf` cuts them): its `count` tokens before `end`, from one forward pass."""
        width = max(len(row) - 1 for row in rows)
        # A window's scored logits sit at input positions [end - 1 - count, end - 1).
        keep = max(width - (end - 1 - count) for row_windows in windows for end, count in row_windows)
        inputs = torch.zeros((len(rows), width), dtype=torch.long)  # padded with token 0, as `hf` pads
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            inputs[i, : len(row) - 1] = torch.tensor(row[:-1])
            mask[i, : len(row) - 1] = 1
        with self._precision():
            if self._logits_of is None:
                kept, logits_of = self._kept_logits(inputs, mask, keep), (lambda logits: logits)
            else:
                kept, logits_of = self._kept_hidden_states(inputs, mask, keep), self._with_precision(self._logits_of)
        positions, targets, counts = [], [], []
        for i, (row, row_windows) in enumerate(zip(rows, windows)):
            for end, count in row_windows:
                start = keep - (width - (end - 1 - count))
                positions.append(kept[i, start: start + count])
                targets.extend(row[end - count: end])
                counts.append(count)
        chunk = max(1, HEAD_CHUNK_LOGITS // self.model.config.get_text_config().vocab_size)
        answers = iter(target_scores(logits_of, torch.cat(positions), torch.tensor(targets, device=kept.device),
                                     counts, chunk, self.softmax_dtype))
        return [[next(answers) for _ in row_windows] for row_windows in windows]

    def _precision(self):
        """`hf`'s autocast of its forward pass: to `mixed_precision_dtype` where given, else none."""
        return torch.autocast(device_type=self.device.type, dtype=self.mixed_precision_dtype,
                              enabled=self.mixed_precision_dtype is not None)

    def _with_precision(self, function: Callable[[torch.Tensor], torch.Tensor]
                        ) -> Callable[[torch.Tensor], torch.Tensor]:
        """`function` run under `_precision`: the output layer hf_fast applies is inside `hf`'s forward."""

        def run(values: torch.Tensor) -> torch.Tensor:
            with self._precision():
                return function(values)

        return run

    def _forward(self, inputs, mask, keep: int):
        """The model's logits at the last `keep` positions. The rows are padded on the right, so
        a causal model's scored positions never see the padding: a known architecture (causal
        decoders all) is given no padding mask, and transformers then builds none per row (for
        16,000 tokens a row's `n x n` masks and their float copies are gigabytes)."""
        return self.model(inputs.to(self.device), attention_mask=None if self._is_causal() else mask.to(self.device),
                          logits_to_keep=keep, use_cache=False).logits

    def _kept_hidden_states(self, inputs, mask, keep: int) -> torch.Tensor:
        """The final hidden states at the last `keep` positions: the forward pass stops at the
        output layer, which computes no logits."""
        with HiddenStatesAtHead(self.model) as at_head:
            logits = self._forward(inputs, mask, keep)
        if at_head.hidden is None or logits.shape[1] != 0:
            raise RuntimeError(f"hf_fast: {type(self.model).__name__} computed logits other than through its output "
                               "layer; use --model hf")
        return last_positions(at_head.hidden, keep, inputs.shape[1])

    def _kept_logits(self, inputs, mask, keep: int) -> torch.Tensor:
        """The logits at the last `keep` positions (`logits_to_keep`), for a model whose output
        layer hf_fast does not apply itself."""
        width = inputs.shape[1]
        logits = self._forward(inputs, mask, keep)
        if keep != logits.shape[1] == width and not self._warned_of_all_positions:
            log.warning("hf_fast: %s ignores logits_to_keep (it returns every position): its logits are read at "
                        "the positions scored, with no saving", type(self.model).__name__)
            self._warned_of_all_positions = True
        return last_positions(logits, keep, width)
