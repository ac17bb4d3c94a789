// An event log (argv[2]) read by two more Parquet implementations than DuckDB:
// arrow-rs's reader (npm parquet-wasm: the parquet crate DataFusion reads
// with) into Arrow (npm apache-arrow), and hyparquet (pure JavaScript, its
// gzip from hyparquet-compressors).
// Prints per reader "NAME rows N weight SUM spans K stacks D time T" (T: the
// first row's time in ns) and, for arrow-rs, "schema name:type,...".
import { readFileSync } from 'node:fs';
import { readParquet } from 'parquet-wasm';
import { tableFromIPC } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const bytes = readFileSync(process.argv[2]);
function summary(name, rows, get) {
    let weight = 0n, spans = 0;
    const stacks = new Set();
    for (let i = 0; i < rows; i++) {
        weight += BigInt(get(i, 'weight'));
        if (get(i, 'span') !== null) spans++;
        if (get(i, 'stack') !== null) stacks.add(get(i, 'stack'));
    }
    const t = rows ? get(0, 'time') : 0n;
    console.log(`${name} rows ${rows} weight ${weight} spans ${spans} stacks ${stacks.size} time ${t}`);
}
try {
    const t = tableFromIPC(readParquet(new Uint8Array(bytes)).intoIPCStream());
    console.log('schema ' + t.schema.fields.map((f) => `${f.name}:${f.type}`).join(','));
    const cols = {};
    for (const f of t.schema.fields) cols[f.name] = t.getChild(f.name);
    const times = cols.time.toArray(); /* the nanoseconds, not get()'s milliseconds */
    summary('arrow-rs', t.numRows, (i, c) => (c === 'time' ? times[i] : cols[c].get(i)));
} catch (e) {
    console.log('arrow-rs ERROR ' + String(e).split('\n')[0]);
}
try {
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const rows = await parquetReadObjects({ file: buf, compressors, utf8: true });
    summary('hyparquet', rows.length, (i, c) => {
        const v = rows[i][c];
        /* hyparquet gives a Date (milliseconds): the nanoseconds below are lost */
        if (c === 'time' && v instanceof Date) return BigInt(v.getTime()) * 1000000n;
        return v === undefined ? null : v;
    });
} catch (e) {
    console.log('hyparquet ERROR ' + String(e).split('\n')[0]);
}
