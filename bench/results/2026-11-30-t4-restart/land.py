#!/usr/bin/env python3
# The best N configurations of a public T4 convolution file by its recorded time: land.py DEVICE N (landscape.txt)
import gzip, json, sys
dev, n = sys.argv[1], int(sys.argv[2])
rows = []
for r in json.load(gzip.open(f'/work/shared/t4/convolution_{dev}_T4.json.gz'))['results']:
    if r.get('invalidity') not in (None, 'correct'): continue
    t = [m['value'] for m in r['measurements'] if m['name'] == 'time']
    if t: rows.append((t[0], r['configuration']))
rows.sort(key=lambda x: x[0])
keys = {'bx': 'block_size_x', 'by': 'block_size_y', 'tx': 'tile_size_x', 'ty': 'tile_size_y',
        'ro': 'read_only', 'up': 'use_padding', 'us': 'use_shmem'}
for v, c in rows[:n]:
    print(f"{rows[0][0] / v:.3f}", ' '.join(f"{k}={c[f]}" for k, f in keys.items()))
