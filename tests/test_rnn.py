"""Recurrent layers: nn.LSTM, nn.GRU and their cells run natively on foo (ATen calls its fused cell
operators on every accelerator) and agree with the CPU forward, backward and double backward."""

import copy

import pytest
import torch
from conftest import FOO
from torch import nn

pytestmark = pytest.mark.usefixtures("no_fallback")

LAYERS = {
    "lstm": lambda: nn.LSTM(5, 7),
    "gru": lambda: nn.GRU(5, 7),
    "lstm_no_bias": lambda: nn.LSTM(5, 7, bias=False),
    "gru_no_bias": lambda: nn.GRU(5, 7, bias=False),
    "lstm_2_layers_bidirectional_batch_first": lambda: nn.LSTM(
        5, 7, num_layers=2, bidirectional=True, batch_first=True
    ),
    "gru_2_layers_bidirectional": lambda: nn.GRU(5, 7, num_layers=2, bidirectional=True),
    "lstm_projections": lambda: nn.LSTM(5, 7, proj_size=3),
}


def on_both(make):
    torch.manual_seed(0)
    cpu = make()
    return cpu, copy.deepcopy(cpu).to(FOO)


def as_tuple(state: torch.Tensor | tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """An LSTM's state is (h, c), a GRU's h alone."""
    return state if isinstance(state, tuple) else (state,)


def assert_grads_close(cpu: nn.Module, foo: nn.Module) -> None:
    for (name, p), q in zip(cpu.named_parameters(), foo.parameters()):
        torch.testing.assert_close(q.grad.cpu(), p.grad, rtol=1e-4, atol=1e-5, msg=name)


@pytest.mark.parametrize("name", LAYERS)
def test_layers_match_cpu_forward_and_backward(name):
    cpu, foo = on_both(LAYERS[name])
    x = torch.randn(6, 3, 5)
    x_foo = x.to(FOO).requires_grad_()
    x.requires_grad_()
    (y, state), (y_foo, state_foo) = cpu(x), foo(x_foo)
    torch.testing.assert_close(y_foo.cpu(), y, rtol=1e-4, atol=1e-5)
    for s, s_foo in zip(as_tuple(state), as_tuple(state_foo)):
        torch.testing.assert_close(s_foo.cpu(), s, rtol=1e-4, atol=1e-5)
    grad = torch.randn_like(y)
    y.backward(grad)
    y_foo.backward(grad.to(FOO))
    torch.testing.assert_close(x_foo.grad.cpu(), x.grad, rtol=1e-4, atol=1e-5)
    assert_grads_close(cpu, foo)


@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_a_loss_on_the_final_state_alone(name):
    # The last step's cell sees a gradient for its hidden state (and for LSTM not for its cell state, or
    # the reverse), the others none for their outputs: the backward's optional gradients.
    cpu, foo = on_both(LAYERS[name])
    x = torch.randn(4, 2, 5)
    hx = torch.randn(1, 2, 7)
    initial = (hx, torch.randn(1, 2, 7)) if name == "lstm" else hx
    initial_foo = tuple(t.to(FOO) for t in initial) if name == "lstm" else initial.to(FOO)
    _, state = cpu(x, initial)
    _, state_foo = foo(x.to(FOO), initial_foo)
    as_tuple(state)[-1].square().sum().backward()
    as_tuple(state_foo)[-1].square().sum().backward()
    assert_grads_close(cpu, foo)


@pytest.mark.parametrize("cell", [nn.LSTMCell, nn.GRUCell], ids=["lstm_cell", "gru_cell"])
@pytest.mark.parametrize("with_state", [False, True])
def test_cells_match_cpu(cell, with_state):
    cpu, foo = on_both(lambda: cell(5, 7))
    x = torch.randn(3, 5)
    state = None
    if with_state:
        state = (torch.randn(3, 7), torch.randn(3, 7)) if cell is nn.LSTMCell else torch.randn(3, 7)
    state_foo = None if state is None else tuple(s.to(FOO) for s in as_tuple(state))
    if state_foo is not None and cell is nn.GRUCell:
        (state_foo,) = state_foo
    outs, outs_foo = as_tuple(cpu(x, state)), as_tuple(foo(x.to(FOO), state_foo))
    for o, o_foo in zip(outs, outs_foo):
        torch.testing.assert_close(o_foo.cpu(), o, rtol=1e-4, atol=1e-5)
    sum(o.sum() for o in outs).backward()
    sum(o.sum() for o in outs_foo).backward()
    assert_grads_close(cpu, foo)


@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_double_backward_matches_cpu(name):
    # With create_graph, autograd differentiates the cell's composed backward instead of the fused one.
    cpu, foo = on_both(LAYERS[name])
    x = torch.randn(3, 2, 5)
    results = []
    for model, inputs in ((cpu, x.clone()), (foo, x.to(FOO))):
        inputs.requires_grad_()
        y, _ = model(inputs)
        (grad,) = torch.autograd.grad(y.square().sum(), inputs, create_graph=True)
        grad.square().sum().backward()
        results.append([inputs.grad.cpu()] + [p.grad.cpu() for p in model.parameters()])
    for expected, actual in zip(*results):
        torch.testing.assert_close(actual, expected, rtol=1e-4, atol=1e-5)


def test_an_lstm_language_model_trains_as_on_cpu():
    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed, self.lstm, self.head = nn.Embedding(20, 8), nn.LSTM(8, 16, batch_first=True), nn.Linear(16, 20)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            return self.head(self.lstm(self.embed(tokens))[0])

    cpu, foo = on_both(Model)
    tokens = torch.randint(0, 20, (4, 9), generator=torch.Generator().manual_seed(1))
    losses = []
    for model, t in ((cpu, tokens), (foo, tokens.to(FOO))):
        optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
        steps = []
        for _ in range(4):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(t[:, :-1]).flatten(0, 1), t[:, 1:].flatten())
            loss.backward()
            optimizer.step()
            steps.append(loss.item())
        losses.append(steps)
    torch.testing.assert_close(losses[1], losses[0], rtol=1e-4, atol=0)


