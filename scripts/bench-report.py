#!/usr/bin/env python3
"""Turn the per-boot benchmark results of scripts/run-bench.sh into the
side-by-side report: report.md, report.json and overhead.png.

Input, in DIR: KERNEL-MODE.json (mq-bench JSON lines), KERNEL-MODE.txt
(kmem_bench lines) and KERNEL-MODE.workloads.json (stress-ng workloads:
guest ns per bogo op, or an error), with KERNEL-MODE.workloads.I.json from
boots 2..N of --boots N, and KERNEL-MODE.I.json and .I.txt of the
microbenchmarks' boots 2..N. Means are exact (sum / n); a figure booted
more than once has its mean over the boots and its spread, half the range
over the mean. The rows, their order and legends come from the
benchmark's parts (tests/bench-parts.conf), what each mode means and
charges from tests/modes.conf."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys


TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests")
ERRORS = []
# SPREAD[kernel][mode][key]: half the range of a workload's figure over the
# boots, in % of its mean; absent where it was booted once.
SPREAD = {}


def json_lines(path):
    """The JSON objects of a file, one a line; other lines are skipped."""
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                yield json.loads(line)


def workload_files(d, kernel, mode):
    """(path, console log name) of each boot's workloads, boot 1 first."""
    first = os.path.join(d, f"{kernel}-{mode}.workloads.json")
    rest = glob.glob(os.path.join(d, f"{kernel}-{mode}.workloads.*.json"))
    rest.sort(key=lambda p: int(p.rsplit(".", 2)[-2]))
    return [(p, os.path.basename(p).replace(".workloads", "-workloads")
             .replace(".json", ".log")) for p in [first] + rest if os.path.exists(p)]


def bench_boot(json_path, txt_path):
    """The microbenchmark figures of one boot: mq-bench and lock-bench
    JSON lines, kmem_bench lines."""
    m = {}
    own = {}
    for r in json_lines(json_path):
        mean = r["sum"] / r["n"]
        label = r.get("label", "")
        if r.get("bench") == "lock":
            # lock-bench (the lock_bench parts of tests/bench-parts.conf):
            # one process, lock_CASE; one per CPU, CASE_own and CASE_all as
            # the mq pairs'. Its syscall floor and clock lines repeat
            # mq-bench's.
            if r["op"] in ("getppid", "clock"):
                continue
            case = label.split("-", 1)[1] if label.startswith("locks-") else label
            if not label.startswith("smp-"):
                m["lock_" + case] = mean
            elif r["op"].endswith("_all"):
                m[label + "_all"] = mean
            else:
                own.setdefault(label, {})[r.get("worker", 0)] = r["tsum"] / r["tn"]
            continue
        if label.startswith("smp-"):
            if r["op"] in ("mq_send", "mq_receive"):
                # One worker's calls during which no other vCPU ran.
                own.setdefault(label, {}).setdefault(r.get("worker", 0), 0.0)
                own[label][r.get("worker", 0)] += r["tsum"] / r["tn"]
            elif r["op"] == "pair_all":
                m[label + "_all"] = mean
            else:
                m[label] = mean
        elif r["mode"] == "pair":
            m[r["op"]] = mean
        else:
            m["pingpong_" + ("cross" if r["cross_cgroup"] else "same")] = mean
    for label, workers in own.items():
        m[label + "_own"] = sum(workers.values()) / len(workers)
    if "mq_send" in m and "mq_receive" in m:
        m["mq_pair"] = m["mq_send"] + m["mq_receive"]
    if os.path.exists(txt_path):
        with open(txt_path) as f:
            for line in f:
                kv = dict(re.findall(r"(\w+)=(\S+)", line))
                if "api" in kv:
                    acct = "acct" if kv["acct"] == "1" else "plain"
                    key = f"kmem_{kv['api']}_{acct}_{kv['size']}"
                    m[key] = int(kv["total_ns"]) / int(kv["iters"])
    return m


