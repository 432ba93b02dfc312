# The two commands of foo-cl: `make test` runs the tests, `make bench` the benchmarks. Each first
# installs what is missing (OpenCL driver and headers, a .venv with the pinned torch, the extension)
# and is quick when nothing changed. PYTHON picks the interpreter for the venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SOURCES := setup.py $(shell find csrc kernels_cl -type f -not -path 'csrc/generated/*')

.PHONY: test bench build system test-system clean

# One pytest worker per core: on a fresh machine most of the time goes to compiling kernels.
# NOTE: --dist worksteal lets an idle worker take tests queued for the other: with xdist's default
# (load), the end of a cold rusticl run left its compiled transformers models on one worker for over
# 12 minutes while the other waited.
TEST_WORKERS ?= auto

# The suite runs three times. First on PoCL, in full, with the variants foo-cl picks for a CPU device.
# Then on Mesa's rusticl (llvmpipe), a second OpenCL implementation with fewer capabilities, where
# foo-cl takes the variants it takes on GPUs (work-group reductions, local-memory tiles; its device
# ends long loops) and Mesa's compiler and math library build every kernel: tests needing a
# capability it lacks skip (tests/capability_needs.txt). Last on PoCL with the GPU variants forced
# and an embedded profile's 256-byte kernel argument limit: the kernels whose layouts and lists of
# tensors must fit that limit, the 64-bit atomics rusticl lacks, and the GPU variants of attention
# and of the kernels Inductor generates (which llvmpipe runs too slowly: 61% of a rusticl run).
# NOTE: each run builds every kernel it launches anew (PoCL takes 0.3 s a program and as much again
# per work-group size a kernel is launched with; a cold first run spends half its time there), so the
# later two leave out what they would repeat: the dtypes whose kernels are a kept dtype's with other
# element types (--dtype-per-kind, tests/conftest.py), the compiled third-party models (the
# compiled_models marker), what runs on the host alike for every kernel variant, and PyTorch's
# OpInfo samples (op semantics, which the first run checks on the same kernel sources).
POCL := FOO_CL_PLATFORM="Portable Computing Language"
RUSTICL := FOO_CL_PLATFORM=rusticl RUSTICL_ENABLE=llvmpipe
GPU_VARIANTS := FOO_CL_DEVICE_CLASS=gpu FOO_CL_MAX_PARAMETER_SIZE=256
PYTEST := $(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal
REPEATED := --dtype-per-kind -m "not compiled_models"
FIRST_RUN_ONLY := runtime_import runtime_serialization runtime_module_conversion runtime_pinned runtime_profiler \
	runtime_kernel_code runtime_fallback runtime_streams runtime_memory benchmark_plot distributed \
	opencl_interop opencl_kernels opinfo opinfo_more opinfo_linalg opinfo_nn
GPU_FORCED := elementwise_semantics views copy index foreach reductions attention compile
RUSTICL_TESTS := tests $(foreach t,$(FIRST_RUN_ONLY) attention compile,--ignore=tests/test_$(t).py) $(REPEATED)
# Of the reductions, all but the matrix of every op, dtype and layout, which rusticl runs.
GPU_FORCED_TESTS := $(foreach t,$(GPU_FORCED),tests/test_$(t).py) $(REPEATED) -k "not test_reduction_matches_cpu"
test: build test-system
	$(POCL) $(PYTEST) tests $(PYTEST_ARGS)
	$(RUSTICL) $(PYTEST) $(RUSTICL_TESTS) $(PYTEST_ARGS)
	$(POCL) $(GPU_VARIANTS) $(PYTEST) $(GPU_FORCED_TESTS) $(PYTEST_ARGS)

bench: build
	$(PY) -m benchmarks.run $(BENCH_ARGS)

build: $(VENV)/.foo-cl-built

system:
	@PYTHON=$(PYTHON) scripts/setup-system.sh

test-system:
	@PYTHON=$(PYTHON) scripts/setup-system.sh --test

$(VENV)/.deps-installed: requirements.txt | system
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.foo-cl-built: $(VENV)/.deps-installed $(SOURCES)
	# NOTE: torch would load the (possibly stale, unloadable) foo_cl being rebuilt through its entry point.
	TORCH_DEVICE_BACKEND_AUTOLOAD=0 MAX_JOBS=$${MAX_JOBS:-2} $(PY) -m pip install -q --no-build-isolation --no-deps -e .
	touch $@

clean:
	rm -rf build csrc/generated foo_cl/_C*.so *.egg-info $(VENV)/.foo-cl-built
