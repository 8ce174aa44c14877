"""The models layer: lm-eval backends (`reference_lm`: the reference models; `scripted_lm`: the
conformance battery's model; `fast_hf` with `banded_attention`) and the analytic reference
models themselves (`ngram_copier`, `bounded_state`, and `answers`, how they answer requests).
Preparing models, training them and plotting are in `copy_tasks.experiments` and
`copy_tasks.report`."""

REFERENCE_MODELS = ("ngram_copier", "bounded_state")  # their names in lm-eval's model registry
