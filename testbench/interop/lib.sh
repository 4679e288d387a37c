# lib.sh — start, drive and stop rxe peer VMs (sourced by run-vm-pair and run-rxe).
#
# A VM is a directory ($INTEROP_WORK/<name>) holding its console.log, qemu.log, wire.pcap
# (QEMU filter-dump of the RoCE wire, both directions), and the ports of its management NIC.
# The RoCE wire is QEMU -netdev dgram over unix datagram sockets (one Ethernet frame per
# datagram, the format of testbench/device's "unix:LOCAL,REMOTE" wire); the management NIC is
# user-mode net restricted to the host: hostfwd for the command server (guest port 7000) and
# the verbs programs' out-of-band TCP port 18515, guestfwd 10.0.2.100:18515 for the reverse
# direction (a client in the VM reaching a server on the host).
# Every wait is bounded; every QEMU is killed by its PID (vm_stop_all, run from the trap).

interop_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
INTEROP_BUILD=${INTEROP_BUILD:-$interop_dir/build}
VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-180}   # seconds; TCG boot is ~10-20 s on an idle core
declare -A VM_PID VM_CMDPORT VM_OOBPORT VM_DIR
VM_NAMES=()

# pick_port [udp]: a free TCP (or UDP) port on 127.0.0.1, random in 20000-59999, not in use now
pick_port() {
    local p i flags=-Hltn
    [ "${1:-}" = udp ] && flags=-Hlun
    for i in $(seq 1 50); do
        p=$((20000 + RANDOM % 40000))
        ss $flags "sport = :$p" 2>/dev/null | grep -q . && continue
        echo "$p"; return 0
    done
    return 1
}

# wire_netdev SPEC: QEMU's -netdev dgram options for a wire in hlsnic_dev's notation,
# "unix:LOCAL,REMOTE" or "udp:HOST:PORT,HOST:PORT" (LOCAL = the VM's end)
wire_netdev() {
    local l r
    case $1 in
        unix:*,*) l=${1#unix:}; r=${l#*,}; l=${l%%,*}
                  echo "local.type=unix,local.path=$l,remote.type=unix,remote.path=$r" ;;
        udp:*:*,*:*) l=${1#udp:}; r=${l#*,}; l=${l%%,*}
                  echo "local.type=inet,local.host=${l%:*},local.port=${l##*:},remote.type=inet,remote.host=${r%:*},remote.port=${r##*:}" ;;
        *) return 1 ;;
    esac
}

# vm_start NAME WIRE IP/PREFIX MAC [GUESTFWD_HOST_PORT]
# Starts QEMU in the background; vm_wait waits for it. WIRE: see wire_netdev.
# GUESTFWD_HOST_PORT: a TCP port on 127.0.0.1 that a connection from the VM to
# 10.0.2.100:18515 is relayed to.
vm_start() {
    local name=$1 wire=$2 ip=$3 mac=$4 gport=${5:-}
    local dir=$INTEROP_WORK/$name cmdport oobport fwd netdev
    mkdir -p "$dir"
    netdev=$(wire_netdev "$wire") || { echo "FAIL interop/$name: wire '$wire' is not unix:L,R or udp:H:P,H:P"; return 1; }
    cmdport=$(pick_port) && oobport=$(pick_port) || { echo "FAIL interop/$name: no free TCP port"; return 1; }
    fwd="hostfwd=tcp:127.0.0.1:$cmdport-:7000,hostfwd=tcp:127.0.0.1:$oobport-:18515"
    [ -n "$gport" ] && fwd="$fwd,guestfwd=tcp:10.0.2.100:18515-cmd:$interop_dir/tcp-relay 127.0.0.1 $gport"
    VM_DIR[$name]=$dir VM_CMDPORT[$name]=$cmdport VM_OOBPORT[$name]=$oobport
    nice -n 5 qemu-system-x86_64 -accel tcg -machine pc -cpu max -m 384 -smp 1 \
        -nodefaults -no-user-config -display none -no-reboot \
        -kernel "$INTEROP_BUILD/kernel/current/boot/"vmlinuz-* \
        -initrd "$INTEROP_BUILD/initramfs.cpio.gz" \
        -append "console=ttyS0 panic=-1 quiet interop.ip=$ip interop.mac=$mac" \
        -serial "file:$dir/console.log" \
        -netdev "dgram,id=wire,$netdev" \
        -device "virtio-net-pci,netdev=wire,mac=$mac,romfile=,addr=0x3" \
        -object "filter-dump,id=dump,netdev=wire,file=$dir/wire.pcap" \
        -netdev "user,id=mgmt,restrict=on,net=10.0.2.0/24,$fwd" \
        -device "virtio-net-pci,netdev=mgmt,mac=52:54:00:12:34:56,romfile=,addr=0x4" \
        >"$dir/qemu.log" 2>&1 &
    VM_PID[$name]=$!
    VM_NAMES+=("$name")
    date +%s.%N > "$dir/start-time"
}

