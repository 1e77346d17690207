#!/usr/bin/env python3
"""Import circles between the modules of one crate: reads the `use crate::`,
`super::` and `crate::` paths of each file (use trees expanded, nested
braces too) (test modules and comments left
out), resolves each to the longest module path that is a file, and prints
every strongly connected group of more than one module (Tarjan), then the
edges of a few modules. Usage: tools/import-cycles.py CRATE_SRC_DIR.
A re-export from the crate root used as `crate::Name` counts as an edge to
the root: import from the defining module to keep edges one way."""
import os, re, sys
root=sys.argv[1] if len(sys.argv)>1 else 'src'
files={}
for d,_,fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs') and not f.endswith('tests.rs') and f not in ('testkit.rs','fixtures.rs'):
            p=os.path.join(d,f); rel=os.path.relpath(p,root)[:-3]
            parts=rel.split('/')
            if parts[-1] in ('mod','lib','main'): parts=parts[:-1]
            files['::'.join(['crate']+parts)]=p
def resolve(mod, path):
    # path like crate::a::b::C or super::x
    segs=path.split('::')
    cur=mod.split('::')
    out=[]
    for i,s in enumerate(segs):
        if s=='crate': cur=['crate']; continue
        if s=='super': cur=cur[:-1]; continue
        if s=='self': continue
        cur=cur+[s]
    # longest prefix that is a module file
    while cur and '::'.join(cur) not in files: cur=cur[:-1]
    return '::'.join(cur) if cur else None
def use_paths(tree):
    # the paths a use tree names, braces expanded (nested too)
    tree=re.sub(r'\s+as\s+\w+','',tree); tree=re.sub(r'\s+','',tree)
    out=[]
    def expand(prefix, t):
        join=lambda r: r if not prefix else (prefix if r in ('','self') else prefix+'::'+r)
        k=t.find('{')
        if k<0: out.append(join(t[:-3] if t.endswith('::*') else t)); return
        head=join(t[:k].rstrip(':'))
        inner=t[k+1:-1] if t.endswith('}') else t[k+1:]
        depth=0; start=0
        for i,ch in enumerate(inner+','):
            if ch=='{': depth+=1
            elif ch=='}': depth-=1
            elif ch==',' and depth==0:
                if inner[start:i]: expand(head, inner[start:i])
                start=i+1
    expand('',tree)
    return out
edges={m:set() for m in files}
for m,p in files.items():
    text=open(p).read()
    # cut at the test module: #[cfg(test)] or #[cfg(all(test, ...))], then mod tests {
    text=re.split(r'#\[cfg\((?:all\()?test\b[^\]]*\]\s*mod tests \{', text)[0]
    code='\n'.join(l for l in text.split('\n') if not l.strip().startswith('//'))
    uses=re.compile(r'(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);')
    for u in uses.findall(code):
        for q in use_paths(u):
            first=q.split('::')[0]
            if first in ('crate','super','self'): t=resolve(m,q)
            elif m+'::'+first in files: t=resolve(m,'self::'+q)
            else: t=None
            if t and t!=m: edges[m].add(t)
    for q in re.findall(r'(?<![A-Za-z0-9_:$])(?:crate|super)(?:::[A-Za-z_][A-Za-z0-9_]*)+', uses.sub('',code)):
        t=resolve(m,q)
        if t and t!=m: edges[m].add(t)
# Tarjan
idx={}; low={}; st=[]; on=set(); sccs=[]; c=[0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v]=low[v]=c[0]; c[0]+=1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],idx[w])
    if low[v]==idx[v]:
        comp=[]
        while True:
            w=st.pop(); on.discard(w); comp.append(w)
            if w==v: break
        if len(comp)>1: sccs.append(comp)
for v in edges:
    if v not in idx: sc(v)
for s in sccs: print(sorted(s))
for k in ['crate::tui::keymap','crate::tui::model','crate::commands','crate::config','crate::cli::syntax']:
    print(k, sorted(edges.get(k,[])))
