"""Run every benchmark: `python benchmarks/run.py` (about 40 minutes on 2 idle CPU cores).

1. data generation, every family at default settings (a local text file stands in for C4);
2. the reference models' full default sweeps of the offline families through lm-eval;
3. teacher-forced against generation on the default real model (Gemma 3 270M), random_copy
   at 10, 100, 200 and 500 symbols, 2 docs per length: seconds per doc side by side and verdict
   agreement (`bench_tf_vs_generation.py` alone runs every length, 1000 included);
4. the leaderboard builder on 1,000 results files;
5. the authors' protocol against our generation and teacher-forced variants and against one
   forward pass, on Gemma 3 270M and a tiny model (phone-book and c4_copy, 3 lengths each);
6. batching: generation with the budget ladder against per-doc budgets at batch 1 and 16, and
   `hf_fast` teacher forcing at batch 1 and 16, on a tiny model;
7. the start-up hook's cost: interpreters with and without `copy_tasks.pth`;
8. `hf_fast` teacher forcing at batch 1 and 8, per-batch logits against per-row output layer:
   seconds per doc, peak memory, equal scores (`bench_fast_hf_memory.py`, 200 entries/symbols);
9. what a newcomer waits for: the main job from an empty model cache, step by step, and the
   test suite and its quick tier (`bench_newcomer.py`, about 12 minutes more);
10. generation that stops at the answer: a model that never stops, before and after, and the
   published Gemma answers cut where their rows would stop (`bench_generation_stops.py`);
11. a training step of the `mqar` recipe's models: the padded batch, rows in groups of like
   length, and Mamba-2's own scan, side by side (`bench_training_step.py`, about 30 seconds).
"""

import logging

import bench_batching
import bench_fast_hf_memory
import bench_generation
import bench_generation_stops
import bench_leaderboard
import bench_newcomer
import bench_protocols
import bench_reference_models
import bench_startup
import bench_tf_vs_generation
import bench_training_step

if __name__ == "__main__":
    for noisy in ("lm_eval", "copy_tasks"):  # lm-eval's per-task notices would bury the tables
        logging.getLogger(noisy).setLevel(logging.ERROR)
    bench_generation.main()
    print()
    bench_reference_models.main()
    print()
    bench_tf_vs_generation.main(["--docs", "2", "--lengths", "10,100,200,500"])
    print()
    bench_leaderboard.main([])
    print()
    bench_protocols.main([])
    print()
    bench_batching.main([])
    print()
    bench_startup.main([])
    print()
    bench_fast_hf_memory.main([])
    print()
    bench_newcomer.main([])
    print()
    bench_generation_stops.main([])
    print()
    bench_training_step.main([])
