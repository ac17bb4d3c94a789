// One SQL statement through DuckDB (npm @duckdb/node-api): rows as tab-separated
// lines, NULL as NULL; a failed query prints ERROR and its message.
// Copied next to node_modules by the tests that read Parquet files, so the import resolves.
import { DuckDBInstance } from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
try {
    const r = await con.runAndReadAll(process.argv[2]);
    for (const row of r.getRowsJson())
        console.log(row.map((v) => (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v))).join('\t'));
} catch (e) {
    console.log('ERROR ' + String(e.message).split('\n')[0]);
}
