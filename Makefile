# Entry points: `make bench` and `make test` (README quick start); asan, tsan, fuzz and soak for reliability
# work (docs/reliability.md). Each target installs missing Debian packages first (as root), then configures
# and builds with CMake.
BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
PACKAGES   := cmake g++ make pkg-config libboost-dev libtbb-dev libspdlog-dev catch2 libcli11-dev nlohmann-json3-dev
# libomp-14-dev: the bench's OpenMP peer must configure under clang (the fuzz build links its base-data loader).
FUZZ_PACKAGES := clang libclang-rt-14-dev libomp-14-dev
# make fuzz: seconds per fuzz target; make soak: tasks through the soak benchmark.
FUZZ_SECONDS ?= 60
SOAK_TASKS   ?= 10000000

.PHONY: all deps build bench test asan tsan fuzz soak format format-check clean

all: build

deps:
	@./.ci/install-deps $(PACKAGES)

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The default sweep (docs/bench.md: Qwen3 and paged attention), then the synthetic chain and fan-in graphs in
# manual and tensormap mode, whose report goes beside the build so bench-results.json stays the sweep's.
bench: build
	./$(BUILD)/bench/pto-bench
	./$(BUILD)/bench/pto-bench --case chain,fanin --no-sim --json $(BUILD)/bench-synthetic.json

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UBSan (LeakSanitizer included) and under ThreadSanitizer.
# SANITIZER_FLAGS: -O1, the level the sanitizers are documented for, and -g1, line tables only, so reports
# still carry file and line; together they compile the instrumented tree in under half the time -O2 -g takes
# (docs/reliability.md). TSan leaves out the bench (its tests are single-threaded parsing or OpenMP peers,
# which TSan cannot see into without an instrumented libgomp).
SANITIZER_FLAGS := -O1 -g1 -DNDEBUG
SANITIZER_BUILD := BUILD_TYPE=RelWithDebInfo
SANITIZER_CMAKE := '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$(SANITIZER_FLAGS)' '-DCMAKE_C_FLAGS_RELWITHDEBINFO=$(SANITIZER_FLAGS)'

asan:
	$(MAKE) test BUILD=build-asan $(SANITIZER_BUILD) CMAKE_ARGS="-DPTO_SANITIZE=address $(SANITIZER_CMAKE)"

tsan:
	$(MAKE) test BUILD=build-tsan $(SANITIZER_BUILD) \
		CMAKE_ARGS="-DPTO_SANITIZE=thread -DPTO_BUILD_BENCH=OFF $(SANITIZER_CMAKE)"

# libFuzzer targets (clang, ASan + UBSan), each run for FUZZ_SECONDS on a scratch copy of its corpus in
# tests/fuzz/corpus (new inputs land in build-fuzz/corpus, never in the source tree).
fuzz:
	@./.ci/install-deps $(PACKAGES) $(FUZZ_PACKAGES)
	cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
		-DCMAKE_CXX_COMPILER=clang++ -DPTO_FUZZ=ON -DPTO_SANITIZE=address $(SANITIZER_CMAKE) $(CMAKE_ARGS)
	cmake --build build-fuzz -j $(JOBS) --target pto-fuzz-orchestration pto-fuzz-base-data pto-fuzz-bench-cli \
		pto-fuzz-config
	./tests/fuzz/run_fuzzers.sh build-fuzz $(FUZZ_SECONDS)

# Soak benchmark: SOAK_TASKS tasks through small windows with failing kernels and jitter (docs/reliability.md).
soak: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target pto-soak
	./$(BUILD)/bench/pto-soak --tasks $(SOAK_TASKS)

SOURCES = find runtime scope tensormap static_graph examples bench tests \( -name '*.h' -o -name '*.cpp' \)

format:
	@./.ci/install-deps clang-format
	$(SOURCES) | xargs clang-format -i

# Fails, listing the places, if any source differs from what `make format` would write.
format-check:
	@./.ci/install-deps clang-format
	$(SOURCES) | xargs clang-format --dry-run --Werror

clean:
	rm -rf build build-asan build-tsan build-fuzz
