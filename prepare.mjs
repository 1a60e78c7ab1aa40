// npm's `prepare`: builds dist/ (which git ignores) wherever salvo is installed from source: `npm ci`
// in a checkout, `npm pack`, `npm install <git url>` (npm installs the devDependencies that the
// build needs into its clone first) and `npm install <path>` (npm links the checkout and runs this
// there). A dist/ newer than every source file is kept, so linked installs (examples/) do not
// rebuild it each time.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const sources = ['src', 'build.mjs', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
if (existsSync('dist/index.js') && statSync('dist/index.js').mtimeMs > Math.max(...sources.map(newest))) process.exit(0);
try {
  await import('esbuild');
} catch {
  console.error(
    `salvo: building dist/ needs salvo's devDependencies, which ${process.cwd()} lacks: run \`npm ci\` there first ` +
      '(an install from a path links that checkout and builds it in place).',
  );
  process.exit(1);
}
await import('./build.mjs');