def test_fused_cells_reject_mismatched_shapes():
    gates = torch.randn(2, 12, device=FOO)
    with pytest.raises(RuntimeError, match="previous state must be"):
        torch.ops.aten._thnn_fused_lstm_cell(gates, gates, torch.randn(2, 4, device=FOO))
    with pytest.raises(RuntimeError, match="one shape"):
        torch.ops.aten._thnn_fused_gru_cell(gates, gates[:, :9], torch.randn(2, 4, device=FOO))
    with pytest.raises(RuntimeError, match="both biases or neither"):
        torch.ops.aten._thnn_fused_gru_cell(gates, gates, torch.randn(2, 4, device=FOO), torch.randn(12, device=FOO))


@pytest.mark.parametrize("name", ["lstm", "gru_2_layers_bidirectional"])
def test_packed_sequences_match_cpu(name):
    cpu, foo = on_both(LAYERS[name])
    x = torch.randn(6, 3, 5, generator=torch.Generator().manual_seed(2))
    lengths = torch.tensor([4, 6, 2])  # unsorted: the layer sorts and unsorts the batch
    outputs = []
    for model, device in ((cpu, "cpu"), (foo, FOO)):
        packed = nn.utils.rnn.pack_padded_sequence(x.to(device), lengths, enforce_sorted=False)
        out, _ = model(packed)
        padded, _ = nn.utils.rnn.pad_packed_sequence(out)
        padded.square().sum().backward()
        outputs.append(padded.detach().cpu())
    torch.testing.assert_close(outputs[1], outputs[0], rtol=1e-4, atol=1e-5)
    assert_grads_close(cpu, foo)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64], ids=str)
@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_other_dtypes_match_cpu_float32(name, dtype):
    # The cells compute in float32 for 16-bit dtypes (storing their workspace in the dtype, as CUDA).
    cpu, foo = on_both(LAYERS[name])
    foo.to(dtype)
    x = torch.randn(4, 3, 5, generator=torch.Generator().manual_seed(3)).requires_grad_()
    expected, _ = cpu(x)
    x_foo = x.detach().to(FOO, dtype).requires_grad_()
    actual, _ = foo(x_foo)
    tolerance = {torch.float16: 1e-2, torch.bfloat16: 5e-2, torch.float64: 1e-6}[dtype]
    torch.testing.assert_close(actual.float().cpu(), expected.detach(), rtol=tolerance, atol=tolerance)
    expected.square().sum().backward()
    actual.float().square().sum().backward()
    assert x_foo.grad.dtype == dtype
    torch.testing.assert_close(x_foo.grad.float().cpu(), x.grad, rtol=tolerance, atol=tolerance)
