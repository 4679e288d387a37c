# hlsnic — top-level entry points. Both `make demo` and `make test` install the Debian
# packages they need first (scripts/install-deps.sh; apt-get runs only if something is missing).
#
#   make deps    install the build/test packages (Debian 12, apt only)
#   make test    build everything and run every test suite (scripts/run-tests); THE test command
#   make test-long   the sweeps too long for `make test` (500 migration seeds; docs/migration.md),
#                every '&&' of three NIC blocks flipped in turn (docs/rtl-gen.md), 10^6 runs of
#                the image loader's fuzzer (docs/migration-fw.md), the platform's 20000-seed
#                sweeps and the NICs' seed-order suspend at 33 points per switch reading and
#                P2P region (docs/pcie-platform.md), 1000 fault seeds (docs/scenarios.md) and the
#                clock jump at the ACK timeout exponent 14 (docs/device.md); `make test` runs
#                smaller sizes of all but the first two
#   make demo    HLS-C block -> Verilog -> lock-step check against the C model -> area report,
#                make review of a small change (docs/review.md), then ibv_rc_pingpong live-migrated
#                between two simulated NICs (scripts/demo-migrate)
#   make bench   the NIC's performance and size table (docs/bench.md); QUICK=1: small sizes
#   make bench-migration   ib_write_bw across a live migration: downtime by phase, pre-copy, the
#                bandwidth dip, and the plot's SVG (docs/live-migration.md, "Plot and bench")
#   make review  what a change does to the NIC's Verilog, area, equiv, tests and bench figures
#                (docs/review.md); BASE=REV (default HEAD if tracked files changed, else HEAD~1)
#                REVIEW_FLAGS="--no-synth --no-bench ..." (scripts/review --help)
#   make clean   remove everything generated

.PHONY: all deps test test-long demo bench review clean
# The targets here share rtl-gen/build: run them one after another even under -j
# (sub-makes still run their own jobs in parallel).
.NOTPARALLEL:
.PHONY: bench-migration

all: test

deps:
	@scripts/install-deps.sh

test: deps
	@scripts/run-tests

test-long: deps
	@testbench/migration/tests/long
	@FLIPS=all rtl-gen/tests/diff/run requester completer responder
	@$(MAKE) -s --no-print-directory -C migration-fw fuzz-long
	@$(MAKE) -s --no-print-directory -C testbench/platform long long-nic
	@SEEDS=1-1000 testbench/scenario/tests/faults
	@testbench/nic/tests/clock-jump-run

demo: deps
	@scripts/demo

bench: deps
	@QUICK=$(if $(filter-out 0,$(QUICK)),1,0) testbench/bench/run

bench-migration: deps
	@testbench/bench/migration-run --plot

review: deps
	@scripts/review $(BASE) $(REVIEW_FLAGS)

clean:
	$(MAKE) -C rtl-gen clean
