"""Trains a small transformer language model on synthetic tokens on "foo" and on the CPU from the
same initial weights, printing both losses per step.
Usage: python -m examples.train_transformer [--steps N] [--amp]
"""

from __future__ import annotations

import argparse
import copy

import torch
import torch.nn.functional as F
from torch import nn

import foo_cl  # noqa: F401  (registers the "foo" device)


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
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(0, vocab, (batch, context + 1), generator=g) for _ in range(steps)]


def train(model: nn.Module, device: str, batches, amp: bool = False) -> list[float]:
    model = model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler(device, enabled=amp)
    losses = []
    for tokens in batches:
        tokens = tokens.to(device)
        opt.zero_grad()
        with torch.autocast(device, dtype=torch.float16, enabled=amp):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--amp", action="store_true", help="float16 autocast with a GradScaler on foo")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = TinyLM().eval()  # eval: dropout off, so both devices see the same function
    batches = synthetic_batches(args.steps)
    cpu = train(copy.deepcopy(model), "cpu", batches)
    foo = train(copy.deepcopy(model), "foo", batches, amp=args.amp)
    for step, (a, b) in enumerate(zip(foo, cpu)):
        print(f"step {step:3d}  foo {a:.6f}  cpu {b:.6f}")


if __name__ == "__main__":
    main()
