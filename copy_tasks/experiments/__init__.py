"""The experiments layer: what copy-tasks runs, on top of the rest.

- `lm_eval_runner`: the one way an experiment launches lm-eval (`copy-tasks run` in a subprocess),
  with a progress line whose estimate of the time left weighs each request (`request_costs`);
- `suite`: `copy-tasks suite`, the offline families on the real and reference models, then the
  leaderboard (the README's main job, the published leaderboard);
- `train_command`: `copy-tasks train`, small models trained from scratch on our probes
  (`recipes`: what a run trains and with what; `training_tasks`: the tasks it trains on, each
  declared once; `training_data`: the examples, tokenizer and rows;
  `training`: the training loop, `mamba2_training` Mamba-2's forward in it; `training_jobs`: the jobs of
  a run; `architectures`: the models)
  and scored through lm-eval (`train_evaluation`), then reported (`train_report`);
- `reference_curves`: `copy-tasks reference-curves`, the reference models' curves page;
- `real_models`, `tiny_models` and `tiny_architectures`: preparing the real models from PyPI
  (`copy-tasks model`), building tiny random models for tests and benchmarks, and one of each of
  31 transformers architectures for the architecture sweep;
- `memory_afterwards` and `prompt_tokens_afterwards`: the memory and prompt tokens of published
  runs scored before copy-tasks recorded them, measured and counted afterwards into their results.
"""