def load(d, kernel, mode):
    m = {}
    runs = {}
    for path, log in workload_files(d, kernel, mode):
        for r in json_lines(path):
            if "error" in r:
                ERRORS.append(f"{kernel} {mode} {r['workload']}: {r['error']} "
                              f"(console log: {log})")
            else:
                runs.setdefault("wl_" + r["workload"], []).append(r["ns_per_op"])
                if "ctxt_per_kop" in r:
                    runs.setdefault("wlctxt_" + r["workload"], []).append(r["ctxt_per_kop"])
    # Microbenchmarks: KERNEL-MODE.json, and KERNEL-MODE.I.json from boots
    # 2..N where run-bench.sh booted them N times (--boots).
    boots = [bench_boot(os.path.join(d, f"{kernel}-{mode}.json"),
                        os.path.join(d, f"{kernel}-{mode}.txt"))]
    i = 2
    while os.path.exists(os.path.join(d, f"{kernel}-{mode}.{i}.json")):
        boots.append(bench_boot(os.path.join(d, f"{kernel}-{mode}.{i}.json"),
                                os.path.join(d, f"{kernel}-{mode}.{i}.txt")))
        i += 1
    for key in boots[0]:
        runs[key] = [b[key] for b in boots if key in b]
    for key, vals in runs.items():
        m[key] = sum(vals) / len(vals)
        if len(vals) > 1 and m[key]:
            SPREAD.setdefault(kernel, {}).setdefault(mode, {})[key] = \
                (max(vals) - min(vals)) / 2 / m[key] * 100
    return m


def cpu_line(d, kernels, modes):
    """What the guest saw of its CPU: model and the kernel's mitigations
    (vulnerabilities/*), from the first boot that reported them."""
    for k in kernels:
        for m in modes:
            path = os.path.join(d, f"{k}-{m}.cpu")
            if os.path.exists(path) and os.path.getsize(path):
                with open(path) as f:
                    lines = [line.strip() for line in f if line.strip()]
                return (f"Guest CPU ({k}, {m}): {lines[0]}; mitigations: "
                        + "; ".join(lines[1:]) + ".")
    return ""


def spread(kernel, mode, key, exact):
    """The spread column: a figure's spread over its boots, '±?' for a
    figure booted once that moves with the boot (workloads; everything on
    several vCPUs, whose turns move), 0 for a microbenchmark when the
    method is exact (icount on one vCPU), '±?' under KVM."""
    v = SPREAD.get(kernel, {}).get(mode, {}).get(key)
    if v is not None:
        return f"±{v:.1f}%"
    return "±?" if key.startswith("wl") or not exact else "±0.0%"


def pct(a, b):
    if a is None or b is None or a == 0:
        return "      -"
    return f"{(b - a) / a * 100:+7.1f}%"


def num(x):
    return "        -" if x is None else f"{x:9.1f}"


# What each config set of run-bench.sh --config builds: the "what it is"
# column of config-fragments/sets.conf (every set starts from tinyconfig +
# qemu-x86_64 and the base's base-<base>.config, where there is one).
def config_sets():
    """config-fragments/sets.conf's last column, by set name."""
    path = os.path.join(TESTS, "..", "config-fragments", "sets.conf")
    with open(path, encoding="utf-8") as f:
        rows = [line.split(None, 3) for line in f
                if line.strip() and not line.startswith("#")]
    return {r[0]: r[3].strip() for r in rows if len(r) == 4}


# The workloads' rows (wl_*, then wlctxt_*) among the parts' (a place of
# tests/bench-parts.conf no part has), and their legend.
WORKLOADS_PLACE = 5
WORKLOADS_LEGEND = "wlctxt_*: context switches per 1000 bogo ops, from /proc/stat, not ns"


def read_table(name):
    """The rows of tests/NAME, each a dict by column name: the comment line
    right before the first row names the columns (two spaces or more
    between names), a row's fields are separated by white space and the
    last column takes the rest of the line (as scripts/table-md.py reads
    them)."""
    with open(os.path.join(TESTS, name), encoding="utf-8") as f:
        lines = f.read().splitlines()
    columns, rows = None, []
    for i, line in enumerate(lines):
        if not line.strip() or line.startswith("#"):
            continue
        if columns is None:
            columns = re.split(r"\s{2,}", lines[i - 1].lstrip("#").strip())
        rows.append(dict(zip(columns, line.split(None, len(columns) - 1))))
    return rows


def modes_conf():
    """tests/modes.conf: each mode's row by mode name."""
    return {r["mode"]: r for r in read_table("modes.conf")}


def mode_roles(conf):
    """The modes that have a role in the report, from what tests/modes.conf
    says they charge: the reference of the overhead tables (nothing
    charged), the mode of the sanity lines (a child cgroup, everything
    charged) and the workloads chart's modes (that one, and the modes of
    every base that charge all but slab)."""
    def which(**want):
        return [m for m, r in conf.items() if all(r[k] == v for k, v in want.items())]
    reference = which(slab="no", kmem="no")[0]
    sanity = which(cgroup="child", slab="yes", kmem="yes")[0]
    charted = [sanity] + which(cgroup="child", slab="no", kmem="yes", bases="all")
    return reference, sanity, charted


