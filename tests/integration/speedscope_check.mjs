// A speedscope file (argv[2]) checked the two ways speedscope itself reads it:
// against the JSON schema its npm package ships (ajv), and opened by
// speedscope's own page (served at argv[3], a base URL holding index.html and
// the file) in Debian's headless Chromium through playwright-core. Prints
// "schema ok" or "schema ERROR ...", then "title TITLE" and "errors N" (page
// errors and dialogs), and "shown NAME" for the profile name the page shows.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createRequire } from 'node:module';
import Ajv from 'ajv';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const file = process.argv[2], base = process.argv[3];
const schemaPath = require.resolve('speedscope/dist/release/file-format-schema.json');
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const data = JSON.parse(readFileSync(file, 'utf8'));
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
console.log(validate(data) ? 'schema ok' : 'schema ERROR ' + JSON.stringify(validate.errors.slice(0, 3)));

const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--no-first-run'],
});
let errors = 0;
try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => { errors++; console.log('pageerror ' + String(e).split('\n')[0]); });
    page.on('dialog', async (d) => { errors++; console.log('dialog ' + d.message().split('\n')[0]); await d.dismiss(); });
    const url = `${base}/${basename(file)}`;
    await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(url)}`);
    await page.waitForFunction(() => document.title.includes(' - speedscope'), null, { timeout: 30000 });
    console.log('title ' + await page.title());
    const text = await page.evaluate(() => document.body.innerText);
    for (const p of data.profiles)
        if (text.includes(p.name))
            console.log('shown ' + p.name);
} catch (e) {
    errors++;
    console.log('load ERROR ' + String(e).split('\n')[0]);
} finally {
    await browser.close();
}
console.log('errors ' + errors);
