import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** uPlot's browser build and stylesheet, inlined into each report so that it opens offline. */
export interface UplotAsset {
  script: string;
  css: string;
}

let cached: UplotAsset | undefined;

/**
 * Reads uPlot's minified IIFE build (about 50 kB, defines the global `uPlot`) and its stylesheet from
 * the installed package, once per process. Read at render time rather than bundled so that the
 * library's own bundles stay small and tsx runs the same code as dist.
 */
export function uplotAsset(): UplotAsset {
  if (cached === undefined) {
    const require = createRequire(import.meta.url);
    const read = (file: string) => readFileSync(require.resolve(`uplot/dist/${file}`), 'utf8');
    cached = { script: read('uPlot.iife.min.js'), css: read('uPlot.min.css') };
  }
  return cached;
}
