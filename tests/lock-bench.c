// SPDX-License-Identifier: GPL-2.0
/*
 * lock-bench.c - cost of file locks, of poll()/select() arrays and of
 * the unix-socket and file-name calls applications charge kernel memory in.
 *
 * The calls whose kernel allocations the 2021 memcg series charged, and
 * whose charging was reverted after will-it-scale lock1 lost 33.6%:
 *
 *   lock1:  will-it-scale's lock1: a private file (unlinked), and in a
 *           loop fcntl(F_SETLK, F_WRLCK) then fcntl(F_SETLK, F_UNLCK) of
 *           its first byte (--range byte, as lock1) or of the whole file
 *           (--range whole). One sample is the pair ("lock_unlock").
 *           A byte lock allocates 3 struct file_lock (file_lock_cache)
 *           and keeps 1; a byte unlock allocates 3 and frees them with
 *           the lock: 6 allocations and frees per pair. A whole-file
 *           unlock allocates 1 (4 per pair). The file_lock_context is
 *           allocated at the first lock of the inode, freed with it.
 *   flock:  flock(LOCK_EX) then flock(LOCK_UN) of a private file
 *           ("flock_unlock"): 1 struct file_lock allocated by the lock,
 *           freed by the unlock.
 *   poll:   poll() with a zero timeout on --nfds entries ("poll"): the
 *           first --live are a pipe's write end (POLLOUT, ready) and read
 *           end (POLLIN, never ready) in turn, the rest fd -1, so every
 *           call returns at once with the same count. The first 30
 *           entries are copied on the stack; beyond, into kmalloc'ed
 *           chunks of up to 510 (16 + 8 * n bytes): at the default 64,
 *           one kmalloc(288) from kmalloc-512 per call.
 *   select: select() with a zero timeout on --nfds descriptors
 *           ("select"): a pipe's read end and a dup of it at --nfds - 1
 *           in the read set, its write end (ready) in the write set. The
 *           dup makes the fd table at least --nfds wide: the kernel cuts
 *           n to it. Above 320 descriptors the six bitmaps no longer fit
 *           on the stack: at the default 1024, one kvmalloc(768) from
 *           kmalloc-1k per call.
 *   dgram:  send() of --size bytes (default 216) on one end of a unix
 *           datagram socket pair, then recv() of it on the other
 *           ("dgram"). The socket allocates with GFP_KERNEL_ACCOUNT: an
 *           skb head (skbuff_head_cache, a cache without SLAB_ACCOUNT)
 *           and its data (a kmalloc-cg cache) charged and freed a message.
 *   stream: the same over a unix stream socket pair ("stream").
 *   socket: socket(AF_UNIX, SOCK_STREAM) then close() ("socket"): a
 *           unix_sock, a socket inode, a dentry and a file, charged.
 *   openfail: open() of a name that does not exist in --dir
 *           ("openfail"): the name's copy and the lookup of its dentry.
 *
 * Each call (or pair) is timed on its own with CLOCK_MONOTONIC; then,
 * with one process, getppid() (the syscall floor) and clock_gettime()
 * itself (the timing overhead to subtract).
 *
 *   --procs N: N processes, process i on CPU --cpu + i and in the i-th
 *             cgroup of --cgroup (a comma-separated list, or one for all),
 *             each with its own file or pipe, start their timed loops
 *             together. Each reports its own calls; the parent reports the
 *             whole timed window divided by N * --count (op "MODE_all":
 *             what a call costs all CPUs together, a throughput figure).
 *
 * Under QEMU TCG with -icount and several vCPUs, the vCPUs run in turn and
 * guest time counts the instructions of all of them: a call during which
 * another vCPU ran is longer by what that vCPU did. Every JSON line also
 * gives "tsum"/"tn", the calls of under TRIM_NS (1 ms) only: what the
 * calls cost their own CPU.
 *
 * Build: gcc -O2 -Wall -Wextra -static -o lock-bench tests/lock-bench.c
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WARMUP		1000		/* default untimed iterations */
#define MAX_COUNT	100000000L
#define MAX_NFDS	1048576L
#define MAX_PROCS	64
#define SELECT_MIN_NFDS	16

#define MAX_SIZE	4096

enum mode {
	MODE_LOCK1, MODE_FLOCK, MODE_POLL, MODE_SELECT, MODE_DGRAM,
	MODE_STREAM, MODE_SOCKET, MODE_OPENFAIL,
};

