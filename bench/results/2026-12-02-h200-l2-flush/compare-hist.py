# The same hist-gpu configurations searched after the memset flush (2026-11-30) and after the read sweep (call 3):
# rank correlation, how the medians moved, where each run's best ranks in the other.
import sqlite3
def load(db, run=None):
    c=sqlite3.connect(db)
    q='''select d.backend, p.canonical, v.name, cf.canonical, e.median_ms
         from evaluations e join devices d on d.id=e.device_id join problems p on p.id=e.problem_id
         join variants v on v.id=e.variant_id join configs cf on cf.id=e.config_id
         where e.status='ok' and e.stage='search' '''
    if run: q+=f' and e.run_id={run}'
    out={}
    for b,pc,vn,cc,m in c.execute(q): out[(b,pc,vn,cc)]=m
    return out
import sys
# usage: compare-hist.py OLD.db NEW.db NEW_RUN (OLD: ../2026-11-30-h200-profiles/hist.db.xz unpacked; NEW: call 3's store, run 7)
old=load(sys.argv[1]); new=load(sys.argv[2],int(sys.argv[3]))
common=[k for k in new if k in old]
print(len(old),len(new),len(common))
import collections
groups=collections.defaultdict(list)
for k in common: groups[(k[0],k[1])].append(k)
def ranks(vals):
    order=sorted(range(len(vals)),key=lambda i:vals[i]); r=[0]*len(vals)
    for pos,i in enumerate(order): r[i]=pos
    return r
for g,ks in sorted(groups.items()):
    o=[old[k] for k in ks]; n=[new[k] for k in ks]
    ro,rn=ranks(o),ranks(n); m=len(ks)
    d=sum((a-b)**2 for a,b in zip(ro,rn)); rho=1-6*d/(m*(m*m-1)) if m>2 else float('nan')
    bo=min(range(m),key=lambda i:o[i]); bn=min(range(m),key=lambda i:n[i])
    ratio=sorted(nn/oo for nn,oo in zip(n,o)); med=ratio[len(ratio)//2]
    # where does the new best rank in old, and old best in new; new best's old time vs old best
    print(f"{g[0]:6s} {g[1][:60]:60s} n={m:4d} spearman={rho:.3f} new/old median {med:.3f} [{ratio[0]:.3f},{ratio[-1]:.3f}] "
          f"new-best old-rank {ro[bn]} old-best new-rank {rn[bo]}; new-best/old-best in new {n[bn]/n[bo]:.4f}")
print()
for g,ks in sorted(groups.items()):
    if g[0]!='cuda': continue
    diffs=sorted((old[k]-new[k])*1000 for k in ks)
    fast=sorted(ks,key=lambda k:old[k])[:50]
    fd=sorted((old[k]-new[k])*1000 for k in fast)
    print(g[1][40:75], "old-new us: median %.2f [p10 %.2f, p90 %.2f]; 50 fastest (old): median %.2f"%(diffs[len(diffs)//2],diffs[len(diffs)//10],diffs[9*len(diffs)//10],fd[len(fd)//2]))
