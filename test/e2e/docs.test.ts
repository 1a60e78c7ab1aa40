// Every code block and relative link of README.md, CONTRIBUTING.md, CHANGELOG.md and docs/*.md,
// checked so that the documentation cannot drift from the API (CONTRIBUTING.md, "Code blocks", says
// how a block is marked): js/ts blocks type-checked against the built package's types, as a user's
// project sees them, and those marked `run` run against the test server; the salvo command lines of
// sh blocks parsed by the command's own flag parsers; JSON parsed.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import ts from 'typescript';
import { COMMANDS } from '../../src/cli/commands.js';
import { parseRunFlags } from '../../src/cli/run-flags.js';
import { createTestServer } from '../../src/testing/index.js';
import { documentationFiles, parseMarkdown, salvoCommands, type CodeBlock } from '../fixtures/markdown.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const CHECKED = new Set(['js', 'ts', 'sh', 'json']);
const UNCHECKED = new Set(['text', 'promql', 'yaml']);
const where = (block: { file: string; line: number }) => `${block.file}:${block.line}`;

/** One failure per problem, each a line of its own; one pass when there are none. */
function report(t: Test, problems: string[], checked: string): void {
  for (const problem of problems) t.fail(problem);
  if (problems.length === 0) t.pass(checked);
}

const pages = documentationFiles(root).map((file) => ({ file, ...parseMarkdown(root, file) }));
const blocks = pages.flatMap((page) => page.blocks);

t.test('every code block names a language the test knows, and every marker comment precedes a fence', async (t) => {
  const problems: string[] = [];
  for (const block of blocks) {
    if (!CHECKED.has(block.lang) && !UNCHECKED.has(block.lang)) {
      problems.push(`${where(block)}: a block in \`\`\`${block.lang || '(no language)'}: use js, ts, sh, json, or text for output (see CONTRIBUTING.md, "Code blocks")`);
    }
    if (block.marker === 'run' && block.lang !== 'js') problems.push(`${where(block)}: only js blocks can be run`);
  }
  for (const page of pages) for (const line of page.strayMarkers) problems.push(`${page.file}:${line}: a <!-- docs: ... --> marker must be the line before a fence`);
  report(t, problems, `${blocks.length} blocks`);
});