static const char *const mode_names[] = {
	"lock1", "flock", "poll", "select", "dgram", "stream", "socket",
	"openfail",
};
static const char *const op_names[] = {
	"lock_unlock", "flock_unlock", "poll", "select", "dgram", "stream",
	"socket", "openfail",
};

enum {
	OPT_MODE = 256, OPT_COUNT, OPT_WARMUP, OPT_CPU, OPT_PROCS, OPT_CGROUP,
	OPT_JSON, OPT_LABEL, OPT_NFDS, OPT_LIVE, OPT_RANGE, OPT_DIR, OPT_SIZE,
};

struct config {
	enum mode mode;
	unsigned long count, warmup, procs, nfds, live, size;
	bool whole;			/* lock1: lock the whole file */
	long cpu;			/* -1: no pinning */
	const char *cgroup, *label, *dir;
	char *cgroups[MAX_PROCS];	/* --procs: one per process */
	long worker;			/* --procs: this process's index, or -1 */
	bool json;
};

static const char prog[] = "lock-bench";

static const struct option long_opts[] = {
	{ "mode",    required_argument, NULL, OPT_MODE },
	{ "count",   required_argument, NULL, OPT_COUNT },
	{ "warmup",  required_argument, NULL, OPT_WARMUP },
	{ "range",   required_argument, NULL, OPT_RANGE },
	{ "nfds",    required_argument, NULL, OPT_NFDS },
	{ "live",    required_argument, NULL, OPT_LIVE },
	{ "dir",     required_argument, NULL, OPT_DIR },
	{ "size",    required_argument, NULL, OPT_SIZE },
	{ "cpu",     required_argument, NULL, OPT_CPU },
	{ "procs",   required_argument, NULL, OPT_PROCS },
	{ "cgroup",  required_argument, NULL, OPT_CGROUP },
	{ "json",    no_argument,       NULL, OPT_JSON },
	{ "label",   required_argument, NULL, OPT_LABEL },
	{ "help",    no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#include "bench-lib.h"

/* Everything one run owns; released in one place, bench_free(). */
struct bench {
	const struct config *cfg;
	struct series s;
	int fd;				/* lock1, flock: the private file */
	int sock[2];			/* dgram, stream: the socket pair */
	char path[PATH_MAX];		/* openfail: the missing name */
	char buf[MAX_SIZE];		/* dgram, stream: the message */
	int pipe[2];			/* poll, select */
	int high_fd;			/* select: dup of pipe[0], --nfds - 1 */
	int expect;			/* what each poll()/select() returns */
	struct pollfd *pfd;		/* poll */
	unsigned long *rset0, *wset0;	/* select: the sets to pass ... */
	unsigned long *rset, *wset;	/* ... copied here before each call */
	size_t set_bytes;
};

static void usage(void)
{
	printf("usage: %s [options]\n"
"  --mode lock1|flock|poll|select|dgram|stream|socket|openfail\n"
"                        lock1: time fcntl(F_SETLK) lock + unlock (default)\n"
"                        flock: time flock(LOCK_EX) + flock(LOCK_UN)\n"
"                        poll: time poll() of --nfds entries, timeout 0\n"
"                        select: time select() of --nfds fds, timeout 0\n"
"                        dgram, stream: time send() + recv() of --size\n"
"                        bytes over a unix socket pair of that type\n"
"                        socket: time socket(AF_UNIX) + close()\n"
"                        openfail: time open() of a missing name in --dir\n"
"  --count N             timed iterations, 1..%ld (default 100000)\n"
"  --warmup N            untimed iterations first, 0..%ld (default %d)\n"
"  --range byte|whole    lock1: lock byte 0 (default, as will-it-scale)\n"
"                        or the whole file\n"
"  --nfds N              poll: entries, 1..%ld (default 64)\n"
"                        select: descriptors, %d..%ld (default 1024)\n"
"  --live N              poll: entries that are real fds, the rest are -1,\n"
"                        0..--nfds (default 2)\n"
"  --dir PATH            lock1, flock: directory of the private file;\n"
"                        openfail: of the missing name (default /tmp)\n"
"  --size N              dgram, stream: message bytes, 1..%d (default 216)\n"
"  --cpu N               pin to CPU N, -1 = no pinning (default -1)\n"
"  --procs N             N processes on CPUs --cpu .. --cpu + N - 1,\n"
"                        1..%d (default 1)\n"
"  --cgroup PATH[,...]   join cgroup v2 directory PATH before measuring\n"
"                        (--procs: one PATH for all, or one per process)\n"
"  --json                print only JSON lines\n"
"  --label STR           copied into every JSON line\n"
"  --help                this text\n",
	       prog, MAX_COUNT, MAX_COUNT, WARMUP, MAX_NFDS, SELECT_MIN_NFDS,
	       MAX_NFDS, MAX_SIZE, MAX_PROCS);
}

static void parse_mode(struct config *cfg, const char *arg)
{
	unsigned int i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (!strcmp(arg, mode_names[i])) {
			cfg->mode = (enum mode)i;
			return;
		}
	}
	err_msg("--mode '%s': must be lock1, flock, poll, select, dgram, stream, socket or openfail",
		arg);
	die_usage();
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	const char *nfds = NULL, *live = NULL, *size = NULL;
	bool range = false;
	int c;

	*cfg = (struct config){ .mode = MODE_LOCK1, .count = 100000,
				.warmup = WARMUP, .procs = 1, .cpu = -1,
				.worker = -1, .label = "", .dir = "/tmp" };
	while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_MODE:
			parse_mode(cfg, optarg);
			break;
		case OPT_COUNT:
			cfg->count = opt_num("count", optarg, 1, MAX_COUNT);
			break;
		case OPT_WARMUP:
			cfg->warmup = opt_num("warmup", optarg, 0, MAX_COUNT);
			break;
		case OPT_RANGE:
			if (!strcmp(optarg, "byte")) {
				cfg->whole = false;
			} else if (!strcmp(optarg, "whole")) {
				cfg->whole = true;
			} else {
				err_msg("--range '%s': must be byte or whole",
					optarg);
				die_usage();
			}
			range = true;
			break;
		case OPT_NFDS:
			nfds = optarg;
			break;
		case OPT_LIVE:
			live = optarg;
			break;
		case OPT_DIR:
			cfg->dir = optarg;
			break;
		case OPT_SIZE:
			size = optarg;
			break;
		case OPT_CPU:
			cfg->cpu = opt_num("cpu", optarg, -1, CPU_SETSIZE - 1);
			break;
		case OPT_PROCS:
			cfg->procs = opt_num("procs", optarg, 1, MAX_PROCS);
			break;
		case OPT_CGROUP:
			cfg->cgroup = optarg;
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
	if (range && cfg->mode != MODE_LOCK1) {
		err_msg("--range only makes sense with --mode lock1");
		die_usage();
	}
	if (live && cfg->mode != MODE_POLL) {
		err_msg("--live only makes sense with --mode poll");
		die_usage();
	}
	if (nfds && cfg->mode != MODE_POLL && cfg->mode != MODE_SELECT) {
		err_msg("--nfds only makes sense with --mode poll or select");
		die_usage();
	}
	if (size && cfg->mode != MODE_DGRAM && cfg->mode != MODE_STREAM) {
		err_msg("--size only makes sense with --mode dgram or stream");
		die_usage();
	}
	cfg->size = size ? opt_num("size", size, 1, MAX_SIZE) : 216;
	if (cfg->mode == MODE_POLL) {
		cfg->nfds = nfds ? opt_num("nfds", nfds, 1, MAX_NFDS) : 64;
		cfg->live = cfg->nfds < 2 ? cfg->nfds : 2;
		if (live)
			cfg->live = opt_num("live", live, 0, (long)cfg->nfds);
	} else if (cfg->mode == MODE_SELECT) {
		cfg->nfds = nfds ? opt_num("nfds", nfds, SELECT_MIN_NFDS,
					   MAX_NFDS) : 1024;
	}
	if (cfg->procs > 1 && (cfg->cpu < 0 ||
			       cfg->cpu + (long)cfg->procs > CPU_SETSIZE)) {
		err_msg("--procs %lu needs --cpu N, with N + %lu CPUs at most %d",
			cfg->procs, cfg->procs, CPU_SETSIZE);
		die_usage();
	}
	if (cfg->procs > 1)
		split_cgroups(cfg);
}

static const char *lock_hint(int err)
{
	switch (err) {
	case EACCES:
	case ENOSYS:
		return " (kernel built without CONFIG_FILE_LOCKING?)";
	case ENOLCK:
	case ENOMEM:
		return " (out of memory: memcg limit reached?)";
	}
	return "";
}

/* What errno may mean for the calls that allocate and fail only for it. */
static const char *mem_hint(int err)
{
	return err == ENOMEM || err == ENOBUFS ?
	       " (out of memory: memcg limit reached?)" : "";
}

/* Report that @call failed at iteration @i, with @hint's reading of errno. */
static int call_failed(const char *call, unsigned long i,
		       const char *(*hint)(int err))
{
	int err = errno;

	err_msg("%s failed at iteration %lu: %s%s", call, i, strerror(err),
		hint(err));
	return -1;
}

/* will-it-scale lock1 (with F_SETLK): lock and unlock, timed together. */
static int lock1_loop(struct bench *b, unsigned long n, struct series *s)
{
	struct flock lk = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = 0,
		.l_len = b->cfg->whole ? 0 : 1,
	};
	struct flock un = lk;
	uint64_t t0, t1;
	unsigned long i;
	int ret;

	un.l_type = F_UNLCK;
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (fcntl(b->fd, F_SETLK, &lk))
			return call_failed("fcntl(F_SETLK, F_WRLCK)", i, lock_hint);
		ret = fcntl(b->fd, F_SETLK, &un);
		t1 = now_ns();
		if (ret)
			return call_failed("fcntl(F_SETLK, F_UNLCK)", i, lock_hint);
		series_add(s, t1 - t0);
	}
	return 0;
}

