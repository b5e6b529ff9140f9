// SPDX-License-Identifier: GPL-2.0
/*
 * kmem_bench - microbenchmark for memcg-accounted slab allocations
 *
 * Measures the cost of an allocation immediately followed by a free of the
 * same object for:
 *
 *  - kmem_cache_alloc()/kmem_cache_free() on a SLAB_ACCOUNT cache and on an
 *    unaccounted reference cache (one cache per object size);
 *  - kmalloc(GFP_KERNEL_ACCOUNT)/kfree() and kmalloc(GFP_KERNEL)/kfree() as
 *    the reference;
 *  - "batch": KB_BATCH kmalloc()s, then their KB_BATCH kfree()s, so that
 *    almost no allocation can reuse an object freed just before (what a
 *    per-CPU cache of freed objects costs when it does not help); the
 *    figure is per alloc+free pair as for the others.
 *
 * The benchmark runs synchronously in the context of the task that writes
 * "run" or "run <iters>" to /proc/kmem_bench, so that task's memory cgroup is
 * the one charged.  No kthread or workqueue is involved on purpose: kernel
 * threads are never charged.  Note that tasks in the root memory cgroup are
 * not charged either.
 *
 * "run <iters> <api> <size> <acct>" makes only the measurement of that api
 * ("cache", "kmalloc" or "batch"), object size and accounting (1 or 0),
 * e.g. "run 100000 kmalloc 64 0": a window of scripts/profile-workload.sh
 * then holds nothing else.
 *
 * Reading /proc/kmem_bench returns the results of the latest run, one line
 * per measurement.  The same lines are logged with pr_info() at the end of a
 * run.
 *
 * "bulkfail <n>" (kernels with CONFIG_FAULT_INJECTION) is no benchmark: it
 * makes one kmem_cache_alloc_bulk() of <n> objects from a new SLAB_ACCOUNT
 * cache with fault injection armed for the writing task (make_it_fail), so
 * that, with /sys/kernel/debug/fail_page_alloc set up for it (task-filter,
 * probability 100, min-order 0, ignore-gfp-wait N), the first new slab page
 * and so the whole bulk allocation fails.  What that leaves charged to the
 * task's memory cgroup is for the harness to see; the result line says how
 * many objects the allocation returned.
 *
 * "keep <n>" makes a SLAB_ACCOUNT cache of 64-byte objects
 * (kmem_bench_keep, with a constructor so that it is never merged and has
 * its own /sys/kernel/slab directory), allocates <n> objects from it in
 * the writing task and frees them all again: a kernel that keeps freed
 * objects charged per CPU keeps the last ones it frees.  "destroy" then
 * destroys that cache with kmem_cache_destroy(), which must give the kept
 * objects back: one left in a slab makes the slab core report "Slab cache
 * still has objects" (a WARN) and keep the cache.  Between the two, the
 * cache's SLUB_STATS counters say whether anything was kept.
 *
 * "misuse <n>" (kernels with tag-based KASAN, software or hardware tags,
 * and only while KASAN is on) breaks the rules on purpose, on the cache
 * of "keep": it allocates one object and frees it (a kernel that keeps
 * freed objects charged keeps it in the CPU's sheaf), reads it after the
 * free and frees it a second time, then allocates <n> objects and counts
 * those it got twice (the same address under another tag).  KASAN must
 * report the use after free and the double free, and slab_free() must
 * drop the second free: an object freed twice into a sheaf comes back
 * from two allocations.  Tag-based KASAN has no quarantine, so the
 * object is in the sheaf, charged, when both happen (generic KASAN's
 * quarantine would hold it; without KASAN the two would corrupt the
 * cache, hence -EOPNOTSUPP).  It frees each object it got once, keeping
 * the pointer of its last allocation (whose tag is the current one).
 * The result line says how many it allocated and got twice.
 *
 * "nolock <n> hard|soft" (kernels with kmalloc_nolock(), 6.18 and later)
 * is no benchmark either: a timer pinned to the writer's CPU fires every
 * KB_NL_PERIOD_NS in hard-irq (hard) or softirq (soft) context and there
 * allocates, with kmalloc_nolock(__GFP_ACCOUNT), and frees, with
 * kfree_nolock(), the oldest of a ring of KB_NL_RING objects of
 * KB_NL_SIZE bytes, KB_NL_BURST times, charged by set_active_memcg() to
 * the parent of the writer's memory cgroup, while the writer allocates
 * and frees <n> objects of the same size with kmalloc(GFP_KERNEL_ACCOUNT),
 * charged to its own: both use the same kmalloc cache, so the timer can
 * interrupt the writer inside it and take objects that the writer freed.
 * The result line says how often the timer fired and how many of its
 * allocations succeeded and failed (on PREEMPT_RT, kmalloc_nolock() fails
 * in hard irq by design). What stays charged to either cgroup is for the
 * harness to see.
 *
 * "charged <path>" (kernels with an objcg per node, 7.2 and later) says
 * what the objcgs of the memory cgroup at <path> (in the cgroup2
 * hierarchy, e.g. /stk-many) keep in nr_charged_bytes: the pre-charged
 * bytes that no objcg stock holds, a figure a node.  Those bytes are
 * part of the cgroup's memory.current that no memory.stat entry shows.
 *
 * Unless "slab_nomerge" is given on the kernel command line, the benchmark
 * caches may be merged with existing compatible caches (e.g. the kmalloc
 * caches of the same size).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/kasan.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#define KB_PROC_NAME		"kmem_bench"
#define KB_DEFAULT_ITERS	100000U
#define KB_MAX_ITERS		100000000U
#define KB_WARMUP_ITERS		1000U
/* Iterations between cond_resched() / fatal signal checks in a loop. */
#define KB_CHUNK		1024U
#define KB_CMD_MAX		64
#define KB_LINE_MAX		160
#define KB_TEXT_MAX		4096
#define KB_BULK_MAX		65536U
#define KB_BULK_SIZE		64U
#define KB_KEEP_SIZE		64U
/* Objects allocated before the first is freed, in the batch loop. */
#define KB_BATCH		64U

