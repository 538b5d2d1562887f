import sys,glob,re
# usage: analyse.py OPT_MS trace files...
opt=float(sys.argv[1])
rows=[]
for f in sys.argv[2:]:
    L=[l.split() for l in open(f) if l.startswith('T ')]
    L=L[:200]
    best=1e9;bestat=0;bestby=None;bestcfg=None
    gp=lc=fail=0;hand=0;prev=None
    segs=[]
    for i,l in enumerate(L):
        a=int(l[1]);c=float(l[3])
        if prev is not None and a!=prev: hand+=1
        if not segs or segs[-1][0]!=a: segs.append([a,0,0])
        segs[-1][1]+=1
        prev=a
        if a==0: gp+=1
        else: lc+=1
        if c<0: fail+=1; continue
        if c<best: best=c;bestat=i+1;bestby=a;bestcfg=l[4:]; segs[-1][2]+=1
    fr=opt/best
    seed=re.findall(r'\d+',f)[-1]
    rows.append((fr,seed,gp,lc,fail,hand,bestat,bestby,' '.join(bestcfg),' '.join(f"{'G' if s[0]==0 else 'L'}{s[1]}/{s[2]}" for s in segs)))
rows.sort()
import statistics
print('mean',statistics.mean(r[0] for r in rows))
for r in rows: print('%.3f seed %s gp %d local %d fail %d hand %d best@%d by %s cfg %s | %s'%r)
