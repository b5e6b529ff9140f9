/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-lib.h - what tests/mq-bench.c and tests/lock-bench.c share:
 * messages and option checks, joining a cgroup and pinning to a CPU, the
 * timed series of calls with their statistics (and the TRIM_NS sums of
 * the calls during which no other vCPU ran), the syscall floor and clock
 * measurements, JSON strings, and the --procs runs (split_cgroups(),
 * run_procs(), report()). Each program includes it once, after it
 * has defined prog[] (its name in messages) and long_opts[] (its options,
 * for bad_option()), and defines usage().
 */
#ifndef BENCH_LIB_H
#define BENCH_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRIM_NS		1000000	/* calls this long had another vCPU run */

/* Raw samples of one operation, plus exact 64-bit aggregates. */
struct series {
	uint32_t *v;			/* ns, saturated at UINT32_MAX (4.3 s) */
	unsigned long n;
	uint64_t sum, min, max;
	uint64_t tsum;			/* of the calls under TRIM_NS */
	unsigned long tn;
};

struct stats {
	const char *op;
	unsigned long n, tn;
	uint64_t min, max, p50, p99, sum, tsum;
};

static void usage(void);

static void __attribute__((format(printf, 1, 2))) err_msg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* One stdio call, so lines of parent and child do not interleave. */
	fprintf(stderr, "%s: %s\n", prog, buf);
}

static void __attribute__((noreturn)) die_usage(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", prog);
	exit(2);
}

static void __attribute__((noreturn))
bad_value(const char *opt, const char *arg, const char *why, long lo, long hi)
{
	err_msg("--%s '%s': %s (allowed: %ld..%ld)", opt, arg, why, lo, hi);
	die_usage();
}

/*
 * Strict decimal: digits only (one leading '-' is parsed so that "-5"
 * gets the honest "out of range"), no blanks, no junk, no overflow.
 */
static long opt_num(const char *opt, const char *arg, long lo, long hi)
{
	const char *s = arg + (*arg == '-');
	unsigned long v;
	char *end;
	long x;

	if (!isdigit((unsigned char)*s))
		bad_value(opt, arg, "not a decimal integer", lo, hi);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		bad_value(opt, arg, "not a decimal integer", lo, hi);
	if (errno == ERANGE || v > LONG_MAX)
		bad_value(opt, arg, "out of range", lo, hi);
	x = s != arg ? -(long)v : (long)v;
	if (x < lo || x > hi)
		bad_value(opt, arg, "out of range", lo, hi);
	return x;
}

/* getopt's own messages are off (":" in optstring) to name ranges too. */
static void __attribute__((noreturn)) bad_option(int c, const char *arg)
{
	const struct option *o = long_opts;

	while (o->name && o->val != optopt)
		o++;
	if (c == ':')
		err_msg("option '--%s' requires an argument", o->name);
	else if (optopt >= 256)
		err_msg("option '--%s' does not take an argument", o->name);
	else if (optopt > 0)
		err_msg("unknown option '-%c'", optopt);
	else
		err_msg("unknown or ambiguous option '%s'", arg);
	die_usage();
}

static const char *cgroup_hint(int err)
{
	switch (err) {
	case ENOENT:
		return " (not a cgroup directory?)";
	case EBUSY:
		return " (cgroup v2 allows no tasks in a cgroup that enables controllers in cgroup.subtree_control)";
	case EOPNOTSUPP:
		return " (threaded or invalid cgroup type)";
	case EACCES:
	case EPERM:
		return " (need write access to cgroup.procs here and in the common ancestor)";
	}
	return "";
}