REFERENCE, SANITY, CHARTED = mode_roles(modes_conf())


def bench_parts():
    """tests/bench-parts.conf: one dict per part, in the order the guest
    runs them: name, cpus, place, section, rows and cases (lists) and
    legend ('' for none)."""
    return [{"name": r["part"], "cpus": int(r["cpus"]), "place": int(r["place"]),
             "section": r["section"], "rows": r["rows"].split(","),
             "cases": [] if r["cases"] == "-" else r["cases"].split(","),
             "legend": "" if r["legend"] == "-" else r["legend"]}
            for r in read_table("bench-parts.conf")]


class Layout:
    """Where the rows of the report go, from the parts' rows in the order of
    their places, the workloads' at WORKLOADS_PLACE: a row NAME/1 is in the
    per-mode tables only, NAME/2 in the accounting overhead too, NAME in
    each kernel's overhead change as well."""

    def __init__(self, parts, workloads):
        self.parts = sorted(parts, key=lambda p: p["place"])
        self.workloads = workloads
        by_name = {p["name"]: p for p in parts}
        # Each part's rows: (row, level, named outright), PREFIX* rows as
        # they are.
        self.rows = {}
        self.rank = {}
        self.prefixes = []
        for p in self.parts:
            cases = p["cases"]
            if len(cases) == 1 and cases[0] in by_name:
                cases = by_name[cases[0]]["cases"]
            specs = []
            for spec in p["rows"]:
                name, _, level = spec.partition("/")
                specs.append((name, int(level or 3)))
            rows = [(n, lv, True) for n, lv in specs if "CASE" not in n]
            rows += [(n.replace("CASE", c.replace(":", "")), lv, False)
                     for c in cases for n, lv in specs if "CASE" in n]
            self.rows[p["name"]] = rows
            for i, (row, _, _) in enumerate(rows):
                if row.endswith("*"):
                    self.prefixes.append((row[:-1], (p["place"], i)))
                else:
                    self.rank[row] = (p["place"], i, 0)
        # A row the table does not name (a program's line the parser makes
        # a row of, e.g. the clock line of a one-process storm run: its
        # label, smp-storm) goes at the end of its part's section, by name:
        # the place of the section's last part, then the name. Its part is
        # the one whose name, or the label of one of whose rows (the row up
        # to its last '_'), it is or begins (then '_').
        last = {}
        for p in self.parts:
            last[p["section"]] = p["place"]
        self.labels = []
        for p in self.parts:
            labels = {p["name"]} | {r.rsplit("_", 1)[0] for r, _, _ in self.rows[p["name"]]
                                    if "_" in r and not r.endswith("*")}
            self.labels += [(label, last[p["section"]]) for label in labels]
        self.labels.sort(key=lambda x: -len(x[0]))

    def key(self, k):
        """The sort key of a row: its place, its place among the part's
        rows, then (PREFIX* rows) its name and number; rows the table does
        not name at the end of their part's section, or last."""
        if k in self.rank:
            return self.rank[k]
        for prefix, pos in self.prefixes:
            if k.startswith(prefix):
                stem, n = k.rsplit("_", 1)
                return pos + ((stem, int(n)),)
        for i, prefix in enumerate(("wl_", "wlctxt_")):
            if k.startswith(prefix):
                w = k[len(prefix):]
                return (WORKLOADS_PLACE, i, self.workloads.index(w) if w in self.workloads else 99)
        for label, place in self.labels:
            if k == label or k.startswith(label + "_"):
                return (place, float("inf"), k)
        return (float("inf"), 0, k)

    def overhead(self, have):
        """(row, level) of the accounting overhead table, in order: the rows
        of level 2 and 3 that `have` has (the first kernel's figures in the
        reference mode), those named outright of the parts every guest runs
        (cpus 1) even where it has not, and every workload's."""
        out = []
        places = [(p["place"], p) for p in self.parts] + [(WORKLOADS_PLACE, None)]
        for _, p in sorted(places, key=lambda x: x[0]):
            if p is None:
                out += [(f"wl_{w}", 3) for w in self.workloads]
                continue
            for row, level, named in self.rows[p["name"]]:
                if level < 2:
                    continue
                if row.endswith("*"):
                    out += [(k, level) for k in sorted(
                        (k for k in have if k.startswith(row[:-1])), key=self.key)]
                elif row in have or (named and p["cpus"] == 1):
                    out.append((row, level))
        return out

    def legends(self, section):
        """The legends of the parts whose legend is in `section`, in the
        order of their places; the workloads' with the figures."""
        places = [(p["place"], p["legend"]) for p in self.parts
                  if p["section"] == section and p["legend"]]
        if section == "figures":
            places.append((WORKLOADS_PLACE, WORKLOADS_LEGEND))
        return [legend for _, legend in sorted(places, key=lambda x: x[0])]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--method", required=True)
    ap.add_argument("--base-desc", default="")
    ap.add_argument("--kernels", default="base,patched")
    ap.add_argument("--modes", required=True)
    ap.add_argument("--workloads", default="")
    ap.add_argument("--stress-ng", default="")
    ap.add_argument("--boots", type=int, default=1)
    ap.add_argument("--cpus", type=int, default=1)
    ap.add_argument("--config", default="")
    return ap.parse_args()


