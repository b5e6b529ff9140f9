// SPDX-License-Identifier: GPL-2.0
/*
 * mq-bench.c - cost of POSIX message queue send/receive.
 *
 * The benchmark of the 2022 report in which memcg slab accounting of
 * msg_msg made mq_send()/mq_receive() 25-40% slower.
 *
 *   pair:     one non-blocking queue; every mq_send() and mq_receive() is
 *             timed on its own, then getppid() (the syscall floor) and
 *             clock_gettime() itself (the timing overhead to subtract).
 *   pingpong: two blocking queues, two processes on one CPU; the parent
 *             times round trips (2 sends, 2 receives, 2 context switches).
 *             With --cgroup2 the receiver sits in another memcg, so each
 *             message is charged in one cgroup and uncharged in the other,
 *             which defeats the per-cpu charge stock. With --cpu2 the
 *             receiver runs on another CPU.
 *   stream:   a producer and a consumer on one blocking queue of --depth
 *             messages; the producer times each mq_send() (one that finds
 *             the queue full waits for the consumer), and its last sample
 *             includes the wait for the consumer to take the last message:
 *             the samples add up to the whole run. --cpu2: the consumer's
 *             CPU, so that messages are allocated on one CPU and freed on
 *             another.
 *   --procs N (pair): N processes, process i on CPU --cpu + i and in the
 *             i-th cgroup of --cgroup (a comma-separated list, or one for
 *             all), each with its own queue, start their timed loops
 *             together. Each reports its own calls; the parent reports the
 *             whole timed window divided by N * --count ("pair_all": what a
 *             pair costs all CPUs together, a throughput figure).
 *
 * Under QEMU TCG with -icount and several vCPUs, the vCPUs run in turn and
 * guest time counts the instructions of all of them: a call during which
 * another vCPU ran is longer by what that vCPU did. Every JSON line also
 * gives "tsum"/"tn", the calls of under TRIM_NS (1 ms) only: what the
 * calls cost their own CPU.
 *
 * Build: gcc -O2 -Wall -Wextra -static -o mq-bench tests/mq-bench.c -lrt
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <mqueue.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP		1000		/* untimed iterations before measuring */
#define MAX_SIZE	1048576L
#define MAX_DEPTH	65536L
#define MAX_COUNT	100000000L
#define STOP_PRIO	1		/* message priority that ends the child */
#define NAME_LEN	64
#define MAX_PROCS	64

enum mode { MODE_PAIR, MODE_PINGPONG, MODE_STREAM };

enum {
	OPT_MODE = 256, OPT_SIZE, OPT_DEPTH, OPT_COUNT, OPT_CPU,
	OPT_CGROUP, OPT_CGROUP2, OPT_JSON, OPT_LABEL, OPT_CPU2, OPT_PROCS,
};

struct config {
	enum mode mode;
	unsigned long size, depth, count, procs;
	long cpu;			/* -1: no pinning */
	long cpu2;			/* the receiver's; default: cpu */
	const char *cgroup, *cgroup2, *label;
	char *cgroups[MAX_PROCS];	/* --procs: one per process */
	long worker;			/* --procs: this process's index, or -1 */
	bool json;
};

static const char prog[] = "mq-bench";

