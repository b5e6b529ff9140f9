// SPDX-License-Identifier: GPL-2.0
/*
 * slab-fill.c - charge accounted slab objects to memory cgroups from
 * children that leave nothing behind, for the harness's stock tests.
 *
 * Every POSIX message queue message is a kmalloc(GFP_KERNEL_ACCOUNT)
 * object charged to the cgroup of the sender while it sits in the queue.
 * The parent makes the queue (so the queue itself is not charged to the
 * cgroups under test), forks the children, waits for them and removes the
 * queue, which frees whatever messages are left.
 *
 *   slab-fill fill CGROUP
 *	One child joins CGROUP and sends 1000-byte messages to a queue that
 *	holds 65536 until mq_send() fails.  Exit 0 if the cgroup's memory
 *	limit stopped it (ENOMEM, or the OOM killer killed the child).
 *   slab-fill churn CGROUP-A CGROUP-B CPU COUNT
 *	A child in CGROUP-A sends COUNT messages that a child in CGROUP-B
 *	receives, both on CPU: each message is charged in one cgroup and
 *	uncharged by a task of the other.  Exit 0 when both children did.
 *   slab-fill pipes CGROUP CPU COUNT
 *	A child in CGROUP makes and closes COUNT pipes on CPU: a file, a
 *	pipe_inode_info, its buffer array, an inode and a dentry each, all
 *	charged, and freed again (the inode and dentry after an RCU grace
 *	period).  No message queue: on a kernel that does not charge
 *	messages (7.x without kmalloc buckets, before the fix) pipes still
 *	exercise the objcg stock.  Exit 0 when the child did.
 *   slab-fill unix CGROUP CPU COUNT SIZE
 *	A child in CGROUP sends COUNT datagrams of SIZE bytes on CPU over a
 *	unix socket pair and receives each before the next: the socket
 *	allocates with GFP_KERNEL_ACCOUNT, so each message charges an skb
 *	head from skbuff_head_cache, a cache without SLAB_ACCOUNT, and its
 *	data from a kmalloc-cg cache (__GFP_ACCOUNT keeps an skb's data out
 *	of skbuff_small_head).  Exit 0 when the child did.
 *   slab-fill hold CGROUP CPU COUNT SIZE
 *	A child in CGROUP sends COUNT messages of SIZE bytes on CPU to a
 *	queue deep enough to keep them all, and exits; the messages stay
 *	charged to CGROUP until the parent removes the queue.  Before that,
 *	the parent prints CGROUP's memory.current and the slab entry of its
 *	memory.stat ("current=BYTES slab=BYTES"), so that the caller can see
 *	what COUNT live objects cost beyond their own size.  Exit 0 when the
 *	child sent them all.
 *   slab-fill lru-drain
 *	Drains the LRU folio batches of every online CPU, on each in turn
 *	(lru_drain() below).  A batch holds a reference on each of its
 *	folios: one freed meanwhile stays charged to its memcg until that
 *	CPU's batch is drained, which the reclaim of memory.high does only
 *	on the CPU that reclaims.  Exit 0 when every CPU's drain was done.
 *
 * Prints one line of what happened.  Exit 1 on failure, 2 on bad usage.
 * Build: gcc -O2 -Wall -Wextra -static -o slab-fill tests/slab-fill.c -lrt
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MSG_BYTES	1000
/* The largest message size ("hold"): DATALEN_MSG with 4 KiB pages. */
#define HOLD_MAX_BYTES	4048
#define FILL_DEPTH	65536
#define CHURN_DEPTH	10

static char qname[NAME_MAX];

static int write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(val, f) >= 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

static int join_cgroup(const char *dir)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path))
		return -1;
	return write_file(path, "0");
}

static int pin_cpu(long cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static mqd_t open_queue(long depth, long size, int flags)
{
	struct mq_attr attr = { .mq_maxmsg = depth, .mq_msgsize = size };
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };

	/* Root may lift the per-user byte limit and the depth limit. */
	if (setrlimit(RLIMIT_MSGQUEUE, &unlimited))
		perror("slab-fill: setrlimit(RLIMIT_MSGQUEUE)");
	if (depth > CHURN_DEPTH && write_file("/proc/sys/fs/mqueue/msg_max", "65536"))
		perror("slab-fill: /proc/sys/fs/mqueue/msg_max");
	snprintf(qname, sizeof(qname), "/slab-fill-%d", (int)getpid());
	return mq_open(qname, O_CREAT | O_EXCL | O_RDWR | flags, 0600, &attr);
}

