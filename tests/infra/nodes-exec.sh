#!/usr/bin/env bash
# nodes-exec.sh NAME CMD [ARGS...] -- run CMD inside node NAME (its hostname, PID
# namespace, mount namespace with the node's own sshfs mount, and netns if any).
# NAME may be "hub" in NODES_NET=1 mode (hub netns only, host mounts/PIDs).
# The current directory is kept if it exists inside the node.
set -euo pipefail
NODES_BASE=${NODES_BASE:-/tmp/dehbq-infra/nodes}
name=$1; shift
if [ "$name" = hub ]; then
    hub=$(sed -n 's/^HUB=//p' "$NODES_BASE/config")
    [ -n "$hub" ] || { echo "node-exec: no hub (NODES_NET=0)" >&2; exit 1; }
    exec nsenter --net="/run/netns/$hub" -- "$@"
fi
read -r _ initpid _ ns _ < <(awk -v n="$name" '$1 == n' "$NODES_BASE/nodes")
[ -n "${initpid:-}" ] || { echo "node-exec: unknown node $name" >&2; exit 1; }
nsargs=(-t "$initpid" -u -p -m)
[ "$ns" != - ] && nsargs+=(-n)
exec nsenter "${nsargs[@]}" -- /bin/sh -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' node-exec "$PWD" "$@"
