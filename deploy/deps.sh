#!/bin/sh
# deps.sh - make sure the Debian packages dehbq needs are present.
#
#   sh deploy/deps.sh build   compiler, pkg-config, cJSON, libuuid, Check,
#                             LAPACKE over OpenBLAS, NLopt, libcsv
#   sh deploy/deps.sh test    + what the end-to-end tests use
#
# As root, missing packages are installed with apt-get; otherwise the exact
# apt-get line is printed and the script fails.
set -u
what=${1:-build}
pkgs="gcc make pkg-config libcjson-dev uuid-dev check liblapacke-dev libopenblas-dev libnlopt-dev libcsv-dev"
[ "$what" = test ] && pkgs="$pkgs clang libclang-rt-14-dev python3 perl"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
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
echo "dehbq: fatal: missing Debian packages:$missing" >&2
echo "hint: run as root: apt-get install -y$missing" >&2
exit 100