static const struct option long_opts[] = {
	{ "mode",    required_argument, NULL, OPT_MODE },
	{ "size",    required_argument, NULL, OPT_SIZE },
	{ "depth",   required_argument, NULL, OPT_DEPTH },
	{ "count",   required_argument, NULL, OPT_COUNT },
	{ "cpu",     required_argument, NULL, OPT_CPU },
	{ "cpu2",    required_argument, NULL, OPT_CPU2 },
	{ "procs",   required_argument, NULL, OPT_PROCS },
	{ "cgroup",  required_argument, NULL, OPT_CGROUP },
	{ "cgroup2", required_argument, NULL, OPT_CGROUP2 },
	{ "json",    no_argument,       NULL, OPT_JSON },
	{ "label",   required_argument, NULL, OPT_LABEL },
	{ "help",    no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#include "bench-lib.h"

/* Everything one run owns; released in one place, bench_free(). */
struct bench {
	const struct config *cfg;
	struct series s[2];
	char *msg, *rbuf;
	mqd_t q[2];
};

/*
 * State shared with the signal handlers, and nothing else.  The names are
 * written before any handler is installed and never change afterwards.
 */
static char mq_name[2][NAME_LEN];
static volatile sig_atomic_t mq_linked[2];
static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t child_reaping;

static void usage(void)
{
	printf("usage: %s [options]\n"
"  --mode pair|pingpong|stream\n"
"                        pair: time each mq_send/mq_receive (default)\n"
"                        pingpong: two processes, time round trips\n"
"                        stream: producer and consumer, time each send\n"
"  --size N              message size in bytes, 1..%ld (default 256)\n"
"  --depth N             queue depth (mq_maxmsg), 1..%ld (default 10)\n"
"  --count N             timed iterations, 1..%ld (default 100000)\n"
"  --cpu N               pin to CPU N, -1 = no pinning\n"
"                        (default -1 for pair, 0 for pingpong and stream)\n"
"  --cpu2 N              pingpong, stream: the receiver's CPU (default --cpu)\n"
"  --procs N             pair: N processes on CPUs --cpu .. --cpu + N - 1,\n"
"                        1..%d (default 1)\n"
"  --cgroup PATH[,...]   join cgroup v2 directory PATH before measuring\n"
"                        (--procs: one PATH for all, or one per process)\n"
"  --cgroup2 PATH        pingpong, stream: the receiver joins PATH instead\n"
"  --json                print only JSON lines\n"
"  --label STR           copied into every JSON line\n"
"  --help                this text\n",
	       prog, MAX_SIZE, MAX_DEPTH, MAX_COUNT, MAX_PROCS);
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	int c;

	*cfg = (struct config){ .mode = MODE_PAIR, .size = 256, .depth = 10,
				.count = 100000, .procs = 1, .cpu = LONG_MIN,
				.cpu2 = LONG_MIN, .worker = -1, .label = "" };
	while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_MODE:
			if (!strcmp(optarg, "pair")) {
				cfg->mode = MODE_PAIR;
			} else if (!strcmp(optarg, "pingpong")) {
				cfg->mode = MODE_PINGPONG;
			} else if (!strcmp(optarg, "stream")) {
				cfg->mode = MODE_STREAM;
			} else {
				err_msg("--mode '%s': must be pair, pingpong or stream",
					optarg);
				die_usage();
			}
			break;
		case OPT_SIZE:
			cfg->size = opt_num("size", optarg, 1, MAX_SIZE);
			break;
		case OPT_DEPTH:
			cfg->depth = opt_num("depth", optarg, 1, MAX_DEPTH);
			break;
		case OPT_COUNT:
			cfg->count = opt_num("count", optarg, 1, MAX_COUNT);
			break;
		case OPT_CPU:
			cfg->cpu = opt_num("cpu", optarg, -1, CPU_SETSIZE - 1);
			break;
		case OPT_CPU2:
			cfg->cpu2 = opt_num("cpu2", optarg, -1, CPU_SETSIZE - 1);
			break;
		case OPT_PROCS:
			cfg->procs = opt_num("procs", optarg, 1, MAX_PROCS);
			break;
		case OPT_CGROUP:
			cfg->cgroup = optarg;
			break;
		case OPT_CGROUP2:
			cfg->cgroup2 = optarg;
			break;
		case OPT_JSON:
			cfg->json = true;
			break;
		case OPT_LABEL:
			cfg->label = optarg;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			bad_option(c, argv[optind - 1]);
		}
	}
	if (optind < argc) {
		err_msg("unexpected argument '%s'", argv[optind]);
		die_usage();
	}
	if ((cfg->cgroup2 || cfg->cpu2 != LONG_MIN) && cfg->mode == MODE_PAIR) {
		err_msg("--cgroup2 and --cpu2 only make sense with --mode pingpong or stream");
		die_usage();
	}
	if (cfg->procs > 1 && cfg->mode != MODE_PAIR) {
		err_msg("--procs only makes sense with --mode pair");
		die_usage();
	}
	/* Pingpong shares one CPU so that every round trip switches. */
	if (cfg->cpu == LONG_MIN)
		cfg->cpu = cfg->mode == MODE_PAIR ? -1 : 0;
	if (cfg->cpu2 == LONG_MIN)
		cfg->cpu2 = cfg->cpu;
	if (cfg->procs > 1 && (cfg->cpu < 0 ||
			       cfg->cpu + (long)cfg->procs > CPU_SETSIZE)) {
		err_msg("--procs %lu needs --cpu N, with N + %lu CPUs at most %d",
			cfg->procs, cfg->procs, CPU_SETSIZE);
		die_usage();
	}
	if (cfg->procs > 1)
		split_cgroups(cfg);
}

