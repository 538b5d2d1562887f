#!/usr/bin/env python3
# A T1 kernel tuned by pimg-tune beside Kernel Tuner's measurements of the same kernel (T4 files, e.g.
# ../shared/t4/convolution_A100_T4.json.gz): each side's best time and configuration, where pimg-tune's
# best ranks among the other's, and Spearman's rank correlation over the configurations valid on both.
# Reads the stores read-only; prints a markdown section. Usage:
#   scripts/t1-vs-t4.py DB FAMILY OTHER [OTHER ...]     (FAMILY: t1-convolution_milo)
# OTHER: a store made by `pimg-tune import T4_FILE --db OTHER.db` (each of its devices, its ok rows' times by the
# writer's objective as imported: the file's "time", else the median of the runs), or a T4 file itself (its "time"
# measurement of every correct configuration).
import gzip, json, sqlite3, sys


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else float("nan")


def key(config):
    return tuple(sorted((k, str(v)) for k, v in config.items()))


def others(paths):
    """(label, {configuration key: ms}) of each other tool's device."""
    for path in paths:
        if path.endswith(".db"):
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            devices = con.execute("SELECT DISTINCT d.id, d.name FROM latest e JOIN devices d ON d.id = e.device_id").fetchall()
            for dev_id, dev_name in devices:
                # The writer's objective as imported (import.objective_ms), else the median of the runs.
                rows = con.execute("SELECT c.canonical, COALESCE((SELECT m.value FROM metrics m WHERE m.evaluation_id = e.id "
                                   "AND m.name = 'import.objective_ms' AND m.seq = -1), e.median_ms) "
                                   "FROM latest e JOIN configs c ON c.id = e.config_id "
                                   "WHERE e.device_id = ? AND e.status = 'ok'", (dev_id,)).fetchall()
                yield f"{dev_name} (Kernel Tuner, imported)", {key(json.loads(c)): ms for c, ms in rows}
            continue
        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
            doc = json.load(f)
        theirs = {}
        for r in doc["results"]:
            if r.get("invalidity") == "correct":
                t = [m["value"] for m in r.get("measurements", []) if m.get("name") == "time"]
                if t:
                    theirs[key(r["configuration"])] = t[0]
        yield path.rsplit("/", 1)[-1].split("_T4")[0] + " (Kernel Tuner)", theirs


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: scripts/t1-vs-t4.py DB FAMILY OTHER_DB_OR_T4_FILE [...]")
    db, family, t4s = sys.argv[1], sys.argv[2], sys.argv[3:]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT d.name, c.canonical, e.status, e.median_ms FROM latest e JOIN variants v ON v.id = e.variant_id "
        "JOIN configs c ON c.id = e.config_id JOIN devices d ON d.id = e.device_id WHERE v.family = ?", (family,)).fetchall()
    if not rows:
        sys.exit(f"{db}: no results of family {family}")
    ours = {key(json.loads(c)): ms for _, c, st, ms in rows if st == "ok"}
    device = rows[0][0]
    print(f"## {family}: pimg-tune on {device} beside Kernel Tuner\n")
    print(f"pimg-tune: {len(rows)} configurations, {len(ours)} ok.\n")
    print("| device (tool) | valid | best ms | best configuration | pimg-tune's best ranks | common | Spearman |")
    print("|---|---|---|---|---|---|---|")
    best_key = min(ours, key=ours.get)
    print(f"| {device} (pimg-tune) | {len(ours)} | {ours[best_key]:.4f} | {' '.join(f'{k}={v}' for k, v in best_key)} | 1 | | |")
    for name, theirs in others(t4s):
        common = sorted(set(ours) & set(theirs))
        rho = spearman([ours[k] for k in common], [theirs[k] for k in common]) if len(common) > 1 else float("nan")
        their_best = min(theirs, key=theirs.get)
        order = sorted(theirs, key=theirs.get)
        rank = order.index(best_key) + 1 if best_key in theirs else "-"
        print(f"| {name} | {len(theirs)} | {theirs[their_best]:.4f} | "
              f"{' '.join(f'{k}={v}' for k, v in their_best)} | {rank} | {len(common)} | {rho:.3f} |")


if __name__ == "__main__":
    main()
