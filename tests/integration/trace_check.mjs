// A Chrome Trace Event file (argv[2]) checked as Perfetto and chrome://tracing
// read it: valid JSON, per thread its B/E events in time order and properly
// nested, every thread and process named by metadata events. Prints
// "json ok", "ordered yes|no", "balanced yes|no", "named yes|no",
// "threads N", "cat CAT N" per category of B events, "runs NAME N" for the
// cpu slices of each frame name (a run of samples merged is one), and
// "slice CAT NAME START_US END_US" for every span and off-CPU slice.
import { readFileSync } from 'node:fs';

const t = JSON.parse(readFileSync(process.argv[2], 'utf8'));
console.log('json ok');
const threads = new Map(), processNames = new Set(), threadNames = new Set(), cats = new Map(), runs = new Map();
let ordered = true, balanced = true;
for (const e of t.traceEvents) {
    if (e.ph === 'M') {
        if (e.name === 'process_name') processNames.add(e.pid);
        if (e.name === 'thread_name') threadNames.add(`${e.pid}/${e.tid}`);
        continue;
    }
    const key = `${e.pid}/${e.tid}`;
    if (!threads.has(key)) threads.set(key, { stack: [], last: -Infinity });
    const th = threads.get(key);
    if (e.ts < th.last) ordered = false;
    th.last = e.ts;
    if (e.ph === 'B') {
        th.stack.push(e);
        cats.set(e.cat, (cats.get(e.cat) || 0) + 1);
        if (e.cat === 'cpu') runs.set(e.name, (runs.get(e.name) || 0) + 1);
    } else if (e.ph === 'E') {
        const b = th.stack.pop();
        if (!b) balanced = false;
        else if (b.cat === 'span' || (b.cat === 'offcpu' && b.name.startsWith('offcpu')))
            console.log(`slice ${b.cat} ${b.name} ${b.ts} ${e.ts}`);
    }
}
for (const th of threads.values()) if (th.stack.length) balanced = false;
let named = true;
for (const key of threads.keys())
    if (!threadNames.has(key) || !processNames.has(Number(key.split('/')[0]))) named = false;
console.log('ordered ' + (ordered ? 'yes' : 'no'));
console.log('balanced ' + (balanced ? 'yes' : 'no'));
console.log('named ' + (named ? 'yes' : 'no'));
console.log('threads ' + threads.size);
for (const [c, n] of cats) console.log(`cat ${c} ${n}`);
for (const [name, n] of runs) console.log(`runs ${name} ${n}`);
