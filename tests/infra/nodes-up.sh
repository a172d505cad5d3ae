#!/usr/bin/env bash
# nodes-up.sh -- N pretend "hosts" on one machine.  Each node is a process tree
# in its own UTS (hostname), PID (its own PID 1, so PIDs repeat across nodes) and
# mount namespace, with its OWN sshfs client of the shared export mounted at the
# same path ($SHARED_MNT) -- i.e. every node has a private client-side cache, as
# with NFS.  Optionally (NODES_NET=1) each node also gets its own network
# namespace, joined by veth to a bridge in a "hub" namespace that holds sshd,
# addressed from 127.77.0.0/24 (loopback range; route_localnet=1 in our own
# namespaces only -- the host's network namespace is never touched).
#
#   NODES_BASE   (default /tmp/dehbq-infra/nodes)
#   NODES        number of nodes (default 3) -> names n1..nN (or NODE_NAMES="a b c")
#   NODES_NET    0 = share the host network namespace (loopback, distinct ports)
#                1 = separate netns per node + hub netns   (default 0)
#   SHARED_MNT   where every node mounts the export (default $NODES_BASE/shared)
#   NODE_SSHFS_OPTS  sshfs -o options for node mounts
#                (default "dcache_timeout=3,attr_timeout=0,entry_timeout=0" =
#                 the NFS-like profile; "" = sshfs defaults; see REPORT.md)
#   SSHFS_BASE   the sshfs server state dir; started here if not running
#
# Run commands on a node with:  nodes-exec.sh NAME CMD...   (same env vars)
# Tear down with nodes-down.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export NODES_BASE=${NODES_BASE:-/tmp/dehbq-infra/nodes}
NODES=${NODES:-3}
NODE_NAMES=${NODE_NAMES:-$(seq -f 'n%g' 1 "$NODES" | tr '\n' ' ')}
NODES_NET=${NODES_NET:-0}
export SHARED_MNT=${SHARED_MNT:-$NODES_BASE/shared}
NODE_SSHFS_OPTS=${NODE_SSHFS_OPTS-dcache_timeout=3,attr_timeout=0,entry_timeout=0}
export SSHFS_BASE=${SSHFS_BASE:-/tmp/dehbq-infra/sshfs}
PFX=${NODES_PREFIX:-dq}          # netns / veth name prefix
T0=$(date +%s.%N)
log() { printf '[nodes-up %6.2fs] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*" >&2; }

[ -s "$NODES_BASE/nodes" ] && { echo "nodes-up: $NODES_BASE/nodes exists; run nodes-down.sh first" >&2; exit 1; }
mkdir -p "$NODES_BASE" "$SHARED_MNT"
: > "$NODES_BASE/nodes"
echo "NODES_NET=$NODES_NET" > "$NODES_BASE/config"
echo "HUB=" >> "$NODES_BASE/config"

if [ "$NODES_NET" = 1 ]; then
    HUB=$PFX-hub
    ip netns add "$HUB"
    sed -i "s/^HUB=.*/HUB=$HUB/" "$NODES_BASE/config"
    ip -n "$HUB" link set lo up
    ip -n "$HUB" link add br0 type bridge
    ip -n "$HUB" link set br0 up
    ip netns exec "$HUB" sysctl -q -w net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.default.route_localnet=1 net.ipv4.conf.br0.route_localnet=1
    ip -n "$HUB" addr add 127.77.0.1/24 dev br0
    log "hub netns $HUB: br0 127.77.0.1/24"
fi

# the file server (sshd); in NET mode it lives in the hub, on 127.77.0.1:22
if ! { [ -s "$SSHFS_BASE/sshd.pid" ] && kill -0 "$(cat "$SSHFS_BASE/sshd.pid")" 2>/dev/null; }; then
    if [ "$NODES_NET" = 1 ]; then
        SSHFS_NETNS=$HUB SSHFS_LISTEN=127.77.0.1 SSHFS_PORT=22 SSHFS_CLIENTS=0 bash "$HERE/sshfs-up.sh" >/dev/null
    else
        SSHFS_CLIENTS=0 bash "$HERE/sshfs-up.sh" >/dev/null
    fi
    echo "STARTED_SSHFS=1" >> "$NODES_BASE/config"
    log "sshfs server started ($SSHFS_BASE)"
fi

# PID 1 of every node: set hostname, mount the shared export, then reap zombies
cat > "$NODES_BASE/node-init" <<'EOF'
#!/usr/bin/env bash
name=$1; addr=$2
hostname "$name"
if [ -n "$addr" ]; then            # NET mode: our own lo + eth0 (moved in by nodes-up)
    ip link set lo up
    sysctl -q -w net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.default.route_localnet=1
    for _ in $(seq 100); do ip link show eth0 >/dev/null 2>&1 && break; sleep 0.05; done
    sysctl -q -w net.ipv4.conf.eth0.route_localnet=1
    ip addr add "$addr/24" dev eth0
    ip link set eth0 up
fi
mkdir -p "$SHARED_MNT"
if ! SSHFS_NO_RECORD=1 "$SSHFS_BASE/mount-client" "$SHARED_MNT" "$NODE_SSHFS_OPTS" >/dev/null; then
    echo failed > "$NODES_BASE/$name.ready"; exit 1
fi
echo "ok $$ $(hostname)" > "$NODES_BASE/$name.ready"
trap 'exit 0' TERM INT
while :; do sleep 3600 & wait $!; done
EOF
chmod +x "$NODES_BASE/node-init"
export NODE_SSHFS_OPTS

i=0
for name in $NODE_NAMES; do
    i=$((i + 1))
    rm -f "$NODES_BASE/$name.ready"
    if [ "$NODES_NET" = 1 ]; then
        ns=$PFX-$name; addr=127.77.0.$((10 + i))
        ip netns add "$ns"
        ip link add "$PFX-$name" netns "$HUB" type veth peer name eth0 netns "$ns"
        ip -n "$HUB" link set "$PFX-$name" master br0 up
        ip netns exec "$HUB" sysctl -q -w "net.ipv4.conf.$PFX-$name.route_localnet=1"
        # nsenter (not `ip netns exec`, which remounts /sys and so hides
        # /sys/fs/cgroup -- slurmd 22.05 refuses to start without it) execs
        # unshare, so $! is unshare's (host) pid
        nsenter --net="/run/netns/$ns" unshare --uts --pid --mount --fork --mount-proc --propagation private \
            -- "$NODES_BASE/node-init" "$name" "$addr" </dev/null >>"$NODES_BASE/$name.log" 2>&1 &
    else
        ns=-; addr=127.0.0.1
        unshare --uts --pid --mount --fork --mount-proc --propagation private \
            -- "$NODES_BASE/node-init" "$name" "" </dev/null >>"$NODES_BASE/$name.log" 2>&1 &
    fi
    launcher=$!
    initpid=
    for _ in $(seq 100); do
        initpid=$(cat "/proc/$launcher/task/$launcher/children" 2>/dev/null | awk '{print $1}')
        [ -n "$initpid" ] && break; sleep 0.02
    done
    [ -n "$initpid" ] || { echo "nodes-up: node $name did not start" >&2; exit 1; }
    echo "$name $initpid $launcher $ns $addr" >> "$NODES_BASE/nodes"
done
for name in $NODE_NAMES; do
    for _ in $(seq 200); do [ -s "$NODES_BASE/$name.ready" ] && break; sleep 0.05; done
    st=$(cat "$NODES_BASE/$name.ready" 2>/dev/null || echo timeout)
    case $st in ok*) ;; *) echo "nodes-up: node $name: $st" >&2; cat "$NODES_BASE/$name.log" >&2; exit 1;; esac
done
log "nodes up: $(awk '{printf "%s(init pid %s, addr %s) ", $1, $2, $5}' "$NODES_BASE/nodes")"
