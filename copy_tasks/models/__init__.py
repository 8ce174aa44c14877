"""The models layer: lm-eval backends (`reference_lm`: the reference models; `scripted_lm`: the
conformance battery's model, and `scripted_hf`, its multi-byte answers through lm-eval's `hf`;
`fast_hf` with `banded_attention` and `sliding_cache`), the analytic
reference models themselves (`ngram_copier`, `bounded_state` with its readers `bounded_number`,
`bounded_pairs`, `bounded_phonebook` and `bounded_flip_flop`, which `bounded_readers` picks from, and `answers`, how
they answer requests), and the model types `copy-tasks
train` builds that transformers lacks (`hard_alibi`, `lstm_lm`, `conv_attention`, the last two
running their left padding on the right with `left_padding`, entered into its Auto classes
by `trained_architectures`). Preparing models, training them and plotting are in
`copy_tasks.experiments` and `copy_tasks.report`."""

# Our lm-eval backends, by registry name: where each class is, imported when a run asks for it.
BACKENDS = {
    "hf_fast": "copy_tasks.models.fast_hf:FastLoglikelihoodHFLM",
    "ngram_copier": "copy_tasks.models.reference_lm:NgramCopierLM",
    "bounded_state": "copy_tasks.models.reference_lm:BoundedStateLM",
    "scripted": "copy_tasks.models.scripted_lm:ScriptedLM",
}


def register_backends() -> None:
    """Enter our backends into lm-eval's model registry by where they are (`BACKENDS`), so that
    a run imports only the one it uses: `hf_fast` imports torch and transformers, 4 s on 2
    cores, which a run of a reference model never needs. Their modules' own `register_model`
    then replaces the placeholder, as lm-eval's registry allows. Idempotent.

        >>> register_backends()
        >>> from lm_eval.api.registry import get_model
        >>> get_model("ngram_copier").__name__
        'NgramCopierLM'
    """
    import lm_eval.models  # noqa: F401  (lm-eval's own backends, entered the same way)
    from lm_eval.api.registry import model_registry

    for name, target in BACKENDS.items():
        if name not in model_registry:
            model_registry.register(name, target=target)