static int join_cgroup(const char *dir, const char *opt)
{
	char path[PATH_MAX], buf[32];
	struct stat st;
	int fd, len, err = 0;
	ssize_t w;

	if (stat(dir, &st) < 0)
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	if (err) {
		err_msg("--%s %s: %s", opt, dir, strerror(err));
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >=
	    (int)sizeof(path)) {
		err_msg("--%s %s: path too long", opt, dir);
		return -1;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else {
		len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
		w = write(fd, buf, (size_t)len);
		err = w < 0 ? errno : w != len ? EIO : 0;
		close(fd);
	}
	if (!err)
		return 0;
	err_msg("--%s: cannot join %s: %s%s", opt, dir, strerror(err),
		cgroup_hint(err));
	return -1;
}

static int pin_cpu(long cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET((size_t)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == 0)
		return 0;
	err_msg("--cpu %ld: sched_setaffinity: %s (CPU offline, absent, or outside this cpuset?)",
		cpu, strerror(errno));
	return -1;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void series_reset(struct series *s)
{
	s->n = 0;
	s->sum = 0;
	s->tsum = 0;
	s->tn = 0;
	s->min = UINT64_MAX;
	s->max = 0;
}

/* Touch every page now (0xff: not turned into calloc), so no sample faults. */
static int series_alloc(struct series *s, unsigned long n)
{
	s->v = malloc(n * sizeof(*s->v));
	if (!s->v) {
		err_msg("cannot allocate %lu samples: %s", n, strerror(errno));
		return -1;
	}
	memset(s->v, 0xff, n * sizeof(*s->v));
	series_reset(s);
	return 0;
}

/* Called outside the timed window; s == NULL during warm-up. */
static inline void series_add(struct series *s, uint64_t ns)
{
	if (!s)
		return;
	s->v[s->n++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	s->sum += ns;
	if (ns < TRIM_NS) {
		s->tsum += ns;
		s->tn++;
	}
	if (ns < s->min)
		s->min = ns;
	if (ns > s->max)
		s->max = ns;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The raw order is not needed afterwards, so sort in place rather than a
 * copy: at --count 1e8 a copy costs another 400 MB in a small guest.
 * Integer index math gives exactly floor(0.99 * (n - 1)).
 */
static void series_stats(struct series *s, const char *op, struct stats *st)
{
	uint64_t last = s->n - 1;

	qsort(s->v, s->n, sizeof(*s->v), cmp_u32);
	*st = (struct stats){ .op = op, .n = s->n, .sum = s->sum,
			      .tn = s->tn, .tsum = s->tsum,
			      .min = s->min, .max = s->max,
			      .p50 = s->v[last * 50 / 100],
			      .p99 = s->v[last * 99 / 100] };
}

static void measure_getppid(struct series *s, unsigned long n)
{
	volatile pid_t sink;
	uint64_t t0, t1;
	unsigned long i;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		sink = getppid();	/* never cached by glibc: a real syscall */
		t1 = now_ns();
		series_add(s, t1 - t0);
	}
	(void)sink;
}

static void measure_clock(struct series *s, unsigned long n)
{
	uint64_t t0, t1;
	unsigned long i;

	for (i = 0; i < n; i++) {
		t0 = now_ns();
		t1 = now_ns();
		series_add(s, t1 - t0);
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static uint64_t avg_of(const struct stats *st)
{
	return (st->sum + st->n / 2) / st->n;
}

/*
 * --procs: the program's struct config, defined before this header, has
 * procs, cgroup, cgroups[MAX_PROCS], count and json, and the program
 * defines these three, which the code below calls.
 */
static void print_json(const struct config *cfg, const struct stats *st);
static void print_table(const struct config *cfg, const struct stats *st,
			int nst);
static void __attribute__((noreturn))
worker_main(struct config *cfg, long w, int ready, int go);

/* --procs: --cgroup is one directory for all, or one for each process. */
static void split_cgroups(struct config *cfg)
{
	static char buf[MAX_PROCS * (PATH_MAX / 16)];
	unsigned long i, n = 0;
	char *p, *save = NULL;

	if (!cfg->cgroup)
		return;
	if (strlen(cfg->cgroup) >= sizeof(buf)) {
		err_msg("--cgroup: list too long");
		die_usage();
	}
	strcpy(buf, cfg->cgroup);
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (n == cfg->procs) {
			n++;
			break;
		}
		cfg->cgroups[n++] = p;
	}
	if (n == 1) {
		for (i = 1; i < cfg->procs; i++)
			cfg->cgroups[i] = cfg->cgroups[0];
	} else if (n != cfg->procs) {
		err_msg("--cgroup: %lu directories for --procs %lu (give one, or one each)",
			n, cfg->procs);
		die_usage();
	}
}

/* Print the results of one process; 0 on success. */
static int report(const struct config *cfg, const struct stats *st, int nst)
{
	int i;

	if (!cfg->json)
		print_table(cfg, st, nst);
	for (i = 0; i < nst; i++)
		print_json(cfg, &st[i]);
	if (fflush(stdout) || ferror(stdout)) {
		err_msg("writing results: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * --procs: start the workers, wait until all have warmed up, let them go
 * together and time the window until all have run their loops: the
 * @all_op line ("pair_all", "lock1_all", ...; sum = window, n = procs *
 * count).
 */
static int run_procs(struct config *cfg, const char *all_op)
{
	unsigned long i, n = cfg->procs, ok = 0;
	pid_t pids[MAX_PROCS];
	int ready[2], go[2], st, ret = 0;
	struct stats all;
	uint64_t t0, t1;
	char c = 0;

	if (pipe(ready) < 0 || pipe(go) < 0) {
		err_msg("pipe: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(ready[0]);
			close(go[1]);
			worker_main(cfg, (long)i, ready[1], go[0]);
		}
		if (pids[i] < 0) {
			err_msg("fork: %s", strerror(errno));
			n = i;
			ret = 1;
			break;
		}
	}
	close(ready[1]);
	close(go[0]);
	for (i = 0; !ret && i < n; i++)
		ret = read(ready[0], &c, 1) != 1;
	t0 = now_ns();
	for (i = 0; !ret && i < n; i++)
		ret = write(go[1], &c, 1) != 1;
	for (i = 0; !ret && i < n; i++)
		ret = read(ready[0], &c, 1) != 1;
	t1 = now_ns();
	close(go[1]);
	close(ready[0]);
	for (i = 0; i < n; i++) {
		if (ret)
			kill(pids[i], SIGKILL);
		if (waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) &&
		    !WEXITSTATUS(st))
			ok++;
	}
	if (ret || ok != n) {
		err_msg("%lu of %lu worker processes failed", n - ok, cfg->procs);
		return 1;
	}
	all = (struct stats){ .op = all_op, .n = n * cfg->count,
			      .sum = t1 - t0, .min = t1 - t0, .max = t1 - t0,
			      .p50 = t1 - t0, .p99 = t1 - t0,
			      .tsum = t1 - t0, .tn = n * cfg->count };
	return report(cfg, &all, 1);
}

#endif /* BENCH_LIB_H */
