#!/bin/bash
# Several hosts on one machine: network namespaces as nodes, an MPI job across them.
#
#   scripts/multihost.sh [options] -- program [args...]
#
#   --hosts N        hosts (network namespaces), 2..16                          (2)
#   --ppn K          ranks per host                                             (1)
#   --rate R         each host's link rate, both directions, by tc tbf: 1gbit, 10gbit,
#                    25gbit, 500mbit...; 0 or "none" = unshaped (veth speed)    (none)
#   --mpi M          openmpi | mpich (the launcher: mpirun.openmpi / mpiexec.hydra,
#                    or MULTIHOST_MPIRUN)                                       (openmpi)
#   --env VAR=VAL    set for every rank (repeatable)
#   --mpi-arg ARG    one more argument for the launcher (repeatable), e.g. --mpi-arg --mca
#                    --mpi-arg op --mpi-arg ^avx
#   --timeout S      the job is killed after S seconds (exit 124)               (300)
#   --cpus C         split: each host gets its own share of this machine's CPUs (taskset),
#                    as real hosts have their own cores (needs hosts <= CPUs); shared: every
#                    host may use every CPU                                     (split if it can)
#   --keep-going     (ignored; reserved)
#   -v               show the commands
#
# Each host is a network namespace with one interface (eth0, 10.231.0.<i+1>/24) whose peer is
# attached to a bridge in the root namespace; both ends are shaped by tbf to --rate, so a host
# has a full-duplex link of that rate to the "switch" (netem is not available in every kernel:
# no added delay). Every process of a host runs under `unshare --uts --mount` with the host's
# own hostname (vh<i>), /etc/hosts naming every host, a private tmpfs on /dev/shm and a private
# TMPDIR (Open MPI's session directory; /tmp itself stays shared, the job's files may be there):
# Open MPI's shared-memory transport and MPI_COMM_TYPE_SHARED see the namespaces as separate
# nodes. Each host runs on its own share of the CPUs (--cpus split, taskset) and Open MPI is told
# --bind-to none: left to itself, each host's Open MPI binds its first rank to core 0, so that
# every host's rank 0 shares one core (2 hosts x 1 rank: both ranks on CPU 0, milliseconds per
# message). MPICH's UCX is limited to UCX_TLS=self,tcp (unless UCX_TLS is set): its shared-memory
# transports reach a peer's memory through /proc/<pid> whatever the namespaces, so that between
# "hosts" nothing would cross the shaped link. mpirun runs on host vh0; the other hosts are reached through an rsh/ssh-like agent
# (Open MPI: --mca plm_rsh_agent, plm_rsh_no_tree_spawn; MPICH hydra: -launcher ssh
# -launcher-exec) kept in /run/vred-multihost/<id>/.
#
# Everything is torn down when the script ends, however it ends (trap): the processes in the
# namespaces, the namespaces, links and bridge, the state directory. Exit status: the job's;
# 77 (skipped, with a message on stderr) where namespaces cannot be created (not root, no
# CAP_NET_ADMIN, no ip/tc/unshare, no bridge/veth/tbf support).
#
# MULTIHOST_ID (default: the script's pid; 1-10 of a-z0-9) names the run's objects, so that runs
# may overlap.
set -u

hosts=2 ppn=1 rate=none mpi=openmpi timeout_s=300 verbose=0 cpus=auto
envs=() mpiargs=()
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "multihost: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --hosts) hosts=${2:?}; shift 2 ;;
    --ppn) ppn=${2:?}; shift 2 ;;
    --rate) rate=${2:?}; shift 2 ;;
    --mpi) mpi=${2:?}; shift 2 ;;
    --env) envs+=("${2:?}"); shift 2 ;;
    --mpi-arg) mpiargs+=("${2?}"); shift 2 ;;
    --timeout) timeout_s=${2:?}; shift 2 ;;
    --cpus) cpus=${2:?}; shift 2 ;;
    --keep-going) shift ;;
    -v) verbose=1; shift ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) die "unknown option '$1' (--help)" ;;
    esac