static int flock_loop(struct bench *b, unsigned long n, struct series *s)
{
	uint64_t t0, t1;
	unsigned long i;
	int ret;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (flock(b->fd, LOCK_EX))
			return call_failed("flock(LOCK_EX)", i, lock_hint);
		ret = flock(b->fd, LOCK_UN);
		t1 = now_ns();
		if (ret)
			return call_failed("flock(LOCK_UN)", i, lock_hint);
		series_add(s, t1 - t0);
	}
	return 0;
}

static int check_ready(int r, int expect, const char *call, unsigned long i)
{
	if (r == expect)
		return 0;
	if (r < 0)
		err_msg("%s failed at iteration %lu: %s%s", call, i,
			strerror(errno), errno == ENOMEM ?
			" (out of memory: memcg limit reached?)" : "");
	else
		err_msg("%s returned %d at iteration %lu, expected %d", call,
			r, i, expect);
	return -1;
}

static int poll_loop(struct bench *b, unsigned long n, struct series *s)
{
	nfds_t nfds = b->cfg->nfds;
	uint64_t t0, t1;
	unsigned long i;
	int r;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		r = poll(b->pfd, nfds, 0);
		t1 = now_ns();
		if (check_ready(r, b->expect, "poll", i))
			return -1;
		series_add(s, t1 - t0);
	}
	return 0;
}

