#!/bin/bash
# Where a workload's guest instructions go, per kernel function: boots a
# built kernel with one stress-ng workload (tests/workloads.conf) under
# QEMU TCG icount and counts, with a TCG plugin (tests/profile/), every
# guest instruction between two executions of a marker function, as the
# guest runs on its own (no debugger, no other change to the guest).
# Usage: [BASE=7.2] scripts/profile-workload.sh [--config SET] [--skip N]
#          [--calls K] [--after FUNCTION] [--salt I] VARIANT MODE WORKLOAD
#          MARKER
#   VARIANT, MODE, SET: as for run-bench.sh (default config: bench); the
#   kernel must be built (run run-bench.sh first).
#   WORKLOAD: a stress-ng workload, or bench:PART for one part of the
#   bench job (tests/guest/job-bench.sh): bench:pair, bench:pingpong-same,
#   bench:pingpong-cross (mq-bench), bench:kmem:API:SIZE:ACCT (one
#   kmem_bench measurement, e.g. bench:kmem:kmalloc:64:0), bench:locks
#   (lock-bench's cases one after the other: pick a marker of one case,
#   e.g. unix_dgram_sendmsg for dgram).
#   --salt I: add harness.salt=I to the command line (I >= 2), the dummy
#   word run-bench.sh --boots gives its I-th boot: any early boot input
#   moves where a multi-process stressor switches, so profiles with
#   several salts show a workload's spread (run-bench.sh runs all the
#   workloads in one boot, this script one: the boots are not the same).
#   --after FUNCTION: count the marker only once FUNCTION has run, e.g.
#   --after proc_reg_write for bench:kmem:..., whose loop starts with the
#   write to /proc/kmem_bench (a marker like __kmalloc also runs at boot).
#   MARKER: a kernel function the workload runs once or a few times per
#   bogo op (e.g. __x64_sys_openat for open); the window is the calls
#   N+1 .. N+K of it (default --skip 1500 --calls 200): pick N past the
#   guest's own use of the marker (a run with --skip 1000000000 prints how
#   often the marker ran in all).
#   Prints the profile file; scripts/profile-report.py PROFILE
#   [NOKMEM_PROFILE] turns it into instructions and calls per marker call
#   per function (with a nokmem profile: what accounting adds, by kind);
#   profile-report.py --kernels A B compares two kernels' profiles.
# The plugin needs glib (package libglib2.0-dev) and QEMU's qemu-plugin.h,
# taken from Debian's source package of the installed QEMU.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=scripts/lib/source.sh
. "$REPO_ROOT/scripts/lib/source.sh"
# shellcheck source=scripts/lib/kernels.sh
. "$REPO_ROOT/scripts/lib/kernels.sh"
# shellcheck source=scripts/lib/apt.sh
. "$REPO_ROOT/scripts/lib/apt.sh"
# shellcheck source=scripts/lib/tables.sh
. "$REPO_ROOT/scripts/lib/tables.sh"

cfg=bench skip=1500 calls=200 after='' salt='' pos=()
while [ $# -gt 0 ]; do
	case "$1" in
	--config | --skip | --calls | --after | --salt)
		[ $# -ge 2 ] || die "$1 needs a value (see $0 --help)"
		case "$1" in
		--config) cfg=$2 ;;
		--after) after=$2 ;;
		--skip) skip=$2 ;;
		--calls) calls=$2 ;;
		--salt) salt=$2 ;;
		esac
		shift
		;;
	-h | --help) print_usage "$0"; exit 0 ;;
	-*) die "unknown option $1 (see $0 --help)" ;;
	*) pos+=("$1") ;;
	esac
	shift
done
[ ${#pos[@]} -eq 4 ] || die "usage: $0 [--config SET] [--skip N] [--calls K] [--after FUNCTION] [--salt I] VARIANT MODE WORKLOAD MARKER (see --help)"
load_base
if [ -n "$salt" ] && ! [[ $salt =~ ^[1-9][0-9]*$ && $salt -ge 2 ]]; then
	die "--salt wants a number, 2 or more (run-bench.sh's first boot has no salt)"
fi
variant=${pos[0]} mode=${pos[1]} wl=${pos[2]} marker=${pos[3]}
if ! [[ $skip =~ ^[0-9]+$ ]] || ! [[ $calls =~ ^[1-9][0-9]*$ ]]; then
	die "--skip and --calls want numbers (--calls at least 1)"
fi
bench_cfg=$cfg
cfg=$(bench_configset "$cfg")
known=$(known_workloads)
# The 1-CPU parts of tests/bench-parts.conf; kmem takes one measurement.
parts=$(bench_parts 1)
bench_parts="bench:${parts//,/, bench:}"
bench_parts=${bench_parts/bench:kmem/bench:kmem:API:SIZE:ACCT}
case "$wl" in
bench:kmem:*)
	[[ $wl =~ ^bench:kmem:(cache|kmalloc|batch):(8|64|256|1024|4096):[01]$ ]] ||
		die "bad kmem_bench part '$wl' (API: cache, kmalloc, batch; SIZE: 8, 64, 256, 1024, 4096; ACCT: 1 or 0)"
	;;
bench:*)
	[[ ,$parts, == *",${wl#bench:},"* && $wl != bench:kmem ]] ||
		die "unknown bench part '$wl' (known: $bench_parts)"
	;;
