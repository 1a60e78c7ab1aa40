import { defineConfig } from 'tsup';

// Dual build: ESM (.js) and CommonJS (.cjs) with types for both. The worker entry is its own entry
// point so piscina can load it by path from either build.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    worker: 'src/workers/worker.ts',
  },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' } },
  shims: true,
  splitting: false,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
