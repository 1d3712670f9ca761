import { get_encoding } from "tiktoken";
import { makeTurnGenerator } from "../lib/text";
const g = makeTurnGenerator(3);
const texts: string[] = []; for (let i=0;i<5000;i++){const t=g(); texts.push(t.query, t.answer);}
const chars = texts.reduce((a,b)=>a+b.length,0);
for (const name of ["o200k_base","cl100k_base"] as const) {
  const enc = get_encoding(name);
  for (let k=0;k<2;k++){
  let t0=performance.now(); let n=0; for (const t of texts) n+=enc.encode_ordinary(t).length; const per=performance.now()-t0;
  t0=performance.now(); const big=texts.join("\n"); const n2=enc.encode_ordinary(big).length; const one=performance.now()-t0;
  console.log(name, "per-text", per.toFixed(0),"ms", (chars/per/1000).toFixed(2),"MB/s; tokens",n, "| joined", one.toFixed(0),"ms tokens",n2);
  }
}
