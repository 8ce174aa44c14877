"""The models layer: the reference models, the conformance battery's scripted model, `hf_fast`
and banded attention, and the preparation of real and tiny models."""

REFERENCE_MODELS = ("ngram_copier", "bounded_state")  # their names in lm-eval's model registry