/* Child of "fill": returns its exit code. */
static int fill(mqd_t q, const char *cgroup)
{
	static char msg[MSG_BYTES];
	unsigned long sent = 0;

	if (join_cgroup(cgroup)) {
		fprintf(stderr, "slab-fill: cannot join %s: %s\n", cgroup, strerror(errno));
		return 3;
	}
	memset(msg, 'x', sizeof(msg));
	for (;;) {
		if (mq_send(q, msg, sizeof(msg), 0)) {
			int err = errno;

			printf("slab-fill: sent=%lu end=%s\n", sent,
			       err == ENOMEM ? "ENOMEM" : strerror(err));
			return err == ENOMEM ? 0 : 1;
		}
		sent++;
	}
}

/* Join CGROUP and run on CPU only: 0, or -1 after saying why. */
static int enter(const char *cgroup, long cpu)
{
	if (join_cgroup(cgroup) || pin_cpu(cpu)) {
		fprintf(stderr, "slab-fill: cannot join %s on CPU %ld: %s\n",
			cgroup, cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Child of "churn": sender (receive false) or receiver; of "hold": a sender
 * whose messages nobody receives.  Messages of SIZE bytes.
 */
static int churn(mqd_t q, const char *cgroup, long cpu, long count, int receive,
		 long size)
{
	static char msg[HOLD_MAX_BYTES];
	long i;

	if (enter(cgroup, cpu))
		return 3;
	for (i = 0; i < count; i++) {
		if (receive ? mq_receive(q, msg, sizeof(msg), NULL) < 0
			    : mq_send(q, msg, size, 0)) {
			perror(receive ? "slab-fill: mq_receive" : "slab-fill: mq_send");
			return 1;
		}
	}
	return 0;
}

/*
 * The value of KEY in CGROUP's FILE, a flat-keyed file ("KEY VALUE" lines),
 * or with KEY NULL the one number FILE holds: 0, or -1 after saying why.
 */
static int read_value(const char *cgroup, const char *file, const char *key,
		      unsigned long long *v)
{
	char path[PATH_MAX], name[64];
	int found = 0;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", cgroup, file) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	if (!key)
		found = fscanf(f, "%llu", v) == 1;
	while (key && !found && fscanf(f, "%63s %llu", name, v) == 2)
		found = !strcmp(name, key);
	fclose(f);
	if (!found)
		fprintf(stderr, "slab-fill: no %s in %s\n", key ? key : "number", path);
	return found ? 0 : -1;
}

/* Print CGROUP's "current=BYTES slab=BYTES": 0, or -1. */
static int print_charge(const char *cgroup)
{
	unsigned long long cur, slab;

	if (read_value(cgroup, "memory.current", NULL, &cur) ||
	    read_value(cgroup, "memory.stat", "slab", &slab))
		return -1;
	printf("current=%llu slab=%llu\n", cur, slab);
	return 0;
}

/* Child of "pipes". */
static int pipes(const char *cgroup, long cpu, long count)
{
	int fds[2];
	long i;

	if (enter(cgroup, cpu))
		return 3;
	for (i = 0; i < count; i++) {
		if (pipe(fds)) {
			perror("slab-fill: pipe");
			return 1;
		}
		close(fds[0]);
		close(fds[1]);
	}
	return 0;
}

/* Child of "unix". */
static int unix_msgs(const char *cgroup, long cpu, long count, long size)
{
	static char msg[HOLD_MAX_BYTES];
	int sv[2];
	long i;

	if (enter(cgroup, cpu))
		return 3;
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
		perror("slab-fill: socketpair");
		return 1;
	}
	for (i = 0; i < count; i++) {
		if (send(sv[0], msg, size, 0) != size ||
		    recv(sv[1], msg, sizeof(msg), 0) != size) {
			perror("slab-fill: unix send/recv");
			return 1;
		}
	}
	close(sv[0]);
	close(sv[1]);
	return 0;
}

/* 0: exited 0; 1: killed by SIGKILL; -1: anything else. */
static int wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ? 1 : -1;
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return (errno || *end || end == s || v < 0) ? -1 : v;
}

/*
 * "lru-drain": returns its exit code.  mlock() of a mapped page drains the
 * calling CPU's LRU folio batches (lru_add_drain() in
 * mlock_vma_pages_range()), and so does munlock(): done on every online
 * CPU.
 */
static int lru_drain(void)
{
	long page = sysconf(_SC_PAGESIZE);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int cpu, drained = 0, rc = 0;
	char *map;

	map = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		perror("slab-fill: mmap");
		return 1;
	}
	map[0] = 1;
	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE; cpu++) {
		int err = pin_cpu(cpu);

		/*
		 * EINVAL: offline (hotplug drained its batches), or outside
		 * this task's cpuset, which the harness does not set.
		 */
		if (err && errno == EINVAL)
			continue;
		if (!err)
			err = mlock(map, page) || munlock(map, page);
		if (err) {
			fprintf(stderr, "slab-fill: lru-drain on CPU %d: %s\n",
				cpu, strerror(errno));
			rc = 1;
		} else {
			drained++;
		}
	}
	munmap(map, page);
	printf("slab-fill: LRU batches of %d CPUs drained\n", drained);
	return drained ? rc : 1;
}

