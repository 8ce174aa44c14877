"""The leaderboard builder: lm-eval result files in; a tidy CSV, plots, a summary and a web page out.

- reading: `results` (find and read lm-eval `results_*.json` files and their `samples_*.jsonl`,
  reporting bad files instead of failing), `rows` (a results file as leaderboard rows, one per
  run, model, task, length and metric), with `flags` (what made a run differ from the defaults),
  `numbers` (what counts as a number), `positions` (the samples split by where the answer sits)
  and `display_names` (the names a leaderboard shows); `rescore` (a finished run's stored
  answers scored again under the current rules);
- the CSV: `schema` (its columns and schema version) and `table` (merging, atomic writes);
- the numbers: `series` (the model in its setting, the latest run shown), `curves` (effective
  length and area under the curve), `score_table` (a table per scoring rule), `length_tables`,
  `prompt_tokens`, `position_table`, `order_gaps` (what giving the question first is worth),
  `query_accuracy`, `state_axis` (recall against the bits of a fixed-size state) and
  `memory_axis` (every model's accuracy against the bits it keeps at each length);
- the outputs: `summary` (`summary.md`, with `markdown` for text shown as itself), `plots` (one
  PNG per family and variant), `html_page` (`index.html`, its style and scripts in
  `page_assets`, the other commands' sections in `page_sections`; its picture for the docs, with
  the numbers it shows, by `page_screenshot`);
- `build`: all of it, as `copy-tasks leaderboard RESULTS... --out DIR`.
"""
