#!/usr/bin/env python3
"""Import circles between the modules of one crate: reads the `use crate::`,
`super::` and `crate::` paths of each file (test modules and comments left
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
edges={m:set() for m in files}
for m,p in files.items():
    text=open(p).read()
    # cut at the test module: #[cfg(test)] or #[cfg(all(test, ...))], then mod tests {
    text=re.split(r'#\[cfg\((?:all\()?test\b[^\]]*\]\s*mod tests \{', text)[0]
    code='\n'.join(l for l in text.split('\n') if not l.strip().startswith('//'))
    for q in re.findall(r'(?<![A-Za-z_:])(?:crate|super)(?:::[a-z_][a-z0-9_]*)+', code):
        t=resolve(m,q)
        if t and t!=m: edges[m].add(t)
    for u in re.findall(r'(?m)^\s*(?:pub(?:\([^)]*\))? )?use ([a-z_]+)::', code):
        t=m+'::'+u
        if t in files: edges[m].add(t)
    for u in re.findall(r'(?m)^\s*(?:pub(?:\([^)]*\))? )?use ((?:crate|super|self)::[^;]+);', code, re.S):
        u=re.sub(r'\s+','',u)
        # expand braces one level
        m2=re.match(r'(.*?)::\{(.*)\}$', u)
        paths=[u] if not m2 else [m2.group(1)+'::'+x for x in re.split(r',(?![^{]*\})', m2.group(2)) if x]
        for q in paths:
            q=re.sub(r'::\{.*','',q); q=q.split(' as ')[0]
            t=resolve(m,q)
            if t and t!=m and not m.startswith(t+'::') : edges[m].add(t)
            elif t and m.startswith(t+'::') and t!=m: edges[m].add(t)
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
