// No file in src/ over 400 lines (CONTRIBUTING.md, "Layout"): a file that grows past it is split into
// modules of one job each before it lands.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const MAX_LINES = 400;
const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Lines as an editor counts them: a final newline ends the last line rather than starting one. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

t.test('the line count is what wc -l says for a file ending in a newline', async (t) => {
  t.equal(lineCount('a\nb\n'), 2);
  t.equal(lineCount('a\nb'), 2);
  t.equal(lineCount(`${'x\n'.repeat(401)}`), 401);
});

t.test(`no file in src/ is over ${MAX_LINES} lines`, async (t) => {
  const files = sources(join(root, 'src'));
  t.ok(files.length > 200, `src/ holds its ${files.length} TypeScript files`);
  const over = files
    .map((file) => ({ file: relative(root, file), lines: lineCount(readFileSync(file, 'utf8')) }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  t.same(over, [], 'split these into modules of one job each');
});
