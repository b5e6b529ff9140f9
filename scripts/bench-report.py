#!/usr/bin/env python3
"""Turn the per-boot benchmark results of scripts/run-bench.sh into the
side-by-side report: report.md, report.json and overhead.png.

Input, in DIR: KERNEL-MODE.json (mq-bench JSON lines), KERNEL-MODE.txt
(kmem_bench lines) and KERNEL-MODE.workloads.json (stress-ng workloads:
guest ns per bogo op, or an error), with KERNEL-MODE.workloads.I.json from
boots 2..N of --boots N. Means are exact (sum / n); a workload booted more
than once has its mean over the boots and its spread, half the range over
the mean."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys


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
    for key, vals in runs.items():
        m[key] = sum(vals) / len(vals)
        if len(vals) > 1 and m[key]:
            SPREAD.setdefault(kernel, {}).setdefault(mode, {})[key] = \
                (max(vals) - min(vals)) / 2 / m[key] * 100
    own = {}
    for r in json_lines(os.path.join(d, f"{kernel}-{mode}.json")):
        mean = r["sum"] / r["n"]
        label = r.get("label", "")
        if r.get("bench") == "lock":
            # lock-bench (job-bench.sh's locks and smp-locks parts): one
            # process, lock_CASE; one per CPU, CASE_own and CASE_all as the
            # mq pairs'. Its syscall floor and clock lines repeat mq-bench's.
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
    path = os.path.join(d, f"{kernel}-{mode}.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                kv = dict(re.findall(r"(\w+)=(\S+)", line))
                if "api" in kv:
                    key = f"kmem_{kv['api']}_{'acct' if kv['acct'] == '1' else 'plain'}_{kv['size']}"
                    m[key] = int(kv["total_ns"]) / int(kv["iters"])
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
    """The spread column: a workload's spread over its boots, '±?' for a
    workload booted once, 0 for a microbenchmark when the method is exact
    (icount), '±?' under KVM."""
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


# What each config set of run-bench.sh --config builds (scripts/lib.sh,
# configset_fragments; every set starts from tinyconfig + qemu-x86_64 and
# the base's base-<base>.config, where there is one).
CONFIG_SETS = {
    "bench": "tinyconfig + memcg, selftests and the base's BASE_BENCH_FRAGMENTS "
             "(kmalloc buckets on 7.2 and 6.12)",
    "test": "tinyconfig + memcg, selftests, slubstats: the test kernels, which "
            "run-bench.sh --config bench builds on a base without BASE_BENCH_FRAGMENTS",
    "vmemmap": "tinyconfig + memcg, selftests, vmemmap: CONFIG_SPARSEMEM_VMEMMAP",
    "distro": "tinyconfig + memcg, selftests and distro-<base>.config: Debian's values "
              "of every option on the accounted path",
}
WORKLOADS = []
ORDER = ["mq_send", "mq_receive", "mq_pair", "getppid", "clock",
         "pingpong_same", "pingpong_cross"]
# lock-bench's cases (job-bench.sh's locks part; smp-locks-CASE_own/_all
# with one process per CPU).
LOCKS = ["lock1", "flock", "poll", "select", "select512", "dgram", "dgram1000",
         "stream", "stream1000", "socket", "openfail"]
# The SMP parts (--cpus N): tests/guest/job-bench.sh.
SMP = ["smp-pairs_all", "smp-pairs_own", "smp-nostorm_all", "smp-nostorm_own",
       "smp-storm_own", "smp-storm_all", "smp-stream-1cpu", "smp-stream-2cpu",
       "smp-pingpong-2cpu"]


def order_key(k):
    if k in ORDER:
        return (0, ORDER.index(k), 0)
    if k.startswith("lock_"):
        return (5, LOCKS.index(k[5:]) if k[5:] in LOCKS else 99, k)
    if k.startswith("smp-locks-"):
        case = k[len("smp-locks-"):].rsplit("_", 1)[0]
        return (6, LOCKS.index(case) if case in LOCKS else 99, k)
    if k.startswith("smp-"):
        return (4, SMP.index(k) if k in SMP else 99, k)
    if k.startswith("wl_"):
        return (2, WORKLOADS.index(k[3:]) if k[3:] in WORKLOADS else 99, 0)
    if k.startswith("wlctxt_"):
        return (3, WORKLOADS.index(k[7:]) if k[7:] in WORKLOADS else 99, 0)
    parts = k.split("_")
    return (1, "_".join(parts[:-1]), int(parts[-1]))


def mode_meanings():
    """Each mode's "what it means" column of modes.conf, by mode name."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "modes.conf")
    meaning = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split(None, 4)
            if len(fields) == 5:
                meaning[fields[0]] = fields[4].strip()
    return meaning


