"""The functions our task YAMLs name (`copy_tasks.harness.yaml_functions`): `build_dataset`, called
as lm-eval calls a `custom_dataset` (the YAML's metadata, the user's and the model args, with the
task's `dataset_kwargs`), builds exactly the rows `copy_tasks.probes.task_docs.task_rows` makes;
`process_generation` scores one answer under our rule and the authors'; `process_teacher_forced`
turns lm-eval's `(logprob, is_greedy)` into the teacher-forced metrics."""

from __future__ import annotations

import math
import re

import pytest
import yaml
from conftest import source_options

from copy_tasks.harness import yaml_functions
from copy_tasks.harness.registration import task_config_dir
from copy_tasks.harness.yaml_functions import build_dataset, process_generation, process_teacher_forced
from copy_tasks.probes.families import FAMILIES
from copy_tasks.probes.family import VARIANTS
from copy_tasks.probes.options import OptionError
from copy_tasks.probes.task_docs import task_rows

FUNCTION_LINE = re.compile(r"^(\w+): !function copy_tasks\.harness\.yaml_functions\.(\w+)$", re.MULTILINE)


@pytest.mark.parametrize(("template", "named"), [
    ("_generation_template_yaml", {"custom_dataset": "build_dataset", "process_results": "process_generation"}),
    ("_teacher_forced_template_yaml", {"custom_dataset": "build_dataset",
                                       "process_results": "process_teacher_forced"}),
])
def test_the_shared_templates_name_these_functions(template, named):
    text = (task_config_dir() / template).read_text()
    assert dict(FUNCTION_LINE.findall(text)) == named
    assert all(callable(getattr(yaml_functions, function)) for function in named.values())


def test_a_tasks_dataset_built_as_lm_eval_calls_it_is_the_tasks_rows():
    folder = task_config_dir() / "random_copy"
    template_metadata = yaml.safe_load((folder / "_random_copy_teacher_forced_yaml").read_text())["metadata"]
    dataset_kwargs = yaml.safe_load((folder / "random_copy_tf_10.yaml").read_text())["dataset_kwargs"]
    metadata = template_metadata | {"copy_tasks_docs": 3, "copy_tasks_seed": 99, "pretrained": "some/model"}
    dataset = build_dataset(**metadata, **dataset_kwargs)
    assert list(dataset) == ["test"]
    rows = dataset["test"].to_list()
    assert rows == task_rows("random_copy", 10, "teacher_forced", {"copy_tasks_docs": 3, "copy_tasks_seed": 99})
    assert [(row["family"], row["length"], row["seed"], row["index"]) for row in rows] == [
        ("random_copy", 10, 99, 0), ("random_copy", 10, 99, 1), ("random_copy", 10, 99, 2)]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_familys_rows_come_through_the_dataset_unchanged_in_both_variants(family, local_sources):
    """Arrow would turn a column that mixes ints and floats, or rows with other keys, into other values."""
    metadata = {"copy_tasks_docs": 3} | {f"copy_tasks_{argument}": path
                                         for argument, path in source_options(family, local_sources)}
    length = FAMILIES[family].lengths[0]
    for variant in VARIANTS:
        built = build_dataset(family, length, variant, version=3.1, **metadata)["test"]
        assert built.to_list() == task_rows(family, length, variant, metadata), (family, variant)


def test_a_bad_family_or_variant_is_named_with_what_is_allowed():
    with pytest.raises(KeyError, match="unknown family 'randomcopy'; families are .*random_copy"):
        build_dataset("randomcopy", 10, "generation")
    with pytest.raises(OptionError, match="copy_tasks_variant='scored': allowed are generation, teacher_forced"):
        build_dataset("random_copy", 10, "scored")


COPY_DOC = {"family": "random_copy", "prompt": "c a t s\n\nc a t s\n\nc", "target": " a t s", "continuation": " a t s"}
PHONE_BOOK_DOC = {"family": "phonebook_copy", "prompt": "Ann Lee: 5551234567\nBo Ray: 5559876543\n\nBo Ray:",
                  "target": "5559876543", "continuation": " 5559876543"}


@pytest.mark.parametrize(("doc", "generation", "metrics"), [
    (COPY_DOC, " a t s", (1.0, 1.0, 1.0)),
    (COPY_DOC, " a t s\n\nc a t s", (1.0, 1.0, 1.0)),  # the authors' stop, a blank line, then more
    (COPY_DOC, " a t s a t s", (1.0, 1.0, 0.0)),  # runs on: the authors want the blank line right after
    (COPY_DOC, "c a t s", (1.0, 1.0, 0.0)),  # restates the prompt's last line first: ours reads past it
    (COPY_DOC, " a x s", (0.0, 1 / 3, 0.0)),  # one of three words right before the first error
    (COPY_DOC, "", (0.0, 0.0, 0.0)),
    (PHONE_BOOK_DOC, " 5559876543", (1.0, 1.0, 1.0)),
    (PHONE_BOOK_DOC, " 5559876543 and so on", (1.0, 1.0, 0.0)),  # the authors want nothing after the number
    (PHONE_BOOK_DOC, "Bo Ray: 5559876543", (1.0, 1.0, 0.0)),
    (PHONE_BOOK_DOC, " 5559800000", (0.0, 0.5, 0.0)),  # five leading digits of ten right
    (PHONE_BOOK_DOC, " 5551234567", (0.0, 0.3, 0.0)),  # Ann's number: "555" is right
])
def test_a_generation_is_scored_by_the_docs_family_under_both_rules(doc, generation, metrics):
    exact_match, prefix_match, authors_exact_match = metrics
    assert process_generation(doc, [generation]) == {"exact_match": exact_match,
                                                     "prefix_match": pytest.approx(prefix_match),
                                                     "authors_exact_match": authors_exact_match}


def test_a_generation_of_an_unknown_family_names_it():
    with pytest.raises(KeyError, match="unknown family 'no_such_family'"):
        process_generation(COPY_DOC | {"family": "no_such_family"}, [" a t s"])


def test_a_teacher_forced_continuation_scores_its_greedy_flag_logprob_and_bits_per_character():
    doc = {"family": "random_copy", "continuation": " abcd"}  # 5 characters
    assert process_teacher_forced(doc, [(-10 * math.log(2), False)]) == {
        "exact_match": 0.0, "logprob": pytest.approx(-6.931471805599453), "bits_per_char": pytest.approx(2.0)}
    assert process_teacher_forced(doc, [(0.0, True)]) == {"exact_match": 1.0, "logprob": 0.0, "bits_per_char": 0.0}


def test_a_teacher_forced_result_that_is_no_log_probability_is_named():
    with pytest.raises(ValueError, match=r"logprob=0\.5 is not a log-probability"):
        process_teacher_forced({"family": "random_copy", "continuation": " abcd"}, [(0.5, True)])
