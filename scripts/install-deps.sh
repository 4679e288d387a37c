#!/usr/bin/env bash
# Install the Debian 12 packages hlsnic needs to build and test, from Debian's apt only.
# Idempotent: asks dpkg which packages are missing and calls apt-get only for those
# (a machine that has everything never runs apt-get). Runs as root, or through sudo if
# there is one and we are not root.
#
# To add a dependency, add its Debian package name to PACKAGES below.
set -euo pipefail

PACKAGES=(
    # rtl-gen: clang lowers HLS-C to LLVM IR; rtl-gen links LLVM's and libclang's C APIs
    clang-19 llvm-19-dev libclang-19-dev
    # clang-19's sanitizer runtimes: native C models and testbench code run under UBSan/ASan
    libclang-rt-19-dev
    # Verilog: Verilator (C++ and SystemC models), yosys (area report), iverilog (second opinion)
    verilator libsystemc-dev yosys iverilog
    # Verilator's FST traces; compiler cache for Verilator's runtime objects
    zlib1g-dev ccache
    # independent judges of every packet capture: Wireshark's dissector, scapy's RoCE ICRC
    tshark python3-scapy
    # host driver: libibverbs 44 (the provider ABI is pinned to it) and the unmodified
    # programs the tests run on the simulated NIC: ibv_devinfo, ibv_rc_pingpong, perftest
    libibverbs-dev ibverbs-utils perftest
    # interop peer: Linux rxe in a QEMU VM (testbench/interop/fetch-deps adds the guest kernel)
    qemu-system-x86 busybox-static rdma-core ibverbs-providers iproute2
    # migration firmware: linked for rv32imc by lld (clang-19 drives it), its unit tests run
    # on that build under qemu-riscv32 (Linux user mode) to show it width- and endian-clean
    lld-19 qemu-user
    # the exhaustive model of the multi-device suspend (testbench/platform/spin, make -C
    # testbench/platform spin): spin writes a C verifier, gcc builds it
    spin
    # the throughput-over-time plot of a live migration (testbench/bench/plot-migration): SVG
    gnuplot-nox
    # build and scripts
    make gcc g++ python3
)

installed() {
    # "install ok installed" only; a removed package keeps "deinstall ok config-files".
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

missing=()
for p in "${PACKAGES[@]}"; do
    installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#PACKAGES[@]} packages present"
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "install-deps: not root and no sudo; install these: ${missing[*]}" >&2
        exit 1
    fi
fi

echo "install-deps: installing ${missing[*]}"
"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"

still=()
for p in "${missing[@]}"; do
    installed "$p" || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
    echo "install-deps: still missing after apt-get: ${still[*]}" >&2
    exit 1
fi
echo "install-deps: installed ${missing[*]}"