def notes(a, kernels, modes, layout):
    """The report's first lines: method, guest, modes, what the figures
    are, the workloads and SMP rows, the guest's CPU, what failed."""
    out = [f"Method: {a.method}."]
    if a.config:
        config = (f"config set {a.config} "
                  f"({config_sets().get(a.config.split()[0], 'config-fragments/')})")
    else:
        config = "the config set of run-bench.sh --config (not given to bench-report.py)"
    out.append(f"Base: {a.base_desc}. Guest: {a.cpus} vCPU(s), 512 MiB, {config}; "
               "mq-bench 256-byte messages, depth 10.")
    conf = modes_conf()
    out.append("Modes (tests/modes.conf): "
               + "; ".join(f"{m} = {conf[m]['what it means'] if m in conf else '?'}"
                           for m in modes) + ".")
    out.append("Figures: mean guest ns per call ("
               + "; ".join(layout.legends("figures")) + ").")
    if layout.workloads:
        out.append(f"Workloads (wl_*): {a.stress_ng}, one instance, a fixed number "
                   "of bogo ops (tests/workloads.conf), started in the mode's cgroup "
                   f"in a guest of its own ({a.cpus} vCPU(s), 1 GiB, the same config set); "
                   "guest ns per bogo op from stress-ng's real-time rate.")
        if a.boots > 1:
            out.append(f"Workloads: mean over {a.boots} boots of each kernel and mode, "
                       "boot i with harness.salt=i on the command line (boot 1 without); "
                       "the column after each figure is its spread, half the range "
                       "over the boots in % of the mean.")
        else:
            out.append("Workloads: one boot each; their spread over boots is not "
                       "measured here ('?'): use --boots N.")
    if a.boots > 1:
        out.append(f"Microbenchmark rows: mean over {a.boots} boots of each kernel and "
                   "mode, boot i with harness.salt=i (boot 1 without); spread as the "
                   "workloads' (on one vCPU most rows repeat exactly; the ping-pongs, "
                   "unix sockets and failed open() move with the boot, as every row "
                   "does on several vCPUs).")
    if a.cpus > 1:
        out.append(f"SMP rows (smp-*, {a.cpus} vCPUs): " + "; ".join(layout.legends("smp"))
                   + ". *_all: the whole timed "
                   "window over all pairs, and stream and ping-pong figures: per message "
                   "or round trip, all vCPUs' instructions together (under icount the "
                   "vCPUs run in turn and guest time counts every vCPU's instructions). "
                   "*_own: the mean over the processes of a pair's calls during which "
                   "no other vCPU ran (calls under 1 ms): what a pair costs its own CPU.")
    cpu = cpu_line(a.dir, kernels, modes)
    if cpu:
        out.append(cpu)
    for e in ERRORS:
        out.append(f"FAILED: {e}")
    out.append("")
    return out


def mode_tables(data, kernels, modes, exact, layout):
    """Side by side, one table a mode: the first kernel (the base), then
    each other kernel with its change against the first."""
    out = []
    b, others = kernels[0], kernels[1:]
    for m in modes:
        out.append(f"### mode={m}")
        out.append("```")
        if others:
            out.append(f"{b:>12} {'':>8}"
                       + "".join(f" {'%change':>8} {k:>12} {'':>8}" for k in others)
                       + "  metric")
        keys = sorted(set().union(*[data[k][m].keys() for k in kernels]), key=layout.key)
        for key in keys:
            x = data[b][m].get(key)
            row = f"{num(x):>12} {spread(b, m, key, exact):>8}" if others else f"{num(x):>12}"
            for k in others:
                y = data[k][m].get(key)
                row += f" {pct(x, y):>8} {num(y):>12} {spread(k, m, key, exact):>8}"
            out.append(f"{row}  {key}")
        out.append("```")
        out.append("")
    return out


