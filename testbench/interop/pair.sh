# pair.sh — run one verbs program pair, our NIC (hlsnic-run) against rxe in the VM, and judge
# it (sourced by run-rxe and run-rxe-migrate, after rxe-session.sh): vm_serves / nic_serves
# start both programs in the right order, wait for both (bounded), print the programs' own
# verdict and the four judges' (lib.sh judge_end). Uses pcap (the VM's capture) and the
# session's variables.
# wait_host_listen PORT SECONDS: our server listens on 127.0.0.1:PORT (bounded)
wait_host_listen() {
    local i
    for i in $(seq 1 $(($2 * 10))); do
        ss -Hltn "sport = :$1" 2>/dev/null | grep -q . && return 0
        sleep 0.1
    done
    return 1
}

# wait_exit PID SECONDS: bounded wait for a background job to end by itself; 1 if it did not
wait_exit() {
    local i
    for i in $(seq 1 $(($2 * 10))); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}

# stop the verbs programs in the VM (their cmdserve connection then ends: exit 137)
vm_stop_verbs() {
    vm_cmd rxe 10 'killall -q -KILL ibv_rc_pingpong ib_write_bw ib_read_bw; true' >/dev/null
}

# why LOG: a program's own error lines (or its last lines), on one line
why() {
    local e
    e=$(grep -E -m3 'Fail|fail|[Ee]rror|Couldn|Unable|Killed|TIMED' "$1" | tr -s ' \t' ' ' | tr '\n' '|')
    [ -n "$e" ] && echo "$e" || grep -v '^\s*$' "$1" | tail -3 | tr '\n' '|'
}

# result NAME RC_OURS RC_VM OURLOG VMLOG WANT CLIENTLOG: one PASS/FAIL line for the programs'
# own verdict: both exit 0 and the client printed its result line (WANT)
result() {
    local name=$1 ro=$2 rv=$3 olog=$4 vlog=$5 want=$6 clog=$7 what
    if [ "$ro" = 0 ] && [ "$rv" = 0 ] && grep -Eq "$want" "$clog"; then
        echo "PASS interop/$name: both sides completed: $(grep -E "$want" "$clog" | tail -1 | tr -s ' ')"
        return 0
    fi
    case $ro in
        0) what="our side exit 0" ;;
        124|137) what="our side TIMED OUT after ${NIC_TIMEOUT}s" ;;
        125) what="our side did not start (hlsnic-run failed)" ;;
        *) what="our side exit $ro" ;;
    esac
    case $rv in
        0) what="$what, rxe side exit 0" ;; 137) what="$what, rxe side killed (its timeout, or stopped after ours ended)" ;;
        *) what="$what, rxe side exit $rv" ;;
    esac
    echo "FAIL interop/$name: $what; ours: $(why "$olog") rxe: $(why "$vlog")"
    return 1
}

# both_finish NAME OUR_PID VM_PID: wait (bounded) for our program and the VM's; when one of
# them ends, the other gets 15 s to follow (a peer that failed leaves the other waiting for
# frames that never come), then it is stopped. Sets ro / rv to their exit statuses.
both_finish() {
    local name=$1 opid=$2 vpid=$3 i
    for i in $(seq 1 $(( (NIC_TIMEOUT + 30) * 5 ))); do
        kill -0 "$opid" 2>/dev/null && kill -0 "$vpid" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "$vpid" 2>/dev/null && ! wait_exit "$vpid" 15; then
        echo "interop: $name: the rxe program still runs 15 s after ours ended: stopped"; vm_stop_verbs
    fi
    if kill -0 "$opid" 2>/dev/null && ! wait_exit "$opid" 15; then
        echo "interop: $name: our program still runs 15 s after rxe's ended: stopped"; kill "$opid"
    fi
    wait "$opid"; ro=$?
    wait "$vpid"; rv=$?
}

# vm_serves NAME REQUIRE VM_CMD OUR_CMD WANT: rxe is the server, our NIC the client
vm_serves() {
    local name=$1 require=$2 vcmd=$3 ocmd=$4 want=$5 vpid opid ro rv t0
    t0=$(date +%s.%N)
    judge_begin "$name" "$pcap" rxe
    vm_cmd rxe $((NIC_TIMEOUT + 10)) "$vcmd" >"$W/$name.vm.log" 2>&1 &
    vpid=$!
    if ! vm_wait_listen rxe 20; then
        echo "FAIL interop/$name: the rxe server never listened on 18515: $(head -c 300 "$W/$name.vm.log")"
        vm_stop_verbs; wait $vpid; check 1; return
    fi
    nic_cmd "$name"
    # shellcheck disable=SC2086
    "${NIC[@]}" $ocmd -p "${VM_OOBPORT[rxe]}" 127.0.0.1 >"$W/$name.log" 2>&1 &
    opid=$!
    nic_pids+=("$opid")
    both_finish "$name" "$opid" "$vpid"
    result "$name" $ro $rv "$W/$name.log" "$W/$name.vm.log" "$want" "$W/$name.log"; check $?
    echo "interop: $name took $(elapsed "$t0") s"
    judge_end "$name" "$pcap" "$require" rxe=$vm_ip; check $?
}

# nic_serves NAME REQUIRE OUR_CMD VM_CMD WANT: our NIC is the server, rxe the client
nic_serves() {
    local name=$1 require=$2 ocmd=$3 vcmd=$4 want=$5 opid vpid ro rv t0
    t0=$(date +%s.%N)
    judge_begin "$name" "$pcap" rxe
    nic_cmd "$name"
    # shellcheck disable=SC2086
    "${NIC[@]}" $ocmd -p "$our_oob" >"$W/$name.log" 2>&1 &
    opid=$!
    nic_pids+=("$opid")
    if ! wait_host_listen "$our_oob" 30; then
        kill "$opid" 2>/dev/null; wait "$opid"; ro=$?
        judge_end "$name" "$pcap" "$require" rxe=$vm_ip >/dev/null  # keeps the slice for debugging
        echo "FAIL interop/$name: our server never listened on 127.0.0.1:$our_oob (exit $ro): $(why "$W/$name.log")"
        check 1; return
    fi
    vm_cmd rxe $((NIC_TIMEOUT + 10)) "$vcmd 10.0.2.100" >"$W/$name.vm.log" 2>&1 &
    vpid=$!
    both_finish "$name" "$opid" "$vpid"
    result "$name" $ro $rv "$W/$name.log" "$W/$name.vm.log" "$want" "$W/$name.vm.log"; check $?
    echo "interop: $name took $(elapsed "$t0") s"
    judge_end "$name" "$pcap" "$require" rxe=$vm_ip; check $?
}
