// Every error and warning code salvo's source can emit has a row in docs/errors-and-warnings.md.
// The source's codes are its string literals in UPPER_SNAKE_CASE (`'TIMEOUT'`, `'SIO_BAD_PACKET'`)
// and the fixed heads of template literals that build codes (`H2_RST_${name}`, listed in the table
// as `H2_RST_<NAME>`); NOT_CODES lists the literals that are not codes salvo emits.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = 'docs/errors-and-warnings.md';

/**
 * UPPER_SNAKE_CASE literals in src/ that are not codes salvo emits, each with why. Lists of names
 * (three or more such literals as the elements of one array or the arguments of one call: HTTP/2's
 * error names, CI variables) and the `value` names of the CLI's flags are left out by the scan.
 */
const NOT_CODES: Record<string, string> = {
  // HTTP methods
  GET: 'method', HEAD: 'method', POST: 'method',
  // the CLI's run orders, its signal and parseArgs' error codes
  ABBA: 'run order', ABAB: 'run order', SIGINT: 'signal', SIGTERM: 'signal (salvo agent stops on it)',
  ERR_PARSE_ARGS: "node:util parseArgs' code, read by the CLI", ERR_PARSE_ARGS_UNKNOWN_OPTION: "node:util parseArgs' code, read by the CLI",
  // Node's and the libraries' codes that salvo reads (they are counted as given, in the table's second part)
  ECONNRESET: "Node's", EPIPE: "Node's", EMFILE: "Node's", ENFILE: "Node's", ENOENT: "Node's (a file the CLI reads)",
  EPROTO: "Node's (TLS)", ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL: "Node's (TLS without h2 by ALPN: H2_NOT_SUPPORTED)",
  UND_ERR_SOCKET: "undici's", UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "undici's",
  // other words
  SALVO_RAW_TCP: 'an environment variable', GITHUB_STEP_SUMMARY: 'an environment variable (the option a summary error names)',
  ENOTDIR: "Node's (a history folder that is a file)", TCP: "Node's handle type", SATURATED: 'a word of the report',
  RATE: 'a flag value name', CPU: 'a word of the report',
  TTFT: 'a word of the summary', ITL: 'a word of the summary', TPOT: 'a word of the summary',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Found {
  code: string;
  /** A template head (`H2_RST_`), matched by a table row `H2_RST_<...>`. */
  prefix: boolean;
  at: string;
}

function isCodeLike(node: ts.Node): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral {
  return (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text.length >= 3 && /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(node.text);
}

/** An element of an array, or an argument of a call, beside two or more other code-like literals: a list of names. */
function inList(node: ts.Node): boolean {
  const parent = node.parent;
  const items = ts.isArrayLiteralExpression(parent) ? parent.elements : ts.isCallExpression(parent) ? parent.arguments : undefined;
  return items !== undefined && items.filter(isCodeLike).length >= 3;
}

/** `value: 'DIR'` in a flag's definition: the name of its value in --help. */
function isFlagValueName(node: ts.Node): boolean {
  return ts.isPropertyAssignment(node.parent) && node.parent.initializer === node && node.parent.name.getText() === 'value';
}

/** The source's code-like literals, where each is. */
function sourceCodes(): Found[] {
  const found: Found[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const at = () => `${relative(root, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
      if (isCodeLike(node) && !inList(node) && !isFlagValueName(node)) {
        found.push({ code: node.text, prefix: false, at: at() });
      } else if (ts.isTemplateExpression(node) && /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*_$/.test(node.head.text)) {
        found.push({ code: node.head.text, prefix: true, at: at() });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** The codes in the first column of every table on the page (`H2_RST_<NAME>` as written). */
function documentedCodes(): string[] {
  const codes: string[] = [];
  for (const line of readFileSync(join(root, PAGE), 'utf8').split('\n')) {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (cell !== undefined) for (const m of cell.matchAll(/`([A-Z][A-Z0-9_]*(?:<[^>]+>)?(?:_\*)?)`/g)) codes.push(m[1]!);
  }
  return codes;
}

const found = sourceCodes();

t.test(`every code the source can emit is in ${PAGE}`, async (t) => {
  const documented = documentedCodes();
  const exact = new Set(documented);
  const prefixes = documented.filter((code) => code.includes('<')).map((code) => code.slice(0, code.indexOf('<')));
  const covered = ({ code, prefix }: Found) => (prefix ? prefixes.includes(code) : exact.has(code) || prefixes.some((head) => code.startsWith(head)));
  const missing = found.filter((found) => !(found.code in NOT_CODES) && !covered(found));
  for (const { code, prefix, at } of missing) {
    t.fail(
      `${at}: ${prefix ? `codes built as ${code}\${...}` : `'${code}'`} not in ${PAGE}. A code salvo counts in errors.byCode ` +
        `goes in the table under "salvo's own codes", a warning code in the table under "Warnings" (the first column, in backticks; ` +
        `a built code as ${prefix ? `${code}<NAME>` : 'PREFIX_<NAME>'}). A literal that is not a code salvo emits goes in NOT_CODES in test/error-codes.test.ts, with why.`,
    );
  }
  if (missing.length === 0) t.pass(`${documented.length} documented codes cover the source`);
});

t.test('the scan finds the codes it should (it is not looking at nothing)', async (t) => {
  const codes = new Set(found.map(({ code }) => code));
  for (const code of ['TIMEOUT', 'ECONNCLOSED', 'SIO_BAD_PACKET', 'GENERATOR_SATURATED', 'SALVO_INVALID_OPTION', 'H2_RST_']) t.ok(codes.has(code), code);
});

t.test('every NOT_CODES entry is still in the source', async (t) => {
  const codes = new Set(found.map(({ code }) => code));
  const stale = Object.keys(NOT_CODES).filter((code) => !codes.has(code));
  t.same(stale, [], 'entries no source literal has any more: remove them from NOT_CODES');
});
