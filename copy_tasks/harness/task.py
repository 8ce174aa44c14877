"""Our lm-eval task class: a `ConfigurableTask` that budgets each doc and sees what the backend cuts.

- Budgets. lm-eval gives every doc of a task the same `max_gen_toks`; ours carry their own
  (`generation_budget`, from `copy_tasks.probes.budgets`), raised to the user's `--gen_kwargs
  max_gen_toks=N` where that is larger, then fitted to the room the prompt leaves in the
  context of the backend that runs the task, so that no budget makes a backend cut a prompt or
  refuse a request. This class puts each into its request; the budgets really sent are recorded.
- Stops. On lm-eval's `hf` backend each generation's row ends on its own once it holds what
  both of its family's rules read (`copy_tasks.harness.answer_stops`), verdicts unchanged.
- Overflow. The registration hook hands the task the model object that will run it
  (`bind_model`) before lm-eval builds the requests; each request's context (the exact text
  lm-eval sends, chat template included) is counted as that backend encodes it against the
  context it keeps (`copy_tasks.harness.backend_limits`). A doc the backend would cut reports only
  `overflow` = 1, never a score, and generates one token; a task's metrics are over the docs
  that fit (NaN when none does: `copy_tasks.harness.complete_results`); when that cannot be
  known, `overflow` is NaN and one warning says why. A doc fits when the room its prompt leaves
  holds its answer in the model's tokens plus a 2-token margin.
- Chat. Under `--apply_chat_template` each doc is put as its family's chat form
  (`copy_tasks.probes.chat`): the instruction and the start of the prompt in the user's turn,
  its end (at least its last line, the answer's given start) as the assistant's prefill
  (lm-eval's `gen_prefix`), so the model continues from it; without a template the prompt is
  the doc's own.
- Request cache. lm-eval's `--cache_requests` is keyed on our docs' fingerprint, the docs
  `--samples` chooses, the prompt form, the context and the generation arguments (`--gen_kwargs`)
  as well, and requests read from it are checked against the docs this run scores (each has its
  requests, each built from the doc it is scored against) and its prompts (under a chat template
  or system instruction, against the requests built as without the cache), so a request built
  from other docs, another template or decoding is never sent: such a run is refused in one line.
- Records. A fingerprint of the docs, the overflow count over the docs that ran (or
  `unknown`; under data parallelism, over every rank's docs), the context and where it came
  from, the budgets, the model's `model_type` and PyPI source go into the task's metadata,
  which lm-eval writes to the results file under `configs.<task>.metadata`; the leaderboard
  reads them from there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from functools import partial

from lm_eval.api.task import ConfigurableTask

from copy_tasks.common.version import __version__
from copy_tasks.harness.answer_stops import register_rows
from copy_tasks.harness.backend_limits import BackendLimits, backend_limits, log, warn_once
from copy_tasks.harness.batch_invariance import run_rows_apart
from copy_tasks.harness.lm_eval_internals import (
    build_all_requests_arguments,
    built_requests,
    metric_name,
    metrics_scored_by_the_task,
    model_of_running_evaluate,
    only_request,
    request_cache_keyed_on,
    request_for_question,
    task_class_for,
    without_custom_dataset_hint,
    without_request_cache,
)
from copy_tasks.harness.model_info import model_type_of, positions_of, prepared_source
from copy_tasks.harness.state_size import architecture_label, memory_of
from copy_tasks.probes.decoding import non_greedy
from copy_tasks.probes.families import family_named
from copy_tasks.probes.options import Recorded, UserError
from copy_tasks.probes.task_docs import docs_fingerprint

NOT_BOUND = BackendLimits(None, None, "", unknown=(
    "copy-tasks did not see the model object that runs its tasks (lm-eval's evaluate was not "
    "patched, or requests came from lm-eval's request cache), so it cannot tell which prompts "
    "are cut"))


def ranks_without_scores(shards: list[dict[int, float]]) -> list[int]:
    """The ranks whose docs (index -> overflow) are all cut while another rank has one that is
    scored: such a rank reports only `overflow`, and lm-eval (0.4.13) gathers the ranks' metrics
    by the names rank 0 reports, so it drops the others' scores or fails on a missing name.

    >>> ranks_without_scores([{0: 1.0, 2: 1.0}, {1: 0.0}]), ranks_without_scores([{0: 1.0}, {1: 1.0}])
    ([0], [])
    """
    scored = [any(value != 1.0 for value in shard.values()) for shard in shards]
    return [rank for rank, has_score in enumerate(scored) if not has_score] if any(scored) else []


@contextlib.contextmanager
def template_errors_explained(task: str):
    """A chat template's refusal (jinja2's `TemplateError`, as `raise_exception` in a template
    raises it) becomes a UserError saying what our chat form needs."""
    try:
        yield
    except Exception as error:
        if type(error).__name__ != "TemplateError" or not type(error).__module__.startswith("jinja2"):
            raise
        raise UserError(f"{task}: the model's chat template refuses the chat our task sends ({error}): under "
                        "--apply_chat_template a doc is a user turn and an assistant prefill that the model "
                        "continues (lm-eval's gen_prefix), and this template does not allow a conversation to end "
                        "with an assistant message. Run without --apply_chat_template, or give a template that "
                        "allows the prefill") from None


def question_arguments(arguments: tuple, doc: dict, question: dict) -> tuple:
    """A request's arguments for one question of `doc`: the context extended by what the
    question's prompt adds to the doc's; a loglikelihood request scores the question's
    continuation, a generation request gets its own copy of the generation arguments.

    >>> doc = {"prompt": "ab: 1\\n\\nab:"}
    >>> question_arguments(("<user>ab:", " 1"), doc, {"prompt": "ab: 1\\n\\nab: 1\\ncd:", "continuation": " 2"})
    ('<user>ab: 1\\ncd:', ' 2')
    """
    if not question["prompt"].startswith(doc["prompt"]):
        raise ValueError("a question's prompt must extend its doc's prompt")
    context = arguments[0] + question["prompt"][len(doc["prompt"]):]
    if isinstance(arguments[1], dict):
        return (context, dict(arguments[1]), *arguments[2:])
    return (context, question["continuation"], *arguments[2:])


def worse_overflow(one: float, other: float) -> float:
    """A doc's overflow from two of its requests': 1 if either is cut, else unknown (NaN) if
    either is, else 0.

    >>> worse_overflow(0.0, 1.0), worse_overflow(float("nan"), 0.0), worse_overflow(float("nan"), 1.0)
    (1.0, nan, 1.0)
    """
    if 1.0 in (one, other):
        return 1.0
    return math.nan if math.isnan(one) or math.isnan(other) else 0.0


def request_signature(request) -> str:
    """What a request sends: its context and its generation arguments (the budget aside, which
    is fitted to the run's model) or its continuation, as JSON."""
    context, second = request.arguments[0], request.arguments[1]
    if isinstance(second, dict):
        second = {key: value for key, value in second.items() if key != "max_gen_toks"}
    return json.dumps([context, second], sort_keys=True, default=str)


class CopyTask(ConfigurableTask):
    """Named by `class: !function copy_tasks.harness.task.CopyTask` in our task templates."""

    chat = False  # whether lm-eval applies a chat template (set when it builds the requests)

    def __new__(cls, config: dict | None = None, **kwargs):
        # lm-eval 0.5 builds requests in one task class per output type: ours becomes a subclass of it.
        return super().__new__(task_class_for(cls, (config or {}).get("output_type")))

    def __init__(self, config: dict | None = None, **kwargs) -> None:
        config = {key: value for key, value in (config or {}).items() if key != "class"}
        if "metric_list" in config:
            config["metric_list"] = metrics_scored_by_the_task(config["metric_list"])
        super().__init__(config=config, **kwargs)
        self.limits = NOT_BOUND
        self.register_row = None  # registers a generation's context and its row's rule (`answer_stops`)
        self.overflow: dict[int, float] = {}  # doc index -> 1.0, 0.0 or NaN
        self.budgets: set[int] = set()
        self.prompt_tokens: dict[int, int] = {}  # doc index -> its prompt in the backend's tokens
        self.config.metadata.update({
            Recorded.VERSION: __version__,
            Recorded.DOCS_SHA256: docs_fingerprint(self.test_docs()),
            Recorded.MODEL_SOURCE: prepared_source(self.config.metadata.get("pretrained")),
        })

    def download(self, *args, **kwargs) -> None:
        """lm-eval's, without its hint about RULER's `--metadata` keys (wrong for our tasks:
        `copy-tasks list` and each family's README name our options)."""
        without_custom_dataset_hint(self.config.task, lambda: super(CopyTask, self).download(*args, **kwargs))

    def bind_model(self, lm) -> None:
        """Learn what the model that will run this task keeps of a prompt (before requests)."""
        self.limits = backend_limits(lm)
        self.register_row = register_rows(lm)
        self.overflow, self.budgets, self.prompt_tokens = {}, set(), {}
        memory, model_type, positions = memory_of(lm), model_type_of(lm), positions_of(lm)
        self.config.metadata.update({
            Recorded.MODEL_TYPE: model_type, Recorded.POSITIONS: positions,
            Recorded.STATE_BITS: None if memory is None else memory.state_bits,
            Recorded.STATE_BITS_PER_TOKEN: None if memory is None else memory.bits_per_token,
            Recorded.ARCHITECTURE: architecture_label(memory, model_type, positions),
            Recorded.BATCH_ONE: run_rows_apart(lm)})

    def metric_names(self) -> list[str]:
        """The metrics this task reports (its YAML's metric_list)."""
        return [metric_name(entry) for entry in self.config.metric_list]

    def user_max_gen_toks(self) -> int:
        """The user's `--gen_kwargs max_gen_toks`, or 0 (our templates set none)."""
        return int((self.config.generation_kwargs or {}).get("max_gen_toks") or 0)

    def doc_to_text(self, doc, doc_to_text=None):
        """The prompt: the doc's own, or under a chat template the user's turn of its chat form."""
        if self.chat and doc_to_text is None:
            return family_named(doc["family"]).chat_form(doc).user
        return super().doc_to_text(doc, doc_to_text)

    def doc_to_target(self, doc, doc_to_target=None):
        """The doc's answer as its text (its field named by the YAML's `doc_to_target`): lm-eval 0.5
        turns a target of digits into an int (a phone number's leading zeros gone, in the samples)."""
        if doc_to_target is None and isinstance(field := self.config.doc_to_target, str) and field in doc:
            return doc[field]
        return super().doc_to_target(doc, doc_to_target)

    def doc_to_prefix(self, doc):
        """The assistant's prefill under a chat template (the end of the prompt); none without
        (our templates set no `gen_prefix`)."""
        return family_named(doc["family"]).chat_form(doc).prefill if self.chat else None

    def fewshot_context(self, doc, *args, **kwargs):
        """lm-eval's prompt with our prefill (`doc_to_prefix`) as its `gen_prefix`: 0.4 asks
        `doc_to_prefix` for it, 0.5 reads the config's `gen_prefix` alone (none in ours)."""
        return super().fewshot_context(doc, *args, **{**kwargs, "gen_prefix": self.doc_to_prefix(doc)})

    def construct_requests(self, doc: dict, ctx: str, **kwargs):
        """lm-eval's request, fitted; a doc of several questions (`Family.queries`) makes one
        request per question, whose context is lm-eval's with what the question's prompt adds
        to the doc's (under a chat template, in the assistant's turn after the prefill)."""
        request = only_request(super().construct_requests(doc, ctx, **kwargs))
        requests = [request]
        if (family := family_named(doc["family"])).queries is not None:
            requests = [request_for_question(request, question_arguments(request.arguments, doc, question), i)
                        for i, question in enumerate(family.request_docs(doc))]
        for one in requests:
            self.fit_request(one)
        return requests if family.queries is not None else request

    def fit_request(self, request) -> None:
        """Set a request's budget (generation) and record whether its doc overflows (any of its
        requests), and its prompt's length in the backend's tokens (its longest request); a
        greedy generation's row is registered to end once it holds its answer (`answer_stops`)."""
        doc, ctx = request.doc, request.arguments[0]
        family = family_named(doc["family"])
        question = family.request_docs(doc)[request.idx]
        index = doc["index"]
        if (tokens := self.limits.tokens(ctx)) is not None:
            self.prompt_tokens[index] = max(tokens, self.prompt_tokens.get(index, 0))
        if self.OUTPUT_TYPE == "generate_until":
            asked = self.user_max_gen_toks()
            if 0 < asked < int(doc["generation_budget"]):
                warn_once(f"--gen_kwargs max_gen_toks={asked} is less than {self.config.task}'s answers may take: "
                          "each doc's own budget is used (its answer in any segmentation), so that no right answer "
                          "is cut; a larger max_gen_toks raises it")
            generous = max(int(doc["generation_budget"]), asked)
            budget, overflow = self.limits.fit_generation(ctx, family.answers(question), generous)
            request.arguments[1]["max_gen_toks"] = budget
            self.budgets.add(budget)
            # Greedy decoding only: a sampled row that stopped early would draw fewer random numbers, and
            # change what later rows draw (lm-eval's sampling runs as lm-eval runs it).
            if self.register_row is not None and family.our_reading_settled is not None \
                    and not non_greedy(request.arguments[1]):
                self.register_row(ctx, partial(family.answer_settled, doc=question))
        else:
            overflow = self.limits.overflows(ctx, question["continuation"])
        self.overflow[index] = worse_overflow(self.overflow.get(index, 0.0), overflow) if request.idx else overflow

    def request_cache_tag(self, samples: list[int] | None = None) -> str:
        """What our requests depend on beyond what lm-eval keys its request cache on: the docs
        (seed, count, options), the docs chosen by `--samples` (lm-eval numbers the chosen docs
        0, 1, ... in its requests, so a full run's requests are not theirs, nor theirs a full
        run's), the context that fits their budgets, the user's max_gen_toks, the prompt form
        (plain or chat), the generation arguments (`--gen_kwargs`) and the task and package versions."""
        key = [self.config.metadata[Recorded.DOCS_SHA256], sorted(set(samples)) if samples is not None else None,
               self.limits.context, self.limits.source, self.user_max_gen_toks(), self.chat, self.VERSION,
               __version__, json.dumps(self.config.generation_kwargs or {}, sort_keys=True, default=str)]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]

    def build_all_requests(self, *args, **kwargs) -> None:
        """lm-eval's, with its request cache (`--cache_requests`) keyed on our docs too: lm-eval
        keys it on the task's name and settings only, so a run with another seed would pair
        the old prompts' answers with the new docs. Requests read from the cache are fitted to
        this run's model as built ones are, after a check that each is this run's doc."""
        run = build_all_requests_arguments(kwargs)
        self.chat = bool(run.apply_chat_template)
        if self.limits is NOT_BOUND and (lm := model_of_running_evaluate()) is not None:
            self.bind_model(lm)  # the start-up hook is off: our evaluate patch did not run
        self.record_run_settings(run.limit, run.samples)
        built = None
        if run.cache_requests:
            kwargs = request_cache_keyed_on(kwargs, self.request_cache_tag(run.samples))
            if run.apply_chat_template or run.system_instruction:
                # The prompt then depends on a template or instruction the cache key does not hold: what
                # this run sends, built as without the cache, is what the cached requests must equal.
                with template_errors_explained(self.config.task):
                    super().build_all_requests(*args, **without_request_cache(kwargs))
                built = {(request.doc_id, request.idx): request_signature(request) for request in built_requests(self)}
                self.overflow, self.budgets, self.prompt_tokens = {}, set(), {}
        with template_errors_explained(self.config.task):
            super().build_all_requests(*args, **kwargs)
        if not self.overflow:  # lm-eval took the requests from its cache: construct_requests did not run
            self.check_cached_requests(self.docs_scored(run.limit, run.samples, run.rank, run.world_size), built)
            for request in built_requests(self):
                self.fit_request(request)
        self.record_system_instruction(run.system_instruction)
        self.share_between_ranks(run.world_size or 1)
        self.record_overflow(log_it=not run.rank)

    def record_system_instruction(self, instruction: str | None) -> None:
        """Record whether lm-eval's `--system_instruction` is in the prompts really sent: a chat
        template without a system role drops it (lm-eval only warns), and then the results must
        not say the model saw it."""
        if not instruction:
            return
        requests = built_requests(self)
        sent = bool(requests) and all(instruction in str(request.arguments[0]) for request in requests)
        self.config.metadata[Recorded.SYSTEM_INSTRUCTION_SENT] = sent
        if not sent:
            warn_once(f"{self.config.task}: --system_instruction is not in the prompts sent (the chat template "
                      "has no system role and dropped it): the results say so, and the leaderboard flags "
                      "system_instruction_dropped.")

    def record_run_settings(self, limit, samples) -> None:
        """Record what lm-eval was asked that changes what this task's numbers mean (the docs
        scored, the prompt form, the decoding), and warn when decoding is not greedy."""
        self.config.metadata.update({
            Recorded.PROMPT_FORMAT: "chat" if self.chat else "plain",
            Recorded.LIMIT: limit,
            Recorded.SAMPLES: list(samples) if samples is not None else None,
        })
        if self.OUTPUT_TYPE == "generate_until" and (changed := non_greedy(self.config.generation_kwargs or {})):
            warn_once(f"--gen_kwargs {json.dumps(changed, sort_keys=True)} replaces the greedy decoding our tasks "
                      "are defined with (the paper's protocol): scores are not comparable with greedy runs, and "
                      "the leaderboard flags them not_greedy.")

    def docs_scored(self, limit=None, samples=None, rank=0, world_size=1) -> dict[int, dict]:
        """Doc id -> doc, as lm-eval's evaluate pairs this run's requests with docs (under
        `--samples` the chosen docs are numbered 0, 1, ... in the order of the task's docs)."""
        return dict(self.doc_iterator(rank=rank or 0, limit=limit, world_size=world_size or 1, samples=samples))

    def check_cached_requests(self, scored: dict[int, dict], built: dict | None = None) -> None:
        """Refuse requests from lm-eval's request cache that are not those of the docs this run
        scores (`scored`: doc id -> doc, `docs_scored`): a doc without requests, a request built
        from another doc than the one its id is scored against, or whose prompt is not the one
        this run sends: the doc's prompt in a plain run, or under a chat template or system
        instruction the request built without the cache (`built`: doc id and request index ->
        `request_signature`, generation arguments included)."""
        requests = built_requests(self)
        if missing := sorted(set(scored) - {request.doc_id for request in requests}):
            raise UserError(
                f"{self.config.task}: lm-eval's request cache (--cache_requests) holds no request for doc id(s) "
                f"{', '.join(map(str, missing[:5]))}{', ...' if len(missing) > 5 else ''} of the {len(scored)} this "
                "run scores (a cache written by a run of other docs, e.g. one with --samples before copy-tasks kept "
                "such runs apart); rerun with --cache_requests refresh (or delete lm-eval's cache folder, "
                "LM_HARNESS_CACHE_PATH).")
        for request in requests:
            index = request.doc_id
            doc = scored.get(index)
            if doc is None:
                continue  # a doc lm-eval sends but does not score (its cache holds a rank's docs beyond --limit)
            if request.doc != doc:
                raise UserError(
                    f"{self.config.task}: lm-eval's request cache (--cache_requests) holds a request "
                    f"for doc {index} that was built from another doc; rerun with --cache_requests refresh (or "
                    "delete lm-eval's cache folder, LM_HARNESS_CACHE_PATH) so that no answer is scored against "
                    "another doc.")
            sent = request_signature(request) if built is not None else request.arguments[0]
            questions = family_named(doc["family"]).request_docs(doc)
            plain = questions[request.idx]["prompt"] if request.idx < len(questions) else None
            if sent != (built.get((index, request.idx)) if built is not None else plain):
                raise UserError(
                    f"{self.config.task}: lm-eval's request cache (--cache_requests) holds a request for doc "
                    f"{index} whose prompt or generation arguments differ from what this run sends (a chat "
                    "template edited in place, or a cache changed by hand); rerun with --cache_requests refresh "
                    "(or delete lm-eval's cache folder, LM_HARNESS_CACHE_PATH).")

    def share_between_ranks(self, world_size: int) -> None:
        """Under data parallelism (`accelerate launch`, lm-eval's `world_size` > 1) each rank
        builds the requests of its shard of the docs only: every rank gets every rank's overflow
        and budgets, so the results record them over all docs, and every rank refuses a sharding
        whose metrics lm-eval cannot gather (`ranks_without_scores`)."""
        if world_size <= 1:
            return
        import torch.distributed

        shards: list = [None] * world_size
        torch.distributed.all_gather_object(shards, (self.overflow, self.budgets, self.prompt_tokens))
        if unscored := ranks_without_scores([overflow for overflow, _, _ in shards]):
            raise UserError(
                f"{self.config.task}: under {world_size} processes, rank(s) {', '.join(map(str, unscored))} hold "
                "no doc that fits the context while other ranks do; lm-eval gathers the ranks' metrics under the "
                "names rank 0 reports, so it would drop scores or fail. Run this task in one process (or fewer), "
                "or with a larger max_length.")
        self.overflow = {index: value for overflow, _, _ in shards for index, value in overflow.items()}
        self.budgets = set().union(*(budgets for _, budgets, _ in shards))
        self.prompt_tokens = {index: value for _, _, tokens in shards for index, value in tokens.items()}

    def record_overflow(self, log_it: bool = True) -> None:
        """Write the overflow count and budgets of the requests built, and warn about them
        (where `log_it`: on rank 0 only under data parallelism)."""
        values = list(self.overflow.values())
        unknown = any(math.isnan(value) for value in values)
        over = sum(value == 1.0 for value in values)
        self.config.metadata.update({
            Recorded.OVERFLOW_DOCS: "unknown" if unknown else over,
            Recorded.CONTEXT_TOKENS: self.limits.context,
            Recorded.CONTEXT_SOURCE: self.limits.source,
            Recorded.GENERATION_BUDGETS: sorted(self.budgets) or None,
            Recorded.PROMPT_TOKENS_MEAN: (sum(self.prompt_tokens.values()) / len(self.prompt_tokens)
                                          if self.prompt_tokens else None),
            Recorded.PROMPT_TOKENS_MAX: max(self.prompt_tokens.values(), default=None),
        })
        if not log_it:
            return
        if unknown:
            warn_once(f"overflow is unknown (NaN) for every task of this run: {self.limits.unknown}.")
        elif over:
            log.warning(
                "copy-tasks: %s: %d of %d docs do not fit the context of %d tokens (%s): their prompt and "
                "answer are longer, so they report overflow=1 and no score. Fix: a larger "
                "max_length in --model_args if the model can read that far, or leave out this length.",
                self.config.task, over, len(values), self.limits.context, self.limits.source)

    def process_results(self, doc: dict, results):
        overflow = self.overflow.get(doc["index"], math.nan)
        if overflow == 1.0:
            return {"overflow": 1.0}
        return {**super().process_results(doc, results), "overflow": overflow}