/* select(2) itself: glibc may turn select() into pselect6(). */
static inline int do_select(int n, unsigned long *r, unsigned long *w,
			    struct timeval *tv)
{
#ifdef SYS_select
	return (int)syscall(SYS_select, n, r, w, NULL, tv);
#else
	return select(n, (fd_set *)r, (fd_set *)w, NULL, tv);
#endif
}

/* select() rewrites the sets and the timeout: restore them untimed. */
static int select_loop(struct bench *b, unsigned long n, struct series *s)
{
	int nfds = (int)b->cfg->nfds;
	struct timeval tv;
	uint64_t t0, t1;
	unsigned long i;
	int r;

	for (i = 0; i < n; i++) {
		memcpy(b->rset, b->rset0, b->set_bytes);
		memcpy(b->wset, b->wset0, b->set_bytes);
		tv.tv_sec = 0;
		tv.tv_usec = 0;
		t0 = now_ns();
		r = do_select(nfds, b->rset, b->wset, &tv);
		t1 = now_ns();
		if (check_ready(r, b->expect, "select", i))
			return -1;
		series_add(s, t1 - t0);
	}
	return 0;
}

/* One message there and back: send() on one end, recv() on the other. */
static int sock_loop(struct bench *b, unsigned long n, struct series *s)
{
	ssize_t len = (ssize_t)b->cfg->size, r;
	uint64_t t0, t1;
	unsigned long i;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (send(b->sock[0], b->buf, len, 0) != len)
			return call_failed("send", i, mem_hint);
		r = recv(b->sock[1], b->buf, len, 0);
		t1 = now_ns();
		if (r != len) {
			if (r >= 0)
				errno = EIO;
			return call_failed("recv", i, mem_hint);
		}
		series_add(s, t1 - t0);
	}
	return 0;
}