/*
 * mq_open() says only EINVAL when a sysctl limit is exceeded, so check
 * first and name the knob.  Root (CAP_SYS_RESOURCE) could go beyond the
 * limits, but refuse anyway: such numbers would not compare with others.
 * No /proc (minimal guest): skip, and let mq_open() judge.
 */
static void check_limit(const char *opt, unsigned long val, const char *knob)
{
	char path[128];
	long max = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/fs/mqueue/%s", knob);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%ld", &max) != 1)
		max = -1;
	fclose(f);
	if (max < 0 || val <= (unsigned long)max)
		return;
	err_msg("--%s %lu exceeds the system limit fs.mqueue.%s = %ld (%s); raise it with 'sysctl -w fs.mqueue.%s=%lu' or use a smaller --%s",
		opt, val, knob, max, path, knob, val, opt);
	die_usage();
}

/*
 * mq_unlink() is a bare syscall in glibc, so it is safe in a handler.
 * Clearing the flag first makes a second call a no-op.
 */
static void unlink_queues(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (mq_linked[i]) {
			mq_linked[i] = 0;
			mq_unlink(mq_name[i]);
		}
	}
}

static void kill_child(void)
{
	pid_t pid = child_pid;

	if (pid > 0) {
		child_reaping = 1;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		child_pid = 0;
	}
}

