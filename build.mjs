// Builds dist/: ESM (.js) and CommonJS (.cjs) bundles with esbuild, one per entry point (the worker
// entry is its own, so piscina can load it by path from either build), and declarations with tsc:
// dist/types for import, dist/types-cjs (a commonjs scope) for require.
import { execFileSync } from 'node:child_process';
import { cp, rm, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

await rm('dist', { recursive: true, force: true });
const common = {
  entryPoints: { index: 'src/index.ts', testing: 'src/testing/index.ts', worker: 'src/workers/worker.ts' },
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
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
await cp('dist/types', 'dist/types-cjs', { recursive: true });
await writeFile('dist/types-cjs/package.json', '{ "type": "commonjs" }\n');