# vm_wait NAME: bounded wait until the init says INTEROP-READY and the command server answers.
# Prints one PASS/FAIL line (boot time in it); returns nonzero on failure.
vm_wait() {
    local name=$1 dir=${VM_DIR[$1]} t0 t now
    t0=$(cat "$dir/start-time")
    for t in $(seq 1 $((VM_BOOT_TIMEOUT * 2))); do
        if ! kill -0 "${VM_PID[$name]}" 2>/dev/null; then
            echo "FAIL interop/$name-boot: QEMU exited: $(tail -3 "$dir/qemu.log" | tr '\n' ' ')"
            return 1
        fi
        if grep -q 'INIT-FAIL\|INTEROP-NOT-READY\|Kernel panic' "$dir/console.log" 2>/dev/null; then
            echo "FAIL interop/$name-boot: $(grep -m3 'INIT-FAIL\|Kernel panic' "$dir/console.log" | tr '\n' ';') (console: $dir/console.log)"
            return 1
        fi
        if grep -q INTEROP-READY "$dir/console.log" 2>/dev/null &&
           [ "$(vm_cmd "$name" 10 'echo up' 2>/dev/null)" = up ]; then
            now=$(date +%s.%N)
            echo "PASS interop/$name-boot: VM up, rxe0 on eth0, command server answers after $(printf '%.1f' "$(echo "$now - $t0" | bc)") s"
            return 0
        fi
        sleep 0.5
    done
    echo "FAIL interop/$name-boot: not ready after ${VM_BOOT_TIMEOUT}s (console: $dir/console.log)"
    return 1
}