static void on_fatal_signal(int sig)
{
	unlink_queues();
	kill_child();
	/* Die by the same signal so that the caller sees the real cause. */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Parent only: the receiver died, and we may be blocked waiting for it. */
static void on_child_exit(int sig)
{
	static const char msg[] = "mq-bench: receiver process exited unexpectedly\n";

	(void)sig;
	if (child_reaping)
		return;
	unlink_queues();
	waitpid(-1, NULL, WNOHANG);
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void install_handlers(bool want_sigchld)
{
	static const int fatal[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigfillset(&sa.sa_mask);
	sa.sa_handler = on_fatal_signal;
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	if (want_sigchld) {
		sa.sa_handler = on_child_exit;
		sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
		sigaction(SIGCHLD, &sa, NULL);
	}
}

static const char *mq_open_hint(int err)
{
	switch (err) {
	case ENOSYS:
		return "kernel built without POSIX message queues (CONFIG_POSIX_MQUEUE=n)";
	case EACCES:
		return "permission denied by the mqueue filesystem or a security module";
	case EEXIST:
		return "left over from a killed run? remove it from /dev/mqueue";
	case EINVAL:
		return "depth/size rejected: check fs.mqueue.msg_max and fs.mqueue.msgsize_max";
	case EMFILE:
		return "too many open files, or depth*size plus overhead exceeds RLIMIT_MSGQUEUE (see 'ulimit -q')";
	case ENOSPC:
		return "system queue limit reached (fs.mqueue.queues_max)";
	case ENOMEM:
		return "out of memory (memcg limit reached?)";
	}
	return "unexpected error";
}

static int open_queue(struct bench *b, int idx, int flags)
{
	struct mq_attr attr = {
		.mq_maxmsg = (long)b->cfg->depth,
		.mq_msgsize = (long)b->cfg->size,
	};
	struct rlimit rl = { 0, 0 };
	int err;

	/* Flag first: a signal right after creation must still unlink. */
	mq_linked[idx] = 1;
	b->q[idx] = mq_open(mq_name[idx], O_RDWR | O_CREAT | O_EXCL | flags,
			    0600, &attr);
	if (b->q[idx] != (mqd_t)-1)
		return 0;
	err = errno;
	mq_linked[idx] = 0;	/* not ours: after EEXIST it must stay */
	getrlimit(RLIMIT_MSGQUEUE, &rl);
	err_msg("mq_open %s (depth %lu, size %lu, RLIMIT_MSGQUEUE %llu): %s: %s",
		mq_name[idx], b->cfg->depth, b->cfg->size,
		(unsigned long long)rl.rlim_cur, strerror(err),
		mq_open_hint(err));
	return -1;
}

/* Add @ns to the last sample of @s (stream: the wait for the consumer). */
static void series_extend_last(struct series *s, uint64_t ns)
{
	uint64_t last;

	if (!s->n)
		return;
	last = s->v[s->n - 1] + ns;
	s->v[s->n - 1] = last > UINT32_MAX ? UINT32_MAX : (uint32_t)last;
	s->sum += ns;
	if (last >= TRIM_NS && last - ns < TRIM_NS) {
		s->tsum -= last - ns;
		s->tn--;
	} else if (last < TRIM_NS) {
		s->tsum += ns;
	}
	if (last > s->max)
		s->max = last;
}

static int check_rx(ssize_t r, size_t size, const char *what, unsigned long i)
{
	if (r >= 0 && (size_t)r == size)
		return 0;
	err_msg("mq_receive failed at %s %lu: %s", what, i,
		r < 0 ? strerror(errno) : "short message");
	return -1;
}

/* EAGAIN cannot happen (the queue is private and drained) but is fatal. */
static int pair_loop(struct bench *b, unsigned long n, struct series *snd,
		     struct series *rcv)
{
	size_t size = b->cfg->size;
	uint64_t t0, t1, t2, t3;
	unsigned long i;
	ssize_t r;
	int ret;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		ret = mq_send(b->q[0], b->msg, size, 0);
		t1 = now_ns();
		if (ret < 0) {
			err_msg("mq_send failed at iteration %lu: %s", i,
				strerror(errno));
			return -1;
		}
		t2 = now_ns();
		r = mq_receive(b->q[0], b->rbuf, size, NULL);
		t3 = now_ns();
		if (check_rx(r, size, "iteration", i))
			return -1;
		series_add(snd, t1 - t0);
		series_add(rcv, t3 - t2);
	}
	return 0;
}

static int run_pair(struct bench *b, struct stats *out)
{
	struct series *s0 = &b->s[0], *s1 = &b->s[1];
	unsigned long n = b->cfg->count;

	if (pair_loop(b, WARMUP, NULL, NULL) || pair_loop(b, n, s0, s1))
		return -1;
	series_stats(s0, "mq_send", &out[0]);
	series_stats(s1, "mq_receive", &out[1]);

	measure_getppid(NULL, WARMUP);
	series_reset(s0);
	measure_getppid(s0, n);
	series_stats(s0, "getppid", &out[2]);

	measure_clock(NULL, WARMUP);
	series_reset(s0);
	measure_clock(s0, n);
	series_stats(s0, "clock", &out[3]);
	return 0;
}

/*
 * Stream consumer: take the WARMUP + count messages, tell the producer on
 * the second queue, and wait for its stop message before exiting (an exit
 * the producer does not expect yet is a failure).
 */
static void __attribute__((noreturn)) consume(struct bench *b)
{
	unsigned long i, n = WARMUP + b->cfg->count;

	for (i = 0; i < n; i++) {
		if (mq_receive(b->q[0], b->rbuf, b->cfg->size, NULL) < 0) {
			err_msg("consumer: mq_receive: %s", strerror(errno));
			_exit(1);
		}
	}
	if (mq_send(b->q[1], b->rbuf, 1, 0) < 0) {
		err_msg("consumer: mq_send: %s", strerror(errno));
		_exit(1);
	}
	_exit(mq_receive(b->q[0], b->rbuf, b->cfg->size, NULL) < 0);
}

/*
 * Receiver: echo every message back until one arrives with STOP_PRIO, or
 * (stream) consume().
 */
static void __attribute__((noreturn))
child_main(struct bench *b, int sync_fd, pid_t parent)
{
	const struct config *cfg = b->cfg;
	unsigned int prio;
	char status = 1;
	ssize_t n;

	child_pid = 0;
	signal(SIGCHLD, SIG_DFL);
	/* A parent killed by SIGKILL would otherwise leave us blocked forever. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	/* Joining may rewrite the affinity through cpuset: pin again after. */
	if ((!cfg->cgroup2 || !join_cgroup(cfg->cgroup2, "cgroup2")) &&
	    !pin_cpu(cfg->cpu2))
		status = 0;
	if (write(sync_fd, &status, 1) != 1 || status)
		_exit(1);
	close(sync_fd);
	if (cfg->mode == MODE_STREAM)
		consume(b);

	for (;;) {
		n = mq_receive(b->q[0], b->rbuf, cfg->size, &prio);
		if (n < 0) {
			err_msg("receiver: mq_receive: %s", strerror(errno));
			_exit(1);
		}
		if (prio == STOP_PRIO)
			_exit(0);
		if (mq_send(b->q[1], b->rbuf, (size_t)n, 0) < 0) {
			err_msg("receiver: mq_send: %s", strerror(errno));
			_exit(1);
		}
	}
}

static int pingpong_loop(struct bench *b, unsigned long n, struct series *s)
{
	size_t size = b->cfg->size;
	uint64_t t0, t1;
	unsigned long i;
	ssize_t r;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (mq_send(b->q[0], b->msg, size, 0) < 0) {
			err_msg("mq_send failed at round trip %lu: %s", i,
				strerror(errno));
			return -1;
		}
		r = mq_receive(b->q[1], b->rbuf, size, NULL);
		t1 = now_ns();
		if (check_rx(r, size, "round trip", i))
			return -1;
		series_add(s, t1 - t0);
	}
	return 0;
}

/* Start the receiver and wait until it sits in its cgroup, on its CPU. */
static int start_child(struct bench *b)
{
	pid_t pid, parent = getpid();
	char status = 1;
	int pfd[2], ok;

	if (pipe(pfd) < 0) {
		err_msg("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	child_reaping = 1;	/* start-up failures are reported below */
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		child_main(b, pfd[1], parent);
	}
	close(pfd[1]);
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		close(pfd[0]);
		return -1;
	}
	child_pid = pid;
	ok = read(pfd[0], &status, 1) == 1 && status == 0;
	close(pfd[0]);
	if (!ok) {
		err_msg("receiver process failed to start");
		kill_child();
		return -1;
	}
	/* From now on a dying child must not leave us blocked in mq_receive. */
	child_reaping = 0;
	if (waitpid(pid, NULL, WNOHANG) != 0) {
		err_msg("receiver process exited unexpectedly");
		child_pid = 0;
		return -1;
	}
	return 0;
}

/*
 * Send the child its STOP_PRIO message and reap it; @who names it in the
 * error. Its exit is expected from here on.
 */
static int stop_child(struct bench *b, const char *who)
{
	char stop = 0;
	int st = -1;

	child_reaping = 1;
	if (mq_send(b->q[0], &stop, 1, STOP_PRIO) < 0) {
		kill_child();
		return -1;
	}
	waitpid(child_pid, &st, 0);
	child_pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		err_msg("%s process failed (wait status 0x%x)", who, st);
		return -1;
	}
	return 0;
}