done
[ $# -gt 0 ] || die "no program given (scripts/multihost.sh [options] -- program args)"
[[ $hosts =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le 16 ] || die "--hosts must be 1..16"
[[ $ppn =~ ^[0-9]+$ ]] && [ "$ppn" -ge 1 ] && [ "$ppn" -le 64 ] || die "--ppn must be 1..64"
[[ $timeout_s =~ ^[0-9]+$ ]] && [ "$timeout_s" -ge 1 ] || die "--timeout must be a number of seconds"
case $rate in
none|0) rate=none ;;
*) [[ $rate =~ ^[0-9]+(\.[0-9]+)?([kmg]bit)$ ]] || die "--rate '$rate': give e.g. 1gbit, 10gbit, 500mbit or none" ;;
esac
case $mpi in openmpi|mpich) ;; *) die "--mpi must be openmpi or mpich" ;; esac
case $cpus in auto|split|shared) ;; *) die "--cpus must be split or shared" ;; esac
for e in "${envs[@]+"${envs[@]}"}"; do
    [[ $e == *=* ]] || die "--env '$e': expected VAR=VALUE"
done

skip() { echo "multihost: SKIPPED: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "network namespaces need root (CAP_NET_ADMIN, CAP_SYS_ADMIN); run as root"
for c in ip tc unshare timeout; do
    command -v $c >/dev/null || skip "'$c' not found (iproute2, util-linux, coreutils)"
done
if [ $mpi = openmpi ]; then
    launcher=${MULTIHOST_MPIRUN:-$(command -v mpirun.openmpi)}
else
    launcher=${MULTIHOST_MPIRUN:-$(command -v mpiexec.hydra || command -v mpirun.mpich)}
fi
[ -n "$launcher" ] && [ -x "$launcher" ] || skip "no launcher for $mpi (mpirun.openmpi / mpiexec.hydra)"

id=${MULTIHOST_ID:-$$}
[[ $id =~ ^[a-z0-9]{1,10}$ ]] || die "MULTIHOST_ID '$id': 1 to 10 of a-z 0-9 (it names links)"
state=/run/vred-multihost/$id
br=vrb$id
ns() { echo "vred-${2:-$id}-h$1"; }  # host [run]: its namespace
veth() { echo "vr${2:-$id}h$1"; }    # host [run]: its veth's end on the bridge
net=10.231.0
ip_of() { echo "$net.$(($1 + 1))"; }

say() { [ $verbose = 1 ] && echo "multihost: $*" >&2; return 0; }

job=
# SIGKILL to the given processes, then wait (2 s at most) until they are gone: a killed process
# holds its network namespace, and so the host's veth, until it has exited.
kill_all() {
    [ $# -gt 0 ] || return 0
    kill -KILL "$@" 2>/dev/null
    local p left _
    for _ in $(seq 200); do
        left=0
        for p in "$@"; do
            [ -e /proc/$p ] && [ "$(awk '{print $3}' /proc/$p/stat 2>/dev/null)" != Z ] && left=1
        done
        [ $left = 0 ] && return 0
        sleep 0.01
    done
}
# Every process of run $1: those in its namespaces, and those outside that name its state
# directory (timeout and the launcher's agents, on their way into a namespace).
run_pids() {
    local n
    for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$(ns '' "$1")"); do
        ip netns pids "$n" 2>/dev/null
    done
    pgrep -f "/run/vred-multihost/$1/"
}
# Remove run $1's objects, its processes first (twice: one may have been entering a namespace
# the first time). The veths are deleted by name: a namespace's own teardown, which would take
# them along, happens later, in the kernel's time.
remove_run() {
    local i n
    kill_all $(run_pids "$1" | grep -vx "$$")
    kill_all $(run_pids "$1" | grep -vx "$$")
    for n in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$(ns '' "$1")"); do
        i=${n##*-h}
        ip link del "$(veth "$i" "$1")" 2>/dev/null
        ip netns del "$n" 2>/dev/null
    done
    ip link del "vrb$1" 2>/dev/null
    rm -rf "/run/vred-multihost/$1" # (/run/vred-multihost itself stays: another run may be starting in it)
}
teardown() {
    local rc=$?
    trap - EXIT INT TERM HUP
    if [ -n "$job" ]; then kill -TERM -- -"$job" 2>/dev/null; kill -TERM "$job" 2>/dev/null; fi
    remove_run "$id"
    [ -n "$job" ] && wait "$job" 2>/dev/null
    exit $rc
}

# Runs whose script was killed outright (SIGKILL: no trap ran) left their objects: remove them.
reap() {
    local d o pid
    for d in /run/vred-multihost/.new-*; do # killed before its state directory was in place
        [ -d "$d" ] && ! kill -0 "${d##*-}" 2>/dev/null && rm -rf "$d"
    done
    for d in /run/vred-multihost/*/; do
        [ -f "$d/pid" ] || continue
        o=$(basename "$d")
        pid=$(cat "$d/pid")
        kill -0 "$pid" 2>/dev/null && continue
        echo "multihost: removing what the dead run $o (pid $pid) left" >&2
        remove_run "$o"
    done
}
reap
mkdir -p /run/vred-multihost || skip "cannot create /run/vred-multihost"
# The run owns its objects from here on. Its state directory appears with the pid already in it
# (renamed into place), so that a run killed at any moment is found by reap. The rename fails if
# another run holds the id: its objects are not this run's to tear down.
new=/run/vred-multihost/.new-$$
mkdir -p "$new" && echo $$ >"$new/pid" || skip "cannot write in /run/vred-multihost"
mv -T "$new" "$state" 2>/dev/null || {
    rm -rf "$new"
    die "$state exists: another run with MULTIHOST_ID=$id is under way"
}
trap teardown EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

# tbf: a burst of 2 ms of the rate (at least 256 KiB: veth's GSO packets are up to 64 KiB),
# a queue of 20 ms. (A burst of 0.2 ms, 128 KiB at least, made TCP crawl: 16 MiB allreduce at
# 10 Gbit/s took 364 ms instead of 26.) Above 1 Gbit/s the burst exceeds vred's 1 MiB link probe
# (src/mpi/comm.c), which then sees up to the veth's own speed.
shape() { # dev [netns]
    [ $rate = none ] && return 0
    local bps
    bps=$(awk -v r="$rate" 'BEGIN { n = r + 0; u = substr(r, length(r) - 3, 1);
        m = u == "k" ? 1e3 : u == "m" ? 1e6 : 1e9; printf "%d", n * m / 8 }')
    local burst=$((bps / 500))
    [ $burst -lt 262144 ] && burst=262144
    ${2:+ip netns exec $2} tc qdisc replace dev "$1" root tbf rate "$rate" burst "$burst" \
        latency 20ms 2>"$state/tc.err" || {
        cat "$state/tc.err" >&2
        skip "tc tbf is not available (sch_tbf)"
    }
}

ip link add "$br" type bridge nf_call_iptables 0 2>"$state/err" ||
    ip link add "$br" type bridge 2>"$state/err" ||
    skip "cannot create a bridge: $(cat "$state/err")"
ip link set "$br" up
: >"$state/hosts"
echo "127.0.0.1 localhost" >>"$state/hosts"
# The CPUs of each host: this process's allowed CPUs dealt out in contiguous shares.
mapfile -t mycpus < <(awk '/^Cpus_allowed_list/ { n = split($2, r, ",");
    for (i = 1; i <= n; i++) { m = split(r[i], ab, "-"); b = m > 1 ? ab[2] : ab[1];
        for (c = ab[1]; c <= b; c++) print c } }' /proc/self/status)
ncpu=${#mycpus[@]}
if [ $cpus = auto ]; then
    cpus=shared
    [ "$hosts" -le "$ncpu" ] && command -v taskset >/dev/null && cpus=split
elif [ $cpus = split ] && { [ "$hosts" -gt "$ncpu" ] || ! command -v taskset >/dev/null; }; then
    die "--cpus split: $hosts hosts need at least $hosts CPUs (have $ncpu) and taskset"
fi
for ((i = 0; i < hosts; i++)); do
    echo "$(ip_of $i) vh$i" >>"$state/hosts"
    set=-
    if [ $cpus = split ]; then
        lo=$((i * ncpu / hosts)) hi=$(((i + 1) * ncpu / hosts))
        set=$(printf '%s\n' "${mycpus[@]:$lo:$((hi - lo))}" | paste -sd,)
    fi
    echo "vh$i $(ns $i) $set" >>"$state/map"
done
for ((i = 0; i < hosts; i++)); do
    n=$(ns $i) v=$(veth $i)
    ip netns add "$n" 2>"$state/err" || skip "cannot create network namespaces: $(cat "$state/err")"
    ip link add "$v" type veth peer name eth0 netns "$n" 2>"$state/err" ||
        skip "cannot create veth pairs: $(cat "$state/err")"
    ip link set "$v" master "$br" up
    ip -n "$n" addr add "$(ip_of $i)/24" dev eth0
    ip -n "$n" link set eth0 up
    ip -n "$n" link set lo up
    shape "$v"
    shape eth0 "$n"
done
say "hosts vh0..vh$((hosts - 1)) on $br ($net.0/24), rate $rate, $ppn rank(s) each, CPUs $cpus"

# Run a command as on host vh<i>: its network, hostname, /etc/hosts, private /dev/shm and TMPDIR.
cat >"$state/enter" <<EOF
#!/bin/sh
# enter HOSTNAME COMMAND-STRING: run COMMAND-STRING (sh) on that host of run $id.
h=\$1; shift
n=\$(awk -v h="\$h" '\$1 == h { print \$2 }' "$state/map")
c=\$(awk -v h="\$h" '\$1 == h { print \$3 }' "$state/map")
[ -n "\$n" ] || { echo "multihost: unknown host '\$h'" >&2; exit 255; }
bind=
[ "\$c" != - ] && bind="taskset -c \$c"
# A private TMPDIR per host, not a tmpfs over /tmp: the job's programs may live under /tmp (a
# checkout there), and a host that could not see them could not start them.
mkdir -p "$state/tmp-\$h" && chmod 1777 "$state/tmp-\$h"
export TMPDIR="$state/tmp-\$h"
exec \$bind ip netns exec "\$n" unshare --uts --mount --propagation private sh -c '
    hostname "\$0" && mount --bind "$state/hosts" /etc/hosts &&
    mount -t tmpfs -o mode=1777,size=50% tmpfs /dev/shm &&
    exec sh -c "\$1"' "\$h" "\$*"
EOF
# The rsh/ssh agent of the launchers: [ssh options] host command...
cat >"$state/agent" <<EOF
#!/bin/sh
while [ \$# -gt 0 ]; do
    case \$1 in
    -o|-p|-l|-i|-F) shift 2 ;;
    -*) shift ;;
    *) break ;;
    esac
done
h=\$1; shift
exec "$state/enter" "\$h" "\$*"
EOF
chmod 755 "$state/enter" "$state/agent"

# The check that the hosts see each other (a few pings would need iputils: use bash's /dev/tcp
# is not possible without a listener; ip neigh is enough to prove the link is up).
np=$((hosts * ppn))
hostlist=
for ((i = 0; i < hosts; i++)); do hostlist+=${hostlist:+,}vh$i:$ppn; done
q() { printf '%q ' "$@"; }
if [ $mpi = openmpi ]; then
    cmd=("$launcher" --allow-run-as-root --oversubscribe -np $np -host "$hostlist"
        --mca plm_rsh_agent "$state/agent" --mca plm_rsh_no_tree_spawn 1
        --mca oob_tcp_if_include $net.0/24 --mca btl_tcp_if_include $net.0/24
        --mca btl self,vader,tcp --mca pml ob1 --mca orte_keep_fqdn_hostnames 1 --bind-to none)
    # More ranks than this machine's CPUs: Open MPI yields the core when idle, as it does by
    # itself on one node it knows is oversubscribed (each host here sees its ranks alone). Left
    # busy-polling, a message waits for its receiver's next time slice: 3 hosts on 2 CPUs took
    # 20-40 ms for a 1 MiB allreduce at 10 Gbit/s, 4 ms yielding. MPICH 4.0's UCX has no such
    # setting (MPIR_CVAR_POLLS_BEFORE_YIELD changed nothing).
    [ "$np" -gt "$ncpu" ] && cmd+=(--mca mpi_yield_when_idle 1)
    for e in "${envs[@]+"${envs[@]}"}"; do cmd+=(-x "$e"); done
    # What the user's environment says for vred goes to the ranks too, unless an --env names
    # the variable (mpirun's last -x of a name wins).
    for v in $(env | sed -n 's/^\(VRED_[A-Z0-9_]*\|XDG_CACHE_HOME\|LD_PRELOAD\)=.*/\1/p'); do
        named=0
        for e in "${envs[@]+"${envs[@]}"}"; do [ "${e%%=*}" = "$v" ] && named=1; done
        [ $named = 1 ] || cmd+=(-x "$v")
    done
else
    cmd=("$launcher" -launcher ssh -launcher-exec "$state/agent" -hosts "$hostlist" -n $np
        -iface eth0 -genv UCX_NET_DEVICES eth0 -genv UCX_TLS "${UCX_TLS:-self,tcp}")
    for e in "${envs[@]+"${envs[@]}"}"; do cmd+=(-genv "${e%%=*}" "${e#*=}"); done
fi
cmd+=("${mpiargs[@]+"${mpiargs[@]}"}" "$@")
say "$(q "${cmd[@]}")"
# The job in its own process group, so that teardown reaches every process it started.
setsid timeout --kill-after=10 "$timeout_s" "$state/enter" vh0 "$(q "${cmd[@]}")" &
job=$!
wait $job
rc=$?
job=
[ $rc = 124 ] && echo "multihost: the job did not finish in ${timeout_s} s: killed" >&2
exit $rc
