# shellcheck shell=bash
# Questions about the harness's tables: the run modes (tests/modes.conf),
# the benchmark's parts (tests/bench-parts.conf) and the third-party
# workloads (tests/workloads.conf). Sourced, after scripts/lib.sh.

# mode_field MODE N: field N (2 = cgroup, 3 = flags) of MODE in tests/modes.conf;
# dies unless MODE is a mode of $BASE (its bases column).
mode_field() {
	local m
	[ -n "$(mode_field_any "$1" 1)" ] ||
		die "unknown mode '$1' (modes of base $BASE: $(base_modes | tr , ' '))"
	[[ ,$(base_modes), == *",$1,"* ]] ||
		die "mode '$1' is not a mode of base $BASE: its kernels do not know $(mode_field_any "$1" 3) (modes of base $BASE: $(base_modes | tr , ' '))"
	m=$(mode_field_any "$1" "$2")
	[ "$m" = - ] || printf '%s\n' "$m"
}

# mode_field_any MODE N: field N of MODE in tests/modes.conf, whatever the base
# (nothing for an unknown mode).
mode_field_any() {
	awk -v m="$1" -v n="$2" '!/^#/ && $1 == m { print $n }' "$REPO_ROOT/tests/modes.conf"
}

# base_modes: the modes of $BASE (those whose bases column is "all" or
# names it), comma-separated, in the order of tests/modes.conf.
base_modes() {
	awk -v b="$BASE" '!/^#/ && NF >= 4 {
		n = split($4, a, ",")
		for (i = 1; i <= n; i++)
			if (a[i] == "all" || a[i] == b) { print $1; break }
	}' "$REPO_ROOT/tests/modes.conf" | paste -sd, -
}

# mode_charges MODE slab|kmem: true if the patched kernel charges slab
# objects (slab) or the other kernel memory (kmem) to a child memcg in MODE
# (columns slab and kmem of tests/modes.conf).
mode_charges() {
	local n
	case "$2" in slab) n=5 ;; kmem) n=6 ;; *) die "mode_charges: slab or kmem, not '$2'" ;; esac
	[ "$(mode_field_any "$1" "$n")" = yes ]
}

# boot_modes TIER: the modes of $BASE that the boot group boots in TIER
# (default, or full: those of either tier; column boots of
# tests/modes.conf), comma-separated, in the order of tests/modes.conf.
boot_modes() {
	local m out=() b
	for m in $(base_modes | tr , ' '); do
		b=$(mode_field_any "$m" 7)
		if [ "$b" = default ] || { [ "$1" = full ] && [ "$b" = full ]; }; then
			out+=("$m")
		fi
	done
	(IFS=,; echo "${out[*]}")
}

# known_workloads: the workload names of tests/workloads.conf, comma-separated.
known_workloads() {
	awk '!/^#/ && NF { print $1 }' "$REPO_ROOT/tests/workloads.conf" | paste -sd, -
}

# bench_parts CPUS: the parts of tests/bench-parts.conf a guest with CPUS
# vCPUs runs (column cpus), comma-separated, in the order of the table.
bench_parts() {
	awk -v n="$1" '!/^#/ && NF && $2 <= n { print $1 }' \
		"$REPO_ROOT/tests/bench-parts.conf" | paste -sd, -
}
