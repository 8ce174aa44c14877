"""Our lm-eval task class: a `ConfigurableTask` that budgets each doc and sees what the backend cuts.

- Budgets. lm-eval gives every doc of a task the same `max_gen_toks`; ours carry their own
  (`generation_budget`, from `copy_tasks.probes.budgets`), raised to the user's `--gen_kwargs
  max_gen_toks=N` where that is larger, then fitted to the room the prompt leaves in the
  context of the backend that runs the task, so that no budget makes a backend cut a prompt or
  refuse a request. This class puts each into its request; the budgets really sent are recorded.
- Overflow. The registration hook hands the task the model object that will run it
  (`bind_model`) before lm-eval builds the requests; each request's context (the exact text
  lm-eval sends, chat template included) is counted as that backend encodes it against the
  context it keeps (`copy_tasks.harness.backend_limits`). A doc the backend would cut reports only
  `overflow` = 1, never a score, and generates one token; a task's metrics are over the docs
  that fit (NaN when none does: `copy_tasks.harness.complete_results`); when that cannot be
  known, `overflow` is NaN and one warning says why. A doc fits when the room its prompt leaves
  holds its answer in the model's tokens plus a 2-token margin.
- Request cache. lm-eval's `--cache_requests` is keyed on our docs' fingerprint and the
  context as well, so a request built from other docs is never paired with these.
- Records. A fingerprint of the docs, the overflow count over the docs that ran (or
  `unknown`), the context and where it came from, the budgets, the model's `model_type` and
  PyPI source go into the task's metadata, which lm-eval writes to the results file under
  `configs.<task>.metadata`; the leaderboard reads them from there.
"""

from __future__ import annotations

import hashlib
import json
import math

from lm_eval.api.task import ConfigurableTask

from copy_tasks import __version__
from copy_tasks.harness.backend_limits import BackendLimits, backend_limits, log, warn_once
from copy_tasks.harness.model_info import model_type_of, prepared_source
from copy_tasks.probes.families import family_named

NOT_BOUND = BackendLimits(None, None, "", unknown=(
    "copy-tasks did not see the model object that runs its tasks (lm-eval's evaluate was not "
    "patched, or requests came from lm-eval's request cache), so it cannot tell which prompts "
    "are cut"))


def docs_fingerprint(docs) -> str:
    """sha256 over the prompts, targets and teacher-forced continuations of the docs, in order."""
    digest = hashlib.sha256()
    for doc in docs:
        digest.update(json.dumps([doc["prompt"], doc["target"], doc["continuation"]]).encode())
    return digest.hexdigest()


class CopyTask(ConfigurableTask):
    """Named by `class: !function copy_tasks.harness.task.CopyTask` in our task templates."""

    def __init__(self, config: dict | None = None, **kwargs) -> None:
        config = {key: value for key, value in (config or {}).items() if key != "class"}
        super().__init__(config=config, **kwargs)
        self.limits = NOT_BOUND
        self.overflow: dict[int, float] = {}  # doc index -> 1.0, 0.0 or NaN
        self.budgets: set[int] = set()
        self.config.metadata.update(
            copy_tasks_version=__version__,
            copy_tasks_docs_sha256=docs_fingerprint(self.test_docs()),
            copy_tasks_model_source=prepared_source(self.config.metadata.get("pretrained")),
        )

    def bind_model(self, lm) -> None:
        """Learn what the model that will run this task keeps of a prompt (before requests)."""
        self.limits = backend_limits(lm)
        self.overflow, self.budgets = {}, set()
        self.config.metadata.update(copy_tasks_model_type=model_type_of(lm))

    def metric_names(self) -> list[str]:
        """The metrics this task reports (its YAML's metric_list)."""
        return [entry["metric"] for entry in self.config.metric_list]

    def user_max_gen_toks(self) -> int:
        """The user's `--gen_kwargs max_gen_toks`, or 0 (our templates set none)."""
        return int((self.config.generation_kwargs or {}).get("max_gen_toks") or 0)

    def construct_requests(self, doc: dict, ctx: str, **kwargs):
        request = super().construct_requests(doc, ctx, **kwargs)
        self.fit_request(request)
        return request

    def fit_request(self, request) -> None:
        """Set a request's budget (generation) and record whether its doc overflows."""
        doc, ctx = request.doc, request.arguments[0]
        if self.OUTPUT_TYPE == "generate_until":
            generous = max(int(doc["generation_budget"]), self.user_max_gen_toks())
            answers = family_named(doc["family"]).answers(doc)
            budget, self.overflow[doc["index"]] = self.limits.fit_generation(ctx, answers, generous)
            request.arguments[1]["max_gen_toks"] = budget
            self.budgets.add(budget)
        else:
            self.overflow[doc["index"]] = self.limits.overflows(ctx, doc["continuation"])

    def request_cache_tag(self) -> str:
        """What our requests depend on beyond what lm-eval keys its request cache on: the docs
        (seed, count, options) and the context that fits their budgets."""
        key = [self.config.metadata["copy_tasks_docs_sha256"], self.limits.context, self.limits.source,
               self.user_max_gen_toks()]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]

    def build_all_requests(self, *args, **kwargs) -> None:
        """lm-eval's, with its request cache (`--cache_requests`) keyed on our docs too: lm-eval
        keys it on the task's name and settings only, so a run with another seed would pair
        the old prompts' answers with the new docs. Requests read from the cache are fitted to
        this run's model as built ones are."""
        if kwargs.get("cache_requests"):
            kwargs["tokenizer_name"] = f"{kwargs.get('tokenizer_name') or ''}-copy_tasks-{self.request_cache_tag()}"
        super().build_all_requests(*args, **kwargs)
        if not self.overflow:  # lm-eval took the requests from its cache: construct_requests did not run
            for request in self._instances:
                self.fit_request(request)
        self.record_overflow()

    def record_overflow(self) -> None:
        """Write the overflow count and budgets of the requests built, and warn about them."""
        values = list(self.overflow.values())
        unknown = any(math.isnan(value) for value in values)
        over = sum(value == 1.0 for value in values)
        self.config.metadata.update(
            copy_tasks_overflow_docs="unknown" if unknown else over,
            copy_tasks_context_tokens=self.limits.context,
            copy_tasks_context_source=self.limits.source,
            copy_tasks_generation_budgets=sorted(self.budgets) or None,
        )
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
