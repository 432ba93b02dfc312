"""Device discovery and selection: properties, current device, the device context managers, the
generated .foo() methods, torch.accelerator integration, and loading foo_cl from `import torch` alone."""

import dataclasses

import pytest
import torch
from conftest import FOO, make_tensor, run_python, run_python_json


def test_is_available_with_at_least_one_device():
    assert torch.foo.is_available()
    assert torch.foo.device_count() >= 1
    assert torch.accelerator.device_count() == torch.foo.device_count()
    assert torch.accelerator.current_accelerator() == torch.device("foo")


def test_device_properties_are_consistent():
    props = torch.foo.get_device_properties(0)
    assert dataclasses.is_dataclass(props)
    assert props.name and props.name == torch.foo.get_device_name(0)
    assert props.vendor and props.driver_version and props.platform_name
    assert props.opencl_version.startswith("OpenCL ")
    assert props.device_type in ("cpu", "gpu", "accelerator", "other")
    assert 0 < props.max_alloc_size <= props.total_memory
    assert props.local_memory > 0
    assert props.multi_processor_count >= 1 and props.max_work_group_size >= 1
    assert isinstance(props.has_fp16, bool) and isinstance(props.has_fp64, bool)


@pytest.mark.parametrize("spelling", [None, 0, "foo", "foo:0", torch.device("foo", 0)], ids=repr)
def test_every_device_spelling_selects_the_same_device(spelling):
    assert torch.foo.get_device_properties(spelling) == torch.foo.get_device_properties(0)
    assert torch.foo.get_device_name(spelling) == torch.foo.get_device_name(0)


def test_a_cpu_device_is_not_a_foo_device():
    with pytest.raises(ValueError, match="Expected a foo device"):
        torch.foo.get_device_properties("cpu")


def test_float64_support_follows_has_fp64():
    if torch.foo.get_device_properties(0).has_fp64:
        assert torch.ones(2, dtype=torch.float64, device=FOO).sum().item() == 2.0
    else:
        with pytest.raises(RuntimeError, match="float64"):
            torch.ones(2, dtype=torch.float64, device=FOO)


def test_default_index_is_the_current_device():
    assert torch.foo.current_device() == 0
    assert torch.ones(1, device="foo").device == FOO
    assert torch.accelerator.current_device_index() == 0


def test_device_context_manager_with_the_current_device_restores_it():
    with torch.foo.device(0):
        assert torch.foo.current_device() == 0
    with torch.foo.device(None):
        assert torch.foo.current_device() == 0
    assert torch.foo.current_device() == 0


def test_set_device_rejects_an_invalid_index_and_keeps_the_current_one():
    with pytest.raises(RuntimeError, match="invalid device index"):
        torch.foo.set_device(torch.foo.device_count())
    assert torch.foo.current_device() == 0


def test_tensor_foo_method_and_is_foo():
    base = make_tensor((3, 4), torch.float32)
    t = base.foo()
    assert t.device == FOO and t.is_foo and not base.is_foo
    assert t.foo() is t  # already there: no copy, as Tensor.cuda() does
    torch.testing.assert_close(t.cpu(), base, rtol=0, atol=0)


def test_module_foo_moves_parameters_and_buffers():
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    weight = model[0].weight.detach().clone()
    assert model.foo() is model
    assert all(p.device == FOO for p in model.parameters())
    assert all(b.device == FOO for b in model.buffers())
    torch.testing.assert_close(model[0].weight.detach().cpu(), weight, rtol=0, atol=0)


def test_untyped_storage_foo_copies_the_bytes():
    storage = torch.UntypedStorage(8)
    for i in range(8):
        storage[i] = 10 * i
    on_foo = storage.foo()
    assert on_foo.device == FOO and on_foo.is_foo and on_foo.nbytes() == 8
    assert list(on_foo.cpu()) == [10 * i for i in range(8)]


def test_device_of_a_cpu_tensor_changes_nothing():
    with torch.foo.device_of(torch.ones(1)):
        assert torch.foo.current_device() == 0


def test_import_torch_alone_loads_foo_cl():
    proc = run_python("import torch; print(torch.ones(1, device='foo').device)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "foo:0"


def test_platform_and_device_type_filters_keep_matching_devices():
    props = torch.foo.get_device_properties(0)
    matching = [
        i
        for i in range(torch.foo.device_count())
        if torch.foo.get_device_properties(i).platform_name == props.platform_name
        and torch.foo.get_device_properties(i).device_type == props.device_type
    ]
    result = run_python_json(
        """
        import json, torch
        props = [torch.foo.get_device_properties(i) for i in range(torch.foo.device_count())]
        print(json.dumps([[p.platform_name, p.device_type] for p in props]))
        """,
        FOO_CL_PLATFORM=props.platform_name[2:-2].upper(),  # a substring, in another case
        FOO_CL_DEVICE_TYPE=props.device_type,
    )
    assert result == [[props.platform_name, props.device_type]] * len(matching)
