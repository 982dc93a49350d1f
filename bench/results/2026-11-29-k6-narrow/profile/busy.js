const fs=require('fs'); const [file, minMs='30']=process.argv.slice(2);
const p=JSON.parse(fs.readFileSync(file));
const byId=new Map(p.nodes.map(n=>[n.id,n])); const parent=new Map(); for(const n of p.nodes) for(const c of n.children||[]) parent.set(c,n.id);
let t=p.startTime; const times=p.timeDeltas.map(d=>t+=d);
const nm=(c)=>`${c.functionName||'(anon)'} ${(c.url||'').replace(/.*node_modules\//,'nm/').replace(/.*main\//,'')}:${c.lineNumber}`;
const isIdle=(i)=>byId.get(p.samples[i]).callFrame.functionName==='(idle)';
let i=0; const out=[];
while(i<p.samples.length){ if(isIdle(i)){i++;continue;} let j=i; while(j+1<p.samples.length && !isIdle(j+1)) j++;
  const dur=(times[j]-times[i])/1000; if(dur>=+minMs){ const self=new Map(); const top=new Map();
   for(let k=i;k<=j;k++){ const n=byId.get(p.samples[k]); const dt=(times[k+1]-times[k])/1000||0; const s=nm(n.callFrame); self.set(s,(self.get(s)||0)+dt);
     // a mid-level frame: the first frame from our code or node-red
     let id=n.id, lab='?'; const chain=[]; while(id!==undefined){ chain.push(byId.get(id).callFrame); id=parent.get(id);} 
     const ours=chain.find(c=>/main\/(nodes|plc)\//.test(c.url||'')) ; lab= ours? nm(ours): nm(chain[Math.min(3,chain.length-1)]); top.set(lab,(top.get(lab)||0)+dt); }
   out.push({fromEnd:((p.endTime-times[i])/1e6).toFixed(2), dur:dur.toFixed(0), self:[...self].sort((a,b)=>b[1]-a[1]).slice(0,6).map(([k,v])=>`${v.toFixed(0)} ${k}`), top:[...top].sort((a,b)=>b[1]-a[1]).slice(0,6).map(([k,v])=>`${v.toFixed(0)} ${k}`)}); }
  i=j+1; }
for(const o of out){ console.log(`-- busy ${o.dur} ms, starting ${o.fromEnd} s before the end`); console.log('   self: '+o.self.join(' | ')); console.log('   ours: '+o.top.join(' | ')); }