static int run_pingpong(struct bench *b, struct stats *out)
{
	if (start_child(b))
		return -1;
	if (pingpong_loop(b, WARMUP, NULL) ||
	    pingpong_loop(b, b->cfg->count, &b->s[0])) {
		kill_child();
		return -1;
	}
	if (stop_child(b, "receiver"))
		return -1;
	series_stats(&b->s[0], "roundtrip", out);
	return 0;
}

/*
 * Stream: send WARMUP messages untimed, then time each of --count sends;
 * the last sample also holds the wait for the consumer's word that it took
 * them all, so that the samples add up to the whole run.
 */
static int run_stream(struct bench *b, struct stats *out)
{
	size_t size = b->cfg->size;
	struct series *s = &b->s[0];
	unsigned long i, n = b->cfg->count;
	uint64_t t0, t1;
	ssize_t r;

	if (start_child(b))
		return -1;
	for (i = 0; i < WARMUP + n; i++) {
		t0 = now_ns();
		if (mq_send(b->q[0], b->msg, size, 0) < 0) {
			err_msg("mq_send failed at message %lu: %s", i,
				strerror(errno));
			kill_child();
			return -1;
		}
		t1 = now_ns();
		series_add(i < WARMUP ? NULL : s, t1 - t0);
	}
	t0 = now_ns();
	r = mq_receive(b->q[1], b->rbuf, size, NULL);
	t1 = now_ns();
	if (r != 1) {
		err_msg("no word from the consumer: %s",
			r < 0 ? strerror(errno) : "short message");
		kill_child();
		return -1;
	}
	series_extend_last(s, t1 - t0);
	if (stop_child(b, "consumer"))
		return -1;
	series_stats(s, "stream", out);
	return 0;
}

