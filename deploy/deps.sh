#!/bin/sh
# deps.sh - make sure the Debian packages dehbq needs are present.
#
#   sh deploy/deps.sh build   compiler, pkg-config, cJSON, libuuid, Check,
#                             LAPACKE over OpenBLAS, NLopt, libcsv
#   sh deploy/deps.sh test    + what `make check` uses: clang (fuzz smoke),
#                             SLURM, sshfs, faketime, chromium, pandas, ...
#
# As root, missing packages are installed with apt-get.  Otherwise the exact
# apt-get line is printed and the script exits 100 -- unless only test
# packages are missing: then it warns and exits 0, and the tests that need
# them skip (tests/skipped.sh lists them at the end of `make check`).
set -u
what=${1:-build}
build="gcc make pkg-config libcjson-dev uuid-dev check liblapacke-dev libopenblas-dev libnlopt-dev libcsv-dev"
# Keep in step with .ci/run and README.md (Quick start).
test="clang libclang-rt-14-dev clang-format python3 perl procps psmisc
	util-linux iproute2 bc slurmctld slurmd slurm-client munge
	sshfs openssh-server openssh-client fuse3 faketime strace inotify-tools
	python3-pandas python3-sklearn python3-scipy python3-optuna chromium"
case $what in
build) pkgs=$build ;;
test) pkgs="$build $test" ;;
*) echo "usage: sh deploy/deps.sh build|test" >&2; exit 2 ;;
esac
missing= need_build=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' &&
		continue
	missing="$missing $p"
	case " $build " in *" $p "*) need_build=1 ;; esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "dehbq: installing missing packages:$missing" >&2
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends $missing; } >&2 || {
		echo "dehbq: fatal: apt-get install failed for:$missing" >&2
		exit 111
	}
	exit 0
fi
if [ -z "$need_build" ]; then
	echo "dehbq: warning: test packages missing, their checks will be skipped; as root run:" >&2
	echo "apt-get install -y$missing" >&2
	exit 0
fi
echo "dehbq: fatal: missing Debian packages:$missing" >&2
echo "hint: run as root: apt-get install -y$missing" >&2
exit 100
