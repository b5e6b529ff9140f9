# shellcheck shell=sh
# Helpers for guest jobs (busybox sh). Sourced.

# Make a child memory cgroup and print its path. The first non-root memcg
# turns the kmem static key on, as on any host that runs containers.
make_child_cgroup() {
	echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir -p "/sys/fs/cgroup/$1" || return 1
	echo "/sys/fs/cgroup/$1"
}

# Print a file between markers so the host can extract it from the log.
emit_file() {
	echo "HARNESS-BEGIN $1"
	cat "$2"
	echo "HARNESS-END $1"
}
