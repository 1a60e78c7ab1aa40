// Builds dist/: ESM (.js) and CommonJS (.cjs) bundles with esbuild, one per entry point (the worker
// entry is its own, so piscina can load it by path from either build), the `salvo` command
// (dist/cli.js), and declarations with tsc:
// dist/types for import, dist/types-cjs (a commonjs scope) for require.
import { execFileSync } from 'node:child_process';
import { chmod, cp, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { build } from 'esbuild';

await rm('dist', { recursive: true, force: true });
const common = {
  entryPoints: { index: 'src/index.ts', gate: 'src/gate/index.ts', report: 'src/report/index.ts', testing: 'src/testing/index.ts', worker: 'src/workers/worker.ts' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  outdir: 'dist',
  logLevel: 'warning',
};
await build({ ...common, format: 'esm' });
await build({
  ...common,
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // import.meta does not exist in CommonJS: give the one module that reads it its file URL.
  define: { 'import.meta.url': '__salvoModuleUrl' },
  banner: { js: "const __salvoModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// The `salvo` command (package.json "bin"): ESM only, importing the library from its entry points
// (./index.js, ./gate.js, ./report.js) instead of bundling a second copy of it.
const ENTRIES = new Map(['index', 'gate/index', 'report/index'].map((entry) => [resolve(`src/${entry}.js`), `./${entry.replace('/index', '')}.js`]));
await build({
  ...common,
  entryPoints: { cli: 'src/cli/bin.ts' },
  format: 'esm',
  banner: { js: '#!/usr/bin/env node' },
  plugins: [
    {
      name: 'library-from-index',
      setup(build) {
        build.onResolve({ filter: /\/index\.js$/ }, ({ path, resolveDir }) => {
          const entry = ENTRIES.get(resolve(resolveDir, path));
          return entry === undefined ? undefined : { path: entry, external: true };
        });
      },
    },
  ],
});
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
await cp('dist/types', 'dist/types-cjs', { recursive: true });
await chmod('dist/cli.js', 0o755);
await writeFile('dist/types-cjs/package.json', '{ "type": "commonjs" }\n');
