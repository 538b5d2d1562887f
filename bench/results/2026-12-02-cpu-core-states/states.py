#!/usr/bin/env python3
"""Reads states.txt.xz (./states SECONDS > states.txt; xz): how the two stencils and the two probes move together; writes the
summary to stdout and states.svg (the tiles/rows ratio and the memory probe over time)."""
import lzma, os, statistics
here = os.path.dirname(os.path.abspath(__file__))
rows = [list(map(float, l.split())) for l in lzma.open(os.path.join(here, "states.txt.xz"), "rt") if l.strip()]
t, a, b, c, m = (list(x) for x in zip(*rows))
ratio = [y / x for x, y in zip(a, b)]

def corr(x, y):
    mx, my, sx, sy = statistics.mean(x), statistics.mean(y), statistics.pstdev(x), statistics.pstdev(y)
    return sum((i - mx) * (j - my) for i, j in zip(x, y)) / len(x) / sx / sy

def autocorr(x, lag):
    mx, v = statistics.mean(x), statistics.pvariance(x)
    return sum((x[i] - mx) * (x[i + lag] - mx) for i in range(len(x) - lag)) / len(x) / v

step = (t[-1] - t[0]) / (len(t) - 1)
print(f"{len(t)} lines over {t[-1]:.0f} s (one every {step:.2f} s); medians: rows {statistics.median(a):.1f} us, tiles "
      f"{statistics.median(b):.1f} us, compute probe {statistics.median(c):.1f} us, memory probe {statistics.median(m):.0f} us")
print(f"tiles/rows: median {statistics.median(ratio):.3f}, reversed (tiles faster) in {sum(r < 1 for r in ratio)} of {len(ratio)}")
for name, p in (("compute probe", c), ("memory probe", m)):
    print(f"correlation with the {name}: rows {corr(p, a):.2f}, tiles {corr(p, b):.2f}, tiles/rows {corr(p, ratio):.2f}")
lags = [max(1, round(s / step)) for s in (0.1, 1, 3, 10, 30)]
for name, x in (("tiles/rows", ratio), ("rows", a), ("compute probe", c), ("memory probe", m)):
    print(f"autocorrelation of {name} at {', '.join(f'{l * step:.1f} s' for l in lags)}: "
          + ", ".join(f"{autocorr(x, l):.2f}" for l in lags))
for probe, p in (("compute", c), ("memory", m)):
    cut = statistics.median(p)
    for name, sel in ((f"{probe} probe faster than its median", [x < cut for x in p]), ("slower", [x >= cut for x in p])):
        rs = [r for r, s in zip(ratio, sel) if s]
        print(f"{name}: tiles/rows median {statistics.median(rs):.3f}, reversed {sum(r < 1 for r in rs)} of {len(rs)}")
print("10-s windows: start s, rows us, tiles us, tiles/rows, compute probe us, memory probe us")
windows = {}
for row in zip(t, a, b, ratio, c, m):
    windows.setdefault(int(row[0] // 10) * 10, []).append(row)
for k, v in sorted(windows.items()):
    print(f"  {k:4d} " + " ".join(f"{statistics.median(x[i] for x in v):8.3f}" for i in range(1, 6)))

# The picture: the ratio and the two probes over time, 10-s medians as lines.
W, H, L, R, gap = 900, 560, 70, 20, 28
ph = (H - 4 * gap) / 3
def panel(y0, ys, lo, hi, label, colour):
    sx = lambda x: L + (x - t[0]) / (t[-1] - t[0]) * (W - L - R)
    sy = lambda y: y0 + ph - (min(max(y, lo), hi) - lo) / (hi - lo) * ph
    out = [f'<rect x="{L}" y="{y0}" width="{W - L - R}" height="{ph}" fill="none" stroke="#888"/>',
           f'<text x="{L - 6}" y="{y0 + 12}" text-anchor="end" font-size="11">{hi:g}</text>',
           f'<text x="{L - 6}" y="{y0 + ph}" text-anchor="end" font-size="11">{lo:g}</text>',
           f'<text x="{L + 6}" y="{y0 + 14}" font-size="12">{label}</text>']
    def medians(width):  # (window centre, median) for windows of `width` seconds, the centre kept inside the run
        groups = {}
        for x, y in zip(t, ys):
            groups.setdefault(int(x // width), []).append(y)
        return [(min(k * width + width / 2, t[-1]), statistics.median(v)) for k, v in sorted(groups.items())]
    for width, stroke, opacity in ((1, 1, 0.45), (10, 2.5, 1)):
        out.append('<polyline fill="none" stroke="%s" stroke-width="%g" stroke-opacity="%g" points="%s"/>' % (
            colour, stroke, opacity, " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in medians(width))))
    return out, sy
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif">',
       '<rect width="100%" height="100%" fill="white"/>']
part, sy = panel(gap, ratio, 0.8, 1.4, "tiles / rows (above the dashed 1: rows faster); 1-s and 10-s medians", "#1f77b4")
svg += part + [f'<line x1="{L}" x2="{W - R}" y1="{sy(1):.1f}" y2="{sy(1):.1f}" stroke="#d62728" stroke-dasharray="4 3"/>']
clo, chi = round(min(c) * 0.95, 1), round(min(max(c), 2 * statistics.median(c)), 1)
svg += panel(2 * gap + ph, c, clo, chi, "compute probe, us (both threads spin; the slower one's end)", "#9467bd")[0]
mlo, mhi = round(min(m) * 0.95 / 1000, 2), round(min(max(m), 2 * statistics.median(m)) / 1000, 2)
svg += panel(3 * gap + 2 * ph, [x / 1000 for x in m], mlo, mhi, "memory probe, ms to read 64 MiB on both threads", "#2ca02c")[0]
svg.append(f'<text x="{(W + L) / 2}" y="{H - 6}" text-anchor="middle" font-size="12">seconds (0 to {t[-1]:.0f})</text>')
svg.append("</svg>")
open(os.path.join(here, "states.svg"), "w").write("\n".join(svg) + "\n")