t.test('relative links point at files and headings that exist', async (t) => {
  const problems: string[] = [];
  let count = 0;
  const anchors = new Map(pages.map((page) => [resolve(root, page.file), page.anchors]));
  for (const page of pages) {
    for (const { target, line } of page.links) {
      count++;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? resolve(root, page.file) : resolve(root, dirname(page.file), decodeURIComponent(path));
      if (!existsSync(file)) {
        problems.push(`${page.file}:${line}: ${target}: no such file`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      const known = anchors.get(file) ?? (file.endsWith('.md') ? parseMarkdown(root, file.slice(root.length)).anchors : undefined);
      if (known !== undefined && !known.has(anchor)) problems.push(`${page.file}:${line}: ${target}: no heading with that anchor`);
    }
  }
  report(t, problems, `${count} links`);
});

t.test('JSON blocks parse', async (t) => {
  const problems: string[] = [];
  const json = blocks.filter((b) => b.lang === 'json' && b.marker !== 'skip');
  for (const block of json) {
    try {
      JSON.parse(block.code);
    } catch (error) {
      problems.push(`${where(block)}: ${(error as Error).message}`);
    }
  }
  report(t, problems, `${json.length} JSON blocks`);
});

t.test('salvo command lines in sh blocks are accepted by the command', async (t) => {
  const silent = { write: () => true } as unknown as NodeJS.WritableStream;
  const problems: string[] = [];
  let count = 0;
  for (const block of blocks.filter((b) => b.lang === 'sh' && b.marker !== 'skip')) {
    for (const args of salvoCommands(block.code)) {
      count++;
      const line = `${where(block)}: salvo ${args.join(' ')}`;
      const command = COMMANDS.find((candidate) => candidate.name === args[0]);
      try {
        if (command === undefined) parseRunFlags(args);
        // A subcommand parses every flag strictly before it looks at --help.
        else await command.run([...args.slice(1), '--help'], { stdout: silent, stderr: silent });
      } catch (error) {
        problems.push(`${line}\n  ${(error as Error).message}`);
      }
    }
  }
  report(t, problems, `${count} salvo command lines`);
});

/** A block as a TypeScript source: CommonJS `require`s as imports of a .cts file, `given` names declared. */
function asSource(block: CodeBlock): { name: string; text: string; prefix: number } {
  const commonjs = /\brequire\(/.test(block.code) && !/^\s*import\s/m.test(block.code);
  let code = block.code;
  if (commonjs) {
    code = code.replace(/^(\s*)const\s+(\{[^}]*\}|[\w$]+)\s*=\s*require\(('[^']+')\);?/gm, (_, indent: string, names: string, spec: string) =>
      names.startsWith('{') ? `${indent}import ${names.replace(/(\w+)\s*:\s*(\w+)/g, '$1 as $2')} from ${spec};` : `${indent}import ${names} = require(${spec});`,
    );
  }
  const declarations = block.given.map((given) => `declare const ${given};`);
  const base = `${block.file.replace(/[/.]/g, '_')}_${block.line}`;
  return { name: join(root, '.docs-check', `${base}.${commonjs ? 'cts' : 'mts'}`), text: [...declarations, code].join('\n'), prefix: declarations.length };
}

// Test frameworks' globals as the README's recipes use them (node:test is imported, not global).
const GLOBALS = `
interface MochaContext { timeout(ms: number): void }
declare function describe(name: string, fn: (this: MochaContext) => void): void;
declare function it(name: string, fn: (this: MochaContext) => unknown): void;
declare function before(fn: (this: MochaContext) => unknown): void;
declare function after(fn: (this: MochaContext) => unknown): void;
declare function test(name: string, fn: () => unknown, timeout?: number): void;
declare function expect(value: unknown): { toBe(expected: unknown): void; toEqual(expected: unknown): void; toBeLessThan(n: number): void };
`;

t.test('js and ts blocks type-check against the built package', async (t) => {
  if (!existsSync(join(root, 'dist/types/index.d.ts'))) return t.fail('dist/ is not built: npm run build');
  const sources = blocks.filter((b) => (b.lang === 'js' || b.lang === 'ts') && b.marker !== 'skip').map((block) => ({ block, ...asSource(block) }));
  const globals = join(root, '.docs-check', 'globals.d.ts');
  const virtual = new Map([[globals, GLOBALS], ...sources.map((source) => [source.name, source.text] as const)]);
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    moduleDetection: ts.ModuleDetectionKind.Force,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noImplicitAny: false,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
  host.directoryExists = (name) => name === join(root, '.docs-check') || (directoryExists?.call(host, name) ?? true);
  host.getSourceFile = (name, version, ...rest) => {
    const text = virtual.get(name);
    return text === undefined ? getSourceFile.call(host, name, version, ...rest) : ts.createSourceFile(name, text, version, true);
  };
  const program = ts.createProgram([globals, ...sources.map((source) => source.name)], options, host);
  const byName = new Map(sources.map((source) => [source.name, source]));
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
    const source = diagnostic.file && byName.get(diagnostic.file.fileName);
    if (source === undefined || diagnostic.start === undefined) return `${diagnostic.file?.fileName ?? ''}: ${text}`;
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start);
    return `${source.block.file}:${source.block.line + line - source.prefix}: ${text}`;
  });
  report(t, problems, `${sources.length} js and ts blocks`);
});

t.test('blocks marked run run against the test server', async (t) => {
  const server = await createTestServer({ delayMs: 1 });
  t.teardown(() => server.close());
  // A project of its own with salvo in node_modules, as a user's is.
  const project = mkdtempSync(join(tmpdir(), 'salvo-docs-'));
  t.teardown(() => rmSync(project, { recursive: true, force: true }));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(root, join(project, 'node_modules', 'salvo'), 'dir');
  const origin = new URL(server.url).origin;
  for (const block of blocks.filter((b) => b.marker === 'run')) {
    const commonjs = /\brequire\(/.test(block.code) && !/^\s*import\s/m.test(block.code);
    const file = join(project, `${block.file.replace(/[/.]/g, '_')}_${block.line}.${commonjs ? 'cjs' : 'mjs'}`);
    writeFileSync(file, block.code.replaceAll('http://127.0.0.1:3000', origin));
    await run(process.execPath, [file], { cwd: project, timeout: 30_000 }).then(
      () => t.pass(where(block)),
      (error: Error & { stderr?: string }) => t.fail(`${where(block)} failed: ${error.stderr || error.message}`),
    );
  }
});
