"""The LSTM language model `copy-tasks train` builds (`copy_tasks.models.lstm_lm`), on tiny
configs: logits per position and token, causal (a later token never changes earlier logits), the
next-token loss skipping ignored labels, rows read alike whatever their left padding, a save and
load that gives the same model, greedy generation equal to reading the whole sequence again at
every step (with `use_cache` or without: it keeps none), the last positions only when asked
(`logits_to_keep`), and its state size in bits."""

from __future__ import annotations

import json
import math

import pytest
import torch

from copy_tasks.harness.state_size import hand_count
from copy_tasks.models.lstm_lm import MODEL_TYPE, LstmConfig, LstmForCausalLM

VOCAB = 7
PAD = 0


def tiny_config(**overrides) -> LstmConfig:
    return LstmConfig(**{"vocab_size": VOCAB, "hidden_size": 8, "num_hidden_layers": 2, "pad_token_id": PAD,
                         **overrides})


@pytest.fixture(scope="module")
def model() -> LstmForCausalLM:
    """A tiny LSTM whose weights are redrawn large (and the head's bias zeroed), so that its
    greedy generations change token from step to step: at its initial scale a random LSTM
    writes one token over and over, which would let generation checks pass vacuously."""
    model = LstmForCausalLM(tiny_config()).eval()
    generator = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) * 3)
        model.head.bias.zero_()
    return model


def logits_of(model: LstmForCausalLM, ids: list[list[int]], mask: list[list[int]] | None = None) -> torch.Tensor:
    with torch.no_grad():
        return model(torch.tensor(ids), attention_mask=None if mask is None else torch.tensor(mask)).logits


def greedy(model: LstmForCausalLM, ids: list[list[int]], steps: int, **generate_args) -> list[list[int]]:
    with torch.no_grad():
        return model.generate(torch.tensor(ids), max_new_tokens=steps, do_sample=False, **generate_args).tolist()


def test_logits_have_a_row_per_position_and_a_column_per_token(model):
    with torch.no_grad():
        output = model(torch.tensor([[1, 2, 3, 4, 5], [6, 5, 4, 3, 2]]))
    assert output.logits.shape == (2, 5, VOCAB)
    assert output.loss is None  # no labels, no loss


def test_changing_a_later_token_never_changes_earlier_logits(model):
    ids = [1, 2, 3, 4, 5, 6]
    before = logits_of(model, [ids])[0]
    for position in range(len(ids)):
        changed = list(ids)
        changed[position] = 6 if ids[position] != 6 else 1
        after = logits_of(model, [changed])[0]
        assert torch.allclose(after[:position], before[:position], atol=1e-6), position
        assert not torch.allclose(after[position], before[position]), position  # the token itself is read


def test_loss_is_the_next_token_cross_entropy_without_the_ignored_labels():
    """With a head that ignores the LSTM (zero weights) and biases log(1, 1, 2, 4), every
    position predicts tokens 0..3 with probabilities 1/8, 1/8, 1/4, 1/2. Labels (x, 3, 2, -100):
    positions 0 and 1 are scored on 3 and 2 (the last position has nothing after it, -100 is
    skipped, and the first label is never a target): (log 2 + log 4) / 2 = 1.5 log 2."""
    model = LstmForCausalLM(tiny_config(vocab_size=4))
    with torch.no_grad():
        model.head.weight.zero_()
        model.head.bias.copy_(torch.log(torch.tensor([1.0, 1.0, 2.0, 4.0])))
        for first_label in (0, 1):
            labels = torch.tensor([[first_label, 3, 2, -100]])
            loss = model(torch.tensor([[1, 2, 3, 0]]), labels=labels).loss
            assert loss.item() == pytest.approx(1.5 * math.log(2)), first_label


def test_a_rows_logits_do_not_depend_on_its_left_padding(model):
    """lm-eval pads generation prompts on the left: each row reads as if alone, whatever the pad
    token, and a row without padding is read as without a mask."""
    alone = logits_of(model, [[3, 1, 2]])[0]
    rows = [[PAD, PAD, 3, 1, 2], [5, 5, 3, 1, 2], [4, 4, 4, 1, 2]]
    mask = [[0, 0, 1, 1, 1], [0, 0, 1, 1, 1], [1, 1, 1, 1, 1]]
    padded = logits_of(model, rows, mask)
    assert torch.allclose(padded[0, 2:], alone, atol=1e-6)
    assert torch.allclose(padded[1, 2:], alone, atol=1e-6)
    assert torch.allclose(padded[2], logits_of(model, [rows[2]])[0], atol=1e-6)
    unmasked = logits_of(model, rows[:1])[0]
    assert not torch.allclose(unmasked[2:], alone, atol=1e-3)  # read as tokens, the padding would matter


