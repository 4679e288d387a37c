# rxe-session.sh — one interop session, sourced by run-rxe and run-rxe-migrate: the host
# packages, the VM's root file system, a work dir, the wire, our side checked (hlsnic-run --
# ibv_devinfo), and the rxe VM booted once with rxe0 up and a permanent neighbour entry for us.
#
# Defines for the caller: top, W (= INTEROP_WORK), fails / check, model, run, our_ip, our_mac,
# vm_ip, vm_mac, nic_wire, our_oob, our_ok, NIC_TIMEOUT, nic_pids (killed at exit), nic_cmd /
# nic_run (our side's command line, NIC_EXTRA: more hlsnic-run options for the next one).
# Exits (FAIL line printed) when the VM does not come up.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$(cd "$interop_dir/../.." && pwd)
t_start=$(date +%s.%N)
fails=0
check() { [ "$1" = 0 ] || fails=$((fails + 1)); }
model=${INTEROP_MODEL:-c}
run=$top/host-driver/hlsnic-run
our_ip=10.77.0.1 our_mac=02:00:0a:4d:00:01
vm_ip=10.77.0.2 vm_mac=52:54:00:77:00:02
NIC_TIMEOUT=${NIC_TIMEOUT:-60}   # seconds any one program on our side may run (a pass takes < 25)
wire_kind=${INTEROP_WIRE:-udp}

"$interop_dir/fetch-deps" || exit 1
"$interop_dir/build-initramfs" || exit 1
INTEROP_WORK=$(mktemp -d "${TMPDIR:-/tmp}/interop-rxe.XXXXXX")
W=$INTEROP_WORK
nic_pids=()
cleanup() {
    local p
    for p in "${nic_pids[@]}"; do kill "$p" 2>/dev/null; done
    vm_stop_all
    if [ $fails = 0 ] && [ -z "${INTEROP_KEEP:-}" ]; then rm -rf "$W"; else echo "interop: logs kept in $W"; fi
}
trap cleanup EXIT
echo "interop: work dir $W, our model: $model, wire: $wire_kind"
case $wire_kind in
    unix) vm_wire="unix:$W/vm.sock,$W/nic.sock" nic_wire="unix:$W/nic.sock,$W/vm.sock" ;;
    udp)  p1=$(pick_port udp) p2=$(pick_port udp)
          vm_wire="udp:127.0.0.1:$p1,127.0.0.1:$p2" nic_wire="udp:127.0.0.1:$p2,127.0.0.1:$p1" ;;
    *) echo "FAIL interop/config: INTEROP_WIRE=$wire_kind, expected unix or udp"; exit 1 ;;
esac

# ---- our side: the provider must exist (built by host-driver/Makefile) -----------------
provider=$top/host-driver/build/libhlsnic-rdmav34.so
if [ ! -e "$provider" ] && [ -z "${INTEROP_NO_BUILD:-}" ]; then
    rtl_flag=; [ "$model" = rtl ] && rtl_flag=RTL=1
    make -s -C "$top/host-driver" $rtl_flag >"$W/host-driver-build.log" 2>&1
fi
our_ok=1
if [ ! -x "$run" ]; then
    echo "FAIL interop/our-side: $run does not exist (helper 'launcher')"; our_ok=0
elif [ ! -e "$provider" ]; then
    echo "FAIL interop/our-side: provider $provider not built: make -C host-driver failed: $(tail -3 "$W/host-driver-build.log" 2>/dev/null | tr '\n' ' ')"; our_ok=0
fi

# our NIC runs one program: nic_cmd TAG, then "${NIC[@]}" PROGRAM ARGS... Bounded by
# NIC_TIMEOUT; a SIGTERM to the timeout process reaches the program through hlsnic-run.
# NIC_EXTRA: more hlsnic-run options (e.g. --migrate-at) for the commands made from now on.
NIC_EXTRA=()
nic_cmd() {
    NIC=(timeout -k 5 "$NIC_TIMEOUT" "$run" --model "$model" --wire "$nic_wire"
         --ip $our_ip --mac $our_mac --neigh $vm_ip=$vm_mac --pcap "$W/nic-$1.pcap" "${NIC_EXTRA[@]}" --)
}
nic_run() {
    local log=$1; shift
    nic_cmd "$(basename "$log" .log)"
    "${NIC[@]}" "$@" >"$log" 2>&1
}

if [ $our_ok = 1 ]; then
    nic_run "$W/devinfo.log" ibv_devinfo -v; rc=$?
    if [ $rc = 0 ] && grep -q 'PORT_ACTIVE' "$W/devinfo.log" && grep -q "::ffff:$our_ip" "$W/devinfo.log"; then
        echo "PASS interop/our-side: hlsnic-run -- ibv_devinfo -v: port ACTIVE, GID ::ffff:$our_ip"
    else
        echo "FAIL interop/our-side: hlsnic-run -- ibv_devinfo -v exit $rc (125 = the launcher failed): $(grep -v '^\s*$' "$W/devinfo.log" | tail -3 | tr '\n' ' ')"
        our_ok=0
    fi
fi
check $((1 - our_ok))

# ---- the VM ----------------------------------------------------------------------------
our_oob=$(pick_port)   # our servers listen here; the VM's guestfwd relays to it
vm_start rxe "$vm_wire" $vm_ip/24 $vm_mac "$our_oob" || { check 1; exit 1; }
vm_wait rxe || { check 1; exit 1; }
out=$(vm_cmd rxe 10 "/usr/sbin/ip neigh replace $our_ip lladdr $our_mac dev eth0 nud permanent &&
    cat /sys/class/infiniband/rxe0/ports/1/gids/1 && cat /sys/class/infiniband/rxe0/ports/1/state"); rc=$?
if [ $rc = 0 ] && echo "$out" | grep -q 'ffff:0a4d:0002' && echo "$out" | grep -q ACTIVE; then
    echo "PASS interop/rxe-up: rxe0 ACTIVE, GID 1 = ::ffff:$vm_ip, permanent neighbour $our_ip -> $our_mac"
else
    echo "FAIL interop/rxe-up: neighbour entry or rxe0 state/GID wrong (exit $rc): $(echo "$out" | tr '\n' ' ')"
    check 1; exit 1
fi