*) [[ ",$known," == *",$wl,"* ]] || die "unknown workload '$wl' (known: $known, $bench_parts)" ;;
esac
mode_field "$mode" 2 >/dev/null
tree_dir "$variant" >/dev/null
map="$(build_dir "$variant" "$cfg")/System.map"
[ -f "$map" ] || die "no $variant/$cfg kernel built ($map missing): run BASE=$BASE scripts/run-bench.sh --config $bench_cfg first"
addr=$(awk -v s="$marker" '$3 == s { print $1; exit }' "$map")
[ -n "$addr" ] || die "no function $marker in $map"
arm=''
if [ -n "$after" ]; then
	arm=$(awk -v s="$after" '$3 == s { print $1; exit }' "$map")
	[ -n "$arm" ] || die "no function $after in $map"
fi
"$REPO_ROOT/scripts/install-deps.sh" --bases "$BASE" --groups profile
need_cmd pkg-config pkg-config
pkg-config --exists glib-2.0 || die "glib is missing (package libglib2.0-dev)"

# QEMU's plugin header, from Debian's source package of the QEMU installed.
pd="$CACHE_DIR/profile"
hdr="$pd/qemu-plugin.h"
if [ ! -f "$hdr" ]; then
	srcver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86) || die "QEMU is not installed (package qemu-system-x86)"
	apt_in "$pd/apt" "Debian bookworm sources" \
		"deb-src $DEBIAN_KEY http://deb.debian.org/debian bookworm main" \
		"deb-src $DEBIAN_KEY http://deb.debian.org/debian-security bookworm-security main" \
		"deb-src $DEBIAN_KEY http://deb.debian.org/debian bookworm-updates main"
	rm -rf "$pd/src" && mkdir -p "$pd/src"
	msg "downloading Debian's source package qemu $srcver (for qemu-plugin.h)"
	apt_get "$pd/src" "$pd/download.log" source --download-only "qemu=$srcver" ||
		die "download of the source package qemu $srcver failed (log: $pd/download.log)"
	orig=$(find "$pd/src" -maxdepth 1 -name 'qemu_*.orig.tar.*' | head -n 1)
	[ -n "$orig" ] || die "no upstream tarball in $pd/src"
	tar -xf "$orig" -C "$pd/src" --wildcards '*/include/qemu/qemu-plugin.h'
	mv "$(find "$pd/src" -path '*/include/qemu/qemu-plugin.h' | head -n 1)" "$hdr.tmp"
	mv "$hdr.tmp" "$hdr"
	rm -rf "$pd/src"
fi
so="$pd/window-count.so"
src="$REPO_ROOT/tests/profile/window-count.c"
if [ ! -f "$so" ] || [ "$src" -nt "$so" ] || [ "$hdr" -nt "$so" ]; then
	# shellcheck disable=SC2046 # pkg-config prints several flags
	gcc -O2 -Wall -Wextra -shared -fPIC -I"$pd" \
		$(pkg-config --cflags glib-2.0) -o "$so" "$src" ||
		die "the plugin $src does not build"
fi

res="$OUT_DIR/profile-$BASE"
mkdir -p "$res"
prof="$res/$variant-$cfg-$mode-${wl//:/-}-$marker${salt:+-salt$salt}.prof"
rm -f "$prof"
printf '%s\n' "$map" >"$prof.map"
case "$wl" in
bench:*) job=bench append="harness.bench=${wl#bench:}" ;;
*) job=workloads append="harness.workloads=$wl" ;;
esac
# The salt last, as run-bench.sh adds it.
append+=${salt:+ harness.salt=$salt}
"$REPO_ROOT/scripts/boot-guest.sh" --icount --timeout 3600 \
	--plugin "$so,start=$addr,skip=$skip,k=$calls,out=$prof${arm:+,arm=$arm}" \
	--append "$append" --log "$prof.log" "$variant" "$cfg" "$mode" "$job" >&2 ||
	msg "note: the guest failed (console log: $prof.log); the profile may still be whole"
[ -s "$prof" ] || die "no profile written (console log: $prof.log)"
read -r _ _ total _ hits _ window <"$prof"
[ "$hits" -gt "$skip" ] ||
	die "$marker ran $hits times in all${after:+ after $after}, not more than --skip $skip: pick a smaller --skip (profile: $prof)"
[ "$window" -eq "$calls" ] ||
	msg "note: $marker ran only $hits times: the window holds $window calls, not $calls"
msg "$total instructions in the window (console log: $prof.log)"
printf '%s\n' "$prof"