/*
 * Allocate and pre-fault everything, then create the queues.  Once all
 * descriptors exist the names are unlinked: the descriptors (inherited by
 * the child) keep the queues alive, and even SIGKILL cannot leak them.
 */
static int bench_init(struct bench *b, const struct config *cfg)
{
	bool pp = cfg->mode != MODE_PAIR;
	int i;

	*b = (struct bench){ .cfg = cfg, .q = { (mqd_t)-1, (mqd_t)-1 } };
	for (i = 0; i < (pp ? 1 : 2); i++)
		if (series_alloc(&b->s[i], cfg->count))
			return -1;
	b->msg = malloc(cfg->size);
	b->rbuf = malloc(cfg->size);
	if (!b->msg || !b->rbuf) {
		err_msg("cannot allocate message buffers");
		return -1;
	}
	memset(b->msg, 'm', cfg->size);
	memset(b->rbuf, 0, cfg->size);
	if (open_queue(b, 0, pp ? 0 : O_NONBLOCK) ||
	    (pp && open_queue(b, 1, 0)))
		return -1;
	unlink_queues();
	return 0;
}

static void bench_free(struct bench *b)
{
	int i;

	unlink_queues();
	for (i = 0; i < 2; i++) {
		if (b->q[i] != (mqd_t)-1)
			mq_close(b->q[i]);
		free(b->s[i].v);
	}
	free(b->msg);
	free(b->rbuf);
}

static const char *mode_name(enum mode m)
{
	return m == MODE_PAIR ? "pair" : m == MODE_PINGPONG ? "pingpong" : "stream";
}

static void print_json(const struct config *cfg, const struct stats *st)
{
	bool pp = cfg->mode != MODE_PAIR;
	const char *cg = cfg->worker >= 0 ? cfg->cgroups[cfg->worker] : cfg->cgroup;

	printf("{\"bench\":\"mq\",\"label\":");
	json_str(cfg->label);
	printf(",\"mode\":\"%s\",\"op\":\"%s\",\"size\":%lu,\"depth\":%lu,\"count\":%lu,\"cpu\":%ld,\"cgroup\":",
	       mode_name(cfg->mode), st->op, cfg->size, cfg->depth,
	       cfg->count, cfg->cpu);
	if (cg)
		json_str(cg);
	else
		printf("null");
	if (pp)
		printf(",\"cross_cgroup\":%s,\"cpu2\":%ld",
		       cfg->cgroup2 ? "true" : "false", cfg->cpu2);
	if (cfg->procs > 1)
		printf(",\"procs\":%lu,\"worker\":%ld", cfg->procs, cfg->worker);
	printf(",\"unit\":\"ns\",\"min\":%" PRIu64 ",\"avg\":%" PRIu64
	       ",\"p50\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64
	       ",\"sum\":%" PRIu64 ",\"n\":%lu,\"tsum\":%" PRIu64 ",\"tn\":%lu}\n",
	       st->min, avg_of(st), st->p50, st->p99, st->max, st->sum, st->n,
	       st->tsum, st->tn);
}

