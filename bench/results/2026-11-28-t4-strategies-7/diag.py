#!/usr/bin/env python3
"""gp's view of the A4000 space while seed 28 is stuck (model-at-stuck-seed-28.txt).

Usage: diag.py T4_DIR DIAG_DIR. DIAG_DIR holds diag-N.txt for N in 70 118 166 214 230, each written by
pimg-tune built with scratch.patch:
  DIAG_AT=N DIAG_FILE=DIAG_DIR/diag-N.txt pimg-tune strategies --db conv-A4000.db --family t4:convolution \
    --strategy default --seeds 1 --first-seed 28 --max-evals 400
(at the model turn when it has learnt N outcomes: its length scales, its training set, and every unvisited
point's posterior mean, sd and expected improvement, and whether it was among that turn's candidates).
Prints, per turn, the three points of highest expected improvement and where the configurations faster
than the stuck point (0.843 of the optimum) rank.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyse import fmt, load_space  # noqa: E402
vals, ok = load_space(sys.argv[1],'A4000')
opt=min(ok.values())
for at in (70,118,166,214,230):
    U=[];P=[]
    for l in open(f'{sys.argv[2]}/diag-{at}.txt'):
        t=l.split()
        if t[0]=='L': lengths=t[1:]
        if t[0]=='U': U.append((float(t[4]),float(t[2]),float(t[3]),int(t[5]),tuple(map(int,t[6:]))))
        if t[0]=='P': P.append(float(t[2]))
    U.sort(reverse=True)
    rank={u[4]:i for i,u in enumerate(U)}
    print(f'--- at {at}: {len(P)} training points, lengths (bx by fh fw ro tx ty cm pad sh):',' '.join(lengths[1:]))
    print('   top EI:',[(round(u[0],4),fmt(vals,u[4]),round(opt/ok.get(u[4],1e9),3),u[3]) for u in U[:3]])
    # the better-than-stuck points (faster than 0.843 of optimum)
    better=[x for x in ok if opt/ok[x]>0.85 and x in rank]
    better.sort(key=lambda x: rank[x])
    for x in better[:6]:
        u=U[rank[x]]
        print('   exit %.3f rank %4d/%d EI %.2e mu %.3f (true %.3f) sd %.3f cand %d  %s'%(opt/ok[x],rank[x],len(U),u[0],math.exp(u[1]),ok[x],u[2],u[3],fmt(vals,x)))
