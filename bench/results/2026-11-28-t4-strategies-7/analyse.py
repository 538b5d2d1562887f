#!/usr/bin/env python3
"""Round 7's analysis of the default's replays on the two convolution spaces of ../shared/t4.

Usage: analyse.py T4_DIR TRACE_A100 TRACE_A4000
A trace is the standard error of `pimg-tune strategies --strategy default` built with scratch.patch and
run with PORT_TRACE=1: a line `S seed` per run, then `T member point cost value-indices...` per
evaluation (member 0: gp, 1: the walk; cost -1: failed). Prints, per space, the 25 fastest
configurations, the seeds below 0.9 of the optimum at 200 evaluations (where they stopped, and how
they got out by 400), the share of the 200 cell's loss each stuck point costs, and what two
independent runs of half the budget would reach (the best of the two) against one run of all of it.
"""
import collections, gzip, itertools, json, statistics, sys

NAMES = ['bx', 'by', 'fh', 'fw', 'ro', 'tx', 'ty', 'cm', 'pad', 'sh']  # the space's order after `variant`
KEYS = {'bx': 'block_size_x', 'by': 'block_size_y', 'tx': 'tile_size_x', 'ty': 'tile_size_y', 'ro': 'read_only',
        'pad': 'use_padding', 'sh': 'use_shmem', 'fh': 'filter_height', 'fw': 'filter_width', 'cm': 'use_cmem'}


def load_space(t4, dev):
    d = json.load(gzip.open(f'{t4}/convolution_{dev}_T4.json.gz'))
    vals = collections.defaultdict(set)
    for r in d['results']:
        for n in NAMES:
            vals[n].add(r['configuration'][KEYS[n]])
    vals = {n: sorted(v) for n, v in vals.items()}
    ok = {}
    for r in d['results']:
        if r['invalidity'] == 'correct' and r['times'].get('runtimes'):
            x = (0,) + tuple(vals[n].index(r['configuration'][KEYS[n]]) for n in NAMES)
            ok[x] = statistics.median(r['times']['runtimes'])
    return vals, ok


def fmt(vals, x):
    return ' '.join(f'{n}={vals[n][i]}' for n, i in zip(NAMES, x[1:]) if len(vals[n]) > 1)


def load_trace(path):
    runs = []
    for line in open(path):
        t = line.split()
        if t and t[0] == 'S':
            runs.append([])
        elif t and t[0] == 'T':
            runs[-1].append((int(t[1]), float(t[3]), tuple(map(int, t[4:]))))
    return runs


def main(t4, traces):
    for dev, path in traces:
        vals, ok = load_space(t4, dev)
        runs = load_trace(path)
        opt = min(ok.values())
        print(f'## {dev}: {len(ok)} ok configurations, optimum {opt:.4f} ms (median of the file\'s runs)\n')
        print('The 25 fastest (fraction of the optimum):')
        for x in sorted(ok, key=ok.get)[:25]:
            print(f'  {opt / ok[x]:.3f}  {fmt(vals, x)}')
        frac200 = []
        stuck = collections.Counter()
        print(f'\nSeeds below 0.9 at 200 evaluations ({len(runs)} seeds; G: gp found it, L: the walk):')
        for s, r in enumerate(runs, 1):
            best, path_ = float('inf'), []
            for j, (member, c, x) in enumerate(r):
                if c > 0 and c < best:
                    best = c
                    path_.append((j + 1, 'GL'[member], opt / c, x))
            at200 = max((p for p in path_ if p[0] <= 200), key=lambda p: p[2])
            frac200.append(at200[2])
            if at200[2] < 0.9:
                stuck[(round(at200[2], 3), fmt(vals, at200[3]))] += 1
                later = ', '.join(f'{e}{m} {f:.3f}' for e, m, f, _ in path_ if e > 200)
                print(f'  seed {s:3d}: {at200[2]:.3f} from evaluation {at200[0]} ({at200[1]}) at {fmt(vals, at200[3])};'
                      f' after 200: {later or "nothing better by 400"}')
        mean = statistics.mean(frac200)
        print(f'\nMean at 200: {mean:.3f}. The stuck points and what they cost the mean (loss = (1 - f) x seeds / {len(runs)}):')
        for (f, where), n in sorted(stuck.items()):
            print(f'  {f:.3f} x {n:2d} seeds: {(1 - f) * n / len(runs):.4f}  {where}')

        def at(r, n):
            return opt / min(c for _, c, _ in r[:n] if c > 0)
        print('\nOne run of N evaluations against the best of two independent runs of N/2 (every pair of seeds):')
        for n in (50, 100, 200, 400):
            one = statistics.mean(at(r, n) for r in runs)
            two = statistics.mean(max(at(a, n // 2), at(b, n // 2)) for a, b in itertools.combinations(runs, 2))
            print(f'  N {n:3d}: one run {one:.3f}, best of two halves {two:.3f}')
        print()


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], [('A100', sys.argv[2]), ('A4000', sys.argv[3])])
