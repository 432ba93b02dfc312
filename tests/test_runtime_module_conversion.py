"""Moving modules to and from foo keeps every Parameter object, as on CUDA: tied weights stay tied,
optimizers built beforehand keep working, gradients move along; then Hugging Face models with tied
embeddings train and generate on foo as on the CPU."""

import copy

import pytest
import torch
from conftest import FOO, TINY_TRANSFORMERS, tiny_transformer
from torch import nn


class TiedLanguageModel(nn.Module):
    """An embedding whose weight is also the output layer's, like GPT-2's and BERT's heads."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(11, 8)
        self.body = nn.Sequential(nn.Linear(8, 8), nn.LayerNorm(8))
        self.head = nn.Linear(8, 11)
        self.head.weight = self.embed.weight

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(self.embed(tokens)))


CONVERSIONS = {
    "to_foo": lambda m: m.to("foo"),
    "foo": lambda m: m.foo(),
    "to_foo_and_half": lambda m: m.to("foo", torch.float16),
    "to_empty_foo": lambda m: m.to_empty(device="foo"),
    "foo_then_cpu": lambda m: m.foo().cpu(),
    "foo_then_bfloat16": lambda m: m.foo().to(torch.bfloat16),
    "foo_then_half_then_cpu": lambda m: m.foo().half().to("cpu"),
}


@pytest.mark.parametrize("name", CONVERSIONS)
def test_conversions_keep_parameters_and_their_ties(name):
    torch.manual_seed(0)
    model = TiedLanguageModel()
    before = {name: p for name, p in model.named_parameters(remove_duplicate=False)}
    reference = copy.deepcopy(model)
    assert CONVERSIONS[name](model) is model
    after = dict(model.named_parameters(remove_duplicate=False))
    assert all(after[name] is p for name, p in before.items()), "a Parameter was replaced"
    assert model.head.weight is model.embed.weight
    assert len(list(model.parameters())) == len(list(reference.parameters()))
    if name != "to_empty_foo":
        for (param_name, p), q in zip(model.named_parameters(), reference.parameters()):
            torch.testing.assert_close(
                p.detach().cpu().float(), q.detach().float(), rtol=1e-2, atol=1e-2, msg=param_name
            )


def test_an_optimizer_built_before_the_move_trains_the_moved_model():
    torch.manual_seed(0)
    model = TiedLanguageModel()
    twin = copy.deepcopy(model)
    optimizer, twin_optimizer = (
        torch.optim.AdamW(model.parameters(), lr=0.1),
        torch.optim.AdamW(twin.parameters(), lr=0.1),
    )
    model.to("foo")
    tokens = torch.randint(0, 11, (4, 6), generator=torch.Generator().manual_seed(1))
    for _ in range(3):
        for m, opt, t in ((model, optimizer, tokens.to(FOO)), (twin, twin_optimizer, tokens)):
            opt.zero_grad()
            nn.functional.cross_entropy(m(t).flatten(0, 1), t.flatten()).backward()
            opt.step()
    assert model.head.weight is model.embed.weight
    for p, q in zip(model.parameters(), twin.parameters()):
        assert p.device.type == "foo"
        torch.testing.assert_close(p.detach().cpu(), q.detach(), rtol=1e-4, atol=1e-5)


def test_gradients_move_with_their_parameters():
    model = TiedLanguageModel()
    tokens = torch.randint(0, 11, (2, 5))
    model(tokens).sum().backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters()}
    model.to("foo")
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.device.type == "foo", name
        torch.testing.assert_close(p.grad.cpu(), grads[name])


def test_a_module_moves_while_a_graph_still_holds_its_parameters():
    # A CPU reference computed with autograd on keeps the Parameters in its graph (the second layer's
    # weight is saved for the backward); moving the model must still keep them, as it does to CUDA.
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    weights = list(model.parameters())
    x = torch.randn(2, 4)
    reference = model(x)
    model.to("foo")
    assert all(p is q and p.device.type == "foo" for p, q in zip(model.parameters(), weights))
    torch.testing.assert_close(model(x.to(FOO)).cpu(), reference.detach())


@pytest.mark.parametrize("source", ["cpu", "foo"])
def test_data_assignment_crosses_foo_and_cpu(source):
    target = "foo" if source == "cpu" else "cpu"
    t = torch.zeros(3, device=source)
    t.data = torch.arange(3.0, device=target)
    assert t.device.type == target
    torch.testing.assert_close(t.cpu(), torch.arange(3.0))
    with pytest.raises(RuntimeError, match="incompatible tensor type"):
        t.data = torch.ones(3).to_sparse()


# ---- Hugging Face models with tied embeddings -------------------------------------------------------------


def hf_losses(model: nn.Module, tokens: torch.Tensor, steps: int) -> list[float]:
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = model(input_ids=tokens, labels=tokens).loss
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("name", TINY_TRANSFORMERS)
def test_hugging_face_models_train_on_foo_as_on_cpu(name):
    torch.manual_seed(0)
    cpu_model = tiny_transformer(name)
    foo_model = copy.deepcopy(cpu_model).to("foo")
    output_weight = foo_model.get_output_embeddings().weight
    assert output_weight is foo_model.get_input_embeddings().weight, "the tied weights came apart"
    tokens = torch.randint(0, 97, (2, 12), generator=torch.Generator().manual_seed(1))
    foo_losses = hf_losses(foo_model.train(), tokens.to(FOO), 5)
    cpu_losses = hf_losses(cpu_model.train(), tokens, 5)
    torch.testing.assert_close(foo_losses, cpu_losses, rtol=1e-4, atol=0)


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_hugging_face_greedy_generation_matches_cpu(name):
    torch.manual_seed(0)
    cpu_model = tiny_transformer(name).eval()
    foo_model = copy.deepcopy(cpu_model).to("foo")
    prompt = torch.randint(0, 97, (1, 5), generator=torch.Generator().manual_seed(2))
    settings = {"max_new_tokens": 8, "do_sample": False, "pad_token_id": 0}
    with torch.no_grad():
        expected = cpu_model.generate(prompt, **settings)
        actual = foo_model.generate(prompt.to(FOO), **settings)
    assert actual.cpu().tolist() == expected.tolist()
