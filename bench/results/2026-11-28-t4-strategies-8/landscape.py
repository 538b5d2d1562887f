#!/usr/bin/env python3
"""Round 8's look at the two convolution spaces of ../shared/t4: the fraction of the optimum against
the block width, the other parameters held (the power-of-two widths apart from their neighbours in
the value list), and where a regime walk from each local optimum leads (one binary parameter
changed, the rest searched with it held, then freed: the `flip` idea, scratch.patch).

Usage: landscape.py T4_DIR > pow2-landscape.txt
Times: the `time` measurement of each correct row; failed rows count as infinitely slow.
Local optima: no one-parameter change (to any value) is faster; walks are steepest descent.
"""
import gzip, json, sys

KEYS = ['block_size_x', 'block_size_y', 'tile_size_x', 'tile_size_y', 'read_only', 'use_padding', 'use_shmem']
SHORT = ['bx', 'by', 'tx', 'ty', 'ro', 'pad', 'sh']


def load(t4, dev):
    d = json.load(gzip.open(f'{t4}/convolution_{dev}_T4.json.gz'))
    T = {}
    for r in d['results']:
        c = tuple(r['configuration'][k] for k in KEYS)
        T[c] = r['measurements'][0]['value'] if r.get('invalidity') == 'correct' else float('inf')
    vals = [sorted(set(c[i] for c in T)) for i in range(len(KEYS))]
    return T, vals


def main():
    t4 = sys.argv[1]
    for dev in ['A100', 'A4000']:
        T, vals = load(t4, dev)
        best = min(T.values())
        print(f'## {dev}: {sum(v < float("inf") for v in T.values())} ok configurations\n')
        print('Fraction of the optimum against the block width (columns: 16, 32, ..., 256), the rest held:')
        for fix in [dict(by=1, ro=0, tx=2, ty=4, pad=0, sh=0), dict(by=2, ro=0, tx=2, ty=4, pad=0, sh=0),
                    dict(by=2, ro=1, tx=1, ty=3, pad=0, sh=1), dict(by=4, ro=1, tx=1, ty=3, pad=0, sh=1)]:
            row = []
            for b in vals[0]:
                c = tuple([b] + [fix[s] for s in SHORT[1:]])
                t = T.get(c, float('inf'))
                row.append(f'{best / t:.2f}' if t < float('inf') else ' -- ')
            print('  ' + ' '.join(f'{s}={fix[s]}' for s in SHORT[1:]).ljust(34), ' '.join(row))

        def nb(c, fixed=None):
            for i in range(len(KEYS)):
                if i == fixed:
                    continue
                for v in vals[i]:
                    if v != c[i]:
                        n = c[:i] + (v,) + c[i + 1:]
                        if n in T:
                            yield n

        def descend(c, fixed=None):
            while True:
                b = min(nb(c, fixed), key=lambda n: T[n])
                if T[b] < T[c]:
                    c = b
                else:
                    return c

        lo = sorted((c for c in T if T[c] < float('inf') and all(T[n] >= T[c] for n in nb(c))), key=lambda c: T[c])
        print(f'\n{len(lo)} local optima (fraction, configuration); a regime walk from each: binary parameter -> '
              'fraction reached with it held, then freed (inv: the changed point is not in the space)')
        for c in lo:
            out = []
            for p in range(len(KEYS)):
                if len(vals[p]) != 2:
                    continue
                s = c[:p] + (1 - c[p],) + c[p + 1:]
                if T.get(s, float('inf')) == float('inf'):
                    out.append(f'{SHORT[p]}: inv')
                    continue
                e = descend(s, p)
                out.append(f'{SHORT[p]}: {best / T[e]:.3f} -> {best / T[descend(e)]:.3f}')
            print(f'  {best / T[c]:.3f}  ' + ' '.join(f'{s}={v}' for s, v in zip(SHORT, c)).ljust(44) + '; '.join(out))
        print()


main()
