# Entry points: `make bench` and `make test` (README quick start); asan, tsan and fuzz for reliability work.
# Each target installs missing Debian packages first (as root), then configures and builds with CMake.
BUILD     ?= build
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=
PACKAGES  := cmake g++ make pkg-config libboost-dev libtbb-dev libspdlog-dev catch2 libcli11-dev nlohmann-json3-dev
FUZZ_PACKAGES := clang libclang-rt-14-dev

.PHONY: all deps build bench test asan tsan fuzz format clean

all: build

deps:
	@./.ci/install-deps $(PACKAGES)

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

bench: build
	./$(BUILD)/bench/pto-bench

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

asan:
	$(MAKE) test BUILD=build-asan CMAKE_ARGS="-DPTO_SANITIZE=address -DPTO_BUILD_BENCH=OFF"

tsan:
	$(MAKE) test BUILD=build-tsan CMAKE_ARGS="-DPTO_SANITIZE=thread -DPTO_BUILD_BENCH=OFF"

format:
	find runtime scope tensormap static_graph examples bench tests -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	rm -rf build build-asan build-tsan build-fuzz
