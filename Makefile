# Entry points. Each installs what is missing first (scripts/install-deps is idempotent).
#   make run      build the Release configuration into build/ and the kbench Python package
#                 into a virtual environment in build/python-package/, and run the main job:
#                 kbench info, then the quick benchmark selection with the NumPy, numexpr,
#                 PyTorch and JAX baselines and kbench through Python (--baseline python, so
#                 that the report leads with Python call vs Python call) into
#                 results/latest.{json,md}, and its HTML report into results/latest.html
#   make test     Release, sanitizer, aarch64 (qemu) and fuzz builds, every test through CTest
#   make install  PREFIX=/usr/local by default

PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
PYTHON ?= $(shell command -v python3)
FUZZ_SECONDS ?= 10
CMAKE_COMMON = -DPython3_EXECUTABLE=$(PYTHON) -DKB_FUZZ_SECONDS=$(FUZZ_SECONDS)
CTEST = ctest --output-on-failure -j $(JOBS)
# The virtual environment with the kbench Python package that make run's runner uses.
PYTHON_PACKAGE = build/python-package

.PHONY: run test deps build python-package install clean format \
        test-release test-sanitize test-aarch64 test-fuzz

run: build python-package
	./build/kbench info
	mkdir -p results
	KB_PYTHON=$(CURDIR)/$(PYTHON_PACKAGE)/venv/bin/python ./build/kbench run \
	  --baseline numpy --baseline numexpr --baseline torch --baseline jax --baseline python \
	  -o results/latest.json -o results/latest.md
	./build/kbench report results/latest.json -o results/latest.html
	@echo "report: $(CURDIR)/results/latest.html"

deps:
	@scripts/install-deps

build: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release $(CMAKE_COMMON)
	cmake --build build -j $(JOBS)

# pip install . into a fresh virtual environment, through scikit-build-core and this CMake
# project (docs/python.md); the build directory is kept, so a rebuild compiles what changed.
python-package: build
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PYTHON) scripts/python-package install . $(PYTHON_PACKAGE)

test: deps
	$(MAKE) --no-print-directory test-release test-sanitize test-aarch64 test-fuzz

test-release: build
	cd build && $(CTEST)

test-sanitize:
	cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DKB_SANITIZE=ON $(CMAKE_COMMON)
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && $(CTEST)

test-aarch64:
	cmake -S . -B build-aarch64 -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DKB_POSTGRESQL=OFF $(CMAKE_COMMON)
	cmake --build build-aarch64 -j $(JOBS)
	cd build-aarch64 && $(CTEST) -L unit

test-fuzz:
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang -DKB_FUZZ=ON $(CMAKE_COMMON)
	cmake --build build-fuzz -j $(JOBS)
	cd build-fuzz && $(CTEST)

install: build
	cmake --install build --prefix $(PREFIX)

format:
	git ls-files '*.c' '*.h' | xargs clang-format -i

clean:
	rm -rf build build-sanitize build-aarch64 build-fuzz