def overhead_table(data, kernels, modes, rows):
    """Accounting overhead: each mode minus the reference mode, same
    kernel. Returns the lines and the overheads by kernel, mode and row."""
    out = [f"### accounting overhead (mode - {REFERENCE}, guest ns)", "```"]
    out.append(f"{'metric':<28}" + "".join(f"{k + ' ' + m:>18}" for m in modes
                                          if m != REFERENCE for k in kernels))
    derived = {}
    for key, _ in rows:
        row = f"{key:<28}"
        for m in modes:
            if m == REFERENCE:
                continue
            for k in kernels:
                v, n = data[k][m].get(key), data[k][REFERENCE].get(key)
                d = None if v is None or n is None else v - n
                derived.setdefault(k, {}).setdefault(m, {})[key] = d
                row += f"{num(d):>18}"
        out.append(row)
    out.append("```")
    out.append("")
    return out, derived


def overhead_changes(derived, kernels, modes, rows):
    """Each other kernel's overhead against the first kernel's, on the rows
    of level 3."""
    out = []
    b = kernels[0]
    for k in kernels[1:]:
        out.append(f"### overhead change {b} -> {k}")
        out.append("```")
        for m in modes:
            if m == REFERENCE:
                continue
            for key in [key for key, level in rows if level == 3]:
                x = derived[b][m].get(key)
                y = derived[k][m].get(key)
                out.append(f"{m:<8} {key:<16} {num(x)} -> {num(y)}  ({pct(x, y).strip()})")
        out.append("```")
        out.append("")
    return out


def sanity_lines(data, derived, kernels):
    """Sanity figures against the reference guest: the mq calls of mode
    SANITY over the reference mode, and the cross-cgroup ping-pong's
    overhead over the same-cgroup one."""
    out = []
    where = modes_conf()[SANITY]["cgroup"]
    for k in kernels:
        d, n = data[k].get(SANITY), data[k].get(REFERENCE)
        if d and n and "mq_send" in d:
            same = derived[k][SANITY].get("pingpong_same")
            cross = derived[k][SANITY].get("pingpong_cross")
            ratio = f"{cross / same:.2f}x" if same and cross and same > 0 else "-"
            out.append(f"- {k}: {where}-cgroup mq_send "
                       f"{pct(n['mq_send'], d['mq_send']).strip()}, "
                       f"mq_receive {pct(n['mq_receive'], d['mq_receive']).strip()} "
                       f"over {REFERENCE}; cross-cgroup ping-pong overhead = {ratio} "
                       "the same-cgroup overhead.")
    out.append("")
    return out


def kept_objects(d, kernels, modes):
    """Kept objects (7.2 series, kernels with SLUB_STATS: --config test):
    per message of a part, how many allocations came from a slot of
    objects kept charged (alloc_charged), how many frees were kept
    (free_charged), and the objects drains flushed (charged_flush).
    Returns the lines and the counters by (kernel, mode) and part."""
    hits = {}
    for k in kernels:
        for m in modes:
            p = os.path.join(d, f"{k}-{m}.hits")
            hits[(k, m)] = ({r["label"]: r for r in json_lines(p)}
                            if os.path.exists(p) else {})
    if not any(hits.values()):
        return [], hits
    out = ["### objects kept charged (SLUB_STATS), per message of the part "
           "(pair, stream: messages; ping-pong: 2 a round trip; smp-pairs, storm: "
           "all processes' messages): allocations a kept object served "
           "(alloc_charged), frees kept (free_charged), and the number of kept "
           "objects drains flushed (charged_flush); every accounted allocation "
           "of the window counts, not only the messages", "```"]
    cols = [(k, m) for m in modes for k in kernels if hits[(k, m)]]
    out.append(f"{'part':<20}" + "".join(f"{k + ' ' + m:>24}" for k, m in cols))
    labels = []
    for c in cols:
        labels += [label for label in hits[c] if label not in labels]
    for label in labels:
        row = f"{label:<20}"
        for c in cols:
            r = hits[c].get(label)
            if not r or not r["calls"]:
                cell = "-"
            else:
                cell = (f"{r['alloc_charged'] / r['calls']:.2f} "
                        f"{r['free_charged'] / r['calls']:.2f} {r['charged_flush']}")
            row += f"{cell:>24}"
        out.append(row)
    out.append("```")
    out.append("")
    return out, hits


