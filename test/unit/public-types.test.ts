// Every type that a public function takes or returns, at any depth, is exported from the entry that
// exports the function: a user can name what they hold (`PhaseHistograms` of `result.phaseHistograms`
// was not). Reads the built declarations (npm test builds dist/ before tap runs).
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

const entries = ['index', 'testing/index', 'gate/index', 'report/index'].map((entry) => fileURLToPath(new URL(`../../dist/types/${entry}.d.ts`, import.meta.url)));
const program = ts.createProgram(entries, { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext });
const checker = program.getTypeChecker();

const exportsOf = (entry: string) => checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!);

/**
 * The named types reachable from `entry`'s exports that neither `entry` nor `also` (the package
 * root, for a subpath: `salvo/gate` takes the `LoadResult` that `salvo` exports) exports.
 */
function unexported(entry: string, also?: string): string[] {
  const exports = exportsOf(entry);
  const exported = new Set([...exports, ...(also === undefined ? [] : exportsOf(also))].map((symbol) => symbol.name));
  const seen = new Set<ts.Symbol>();
  const missing: string[] = [];
  const resolve = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const visitNode = (node: ts.Node, from: string): void => {
    if (ts.isTypeReferenceNode(node)) {
      const symbol = checker.getSymbolAtLocation(node.typeName);
      if (symbol !== undefined) visitSymbol(resolve(symbol), from);
    }
    ts.forEachChild(node, (child) => visitNode(child, from));
  };
  const visitSymbol = (symbol: ts.Symbol, from: string): void => {
    if (seen.has(symbol)) return;
    seen.add(symbol);
    for (const declaration of symbol.declarations ?? []) {
      // Node's and the dependencies' own types are theirs to export.
      if (!declaration.getSourceFile().fileName.includes('/dist/types/')) return;
      const named = ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration) || ts.isEnumDeclaration(declaration);
      if (named && !exported.has(symbol.name)) missing.push(`${symbol.name} (in ${from})`);
      visitNode(declaration, symbol.name);
    }
  };
  for (const symbol of exports) visitSymbol(resolve(symbol), symbol.name);
  return missing;
}

for (const [name, entry, also] of [['salvo', entries[0]!], ['salvo/testing', entries[1]!], ['salvo/gate', entries[2]!, entries[0]!], ['salvo/report', entries[3]!, entries[0]!]] as const) {
  t.test(`${name}: every type its exports use is exported${also === undefined ? '' : ' (or the root exports it)'}`, async (t) => {
    const missing = unexported(entry, also);
    t.same(missing, [], missing.join(', '));
  });
}