static int socket_loop(unsigned long n, struct series *s)
{
	uint64_t t0, t1;
	unsigned long i;
	int fd;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return call_failed("socket", i, mem_hint);
		close(fd);
		t1 = now_ns();
		series_add(s, t1 - t0);
	}
	return 0;
}

static int openfail_loop(struct bench *b, unsigned long n, struct series *s)
{
	uint64_t t0, t1;
	unsigned long i;
	int fd;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		fd = open(b->path, O_RDONLY | O_CLOEXEC);
		t1 = now_ns();
		if (fd >= 0) {
			err_msg("%s: exists, want a missing name", b->path);
			close(fd);
			return -1;
		}
		if (errno != ENOENT)
			return call_failed("open", i, mem_hint);
		series_add(s, t1 - t0);
	}
	return 0;
}

static int bench_loop(struct bench *b, unsigned long n, struct series *s)
{
	switch (b->cfg->mode) {
	case MODE_LOCK1:
		return lock1_loop(b, n, s);
	case MODE_FLOCK:
		return flock_loop(b, n, s);
	case MODE_POLL:
		return poll_loop(b, n, s);
	case MODE_SELECT:
		return select_loop(b, n, s);
	case MODE_DGRAM:
	case MODE_STREAM:
		return sock_loop(b, n, s);
	case MODE_SOCKET:
		return socket_loop(n, s);
	case MODE_OPENFAIL:
		return openfail_loop(b, n, s);
	}
	return -1;
}

/* One process: the calls, then the syscall floor and the clock. */
static int run_single(struct bench *b, struct stats *out)
{
	const struct config *cfg = b->cfg;
	struct series *s = &b->s;

	if (bench_loop(b, cfg->warmup, NULL) || bench_loop(b, cfg->count, s))
		return -1;
	series_stats(s, op_names[cfg->mode], &out[0]);

	measure_getppid(NULL, cfg->warmup);
	series_reset(s);
	measure_getppid(s, cfg->count);
	series_stats(s, "getppid", &out[1]);

	measure_clock(NULL, cfg->warmup);
	series_reset(s);
	measure_clock(s, cfg->count);
	series_stats(s, "clock", &out[2]);
	return 0;
}

/* RLIMIT_NOFILE of at least @want descriptors (poll: entries). */
static int raise_nofile(unsigned long want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		err_msg("getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
		return -1;
	}
	if (rl.rlim_cur >= want)
		return 0;
	rl.rlim_cur = want;
	if (rl.rlim_max < want)
		rl.rlim_max = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		return 0;
	err_msg("--nfds %lu: cannot raise RLIMIT_NOFILE to %lu: %s (see 'ulimit -n' and fs.nr_open)",
		want, want, strerror(errno));
	return -1;
}

/* A private file: created, then unlinked while we hold it open. */
static int open_private(struct bench *b)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s/lock-bench.XXXXXX", b->cfg->dir);
	if (n < 0 || n >= (int)sizeof(path)) {
		err_msg("--dir %s: path too long", b->cfg->dir);
		return -1;
	}
	b->fd = mkostemp(path, O_CLOEXEC);
	if (b->fd < 0) {
		err_msg("--dir %s: cannot create a file: %s", b->cfg->dir,
			strerror(errno));
		return -1;
	}
	unlink(path);
	return 0;
}

