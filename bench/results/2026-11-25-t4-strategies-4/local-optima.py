# Local optima of steepest descent on a T4 convolution file, with one-parameter moves (any value) and
# with one- or two-parameter moves: how many, and the share of the ok configurations whose descent
# ends at the optimum. Usage: python3 local-optima.py ../../../../shared/t4/convolution_A100_T4.json.gz
import gzip,json,itertools,collections,math,sys
f=sys.argv[1]
d=json.load(gzip.open(f))
keys=['block_size_x','block_size_y','tile_size_x','tile_size_y','read_only','use_padding','use_shmem']
pts={}
for x in d['results']:
    c=tuple(x['configuration'][k] for k in keys)
    pts[c]=x['measurements'][0]['value'] if x['invalidity']=='correct' else math.inf
vals=[sorted(set(c[i] for c in pts)) for i in range(len(keys))]
opt=min(pts.values()); best=min(pts,key=pts.get)
def nb1(c):
    for i in range(len(c)):
        for v in vals[i]:
            if v!=c[i]:
                q=c[:i]+(v,)+c[i+1:]
                if q in pts: yield q
def nb2(c):
    yield from nb1(c)
    for i,j in itertools.combinations(range(len(c)),2):
        for a in vals[i]:
            for b in vals[j]:
                if a!=c[i] and b!=c[j]:
                    q=list(c);q[i]=a;q[j]=b;q=tuple(q)
                    if q in pts: yield q
def descend(c,nb):
    while True:
        n=min(nb(c),key=lambda q:pts[q])
        if pts[n]<pts[c]: c=n
        else: return c
ok=[c for c in pts if pts[c]<math.inf]
for name,nb in [('1any',nb1),('2any',nb2)]:
    ends=collections.Counter(descend(c,nb) for c in ok)
    print(name,'local optima',len(ends),'basin of optimum',ends[best]/len(ok))
    print(' top ends',[(round(opt/pts[e],3),n) for e,n in ends.most_common(8)])