def main():
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
    a = ap.parse_args()
    WORKLOADS.extend(w for w in a.workloads.split(",") if w)
    exact = "icount" in a.method
    kernels = a.kernels.split(",")
    modes = a.modes.split(",")
    data = {k: {m: load(a.dir, k, m) for m in modes} for k in kernels}

    out = []
    out.append(f"Method: {a.method}.")
    config = (f"config set {a.config} ({CONFIG_SETS.get(a.config.split()[0], 'config-fragments/')})"
              if a.config else "the config set of run-bench.sh --config (not given to bench-report.py)")
    out.append(f"Base: {a.base_desc}. Guest: {a.cpus} vCPU(s), 512 MiB, {config}; "
               "mq-bench 256-byte messages, depth 10.")
    meaning = mode_meanings()
    out.append("Modes (tests/modes.conf): "
               + "; ".join(f"{m} = {meaning.get(m, '?')}" for m in modes) + ".")
    out.append("Figures: mean guest ns per call (pingpong: per round trip; "
               "kmem_*: per alloc+free pair; wlctxt_*: context switches per 1000 bogo ops, "
               "from /proc/stat, not ns; lock_*: tests/lock-bench.c, per call, lock1 and "
               "flock per lock + unlock, poll of 64 entries, select of 1024 and 512 "
               "descriptors, dgram and stream a unix send + recv of 216 and 1000 bytes, "
               "socket a unix socket() + close(), openfail an open() of a missing name; "
               "smp-locks-*: the same with one process per vCPU, each in its own "
               "cgroup, _own and _all as for the pairs).")
    if WORKLOADS:
        out.append(f"Workloads (wl_*): {a.stress_ng}, one instance, a fixed number "
                   "of bogo ops (tests/workloads.conf), started in the mode's cgroup "
                   f"in a guest of its own ({a.cpus} vCPU(s), 1 GiB, the same config set); "
                   "guest ns per bogo op from stress-ng's real-time rate.")
        if a.boots > 1:
            out.append(f"Workloads: mean over {a.boots} boots of each kernel and mode, "
                       "boot i with harness.salt=i on the command line (boot 1 without); "
                       "the column after each figure is its spread, half the range "
                       "over the boots in % of the mean. Microbenchmark rows: one boot, "
                       "repeat exactly.")
        else:
            out.append("Workloads: one boot each; their spread over boots is not "
                       "measured here ('?'): use --boots N.")
    if a.cpus > 1:
        out.append(f"SMP rows (smp-*, {a.cpus} vCPUs): smp-pairs = one pair process per "
                   "vCPU, each in its own cgroup (mode root: all in the root); "
                   "smp-nostorm / smp-storm = one on each vCPU but 0, without / with a "
                   "limit storm on vCPU 0 (a root task writing memory.high below the "
                   "usage of another cgroup in a loop: a drain of the charge stocks a "
                   "write); smp-stream-1cpu / -2cpu = producer and consumer on a "
                   "blocking queue of 10, consumer on vCPU 0 / 1; smp-pingpong-2cpu = "
                   "the ping-pong with the receiver on vCPU 1. *_all: the whole timed "
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
    # Side by side: the first kernel (the base), then each other kernel with
    # its change against the first.
    b, others = kernels[0], kernels[1:]
    for m in modes:
        out.append(f"### mode={m}")
        out.append("```")
        if others:
            out.append(f"{b:>12} {'':>8}" + "".join(f" {'%change':>8} {k:>12} {'':>8}" for k in others) + "  metric")
        keys = sorted(set().union(*[data[k][m].keys() for k in kernels]), key=order_key)
        for key in keys:
            x = data[b][m].get(key)
            row = f"{num(x):>12} {spread(b, m, key, exact):>8}" if others else f"{num(x):>12}"
            for k in others:
                y = data[k][m].get(key)
                row += f" {pct(x, y):>8} {num(y):>12} {spread(k, m, key, exact):>8}"
            out.append(f"{row}  {key}")
        out.append("```")
        out.append("")

    # Accounting overhead: mode minus nokmem, same kernel.
    derived = {}
    if "nokmem" in modes:
        out.append("### accounting overhead (mode - nokmem, guest ns)")
        out.append("```")
        hdr = f"{'metric':<28}" + "".join(f"{k + ' ' + m:>18}" for m in modes if m != "nokmem" for k in kernels)
        out.append(hdr)
        keys = ["mq_send", "mq_receive", "mq_pair", "pingpong_same", "pingpong_cross"]
        keys += sorted([k for k in data[kernels[0]]["nokmem"] if k.startswith("kmem_")], key=order_key)
        keys += [f"wl_{w}" for w in WORKLOADS]
        keys += [k for k in SMP if k in data[kernels[0]]["nokmem"]]
        keys += sorted([k for k in data[kernels[0]]["nokmem"]
                        if k.startswith(("lock_", "smp-locks-"))], key=order_key)
        for key in keys:
            row = f"{key:<28}"
            for m in modes:
                if m == "nokmem":
                    continue
                for k in kernels:
                    v, n = data[k][m].get(key), data[k]["nokmem"].get(key)
                    d = None if v is None or n is None else v - n
                    derived.setdefault(k, {}).setdefault(m, {})[key] = d
                    row += f"{num(d):>18}"
            out.append(row)
        out.append("```")
        out.append("")
        for k in others:
            out.append(f"### overhead change {b} -> {k}")
            out.append("```")
            for m in modes:
                if m == "nokmem":
                    continue
                for key in (["mq_pair", "pingpong_same", "pingpong_cross"] + [f"wl_{w}" for w in WORKLOADS]
                            + [k for k in SMP if k in derived[b][m]]
                            + sorted([k for k in derived[b][m] if k.startswith(("lock_", "smp-locks-"))],
                                     key=order_key)):
                    x = derived[b][m].get(key)
                    y = derived[k][m].get(key)
                    out.append(f"{m:<8} {key:<16} {num(x)} -> {num(y)}  ({pct(x, y).strip()})")
            out.append("```")
            out.append("")
        # Sanity figures against the reference guest.
        for k in kernels:
            d, n = data[k].get("default"), data[k].get("nokmem")
            if d and n and "mq_send" in d:
                same = derived[k]["default"].get("pingpong_same")
                cross = derived[k]["default"].get("pingpong_cross")
                ratio = f"{cross / same:.2f}x" if same and cross and same > 0 else "-"
                out.append(f"- {k}: child-cgroup mq_send {pct(n['mq_send'], d['mq_send']).strip()}, "
                           f"mq_receive {pct(n['mq_receive'], d['mq_receive']).strip()} over nokmem; "
                           f"cross-cgroup ping-pong overhead = {ratio} the same-cgroup overhead.")
        out.append("")

    # Kept objects (7.2 series, kernels with SLUB_STATS: --config test):
    # per message of a part, how many allocations came from a slot of
    # objects kept charged (alloc_charged), how many frees were kept
    # (free_charged), and the objects drains flushed (charged_flush).
    hits = {}
    for k in kernels:
        for m in modes:
            p = os.path.join(a.dir, f"{k}-{m}.hits")
            hits[(k, m)] = ({r["label"]: r for r in json_lines(p)}
                            if os.path.exists(p) else {})
    if any(hits.values()):
        out.append("### objects kept charged (SLUB_STATS), per message of the part "
                   "(pair, stream: messages; ping-pong: 2 a round trip; smp-pairs, storm: "
                   "all processes' messages): allocations a kept object served "
                   "(alloc_charged), frees kept (free_charged), and the number of kept "
                   "objects drains flushed (charged_flush); every accounted allocation "
                   "of the window counts, not only the messages")
        out.append("```")
        cols = [(k, m) for m in modes for k in kernels if hits[(k, m)]]
        out.append(f"{'part':<20}" + "".join(f"{k + ' ' + m:>24}" for k, m in cols))
        labels = []
        for c in cols:
            labels += [l for l in hits[c] if l not in labels]
        for l in labels:
            row = f"{l:<20}"
            for c in cols:
                r = hits[c].get(l)
                cell = "-" if not r or not r["calls"] else \
                    f"{r['alloc_charged'] / r['calls']:.2f} {r['free_charged'] / r['calls']:.2f} {r['charged_flush']}"
                row += f"{cell:>24}"
            out.append(row)
        out.append("```")
        out.append("")

    with open(os.path.join(a.dir, "report.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    with open(os.path.join(a.dir, "report.json"), "w") as f:
        json.dump({"method": a.method, "base": a.base_desc, "results": data,
                   "kept_hits": {f"{k} {m}": v for (k, m), v in hits.items() if v},
                   "overhead_vs_nokmem": derived, "errors": ERRORS,
                   "boots": a.boots, "spread_pct": SPREAD},
                  f, indent=1, sort_keys=True)

    # Charts: accounting overhead per mode and kernel (mq pair), and per
    # workload. Every bar carries its value, so a zero reads as measured.
    if derived:
        rows = [(m, [derived[k][m].get("mq_pair") for k in kernels])
                for m in modes if m != "nokmem"]
        unit = "guest ns (icount: instructions)" if exact else "guest ns (KVM: wall clock)"
        chart(os.path.join(a.dir, "overhead"), kernels, rows,
              "mq\\_send + mq\\_receive accounting overhead vs nokmem (guest ns)",
              unit)
        cols = [(k, m) for m in ("default", "noslab") if m in modes for k in kernels]
        if WORKLOADS and cols:
            rows = [(w, [derived[k][m].get(f"wl_{w}") for k, m in cols]) for w in WORKLOADS]
            chart(os.path.join(a.dir, "workloads"), [f"{k} {m}" for k, m in cols], rows,
                  "stress-ng: accounting overhead vs nokmem (guest ns per bogo op)",
                  "guest ns per bogo op " + unit[len("guest ns "):])


def chart(stem, names, rows, title, ylabel):
    """Clustered bars, one cluster per row, one bar per name, each bar
    labelled with its value ('n/a' where there is none)."""
    dat = stem + ".dat"
    with open(dat, "w") as f:
        f.write("row " + " ".join(n.replace(" ", "_") for n in names) + "\n")
        for label, vals in rows:
            f.write(label + " " + " ".join("NaN" if v is None else f"{v:.1f}" for v in vals) + "\n")
    n = len(names)
    # The value labels, one per bar, at the bar's centre and top.
    lab = stem + ".labels"
    with open(lab, "w") as f:
        f.write("x y label\n")
        for r, (_, vals) in enumerate(rows):
            for i, v in enumerate(vals):
                x = r + (i - n / 2.0 + 0.5) / (n + 1.0)
                f.write(f"{x:.4f} {0 if v is None else v:.1f} \"{'n/a' if v is None else f'{v:.0f}'}\"\n")
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