static int init_poll(struct bench *b)
{
	unsigned long i, n = b->cfg->nfds;

	if (raise_nofile(n))
		return -1;
	b->pfd = malloc(n * sizeof(*b->pfd));
	if (!b->pfd) {
		err_msg("cannot allocate %lu pollfd: %s", n, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		b->pfd[i].fd = -1;
		b->pfd[i].events = 0;
		b->pfd[i].revents = 0;
	}
	/* Even entries: the write end, ready; odd: the read end, not. */
	for (i = 0; i < b->cfg->live; i++) {
		b->pfd[i].fd = b->pipe[i & 1 ? 0 : 1];
		b->pfd[i].events = i & 1 ? POLLIN : POLLOUT;
	}
	b->expect = (int)((b->cfg->live + 1) / 2);
	return 0;
}

static inline void set_bit_ul(unsigned long *set, int fd)
{
	const unsigned int bits = 8 * sizeof(*set);

	set[fd / bits] |= 1UL << (fd % bits);
}

static int init_select(struct bench *b)
{
	const unsigned int bits = 8 * sizeof(unsigned long);
	unsigned long n = b->cfg->nfds;
	size_t words = (n + bits - 1) / bits;

	if (raise_nofile(n))
		return -1;
	if ((unsigned long)b->pipe[0] >= n - 1 ||
	    (unsigned long)b->pipe[1] >= n - 1) {
		err_msg("--nfds %lu: the pipe got fds %d and %d; need more",
			n, b->pipe[0], b->pipe[1]);
		return -1;
	}
	/* Widen the fd table to n: select() cuts n to its width. */
	b->high_fd = dup2(b->pipe[0], (int)(n - 1));
	if (b->high_fd < 0) {
		err_msg("dup2 to fd %lu: %s", n - 1, strerror(errno));
		return -1;
	}
	b->set_bytes = words * sizeof(unsigned long);
	b->rset0 = calloc(words, sizeof(unsigned long));
	b->wset0 = calloc(words, sizeof(unsigned long));
	b->rset = calloc(words, sizeof(unsigned long));
	b->wset = calloc(words, sizeof(unsigned long));
	if (!b->rset0 || !b->wset0 || !b->rset || !b->wset) {
		err_msg("cannot allocate fd sets of %lu bits", n);
		return -1;
	}
	set_bit_ul(b->rset0, b->pipe[0]);
	set_bit_ul(b->rset0, b->high_fd);
	set_bit_ul(b->wset0, b->pipe[1]);
	b->expect = 1;
	return 0;
}

/* Allocate and pre-fault everything, then make the file or the pipe. */
static int bench_init(struct bench *b, const struct config *cfg)
{
	int n;

	*b = (struct bench){ .cfg = cfg, .fd = -1, .pipe = { -1, -1 },
			     .high_fd = -1, .sock = { -1, -1 } };
	if (series_alloc(&b->s, cfg->count))
		return -1;
	if (cfg->mode == MODE_LOCK1 || cfg->mode == MODE_FLOCK)
		return open_private(b);
	if (cfg->mode == MODE_SOCKET)
		return 0;
	if (cfg->mode == MODE_DGRAM || cfg->mode == MODE_STREAM) {
		if (socketpair(AF_UNIX, (cfg->mode == MODE_DGRAM ? SOCK_DGRAM :
					 SOCK_STREAM) | SOCK_CLOEXEC, 0,
			       b->sock) < 0) {
			err_msg("socketpair: %s", strerror(errno));
			return -1;
		}
		memset(b->buf, 'x', sizeof(b->buf));
		return 0;
	}
	if (cfg->mode == MODE_OPENFAIL) {
		n = snprintf(b->path, sizeof(b->path),
			     "%s/lock-bench.missing.%d", cfg->dir, (int)getpid());
		if (n < 0 || n >= (int)sizeof(b->path)) {
			err_msg("--dir %s: path too long", cfg->dir);
			return -1;
		}
		return 0;
	}
	if (pipe2(b->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		err_msg("pipe: %s", strerror(errno));
		return -1;
	}
	return cfg->mode == MODE_POLL ? init_poll(b) : init_select(b);
}

static void bench_free(struct bench *b)
{
	int i;

	if (b->fd >= 0)
		close(b->fd);
	for (i = 0; i < 2; i++) {
		if (b->pipe[i] >= 0)
			close(b->pipe[i]);
		if (b->sock[i] >= 0)
			close(b->sock[i]);
	}
	if (b->high_fd >= 0)
		close(b->high_fd);
	free(b->s.v);
	free(b->pfd);
	free(b->rset0);
	free(b->wset0);
	free(b->rset);
	free(b->wset);
}

static void print_json(const struct config *cfg, const struct stats *st)
{
	const char *cg = cfg->worker >= 0 ? cfg->cgroups[cfg->worker] : cfg->cgroup;

	printf("{\"bench\":\"lock\",\"label\":");
	json_str(cfg->label);
	printf(",\"mode\":\"%s\",\"op\":\"%s\",\"count\":%lu,\"warmup\":%lu,\"cpu\":%ld,\"cgroup\":",
	       mode_names[cfg->mode], st->op, cfg->count, cfg->warmup,
	       cfg->cpu);
	if (cg)
		json_str(cg);
	else
		printf("null");
	if (cfg->mode == MODE_LOCK1)
		printf(",\"range\":\"%s\"", cfg->whole ? "whole" : "byte");
	if (cfg->mode == MODE_POLL)
		printf(",\"nfds\":%lu,\"live\":%lu", cfg->nfds, cfg->live);
	if (cfg->mode == MODE_SELECT)
		printf(",\"nfds\":%lu", cfg->nfds);
	if (cfg->mode == MODE_DGRAM || cfg->mode == MODE_STREAM)
		printf(",\"size\":%lu", cfg->size);
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
	struct timespec res = { 0, 0 };
	int i;

	clock_getres(CLOCK_MONOTONIC, &res);
	printf("lock-bench: mode=%s count=%lu warmup=%lu cpu=%ld cgroup=%s",
	       mode_names[cfg->mode], cfg->count, cfg->warmup, cfg->cpu,
	       cfg->cgroup ? cfg->cgroup : "-");
	if (cfg->mode == MODE_LOCK1)
		printf(" range=%s", cfg->whole ? "whole" : "byte");
	if (cfg->mode == MODE_POLL)
		printf(" nfds=%lu live=%lu", cfg->nfds, cfg->live);
	if (cfg->mode == MODE_SELECT)
		printf(" nfds=%lu", cfg->nfds);
	if (cfg->mode == MODE_DGRAM || cfg->mode == MODE_STREAM)
		printf(" size=%lu", cfg->size);
	if (cfg->procs > 1)
		printf(" procs=%lu worker=%ld", cfg->procs, cfg->worker);
	if (*cfg->label)
		printf(" label=%s", cfg->label);
	printf(" clock=CLOCK_MONOTONIC res=%ldns\n", res.tv_nsec);
	printf("%-16s %8s %8s %8s %8s %8s   (ns per %s)\n", "op", "min",
	       "avg", "p50", "p99", "max",
	       cfg->mode == MODE_LOCK1 || cfg->mode == MODE_FLOCK ?
	       "lock + unlock" : cfg->mode == MODE_DGRAM ||
	       cfg->mode == MODE_STREAM ? "send + recv" :
	       cfg->mode == MODE_SOCKET ? "socket + close" : "call");
	for (i = 0; i < nst; i++)
		printf("%-16s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		       " %8" PRIu64 "\n", st[i].op, st[i].min, avg_of(&st[i]),
		       st[i].p50, st[i].p99, st[i].max);
}

/*
 * --procs: one worker. Join its cgroup, pin, make its file or pipe, warm
 * up, say so on @ready, wait for the word on @go, run the timed loop, say
 * so on @ready again, then report its own calls.
 */
static void __attribute__((noreturn))
worker_main(struct config *cfg, long w, int ready, int go)
{
	struct stats st;
	struct bench b;
	char c = 0;
	int ret;

	cfg->worker = w;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(1);
	if ((cfg->cgroups[w] && join_cgroup(cfg->cgroups[w], "cgroup")) ||
	    pin_cpu(cfg->cpu + w))
		_exit(1);
	cfg->cpu += w;
	ret = bench_init(&b, cfg);
	if (!ret)
		ret = bench_loop(&b, cfg->warmup, NULL);
	if (ret || write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(1);
	ret = bench_loop(&b, cfg->count, &b.s);
	if (write(ready, &c, 1) != 1)
		_exit(1);
	if (!ret)
		series_stats(&b.s, op_names[cfg->mode], &st);
	bench_free(&b);
	_exit(ret ? 1 : report(cfg, &st, 1));
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct bench b;
	struct stats st[3];
	int ret;

	parse_args(argc, argv, &cfg);
	if (cfg.procs > 1) {
		char op[32];

		snprintf(op, sizeof(op), "%s_all", mode_names[cfg.mode]);
		return run_procs(&cfg, op);
	}

	/*
	 * Join before allocating anything: the file, its locks, the copies
	 * of the arrays and our page faults are charged to the memcg we run
	 * in at that moment. Pin after joining, since a cpuset move may
	 * rewrite the affinity.
	 */
	if (cfg.cgroup && join_cgroup(cfg.cgroup, "cgroup"))
		return 1;
	if (pin_cpu(cfg.cpu))
		return 1;

	ret = bench_init(&b, &cfg);
	if (!ret)
		ret = run_single(&b, st);
	bench_free(&b);
	if (ret)
		return 1;
	return report(&cfg, st, 3);
}