# vm_cmd NAME SECONDS SCRIPT: run SCRIPT (sh) in the VM, killed after SECONDS. Prints its
# output; returns its exit status (137: killed by the guest timeout, 124: the host gave up,
# 99: the reply had no exit status, i.e. connection lost).
vm_cmd() {
    local name=$1 secs=$2 script=$3 b64 reply rc
    b64=$(printf '%s\n' "$script" | base64 -w0)
    reply=$(timeout $((secs + 20)) bash -c '
        exec 3<>/dev/tcp/127.0.0.1/$1 || exit 98
        printf "RUN %s %s\n" "$2" "$3" >&3
        cat <&3' _ "${VM_CMDPORT[$name]}" "$secs" "$b64" 2>/dev/null)
    rc=$?
    [ $rc = 124 ] && { printf '%s\n' "$reply"; return 124; }
    if [[ $reply =~ (^|$'\n')@@EXIT\ ([0-9]+)$ ]]; then
        rc=${BASH_REMATCH[2]}
        reply=${reply%@@EXIT *}
        printf '%s' "$reply"
        return "$rc"
    fi
    printf '%s\n' "$reply"
    return 99
}

vm_stop_all() {
    local n
    for n in "${VM_NAMES[@]}"; do
        kill "${VM_PID[$n]}" 2>/dev/null
    done
    for n in "${VM_NAMES[@]}"; do
        wait "${VM_PID[$n]}" 2>/dev/null
    done
    VM_NAMES=()
}

# vm_wait_listen NAME SECONDS: bounded wait until a program in the VM listens on TCP 18515
# (the verbs server is ready for its client). Returns nonzero when it never does.
vm_wait_listen() {
    vm_cmd "$1" "$2" 'while ! netstat -ltn | grep -q ":18515 "; do usleep 100000; done' >/dev/null
}

# pcap_frames PCAP: whole frames written so far
pcap_frames() { "$interop_dir/wire-judge" --count "$1"; }

# rxe_counters VM: "rcvd_pkts sent_pkts" of rxe0 in the VM. rxe counts rcvd_pkts only for a
# frame that passed its header checks (QP exists and is in a receiving state, P_Key, opcode
# fits the QP) AND its ICRC check (rxe_recv.c, rxe_rcv): a frame it drops is not counted.
rxe_counters() {
    vm_cmd "$1" 10 'cd /sys/class/infiniband/rxe0/ports/1/hw_counters && echo $(cat rcvd_pkts) $(cat sent_pkts)'
}

# judge_begin NAME PCAP VM...: remember where test NAME starts in PCAP and each VM's counters.
judge_begin() {
    local name=$1 pcap=$2 vm; shift 2
    echo $(( $(pcap_frames "$pcap") + 1 )) > "$INTEROP_WORK/$name.first"
    for vm in "$@"; do rxe_counters "$vm" > "$INTEROP_WORK/$name.$vm.before"; done
}

# judge_end NAME PCAP REQUIRE VM=IP...: judge the frames of test NAME four ways:
#   wire-judge (our parse: only RoCE, the REQUIRE'd opcodes, no NAK), tshark-check (Wireshark
#   decodes every frame as RoCEv2 with the same opcode and PSN, no malformed/expert warning),
#   icrc-check (scapy: every ICRC right), and rxe itself: the VM's rcvd_pkts grew by exactly
#   the number of RoCE frames captured on their way to its IP (none dropped: bad ICRC, bad
#   header, unknown QP), sent_pkts by exactly the frames captured from it.
# Prints PASS/FAIL lines; returns nonzero on any FAIL.
judge_end() {
    local name=$1 pcap=$2 require=$3 first last out=$INTEROP_WORK/judge rc=0 arg vm ip
    local b_rcvd b_sent a_rcvd a_sent want_rcvd want_sent
    shift 3
    first=$(cat "$INTEROP_WORK/$name.first")
    sleep 0.3  # the last frames (final ACKs) reach the capture file
    last=$(pcap_frames "$pcap")
    "$interop_dir/wire-judge" "$name" "$pcap" "$first" "$last" "$out" "$require" || rc=1
    [ -s "$out/$name.expect" ] || return 1
    "$interop_dir/../judges/tshark-check" "$out/$name.pcap" "$out/$name.expect" | sed "s|$out/||" | tail -3
    [ "${PIPESTATUS[0]}" = 0 ] || rc=1
    "$interop_dir/../judges/icrc-check" "$out/$name.pcap" | sed "s|$out/||" | tail -3
    [ "${PIPESTATUS[0]}" = 0 ] || rc=1
    for arg in "$@"; do
        vm=${arg%%=*} ip=${arg#*=}
        read -r b_rcvd b_sent < "$INTEROP_WORK/$name.$vm.before"
        read -r a_rcvd a_sent < <(rxe_counters "$vm")
        want_rcvd=$(awk -v ip="$ip" '$1=="to" && $2==ip {print $3}' "$out/$name.counts")
        want_sent=$(awk -v ip="$ip" '$1=="from" && $2==ip {print $3}' "$out/$name.counts")
        if [ -z "${a_rcvd:-}" ] || [ -z "${b_rcvd:-}" ]; then
            echo "FAIL rxe/$name: cannot read rxe0 hw_counters in VM $vm"; rc=1; continue
        fi
        if [ $((a_rcvd - b_rcvd)) = "${want_rcvd:-0}" ] && [ $((a_sent - b_sent)) = "${want_sent:-0}" ]; then
            echo "PASS rxe/$name: rxe in VM $vm accepted all ${want_rcvd:-0} frames sent to $ip (rcvd_pkts), sent the ${want_sent:-0} captured from it"
        else
            echo "FAIL rxe/$name: rxe in VM $vm: rcvd_pkts +$((a_rcvd - b_rcvd)) for ${want_rcvd:-0} frames captured to $ip (fewer: rxe dropped frames: bad ICRC or header), sent_pkts +$((a_sent - b_sent)) for ${want_sent:-0} captured from it"
            rc=1
        fi
    done
    return $rc
}

# elapsed T0: seconds since T0 (a date +%s.%N value), one decimal
elapsed() { printf '%.1f' "$(echo "$(date +%s.%N) - $1" | bc)"; }
