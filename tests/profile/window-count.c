// SPDX-License-Identifier: GPL-2.0
/*
 * QEMU TCG plugin: count the guest instructions each translation block
 * executes between two executions of a marker address, for
 * scripts/profile-workload.sh.
 *
 * Arguments: start=HEXADDR (the marker: a kernel function's entry, where
 * translation blocks start), skip=N (executions of the marker before the
 * window opens), k=K (marker executions inside the window), out=FILE.
 * The window runs from the (N+1)-th execution of the marker to the
 * (N+K+1)-th. With arm=HEXADDR, executions of the marker count only once
 * that address has run (e.g. the entry of the write that starts a
 * benchmark): the window then lies in what follows it.
 * FILE gets "# total INSNS hits H window W" (H: executions of the marker
 * in all, skipped ones included; W: the marker calls in the window, K
 * unless the guest stopped first) and then one line "BLOCKADDR COUNT
 * EXECS" per block that ran in the window: the instructions it ran and how
 * often it ran (for a block at a function's entry: the calls of that
 * function). A block that an interrupt or exception leaves early is still
 * counted in full.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count;
	uint64_t execs;
};

static GHashTable *blocks;
static uint64_t start, arm, skip, k, hits, total;
static int armed, active, done;
static char *out;

static void dump(void)
{
	FILE *f = fopen(out, "w");
	GHashTableIter it;
	gpointer key, val;

	if (!f) {
		fprintf(stderr, "window-count: cannot write %s\n", out);
		return;
	}
	fprintf(f, "# total %" PRIu64 " hits %" PRIu64 " window %" PRIu64 "\n",
		total, hits, hits > skip ? hits - skip - done : 0);
	g_hash_table_iter_init(&it, blocks);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		struct block *b = val;

		if (b->count)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->vaddr, b->count, b->execs);
	}
	fclose(f);
}

static void block_exec(unsigned int cpu, void *udata)
{
	struct block *b = udata;

	(void)cpu;
	if (done)
		return;
	if (!armed) {
		if (b->vaddr != arm)
			return;
		armed = 1;
	}
	if (b->vaddr == start) {
		hits++;
		if (hits == skip + 1)
			active = 1;
		if (hits == skip + k + 1) {
			active = 0;
			done = 1;
			dump();
			return;
		}
	}
	if (active) {
		b->count += b->insns;
		b->execs++;
		total += b->insns;
	}
}

static void block_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	uint64_t n = qemu_plugin_tb_n_insns(tb);
	/* Blocks of one start address but different lengths: one record each. */
	uint64_t key = pc ^ (n << 56);
	struct block *b = g_hash_table_lookup(blocks, (gconstpointer)key);

	(void)id;
	if (!b) {
		b = g_new0(struct block, 1);
		b->vaddr = pc;
		b->insns = n;
		g_hash_table_insert(blocks, (gpointer)key, b);
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_exec, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	/* The window never closed: say how far it got. */
	if (!done)
		dump();
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		char *v = strchr(argv[i], '=');

		if (!v) {
			fprintf(stderr, "window-count: argument %s is not NAME=VALUE\n", argv[i]);
			return -1;
		}
		*v++ = 0;
		if (!strcmp(argv[i], "start"))
			start = strtoull(v, NULL, 16);
		else if (!strcmp(argv[i], "arm"))
			arm = strtoull(v, NULL, 16);
		else if (!strcmp(argv[i], "skip"))
			skip = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "k"))
			k = strtoull(v, NULL, 0);
		else if (!strcmp(argv[i], "out"))
			out = g_strdup(v);
		else {
			fprintf(stderr, "window-count: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!start || !k || !out) {
		fprintf(stderr, "window-count: needs start=, k= and out=\n");
		return -1;
	}
	armed = !arm;
	blocks = g_hash_table_new(NULL, NULL);
	qemu_plugin_register_vcpu_tb_trans_cb(id, block_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
