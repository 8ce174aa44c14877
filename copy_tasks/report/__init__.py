"""The leaderboard builder: lm-eval result files in; a tidy CSV, plots, a summary and a web page out.

- `results`: find and read lm-eval `results_*.json` files (and their `samples_*.jsonl`) into
  rows, one per (run, model, task, length, metric), reporting bad files instead of failing;
- `table`: the CSV: its columns and schema version, merging, atomic writes;
- `summary`: effective length and area under the curve per model and family, `summary.md`;
- `plots`: one PNG per family and variant;
- `html_page` (with its style and scripts in `page_assets`): `index.html`, the summary's tables
  as one sortable, self-contained web page;
- `build`: all of it, as `copy-tasks leaderboard RESULTS... --out DIR`.
"""
