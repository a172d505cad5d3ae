# nodes-lib.sh - helpers for the multi-"host" tests (bash; source after
# tests/lib.sh).  Everything lives under $T/infra, sshd listens on a free
# loopback port, and infra_down stops exactly what infra_up started.
#
#   infra_missing            prints why the infrastructure cannot run (empty: ok)
#   infra_up NODES [OPTS]    sshd + NODES nodes n1..nN (UTS+PID+mount ns), each
#                            with its own sshfs client (sshfs -o OPTS) of
#                            $EXPORT mounted at $SHARED in the node
#   nx NODE CMD...           run CMD inside NODE
#   infra_down               tear down; infra_leftovers lists what remains
#
# Cache profiles (see tests/infra/README or the REPORT the scripts came from):
PROFILE_STRICT="dir_cache=no,attr_timeout=0,entry_timeout=0,negative_timeout=0"
PROFILE_NFS="dcache_timeout=3,attr_timeout=0,entry_timeout=0"
PROFILE_DEFAULT=""

INFRA_DIR=$DEHBQ_SRC/tests/infra

infra_missing() {
	[ "$(id -u)" = 0 ] || { echo "needs root (namespaces, FUSE mounts)"; return; }
	[ -e /dev/fuse ] || { echo "no /dev/fuse"; return; }
	for c in sshfs /usr/sbin/sshd ssh ssh-keygen fusermount3 unshare nsenter bc python3; do
		command -v "$c" >/dev/null 2>&1 || { echo "missing $c (apt-get install sshfs openssh-server openssh-client fuse3 bc)"; return; }
	done
	grep -qw fuse /proc/filesystems || { echo "kernel has no fuse"; return; }
	unshare --uts --pid --mount --fork true 2>/dev/null || { echo "unshare of uts/pid/mount namespaces not permitted"; return; }
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

infra_up() {
	export NODES_BASE=$T/infra/nodes
	export SSHFS_BASE=$T/infra/sshfs
	export SHARED_MNT=$T/infra/shared
	export SSHFS_PORT
	SSHFS_PORT=$(free_port)
	export SSHFS_INSTALL=0 NODES_NET=0 NODES=$1
	export NODE_SSHFS_OPTS=${2-$PROFILE_NFS}
	EXPORT=$SSHFS_BASE/export
	SHARED=$SHARED_MNT
	INFRA_UP=1
	bash "$INFRA_DIR/nodes-up.sh" >>"$T/infra.log" 2>&1
}

nx() { bash "$INFRA_DIR/nodes-exec.sh" "$@"; }

# host-side path of NODE's client view of the share (its cache included)
node_view() {
	echo "/proc/$(awk -v n="$1" '$1 == n {print $2}' "$NODES_BASE/nodes")/root$SHARED_MNT"
}

infra_down() {
	[ "${INFRA_UP:-0}" = 1 ] || return 0
	INFRA_UP=0
	NODES_KEEP=0 bash "$INFRA_DIR/nodes-down.sh" >>"$T/infra.log" 2>&1
	# nodes-down stops sshd when nodes-up started it; be sure
	if [ -s "$SSHFS_BASE/sshd.pid" ]; then
		SSHFS_KEEP=0 bash "$INFRA_DIR/sshfs-down.sh" >>"$T/infra.log" 2>&1
	fi
}

# infra_leftovers: mounts under $T, or live processes of ours; empty = clean
infra_leftovers() {
	grep " $T/" /proc/mounts
	ps -eo pid,args | grep -F "$T/infra" | grep -v grep
	return 0
}
