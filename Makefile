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

# The suite runs three times: on PoCL with the variants foo-cl picks for its devices, on PoCL with
# the GPU variants forced (FOO_CL_DEVICE_CLASS=gpu) and an embedded profile's 256-byte kernel
# argument limit, so the code GPUs and small devices run is tested on CPU OpenCL drivers too, and
# on Mesa's rusticl (llvmpipe), a second implementation with fewer capabilities
# (tests needing one it lacks skip, tests/capability_needs.txt).
POCL := FOO_CL_PLATFORM="Portable Computing Language"
RUSTICL := FOO_CL_PLATFORM=rusticl RUSTICL_ENABLE=llvmpipe
PYTEST := $(PY) -m pytest tests -n $(TEST_WORKERS) --dist worksteal
# What runs on the host alike for every kernel variant (imports, serialization, module conversion,
# pinned memory, the profiler, the kernel cache and kernel code mapping, the fallback, streams, the
# allocator, the benchmark plot, pyopencl interop and user kernels, torch.distributed) is left out of
# the GPU-variant run, and so are the dtypes whose kernels are a kept dtype's with other element
# types (--dtype-per-kind, tests/conftest.py): the GPU variants differ from the CPU ones in how
# work is spread and looped over, which the kept dtypes exercise.
HOST_SIDE := runtime_import runtime_serialization runtime_module_conversion runtime_pinned runtime_profiler \
	runtime_kernel_cache runtime_kernel_code runtime_fallback runtime_streams runtime_memory benchmark_plot \
	distributed opencl_interop opencl_kernels
# Compiled third-party models (the compiled_models marker: the transformers models, a quarter of the rusticl
# run's time on a fresh machine) run in the first configuration only; in the others, the compile tests
# check the kinds of kernel Inductor generates for them (pointwise, reductions, softmax and norm patterns,
# indexing, random numbers) and compile the example models. A -m in PYTEST_ARGS, which comes last, wins.
WITHOUT_COMPILED_MODELS := -m "not compiled_models"
GPU_VARIANTS_ONLY := $(foreach t,$(HOST_SIDE),--ignore=tests/test_$(t).py) --dtype-per-kind $(WITHOUT_COMPILED_MODELS)
test: build test-system
	$(POCL) $(PYTEST) $(PYTEST_ARGS)
	$(POCL) FOO_CL_DEVICE_CLASS=gpu FOO_CL_MAX_PARAMETER_SIZE=256 $(PYTEST) $(GPU_VARIANTS_ONLY) $(PYTEST_ARGS)
	$(RUSTICL) $(PYTEST) $(WITHOUT_COMPILED_MODELS) $(PYTEST_ARGS)

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