static void print_table(const struct config *cfg, const struct stats *st,
			int nst)
{
	bool pp = cfg->mode != MODE_PAIR;
	struct timespec res = { 0, 0 };
	int i;

	clock_getres(CLOCK_MONOTONIC, &res);
	printf("mq-bench: mode=%s size=%lu depth=%lu count=%lu cpu=%ld cgroup=%s",
	       mode_name(cfg->mode), cfg->size, cfg->depth, cfg->count,
	       cfg->cpu, cfg->cgroup ? cfg->cgroup : "-");
	if (pp)
		printf(" cpu2=%ld cgroup2=%s", cfg->cpu2,
		       cfg->cgroup2 ? cfg->cgroup2 : "-");
	if (cfg->procs > 1)
		printf(" procs=%lu worker=%ld", cfg->procs, cfg->worker);
	if (*cfg->label)
		printf(" label=%s", cfg->label);
	printf(" clock=CLOCK_MONOTONIC res=%ldns\n", res.tv_nsec);
	printf("%-10s %8s %8s %8s %8s %8s   (ns per %s)\n", "op", "min", "avg",
	       "p50", "p99", "max", cfg->mode == MODE_PINGPONG ? "round trip" :
	       cfg->mode == MODE_STREAM ? "message" : "call");
	for (i = 0; i < nst; i++)
		printf("%-10s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		       " %8" PRIu64 "\n", st[i].op, st[i].min, avg_of(&st[i]),
		       st[i].p50, st[i].p99, st[i].max);
}

static void name_queues(bool pp)
{
	snprintf(mq_name[0], NAME_LEN, "/mq-bench-%d%s", (int)getpid(),
		 pp ? "-ab" : "");
	snprintf(mq_name[1], NAME_LEN, "/mq-bench-%d-ba", (int)getpid());
}

/*
 * --procs: one worker. Join its cgroup, pin, make its queue, warm up, say
 * so on @ready, wait for the word on @go, run the timed loop, say so on
 * @ready again, then report its own calls.
 */
static void __attribute__((noreturn))
worker_main(struct config *cfg, long w, int ready, int go)
{
	struct stats st[2];
	struct bench b;
	char c = 0;
	int ret;

	cfg->worker = w;
	child_pid = 0;
	signal(SIGCHLD, SIG_DFL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(1);
	name_queues(false);
	if ((cfg->cgroups[w] && join_cgroup(cfg->cgroups[w], "cgroup")) ||
	    pin_cpu(cfg->cpu + w))
		_exit(1);
	cfg->cpu += w;
	ret = bench_init(&b, cfg);
	if (!ret)
		ret = pair_loop(&b, WARMUP, NULL, NULL);
	if (ret || write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(1);
	ret = pair_loop(&b, cfg->count, &b.s[0], &b.s[1]);
	if (write(ready, &c, 1) != 1)
		_exit(1);
	if (!ret) {
		series_stats(&b.s[0], "mq_send", &st[0]);
		series_stats(&b.s[1], "mq_receive", &st[1]);
	}
	bench_free(&b);
	_exit(ret ? 1 : report(cfg, st, 2));
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct bench b;
	struct stats st[4];
	bool pp;
	int nst, ret;

	parse_args(argc, argv, &cfg);
	check_limit("size", cfg.size, "msgsize_max");
	check_limit("depth", cfg.depth, "msg_max");
	if (cfg.procs > 1)
		return run_procs(&cfg, "pair_all");
	pp = cfg.mode != MODE_PAIR;
	nst = pp ? 1 : 4;

	name_queues(pp);
	install_handlers(pp);

	/*
	 * Join before allocating anything: the queue, every msg_msg and our
	 * page faults are charged to the memcg we run in at that moment.
	 * Pin after joining, since a cpuset move may rewrite the affinity.
	 */
	if (cfg.cgroup && join_cgroup(cfg.cgroup, "cgroup"))
		return 1;
	if (pin_cpu(cfg.cpu))
		return 1;

	ret = bench_init(&b, &cfg);
	if (!ret)
		ret = cfg.mode == MODE_PAIR ? run_pair(&b, st) :
		      cfg.mode == MODE_PINGPONG ? run_pingpong(&b, st) :
		      run_stream(&b, st);
	bench_free(&b);
	if (ret)
		return 1;
	return report(&cfg, st, nst);
}