enum kb_api {
	KB_API_CACHE,
	KB_API_KMALLOC,
	KB_API_BATCH,
	KB_NR_APIS,
};

static const char * const kb_api_names[KB_NR_APIS] = {
	[KB_API_CACHE]		= "cache",
	[KB_API_KMALLOC]	= "kmalloc",
	[KB_API_BATCH]		= "batch",
};

static const unsigned int kb_sizes[] = { 8, 64, 256, 1024, 4096 };

#define KB_NR_SIZES		ARRAY_SIZE(kb_sizes)
/* api x size x {accounted, unaccounted} */
#define KB_NR_RESULTS		(KB_NR_APIS * KB_NR_SIZES * 2)

struct kb_result {
	enum kb_api api;
	bool acct;
	unsigned int size;
	unsigned int iters;
	u64 total_ns;
};

static unsigned int iters = KB_DEFAULT_ITERS;

static int kb_iters_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, KB_MAX_ITERS);
}

static const struct kernel_param_ops kb_iters_ops = {
	.set	= kb_iters_set,
	.get	= param_get_uint,
};

module_param_cb(iters, &kb_iters_ops, &iters, 0644);
MODULE_PARM_DESC(iters,
		 "Default iterations per measurement (1..100000000, default 100000)");

/* [0] = unaccounted reference caches, [1] = SLAB_ACCOUNT caches */
static struct kmem_cache *kb_caches[2][KB_NR_SIZES];

/* Protects everything below and serializes benchmark runs. */
static DEFINE_MUTEX(kb_mutex);
static struct kb_result kb_results[KB_NR_RESULTS];
static char kb_text[KB_TEXT_MAX];
static size_t kb_text_len;

static bool kb_iters_valid(unsigned int n)
{
	return n >= 1 && n <= KB_MAX_ITERS;
}

