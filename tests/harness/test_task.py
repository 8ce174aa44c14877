"""lm-eval's generic checks of a task (those of the `TestBaseTasks` class in lm-eval's own
tests/test_tasks.py, written here in our words) on every task we ship: it downloads (twice),
declares its splits, builds texts and targets, and builds its requests, sharded or not."""

from __future__ import annotations

import logging
from itertools import islice
from pathlib import Path

import pytest

import copy_tasks
from copy_tasks.harness.lm_eval_internals import construct_requests_keywords, task_index_of, task_logger
from copy_tasks.harness.registration import task_config_dir

LIMIT = 10


def shipped_task_names(manager) -> list[str]:
    ours = task_config_dir().resolve()
    return sorted(name for name, entry in task_index_of(manager).items()
                  if entry.yaml_path and ours in Path(entry.yaml_path).resolve().parents
                  and name[-1].isdigit())


@pytest.fixture(scope="module")
def tasks(local_sources):
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    metadata = {"copy_tasks_docs": 12, "copy_tasks_text_source": local_sources["text_source"],
                "copy_tasks_squad_source": local_sources["squad_source"]}
    manager = copy_tasks.task_manager(metadata=metadata)
    names = shipped_task_names(manager)
    return manager.load(names)["tasks"]


def test_every_shipped_task_is_checked(tasks):
    assert len(tasks) == 176  # 88 lengths over 12 families, generation and teacher-forced


def test_generic_task_checks(tasks):
    # Last loaded first: the docs of the tasks loaded last are still in `generate_docs`' cache
    # (its last 64 doc sets, the passkey's among them), which the second download reads as the
    # first made them; in load order each one was evicted before its turn.
    for name, task in reversed(tasks.items()):
        task.download()  # a second download: the task's own recorded metadata must not break it
        assert task.dataset is not None, name
        for split in ("training", "validation", "test"):
            has = getattr(task, f"has_{split}_docs")()
            assert has in (True, False), name
            if has:
                assert getattr(task.config, f"{split}_split") is not None, name
        if hasattr(task, "should_decontaminate"):  # lm-eval 0.4 (0.5 has no decontamination)
            assert task.should_decontaminate() in (True, False)
            if task.should_decontaminate():
                assert task.config.doc_to_decontamination_query is not None, name
        docs = list(islice(task.test_docs(), LIMIT))
        texts = [task.doc_to_text(doc) for doc in docs]
        assert all(isinstance(text, str) and text for text in texts), name
        if task.config.target_delimiter.isspace():
            assert not any(text[-1].isspace() for text in texts), name
        assert all(isinstance(task.doc_to_target(doc), str) for doc in docs), name
        task.build_all_requests(rank=1, limit=LIMIT, world_size=1)
        assert task.instances, name
        requests = [task.construct_requests(doc=doc, ctx=text, **construct_requests_keywords(name, i))
                    for i, (doc, text) in enumerate(zip(docs, texts))]
        assert len(requests) == len(docs) == min(LIMIT, len(task.test_docs())), name


def test_lm_evals_ruler_hint_is_dropped_for_our_tasks_and_kept_for_others():
    """lm-eval's `Task.download` logs "For example --metadata='{"max_seq_lengths":...}'" for every
    task whose dataset is a function; ours name other options, so it is dropped for them alone."""
    from lm_eval.api.task import ConfigurableTask
    from lm_eval.tasks import TaskManager

    # lm-eval's own logging set-up (and this module's fixture) may raise the level or stop
    # propagation: listen on the task logger itself, at WARNING
    logger, messages = task_logger(), []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: messages.append(record.getMessage())
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    try:
        TaskManager().load_task_or_group(["random_copy_10"])
        ours = "\n".join(messages)
        messages.clear()
        hint_for_another_task(ConfigurableTask)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert "max_seq_lengths" not in ours
    others = "\n".join(messages)
    assert others.count("max_seq_lengths") == 1 and "another_suites_task: Custom kwargs" in others


def hint_for_another_task(task_class) -> None:
    """Make a task of another suite whose dataset is a function, as RULER's are."""

    def three_docs(**_):
        import datasets

        return {"test": datasets.Dataset.from_list([{"q": "a", "a": "b"}] * 3)}

    task = task_class(config={"task": "another_suites_task", "custom_dataset": three_docs, "test_split": "test",
                              "doc_to_text": "q", "doc_to_target": "a", "output_type": "generate_until"})
    task.test_docs()  # lm-eval 0.4 loads the docs as it makes the task, 0.5 when they are first read
