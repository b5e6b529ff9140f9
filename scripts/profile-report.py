#!/usr/bin/env python3
"""Instructions per marker call, per kernel function, from the profiles of
scripts/profile-workload.sh.

Usage: scripts/profile-report.py [--top N] PROFILE [NOKMEM_PROFILE]
       scripts/profile-report.py [--top N] --kernels PROFILE_A PROFILE_B

With one profile: the functions that ran the most instructions per call
of the marker, and how often each was called per marker call (where the
profile counts block executions and the function's entry ran). With a
second profile of the same kernel, workload and window in mode nokmem:
what accounting adds per call (first minus second), by kind of work (the
rows below), each with its largest functions. With --kernels: the same
workload, mode and window on two kernels (each profile names its own
System.map): what B runs more than A per marker call, by kind of work,
and the functions that moved most, with their calls per marker call.
PROFILE.map names the kernel's System.map.
"""
import bisect
import collections
import re
import sys

KINDS = [
    ('list_lru step', r'list_lru|^xa_load$|^xas_|mem_cgroup_from_slab_obj'),
    ('objcg lookup', r'get_obj_cgroup|get_mem_cgroup|current_obj_cgroup|obj_cgroup_tryget|^css_'),
    ('stock charge and uncharge', r'obj_stock|obj_cgroup_(un)?charge|refill_stock|consume_stock|'
     r'try_charge|page_counter|memcg_account_kmem|drain_stock|uncharge_pages'),
    ('slab vmstat', r'mod_objcg_state|mod_memcg|lruvec_state|rstat'),
    ('out-of-line memcg slab hooks', r'memcg_slab|memcg_alloc_slab_cgroups|alloc_slab_obj_exts|'
     r'obj_cgroup_put|obj_cgroup_get|obj_cgroup_release|percpu_ref'),
    ('slab alloc/free (hooks inlined there)', r'kmem_cache_|kmalloc|kfree|slab_free|slab_alloc'),
    ('scheduler and context switch', r'schedule|switch_to|switch_mm|_task_rq|enqueue|dequeue|'
     r'pick_next|try_to_wake_up|ttwu|update_curr|update_load|wakeup|idle|load_balance|^finish_task|'
     r'__switch|_fair$|check_preempt'),
]


def die(text):
    sys.stderr.write('error: %s\n' % text)
    sys.exit(1)


def system_map(prof):
    # profile-workload.sh names the kernel's System.map in PROFILE.map.
    try:
        with open(prof + '.map') as f:
            return f.readline().strip()
    except OSError:
        die('no %s.map naming the System.map of the kernel that wrote %s' % (prof, prof))


def load(prof, mapfile):
    """Per function of the kernel named by mapfile: instructions run in the
    window, and calls (executions of the block at its entry; profiles of
    before window-count.c counted them have none). Also the marker calls in
    the window."""
    addrs, names = [], []
    with open(mapfile) as f:
        for line in f:
            a, t, n = line.split()[:3]
            if t in 'tTwW':
                addrs.append(int(a, 16))
                names.append(n)
    order = sorted(range(len(addrs)), key=lambda i: addrs[i])
    addrs = [addrs[i] for i in order]
    names = [names[i] for i in order]
    per = collections.Counter()
    calls_of = collections.Counter()
    try:
        f = open(prof)
    except OSError as e:
        die('cannot read the profile %s: %s' % (prof, e.strerror))
    with f:
        head = f.readline().split()
        if len(head) == 5 and head[:2] == ['#', 'total']:
            die('%s has no window size (written before window-count.c recorded it): '
                'run scripts/profile-workload.sh again' % prof)
        if len(head) != 7 or head[:2] != ['#', 'total'] or head[5] != 'window':
            die('%s is no profile of scripts/profile-workload.sh' % prof)
        for line in f:
            fields = line.split()
            a, c = int(fields[0], 16), int(fields[1])
            if a < 0xffff800000000000:
                per['[user space]'] += c
                continue
            i = bisect.bisect_right(addrs, a) - 1
            name = names[i] if i >= 0 else '?'
            per[name] += c
            if len(fields) > 2 and i >= 0 and addrs[i] == a:
                calls_of[name] += int(fields[2])
    # The marker calls in the window, not all the hits: those include the
    # --skip ones before it.
    calls = int(head[6])
    if calls < 1:
        die('%s: the window holds no marker call' % prof)
    return per, calls_of, calls


def kind_of(fn):
    return next((k for k, r in KINDS if re.search(r, fn)), 'other')


def calls_text(calls_of, fn, k):
    return ' (%.2f calls)' % (calls_of[fn] / k) if calls_of[fn] else ''


def compare_kernels(pa, pb, top):
    a, ca, ka = load(pa, system_map(pa))
    b, cb, kb = load(pb, system_map(pb))
    ta, tb = sum(a.values()) / ka, sum(b.values()) / kb
    print('per marker call: A %.1f, B %.1f, B - A %+.1f' % (ta, tb, tb - ta))
    delta = {fn: b[fn] / kb - a[fn] / ka for fn in set(a) | set(b)}
    total = collections.Counter()
    for fn, d in delta.items():
        total[kind_of(fn)] += d
    for kind in [k for k, _ in KINDS] + ['other']:
        print('%+9.1f  %s' % (total[kind], kind))
    print('functions that moved most (B - A, A, B, calls per marker call A -> B):')
    for fn in sorted(delta, key=lambda fn: -abs(delta[fn]))[:top]:
        print('%+9.1f %9.1f %9.1f  %-32s %.2f -> %.2f calls' % (
            delta[fn], a[fn] / ka, b[fn] / kb, fn, ca[fn] / ka, cb[fn] / kb))


def main():
    args = sys.argv[1:]
    if args[:1] in (['-h'], ['--help']):
        print(__doc__.strip())
        return
    top = 40
    if len(args) >= 2 and args[0] == '--top':
        if not args[1].isdigit() or int(args[1]) < 1:
            die('--top wants a number, 1 or more, got %r' % args[1])
        top = int(args[1])
        args = args[2:]
    if len(args) == 3 and args[0] == '--kernels':
        compare_kernels(args[1], args[2], top)
        return
    if len(args) not in (1, 2) or args[0].startswith('-'):
        die('usage: profile-report.py [--top N] PROFILE [NOKMEM_PROFILE]\n'
            '       profile-report.py [--top N] --kernels PROFILE_A PROFILE_B (see --help)')
    mapfile = system_map(args[0])
    a, ca, ka = load(args[0], mapfile)
    if len(args) == 1:
        print('%.1f instructions per call' % (sum(a.values()) / ka))
        for fn, c in a.most_common(top):
            print('%10.1f  %s%s' % (c / ka, fn, calls_text(ca, fn, ka)))
        return
    b, _, kb = load(args[1], mapfile)
    print('what accounting adds per call: %.1f (%.1f - %.1f)' % (
        sum(a.values()) / ka - sum(b.values()) / kb, sum(a.values()) / ka, sum(b.values()) / kb))
    total = collections.Counter()
    rows = collections.defaultdict(list)
    for fn in set(a) | set(b):
        d = a[fn] / ka - b[fn] / kb
        kind = kind_of(fn)
        total[kind] += d
        rows[kind].append((d, fn))
    for kind in [k for k, _ in KINDS] + ['other']:
        big = sorted(rows[kind], key=lambda x: -abs(x[0]))[:6]
        print('%8.1f  %-38s %s' % (total[kind], kind,
                                   ', '.join('%s %.1f' % (fn, d) for d, fn in big if abs(d) >= 1)))


if __name__ == '__main__':
    main()
