#!/bin/sh
# Guest job: the mqueue benchmark. harness.cg=root runs it in the root
# cgroup (with a child memcg present, so the kmem key is on), anything else
# in a child memcg. harness.count= sets the number of iterations.
# harness.bench= runs only some of its parts (comma-separated: pair,
# pingpong-same, pingpong-cross, kmem, or kmem:API:SIZE:ACCT for one
# measurement of kmem_bench, e.g. kmem:kmalloc:64:0), for
# scripts/profile-workload.sh; default: all of them.
# shellcheck source=tests/guest/lib.sh
. /tests/lib.sh
child=$(make_child_cgroup bench) || exit 1
count=${H_count:-100000}
case "${H_cg:-child}" in
root) cg=/sys/fs/cgroup cg2=$child ;;
*) cg=$child cg2=$(make_child_cgroup bench2) || exit 1 ;;
esac
# Start each program inside its cgroup, as a container's processes are:
# a task that migrated in after it started pays more per message (about
# 540 guest instructions a ping-pong round trip on 6.1, cause not yet
# known), which would hide what the kernel change does.
run_in() { # CGROUP CMD...
	(echo 0 >"$1/cgroup.procs" && shift && exec "$@")
}
parts=${H_bench:-pair,pingpong-same,pingpong-cross,kmem}
kmem='' part=''
for part in $(echo "$parts" | tr , ' '); do
	case "$part" in
	pair | pingpong-same | pingpong-cross | kmem) ;;
	kmem:*:*:*) kmem=$(echo "${part#kmem:}" | tr : ' ') ;;
	*)
		echo "HARNESS: unknown bench part '$part' (known: pair, pingpong-same, pingpong-cross, kmem, kmem:API:SIZE:ACCT)"
		exit 1
		;;
	esac
done
want() { case ",$parts," in *,"$1",* | *,"$1":*) return 0 ;; esac; return 1; }
: >/tmp/bench.json
if want pair; then
	run_in "$cg" /tests/mq-bench --json --count "$count" --cpu 0 \
		--label pair >>/tmp/bench.json || exit 1
fi
if want pingpong-same; then
	run_in "$cg" /tests/mq-bench --json --mode pingpong --count $((count / 10)) \
		--cpu 0 --label pingpong-same >>/tmp/bench.json || exit 1
fi
# The receiver of the cross-cgroup ping-pong moves itself to cg2.
if want pingpong-cross; then
	run_in "$cg" /tests/mq-bench --json --mode pingpong --count $((count / 10)) \
		--cpu 0 --cgroup2 "$cg2" --label pingpong-cross >>/tmp/bench.json || exit 1
fi
if [ -n "$kmem" ] && [ ! -f /lib/modules/kmem_bench.ko ]; then
	echo "HARNESS: bench part kmem:$kmem asked for, but this kernel has no kmem_bench.ko"
	exit 1
fi
if want kmem && [ -f /lib/modules/kmem_bench.ko ]; then
	insmod /lib/modules/kmem_bench.ko || exit 1
	run_in "$cg" sh -c "echo run $count $kmem >/proc/kmem_bench" || exit 1
	sed -n 's/^kmem_bench /&/p' /proc/kmem_bench >/tmp/kmem.txt
	emit_file kmem.txt /tmp/kmem.txt
fi
emit_file bench.json /tmp/bench.json
emit_cpu
