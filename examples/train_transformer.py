"""Trains a small transformer language model on synthetic tokens on "foo" and on the CPU from the
same initial weights, printing both losses per step.
Usage: python -m examples.train_transformer [--steps N] [--amp]
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from examples import training


class TinyLM(nn.Module):
    def __init__(self, vocab: int = 128, dim: int = 64, heads: int = 4, layers: int = 2, context: int = 32) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(context, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=4 * dim, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.embed(tokens) + self.position(positions)
        mask = nn.Transformer.generate_square_subsequent_mask(tokens.shape[1], device=tokens.device)
        return self.head(self.norm(self.encoder(x, mask=mask, is_causal=True)))


def synthetic_batches(steps: int, batch: int = 8, context: int = 32, vocab: int = 128, seed: int = 0):
    """(tokens, next tokens) pairs of random token sequences."""
    g = torch.Generator().manual_seed(seed)
    sequences = [torch.randint(0, vocab, (batch, context + 1), generator=g) for _ in range(steps)]
    return [(tokens[:, :-1], tokens[:, 1:]) for tokens in sequences]


def next_token_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def training_step(model: nn.Module, device: str, amp: bool = False) -> training.Step:
    return training.training_step(model, device, next_token_loss, amp)


def train(model: nn.Module, device: str, batches, amp: bool = False) -> list[float]:
    return training.train(model, device, batches, next_token_loss, amp)


if __name__ == "__main__":
    training.compare_with_cpu(__doc__, TinyLM, synthetic_batches, next_token_loss)
