"""The probes layer: each family's data generator and scorer, names, text sources, seeding,
options and doc sets. Pure Python and numpy: it imports neither lm-eval nor torch."""