def charts(d, kernels, modes, derived, workloads, icount):
    """Accounting overhead per mode and kernel (mq pair), and per workload.
    Every bar carries its value, so a zero reads as measured."""
    if not derived:
        return
    rows = [(m, [derived[k][m].get("mq_pair") for k in kernels])
            for m in modes if m != REFERENCE]
    unit = "guest ns (icount: instructions)" if icount else "guest ns (KVM: wall clock)"
    chart(os.path.join(d, "overhead"), kernels, rows,
          f"mq\\_send + mq\\_receive accounting overhead vs {REFERENCE} (guest ns)", unit)
    cols = [(k, m) for m in CHARTED if m in modes for k in kernels]
    if workloads and cols:
        rows = [(w, [derived[k][m].get(f"wl_{w}") for k, m in cols]) for w in workloads]
        chart(os.path.join(d, "workloads"), [f"{k} {m}" for k, m in cols], rows,
              f"stress-ng: accounting overhead vs {REFERENCE} (guest ns per bogo op)",
              "guest ns per bogo op " + unit[len("guest ns "):])


def main():
    a = parse_args()
    workloads = [w for w in a.workloads.split(",") if w]
    layout = Layout(bench_parts(), workloads)
    icount = "icount" in a.method
    exact = icount and a.cpus == 1
    kernels = a.kernels.split(",")
    modes = a.modes.split(",")
    data = {k: {m: load(a.dir, k, m) for m in modes} for k in kernels}

    out = notes(a, kernels, modes, layout)
    out += mode_tables(data, kernels, modes, exact, layout)
    derived = {}
    if REFERENCE in modes:
        rows = layout.overhead(data[kernels[0]][REFERENCE])
        lines, derived = overhead_table(data, kernels, modes, rows)
        out += lines
        out += overhead_changes(derived, kernels, modes, rows)
        out += sanity_lines(data, derived, kernels)
    lines, hits = kept_objects(a.dir, kernels, modes)
    out += lines

    with open(os.path.join(a.dir, "report.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    with open(os.path.join(a.dir, "report.json"), "w") as f:
        json.dump({"method": a.method, "base": a.base_desc, "results": data,
                   "kept_hits": {f"{k} {m}": v for (k, m), v in hits.items() if v},
                   f"overhead_vs_{REFERENCE}": derived, "errors": ERRORS,
                   "boots": a.boots, "spread_pct": SPREAD},
                  f, indent=1, sort_keys=True)
    charts(a.dir, kernels, modes, derived, workloads, icount)


def chart(stem, names, rows, title, ylabel):
    """Clustered bars, one cluster per row, one bar per name, each bar
    labelled with its value ('n/a' where there is none)."""
    dat = stem + ".dat"
    with open(dat, "w") as f:
        f.write("row " + " ".join(n.replace(" ", "_") for n in names) + "\n")
        for label, vals in rows:
            f.write(label + " "
                    + " ".join("NaN" if v is None else f"{v:.1f}" for v in vals) + "\n")
    n = len(names)
    # The value labels, one per bar, at the bar's centre and top.
    lab = stem + ".labels"
    with open(lab, "w") as f:
        f.write("x y label\n")
        for r, (_, vals) in enumerate(rows):
            for i, v in enumerate(vals):
                x = r + (i - n / 2.0 + 0.5) / (n + 1.0)
                text = "n/a" if v is None else f"{v:.0f}"
                f.write(f"{x:.4f} {0 if v is None else v:.1f} \"{text}\"\n")
    plots = [f"'{dat}' using {i + 2}:xtic(1) title '{name}'" for i, name in enumerate(names)]
    plots.append(f"'{lab}' using 1:2:3 with labels offset 0,0.6 font ',8' notitle")
    script = f"""set terminal pngcairo size 1000,520
set output '{stem}.png'
set title '{title}'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top right
set key autotitle columnhead
set xrange [-0.6:{len(rows) - 0.4}]
set yrange [*:*]
set xzeroaxis
set offsets 0, 0, graph 0.08, 0
set ylabel '{ylabel}'
plot {", ".join(plots)}
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"warning: no chart {stem}.png: {e}", file=sys.stderr)


if __name__ == "__main__":
    main()