int main(int argc, char **argv)
{
	int fill_mode = argc == 3 && !strcmp(argv[1], "fill");
	int churn_mode = argc == 6 && !strcmp(argv[1], "churn");
	int pipes_mode = argc == 5 && !strcmp(argv[1], "pipes");
	int hold_mode = argc == 6 && !strcmp(argv[1], "hold");
	int unix_mode = argc == 6 && !strcmp(argv[1], "unix");
	int lru_mode = argc == 2 && !strcmp(argv[1], "lru-drain");
	int own_cpu = pipes_mode || hold_mode || unix_mode;
	long cpu = churn_mode ? number(argv[4]) : own_cpu ? number(argv[3]) : 0;
	long count = churn_mode ? number(argv[5]) :
		     own_cpu ? number(argv[4]) : 0;
	long size = hold_mode || unix_mode ? number(argv[5]) : MSG_BYTES;
	pid_t pids[2] = { -1, -1 };
	int rc = 1, i;
	mqd_t q;

	if (lru_mode)
		return lru_drain();
	if ((!fill_mode && !churn_mode && !own_cpu) ||
	    cpu < 0 || count < 0 || size < 1 || size > HOLD_MAX_BYTES ||
	    (hold_mode && count < 1)) {
		fprintf(stderr, "usage: %s fill CGROUP\n"
			"       %s churn CGROUP-A CGROUP-B CPU COUNT\n"
			"       %s pipes CGROUP CPU COUNT\n"
			"       %s hold CGROUP CPU COUNT SIZE (SIZE 1-%d)\n"
			"       %s unix CGROUP CPU COUNT SIZE (SIZE 1-%d)\n"
			"       %s lru-drain\n",
			argv[0], argv[0], argv[0], argv[0], HOLD_MAX_BYTES,
			argv[0], HOLD_MAX_BYTES, argv[0]);
		return 2;
	}
	if (unix_mode) {
		fflush(stdout);
		pids[0] = fork();
		if (pids[0] == 0)
			_exit(unix_msgs(argv[2], cpu, count, size));
		rc = wait_child(pids[0]) == 0 ? 0 : 1;
		printf("slab-fill: %ld unix datagrams of %ld bytes %s\n", count,
		       size, rc ? "failed" : "done");
		return rc;
	}
	if (pipes_mode) {
		fflush(stdout);
		pids[0] = fork();
		if (pids[0] == 0)
			_exit(pipes(argv[2], cpu, count));
		rc = wait_child(pids[0]) == 0 ? 0 : 1;
		printf("slab-fill: %ld pipes %s\n", count, rc ? "failed" : "done");
		return rc;
	}
	q = open_queue(fill_mode ? FILL_DEPTH : hold_mode ? count : CHURN_DEPTH,
		       size, fill_mode ? O_NONBLOCK : 0);
	if (q == (mqd_t)-1) {
		perror("slab-fill: mq_open");
		return 1;
	}
	fflush(stdout);
	if (hold_mode) {
		pids[0] = fork();
		if (pids[0] == 0)
			_exit(churn(q, argv[2], cpu, count, 0, size));
		rc = wait_child(pids[0]) == 0 && print_charge(argv[2]) == 0 ? 0 : 1;
		printf("slab-fill: hold of %ld messages of %ld bytes %s\n", count, size,
		       rc ? "failed" : "done");
		mq_close(q);
		mq_unlink(qname);
		return rc;
	}
	for (i = 0; i < (fill_mode ? 1 : 2); i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			rc = fill_mode ? fill(q, argv[2])
				       : churn(q, argv[2 + i], cpu, count, i, size);
			fflush(stdout);
			_exit(rc);
		}
		if (pids[i] < 0)
			perror("slab-fill: fork");
	}
	if (fill_mode) {
		switch (wait_child(pids[0])) {
		case 0:
			rc = 0;
			break;
		case 1:
			printf("slab-fill: end=killed (OOM killer)\n");
			rc = 0;
			break;
		}
	} else {
		int a = wait_child(pids[0]), b = wait_child(pids[1]);

		rc = (a == 0 && b == 0) ? 0 : 1;
		printf("slab-fill: churn of %ld messages %s\n", count, rc ? "failed" : "done");
	}
	mq_close(q);
	mq_unlink(qname);
	return rc;
}
