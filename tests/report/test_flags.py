"""A row's flags (`copy_tasks.report.flags`): written from a results file, read back as setting and
task flags."""

from __future__ import annotations

from copy_tasks.report.flags import flags_of, split_flags


def test_flags_written_from_a_run_and_split_back():
    config = {"limit": 3, "gen_kwargs": "max_gen_toks=64,temperature=0.7"}
    metadata = {"copy_tasks_generation_budgets": [100], "copy_tasks_copy_format": "paper"}
    flags = flags_of({"chat_template": "{{ x }}"}, config, 2, metadata, "random_copy")
    assert flags == ('limit=3;max_gen_toks_sent=100;gen_kwargs={"temperature": "0.7"};not_greedy;chat_template;'
                     "num_fewshot=2;copy_tasks_copy_format=paper")
    assert split_flags(flags) == ('limit=3;gen_kwargs={"temperature": "0.7"};not_greedy;chat_template;num_fewshot=2',
                                  "max_gen_toks_sent=100;copy_tasks_copy_format=paper")