def test_a_saved_model_loads_as_the_same_model(model, tmp_path):
    model.save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["model_type"] == MODEL_TYPE == "copy_tasks_lstm"
    loaded = LstmForCausalLM.from_pretrained(tmp_path).eval()
    assert (loaded.config.vocab_size, loaded.config.hidden_size, loaded.config.num_hidden_layers) == (VOCAB, 8, 2)
    ids = [[1, 2, 3, 4, 5, 6]]
    assert torch.equal(logits_of(loaded, ids), logits_of(model, ids))


def test_the_config_defaults_and_untied_weights():
    config = LstmConfig()
    assert (config.vocab_size, config.hidden_size, config.num_hidden_layers) == (128, 256, 4)
    assert config.max_position_embeddings == 4096  # a context for lm-eval's max_length, not a limit
    assert config.tie_word_embeddings is False
    model = LstmForCausalLM(tiny_config(vocab_size=8))  # head and embedding of the same shape: not tied
    assert model.head.weight.data_ptr() != model.embed.weight.data_ptr()


def test_initial_weights_are_small_and_the_heads_bias_zero():
    model = LstmForCausalLM(tiny_config(hidden_size=16))
    assert model.embed.weight.abs().max() <= 0.1
    assert model.head.weight.abs().max() <= 16 ** -0.5
    assert torch.count_nonzero(model.head.bias) == 0


def test_greedy_generation_is_the_argmax_of_the_whole_sequence_read_again(model):
    prompt = [3, 1, 2, 5]
    sequence = list(prompt)
    for _ in range(8):
        sequence.append(int(logits_of(model, [sequence])[0, -1].argmax()))
    assert len(set(sequence[len(prompt):])) > 1  # the check is not of a model stuck on one token
    assert greedy(model, [prompt], 8) == [sequence]


def test_generation_with_and_without_use_cache_agrees(model):
    assert greedy(model, [[3, 1, 2, 5]], 8, use_cache=True) == greedy(model, [[3, 1, 2, 5]], 8, use_cache=False)


def test_a_left_padded_row_generates_as_if_alone(model):
    alone = greedy(model, [[3, 1]], 6)[0]
    batch = greedy(model, [[PAD, PAD, 3, 1], [3, 1, 2, 5]], 6,
                   attention_mask=torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1]]))
    assert batch[0] == [PAD, PAD, *alone]
    assert batch[1] == greedy(model, [[3, 1, 2, 5]], 6)[0]
    # Read as tokens (a mask of ones: without one, generate infers it from the pad token), the
    # padding would change the generation.
    assert greedy(model, [[PAD, PAD, 3, 1]], 6, attention_mask=torch.ones(1, 4, dtype=torch.long))[0][2:] != alone


@pytest.mark.parametrize("layers, hidden, bits", [(4, 256, 65536), (2, 8, 1024), (1, 1, 64)])
def test_state_bits_count_hidden_and_cell_floats_of_every_layer(layers, hidden, bits):
    """32 bits x (hidden + cell) x layers x hidden size: 32 x 2 x 4 x 256 = 65,536 by default."""
    memory = hand_count(LstmConfig(hidden_size=hidden, num_hidden_layers=layers), "float32")
    assert (memory.state_bits, memory.bits_per_token, memory.label) == (bits, 0, "rnn")


def test_logits_to_keep_gives_the_last_positions_logits_whatever_the_left_padding(model):
    """transformers' `logits_to_keep` (what `hf_fast` asks for): the last k positions, 0 for all."""
    rows, mask = [[PAD, PAD, 3, 1, 2], [4, 4, 4, 1, 2]], [[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]]
    every = logits_of(model, rows, mask)
    with torch.no_grad():
        for keep in (1, 2, 5):
            kept = model(torch.tensor(rows), attention_mask=torch.tensor(mask), logits_to_keep=keep).logits
            assert kept.shape == (2, keep, VOCAB) and torch.allclose(kept, every[:, -keep:], atol=1e-6), keep
        assert torch.equal(model(torch.tensor(rows), attention_mask=torch.tensor(mask), logits_to_keep=0).logits,
                           every)
