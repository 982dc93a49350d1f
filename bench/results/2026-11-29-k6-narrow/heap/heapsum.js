const fs=require('fs'); const p=JSON.parse(fs.readFileSync(process.argv[2])).head ? JSON.parse(fs.readFileSync(process.argv[2])) : null;
const prof=p; const self=new Map(); const stacks=new Map();
const nm=(c)=>`${c.functionName||'(anon)'} ${(c.url||'').replace(/.*node_modules\//,'nm/').replace(/.*main\//,'')}:${c.lineNumber}`;
function walk(n, chain){ const c=[...chain, nm(n.callFrame)]; if(n.selfSize){ self.set(c[c.length-1],(self.get(c[c.length-1])||0)+n.selfSize); const k=c.slice(-6).reverse().join(' < '); stacks.set(k,(stacks.get(k)||0)+n.selfSize);} for(const ch of n.children||[]) walk(ch,c); }
walk(prof.head, []);
const tot=[...self.values()].reduce((a,b)=>a+b,0); console.log('total sampled MB', (tot/1e6).toFixed(1));
console.log([...self].sort((a,b)=>b[1]-a[1]).slice(0,25).map(([k,v])=>`${(v/1e6).toFixed(2).padStart(7)} MB ${k}`).join('\n'));
console.log('--- stacks'); console.log([...stacks].sort((a,b)=>b[1]-a[1]).slice(0,20).map(([k,v])=>`${(v/1e6).toFixed(2).padStart(7)} MB ${k}`).join('\n'));
