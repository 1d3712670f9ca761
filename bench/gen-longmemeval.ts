// npx tsx bench/gen-longmemeval.ts FILE [MB=300]: a LongMemEval-format file of about MB MB
// (bench/lib/longmemeval-file.ts), e.g. to import it with `npm run eval -- --import FILE`.
import { writeLongMemEvalFile } from "./lib/longmemeval-file";

const [file, mb = "300"] = process.argv.slice(2);
if (!file) {
  console.error("usage: tsx bench/gen-longmemeval.ts FILE [MB]");
  process.exit(2);
}
const r = await writeLongMemEvalFile(file, Number(mb));
console.log(`wrote ${file}: ${(r.bytes / 1048576).toFixed(1)} MB, ${r.questions} questions`);