/*
 * Both loops below are kept out of line and the size is hidden from the
 * optimizer so that kmalloc() always takes the generic variable-size path
 * and the alloc/free pairs cannot be folded or elided.
 */
static noinline int kb_loop_cache(struct kmem_cache *s, unsigned int n)
{
	unsigned int done, chunk, i;
	void *p;

	for (done = 0; done < n; done += chunk) {
		chunk = min_t(unsigned int, n - done, KB_CHUNK);
		for (i = 0; i < chunk; i++) {
			p = kmem_cache_alloc(s, GFP_KERNEL);
			if (unlikely(!p))
				return -ENOMEM;
			OPTIMIZER_HIDE_VAR(p);
			kmem_cache_free(s, p);
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}

	return 0;
}

static noinline int kb_loop_kmalloc(size_t size, gfp_t gfp, unsigned int n)
{
	unsigned int done, chunk, i;
	void *p;

	OPTIMIZER_HIDE_VAR(size);

	for (done = 0; done < n; done += chunk) {
		chunk = min_t(unsigned int, n - done, KB_CHUNK);
		for (i = 0; i < chunk; i++) {
			p = kmalloc(size, gfp);
			if (unlikely(!p))
				return -ENOMEM;
			OPTIMIZER_HIDE_VAR(p);
			kfree(p);
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}

	return 0;
}

/* n alloc+free pairs in rounds of KB_BATCH allocations, then KB_BATCH frees. */
static noinline int kb_loop_batch(size_t size, gfp_t gfp, unsigned int n)
{
	void *p[KB_BATCH];
	unsigned int done, batch, i;

	OPTIMIZER_HIDE_VAR(size);

	for (done = 0; done < n; done += batch) {
		batch = min_t(unsigned int, n - done, KB_BATCH);
		for (i = 0; i < batch; i++) {
			p[i] = kmalloc(size, gfp);
			if (unlikely(!p[i])) {
				while (i--)
					kfree(p[i]);
				return -ENOMEM;
			}
			OPTIMIZER_HIDE_VAR(p[i]);
		}
		for (i = 0; i < batch; i++)
			kfree(p[i]);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}

	return 0;
}

static int kb_loop(enum kb_api api, bool acct, unsigned int idx,
		   unsigned int n)
{
	gfp_t gfp = acct ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;

	if (api == KB_API_CACHE)
		return kb_loop_cache(kb_caches[acct][idx], n);

	if (api == KB_API_BATCH)
		return kb_loop_batch(kb_sizes[idx], gfp, n);

	return kb_loop_kmalloc(kb_sizes[idx], gfp, n);
}

static int kb_measure(struct kb_result *res, enum kb_api api, bool acct,
		      unsigned int idx, unsigned int n)
{
	u64 start, end;
	int ret;

	res->api = api;
	res->acct = acct;
	res->size = kb_sizes[idx];
	res->iters = n;
	res->total_ns = 0;

	ret = kb_loop(api, acct, idx, KB_WARMUP_ITERS);
	if (ret)
		return ret;

	start = ktime_get_ns();
	ret = kb_loop(api, acct, idx, n);
	end = ktime_get_ns();
	if (ret)
		return ret;

	res->total_ns = end - start;
	return 0;
}

/* Format one result without the "kmem_bench " prefix and newline. */
static void kb_format(const struct kb_result *res, char *buf, size_t len)
{
	u64 centi_ns = div_u64(res->total_ns * 100, res->iters);

	scnprintf(buf, len,
		  "api=%s acct=%d size=%u iters=%u total_ns=%llu ns_per_op=%llu.%02llu",
		  kb_api_names[res->api], res->acct, res->size, res->iters,
		  res->total_ns, centi_ns / 100, centi_ns % 100);
}

static void kb_text_append(const char *line)
{
	kb_text_len += scnprintf(kb_text + kb_text_len,
				 sizeof(kb_text) - kb_text_len,
				 KB_PROC_NAME " %s\n", line);
}

/* Which measurements a run makes: all, or one api, size and accounting. */
struct kb_filter {
	bool one;
	enum kb_api api;
	unsigned int size;
	bool acct;
};

/* Make @line the text /proc/kmem_bench reads, and log it. */
static void kb_set_text(const char *line)
{
	mutex_lock(&kb_mutex);
	kb_text_len = 0;
	kb_text[0] = '\0';
	kb_text_append(line);
	mutex_unlock(&kb_mutex);
	pr_info("%s\n", line);
}

static bool kb_wanted(const struct kb_filter *f, enum kb_api api,
		      unsigned int idx, bool acct)
{
	return !f->one || (f->api == api && f->size == kb_sizes[idx] &&
			   f->acct == acct);
}

static int kb_run(unsigned int n, const struct kb_filter *f)
{
	struct kb_result *res;
	char line[KB_LINE_MAX];
	unsigned int nr = 0, idx, i;
	enum kb_api api;
	int acct;
	int ret;

	ret = mutex_lock_interruptible(&kb_mutex);
	if (ret)
		return ret;

	kb_text_len = 0;
	kb_text[0] = '\0';

	pr_info("run: iters=%u pid=%d comm=%s\n", n, task_pid_nr(current),
		current->comm);

	for (api = 0; api < KB_NR_APIS; api++) {
		for (idx = 0; idx < KB_NR_SIZES; idx++) {
			for (acct = 1; acct >= 0; acct--) {
				if (!kb_wanted(f, api, idx, acct))
					continue;
				res = &kb_results[nr];
				ret = kb_measure(res, api, acct, idx, n);
				if (ret)
					goto out;
				nr++;
				cond_resched();
			}
		}
	}

out:
	for (i = 0; i < nr; i++) {
		kb_format(&kb_results[i], line, sizeof(line));
		kb_text_append(line);
		pr_info("%s\n", line);
	}

	if (ret) {
		res = &kb_results[nr];
		scnprintf(line, sizeof(line), "api=%s acct=%d size=%u error=%d",
			  kb_api_names[res->api], res->acct, res->size, ret);
		kb_text_append(line);
		pr_err("%s\n", line);
	}

	mutex_unlock(&kb_mutex);
	return ret;
}

#ifdef CONFIG_FAULT_INJECTION
/* A constructor keeps the bulk cache from being merged with another. */
static void kb_bulk_ctor(void *obj)
{
}

static int kb_bulk_fail(unsigned int n)
{
	char line[KB_LINE_MAX];
	struct kmem_cache *s;
	void **p;
	int got;

	p = kvmalloc_array(n, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	s = kmem_cache_create("kmem_bench_bulk", KB_BULK_SIZE, 0, SLAB_ACCOUNT,
			      kb_bulk_ctor);
	if (!s) {
		kvfree(p);
		return -ENOMEM;
	}

	current->make_it_fail = 1;
	got = kmem_cache_alloc_bulk(s, GFP_KERNEL, n, p);
	current->make_it_fail = 0;

	if (got)
		kmem_cache_free_bulk(s, got, p);
	kmem_cache_destroy(s);
	kvfree(p);

	scnprintf(line, sizeof(line), "bulkfail objects=%u size=%u allocated=%d",
		  n, KB_BULK_SIZE, got);
	kb_set_text(line);
	return 0;
}
#else
static int kb_bulk_fail(unsigned int n)
{
	return -EOPNOTSUPP;
}
#endif

/* A constructor keeps the keep cache from being merged with another. */
static void kb_keep_ctor(void *obj)
{
}

/* The cache of "keep", until "destroy"; under kb_keep_mutex. */
static struct kmem_cache *kb_keep_cache;
static DEFINE_MUTEX(kb_keep_mutex);

/* "keep <n>": allocate and free @n objects of a new SLAB_ACCOUNT cache. */
static int kb_keep(unsigned int n)
{
	char line[KB_LINE_MAX];
	unsigned int i;
	void **p;
	int ret = 0;

	p = kvmalloc_array(n, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mutex_lock(&kb_keep_mutex);
	if (kb_keep_cache) {
		ret = -EBUSY;
		goto out;
	}
	kb_keep_cache = kmem_cache_create("kmem_bench_keep", KB_KEEP_SIZE, 0,
					  SLAB_ACCOUNT, kb_keep_ctor);
	if (!kb_keep_cache) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(kb_keep_cache, GFP_KERNEL);
		if (!p[i])
			break;
	}
	n = i;
	for (i = 0; i < n; i++)
		kmem_cache_free(kb_keep_cache, p[i]);
	scnprintf(line, sizeof(line), "keep objects=%u size=%u", n,
		  KB_KEEP_SIZE);
	kb_set_text(line);
out:
	mutex_unlock(&kb_keep_mutex);
	kvfree(p);
	return ret;
}

/* "destroy": kmem_cache_destroy() the cache of "keep". */
static int kb_destroy(void)
{
	mutex_lock(&kb_keep_mutex);
	if (!kb_keep_cache) {
		mutex_unlock(&kb_keep_mutex);
		return -ENOENT;
	}
	kmem_cache_destroy(kb_keep_cache);
	kb_keep_cache = NULL;
	mutex_unlock(&kb_keep_mutex);
	kb_set_text("destroy done");
	return 0;
}

#if defined(CONFIG_KASAN_SW_TAGS) || defined(CONFIG_KASAN_HW_TAGS)
/*
 * kb_misuse_seen - whether @q is an object that @p[0..@got - 1] already
 * holds (under any tag); if so, that entry takes @q, whose tag is the one
 * KASAN gave the object last.
 */
static bool kb_misuse_seen(void **p, unsigned int got, void *q)
{
	unsigned int i;

	for (i = 0; i < got; i++) {
		if (kasan_reset_tag(p[i]) == kasan_reset_tag(q)) {
			p[i] = q;
			return true;
		}
	}
	return false;
}

/*
 * "misuse <n>": a use after free and a double free of an object the cache
 * of "keep" keeps, then @n allocations from that cache (see the top of
 * this file).
 */
static int kb_misuse(unsigned int n)
{
	char line[KB_LINE_MAX];
	unsigned int i, got = 0, twice = 0;
	void **p, *q;
	u8 *obj;
	int ret = 0;

	if (!kasan_enabled())
		return -EOPNOTSUPP;
	p = kvmalloc_array(n, sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mutex_lock(&kb_keep_mutex);
	if (!kb_keep_cache) {
		ret = -ENOENT;
		goto out;
	}
	obj = kmem_cache_alloc(kb_keep_cache, GFP_KERNEL);
	if (!obj) {
		ret = -ENOMEM;
		goto out;
	}
	kmem_cache_free(kb_keep_cache, obj);
	/* The compiler must not know that @obj is freed, nor drop the read. */
	OPTIMIZER_HIDE_VAR(obj);
	pr_info("misuse: a read of a freed object\n");
	(void)READ_ONCE(obj[0]);
	pr_info("misuse: a second free of that object\n");
	kmem_cache_free(kb_keep_cache, obj);
	for (i = 0; i < n; i++) {
		q = kmem_cache_alloc(kb_keep_cache, GFP_KERNEL);
		if (!q)
			break;
		if (kb_misuse_seen(p, got, q))
			twice++;
		else
			p[got++] = q;
	}
	scnprintf(line, sizeof(line), "misuse objects=%u allocated=%u twice=%u",
		  n, i, twice);
	for (i = 0; i < got; i++)
		kmem_cache_free(kb_keep_cache, p[i]);
	kb_set_text(line);
out:
	mutex_unlock(&kb_keep_mutex);
	kvfree(p);
	return ret;
}
#else
static int kb_misuse(unsigned int n)
{
	return -EOPNOTSUPP;
}
#endif

#ifdef kmalloc_nolock
#define KB_NL_SIZE		64U
#define KB_NL_RING		8U
#define KB_NL_BURST		4U
#define KB_NL_PERIOD_NS		(50 * NSEC_PER_USEC)

/* The state of one "nolock" run; under kb_nl_mutex, and the timer's. */
static struct {
	struct hrtimer timer;
	struct mem_cgroup *memcg;
	void *ring[KB_NL_RING];
	unsigned int pos;
	unsigned long fired, allocated, failed;
} kb_nl;
static DEFINE_MUTEX(kb_nl_mutex);

static enum hrtimer_restart kb_nl_fire(struct hrtimer *timer)
{
	struct mem_cgroup *old = set_active_memcg(kb_nl.memcg);
	unsigned int i;

	for (i = 0; i < KB_NL_BURST; i++) {
		void **slot = &kb_nl.ring[kb_nl.pos++ % KB_NL_RING];
		/*
		 * Allocate before the free: the sheaf's last object is then
		 * one the interrupted task freed (charged to its memcg), not
		 * the one this timer just gave back.
		 */
		void *obj = kmalloc_nolock(KB_NL_SIZE, __GFP_ACCOUNT,
					   NUMA_NO_NODE);

		kfree_nolock(*slot);
		*slot = obj;
		if (obj)
			kb_nl.allocated++;
		else
			kb_nl.failed++;
	}
	set_active_memcg(old);
	kb_nl.fired++;
	hrtimer_forward_now(timer, ns_to_ktime(KB_NL_PERIOD_NS));
	return HRTIMER_RESTART;
}

/*
 * "nolock <n> hard|soft": kmalloc_nolock()/kfree_nolock() from a timer of
 * that context on this CPU while this task kmalloc()s and kfree()s @n
 * objects of the same size (see the top of the file).
 */
static int kb_nolock(unsigned int n, bool hard)
{
	enum hrtimer_mode mode = hard ? HRTIMER_MODE_REL_PINNED_HARD :
				 HRTIMER_MODE_REL_PINNED_SOFT;
	struct mem_cgroup *memcg;
	char line[KB_LINE_MAX];
	unsigned int i, done;
	size_t size = KB_NL_SIZE;
	int ret = 0;
	void *p;

	memcg = get_mem_cgroup_from_mm(current->mm);
	if (!memcg || mem_cgroup_is_root(memcg) ||
	    mem_cgroup_is_root(parent_mem_cgroup(memcg))) {
		mem_cgroup_put(memcg);
		return -EINVAL;
	}
	mutex_lock(&kb_nl_mutex);
	memset(kb_nl.ring, 0, sizeof(kb_nl.ring));
	kb_nl.pos = 0;
	kb_nl.fired = 0;
	kb_nl.allocated = 0;
	kb_nl.failed = 0;
	kb_nl.memcg = parent_mem_cgroup(memcg);
	hrtimer_setup(&kb_nl.timer, kb_nl_fire, CLOCK_MONOTONIC, mode);
	/* The timer fires on this CPU: so must the loop run. */
	migrate_disable();
	hrtimer_start(&kb_nl.timer, ns_to_ktime(KB_NL_PERIOD_NS), mode);
	for (i = 0; i < n; i++) {
		OPTIMIZER_HIDE_VAR(size);
		p = kmalloc(size, GFP_KERNEL_ACCOUNT);
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		kfree(p);
		if (i % KB_CHUNK)
			continue;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	done = i;
	hrtimer_cancel(&kb_nl.timer);
	migrate_enable();
	for (i = 0; i < KB_NL_RING; i++)
		kfree_nolock(kb_nl.ring[i]);
	scnprintf(line, sizeof(line),
		  "nolock %s iters=%u fired=%lu allocated=%lu failed=%lu",
		  hard ? "hard" : "soft", done,
		  kb_nl.fired, kb_nl.allocated, kb_nl.failed);
	kb_nl.memcg = NULL;
	mutex_unlock(&kb_nl_mutex);
	mem_cgroup_put(memcg);
	if (!ret)
		kb_set_text(line);
	return ret;
}

/* Parses "<n> hard|soft" of "nolock" and runs it. */
static int kb_nolock_cmd(char *arg)
{
	char *tok = arg ? strsep(&arg, " \t") : NULL;
	unsigned int n;

	if (!tok || kstrtouint(tok, 10, &n) || !kb_iters_valid(n) || !arg)
		return -EINVAL;
	arg = skip_spaces(arg);
	if (!strcmp(arg, "hard"))
		return kb_nolock(n, true);
	if (!strcmp(arg, "soft"))
		return kb_nolock(n, false);
	return -EINVAL;
}
#else
static int kb_nolock_cmd(char *arg)
{
	return -EOPNOTSUPP;
}
#endif

#if KB_OBJCG_PER_NODE
/*
 * "charged <path>": nr_charged_bytes of each node's objcg of the memory
 * cgroup at @path (see the top of the file).
 */
static int kb_charged(char *path)
{
	struct cgroup_subsys_state *css;
	struct obj_cgroup *objcg;
	struct mem_cgroup *memcg;
	char line[KB_LINE_MAX];
	struct cgroup *cgrp;
	size_t len;
	int nid;

	if (!path || !*path || strpbrk(path, " \t"))
		return -EINVAL;
	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	css = cgroup_get_e_css(cgrp, &memory_cgrp_subsys);
	cgroup_put(cgrp);
	if (!css)
		return -ENOENT;
	memcg = mem_cgroup_from_css(css);
	len = scnprintf(line, sizeof(line), "charged %s", path);
	rcu_read_lock();
	for_each_node(nid) {
		objcg = rcu_dereference(memcg->nodeinfo[nid]->objcg);
		if (objcg)
			len += scnprintf(line + len, sizeof(line) - len,
					 " node%d=%d", nid,
					 atomic_read(&objcg->nr_charged_bytes));
	}
	rcu_read_unlock();
	css_put(css);
	kb_set_text(line);
	return 0;
}
#else
static int kb_charged(char *path)
{
	return -EOPNOTSUPP;
}
#endif

/* Parses "<api> <size> <acct>" into @f; -EINVAL unless all three are known. */
static int kb_parse_filter(char *arg, struct kb_filter *f)
{
	char *api = strsep(&arg, " \t");
	char *size = arg ? strsep(&arg, " \t") : NULL;
	unsigned int i, acct;
	int ret;

	if (!size || !arg || strpbrk(arg, " \t"))
		return -EINVAL;
	ret = match_string(kb_api_names, KB_NR_APIS, api);
	if (ret < 0)
		return ret;
	f->api = ret;
	if (kstrtouint(size, 10, &f->size) || kstrtouint(arg, 10, &acct) ||
	    acct > 1)
		return -EINVAL;
	for (i = 0; i < KB_NR_SIZES; i++)
		if (kb_sizes[i] == f->size)
			break;
	if (i == KB_NR_SIZES)
		return -EINVAL;
	f->acct = acct;
	f->one = true;
	return 0;
}

/* Parses the object count of "bulkfail <n>", "keep <n>" or "misuse <n>". */
static int kb_parse_objects(char *arg, unsigned int *n)
{
	if (!arg || kstrtouint(skip_spaces(arg), 10, n) || !*n ||
	    *n > KB_BULK_MAX)
		return -EINVAL;
	return 0;
}

static ssize_t kb_proc_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct kb_filter filter = { .one = false };
	char kbuf[KB_CMD_MAX];
	char *arg, *cmd, *tok;
	unsigned int n;
	int ret;

	if (!count || count >= sizeof(kbuf))
		return -EINVAL;
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	kbuf[count] = '\0';

	arg = strim(kbuf);
	cmd = strsep(&arg, " \t\n");
	if (!strcmp(cmd, "bulkfail")) {
		if (kb_parse_objects(arg, &n))
			return -EINVAL;
		ret = kb_bulk_fail(n);
		return ret ? ret : count;
	}
	if (!strcmp(cmd, "keep")) {
		if (kb_parse_objects(arg, &n))
			return -EINVAL;
		ret = kb_keep(n);
		return ret ? ret : count;
	}
	if (!strcmp(cmd, "misuse")) {
		if (kb_parse_objects(arg, &n))
			return -EINVAL;
		ret = kb_misuse(n);
		return ret ? ret : count;
	}
	if (!strcmp(cmd, "nolock")) {
		ret = kb_nolock_cmd(arg);
		return ret ? ret : count;
	}
	if (!strcmp(cmd, "charged")) {
		ret = kb_charged(arg ? skip_spaces(arg) : NULL);
		return ret ? ret : count;
	}
	if (!strcmp(cmd, "destroy")) {
		if (arg && *skip_spaces(arg))
			return -EINVAL;
		ret = kb_destroy();
		return ret ? ret : count;
	}
	if (strcmp(cmd, "run"))
		return -EINVAL;

	arg = skip_spaces(arg ? arg : "");
	if (*arg) {
		tok = strsep(&arg, " \t");
		if (kstrtouint(tok, 10, &n))
			return -EINVAL;
		if (arg && kb_parse_filter(skip_spaces(arg), &filter))
			return -EINVAL;
	} else {
		kernel_param_lock(THIS_MODULE);
		n = iters;
		kernel_param_unlock(THIS_MODULE);
	}

	if (!kb_iters_valid(n))
		return -EINVAL;

	ret = kb_run(n, &filter);
	if (ret)
		return ret;

	return count;
}

static int kb_proc_show(struct seq_file *m, void *v)
{
	int ret;

	ret = mutex_lock_interruptible(&kb_mutex);
	if (ret)
		return ret;

	seq_write(m, kb_text, kb_text_len);

	mutex_unlock(&kb_mutex);
	return 0;
}

static int kb_proc_open(struct inode *inode, struct file *file)
{
	return single_open(file, kb_proc_show, NULL);
}

static const struct proc_ops kb_proc_ops = {
	.proc_open	= kb_proc_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_write	= kb_proc_write,
};

static void kb_destroy_caches(void)
{
	unsigned int acct, idx;

	for (acct = 0; acct < 2; acct++) {
		for (idx = 0; idx < KB_NR_SIZES; idx++) {
			kmem_cache_destroy(kb_caches[acct][idx]);
			kb_caches[acct][idx] = NULL;
		}
	}
}

static int kb_create_caches(void)
{
	char name[32];
	unsigned int acct, idx;

	for (acct = 0; acct < 2; acct++) {
		for (idx = 0; idx < KB_NR_SIZES; idx++) {
			/* The slab core copies the name. */
			snprintf(name, sizeof(name), "kmem_bench_%s_%u",
				 acct ? "acct" : "plain", kb_sizes[idx]);
			kb_caches[acct][idx] =
				kmem_cache_create(name, kb_sizes[idx], 0,
						  acct ? SLAB_ACCOUNT : 0,
						  NULL);
			if (!kb_caches[acct][idx]) {
				pr_err("cannot create cache %s\n", name);
				kb_destroy_caches();
				return -ENOMEM;
			}
		}
	}

	return 0;
}

static int __init kb_init(void)
{
	int ret;

	ret = kb_create_caches();
	if (ret)
		return ret;

	if (!proc_create(KB_PROC_NAME, 0644, NULL, &kb_proc_ops)) {
		pr_err("cannot create /proc/%s\n", KB_PROC_NAME);
		kb_destroy_caches();
		return -ENOMEM;
	}

	pr_info("loaded; write \"run [iters [api size acct]]\" to /proc/%s\n",
		KB_PROC_NAME);
	return 0;
}

static void __exit kb_exit(void)
{
	/* Waits for in-flight readers and writers (i.e. runs) to finish. */
	remove_proc_entry(KB_PROC_NAME, NULL);
	kmem_cache_destroy(kb_keep_cache);
	kb_destroy_caches();
}

module_init(kb_init);
module_exit(kb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Microbenchmark for memcg-accounted slab allocations");
