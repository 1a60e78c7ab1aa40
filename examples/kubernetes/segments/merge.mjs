#!/usr/bin/env node
// Merges segment results into one: `node merge.mjs results/*.json` prints the merged summary, writes
// merged.json (or --out FILE) and exits 1 when a threshold failed on the merged result, so it can end
// a CI job. Missing or repeated segments are an error (mergeResults says which); --force merges
// anyway and says so in the result's warnings.
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { formatResult, mergeResults } from 'salvo';

/** Reads result files (one result per file, or `SALVO_RESULT <json>` log lines) into LoadResults. */
export async function readResults(files) {
  const results = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    const lines = text.split('\n').filter((line) => line.startsWith('SALVO_RESULT '));
    if (lines.length === 0) results.push(JSON.parse(text));
    else for (const line of lines) results.push(JSON.parse(line.slice('SALVO_RESULT '.length)));
  }
  return results;
}

/**
 * Merges `results`, prints the merged summary, writes it to `out`, and sets the exit code: 1 when a
 * threshold failed on the merged result.
 */
export async function report(results, { out = 'merged.json', force = false } = {}) {
  const started = performance.now();
  const merged = mergeResults(results, { force });
  console.log(formatResult(merged));
  console.log(`merged ${results.length} results in ${(performance.now() - started).toFixed(0)} ms -> ${out}`);
  await writeFile(out, JSON.stringify(merged));
  process.exitCode = merged.ok ? 0 : 1;
  return merged;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { out: { type: 'string', default: 'merged.json' }, force: { type: 'boolean', default: false } },
  });
  if (positionals.length === 0) {
    console.error('usage: merge.mjs [--out merged.json] [--force] RESULT.json...');
    process.exit(2);
  }
  await report(await readResults(positionals), values);
}
