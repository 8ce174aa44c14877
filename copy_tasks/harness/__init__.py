"""The harness layer: everything that touches lm-eval (task class, YAML functions)."""
