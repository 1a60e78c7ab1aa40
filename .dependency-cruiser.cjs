// The layers of src/, bottom to top; CONTRIBUTING.md "Layout" says the same in words. A file imports
// only its own layer and the layers below it (type-only imports too); `npm run layers` checks it.
const LAYERS = [
  ['shared', '^src/shared/'],
  ['recording', '^src/stats/'],
  ['codecs', '^src/(http1|http2|socketio)/'],
  ['transports', '^src/transports/'],
  ['runner', '^src/runner/'],
  ['protocols', '^src/(engine|websocket|tasks)/'],
  ['outputs', '^src/outputs/'],
  ['run', '^src/(workers/|monitor/|agents/|run\\.ts$|start-load\\.ts$|options\\.ts$|option-values\\.ts$|option-modules\\.ts$|segment-options\\.ts$|scenarios\\.ts$)'],
  ['features', '^src/(compare|capacity|report|gate|live)/'],
  ['api', '^src/index\\.ts$'],
  ['cli', '^src/cli/'],
];
const TESTING = '^src/testing/';

const upward = LAYERS.slice(0, -1).map(([name, path], i) => ({
  name: `${name}-imports-up`,
  comment: `${name} imports only ${LAYERS.slice(0, i).map(([below]) => below).join(', ') || 'itself'}`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(i + 1).map(([, above]) => `(${above})`).join('|') },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'runner-knows-no-wire',
      comment: 'the per-thread lifecycle is the same for every protocol: it imports no codec and no transport',
      severity: 'error',
      from: { path: '^src/runner/' },
      to: { path: '^src/(http1|http2|transports)/' },
    },
    {
      name: 'protocols-apart',
      comment: 'a protocol builds on the runner and the transports, never on another protocol',
      severity: 'error',
      from: { path: '^src/(engine|websocket|tasks)/' },
      to: { path: '^src/(engine|websocket|tasks)/', pathNot: ['^src/$1/'] },
    },
    {
      name: 'cli-through-index',
      comment: 'the CLI uses the library as its users do, through its entry points: src/index.ts, src/gate/index.ts, src/report/index.ts (dist/cli.js imports dist/index.js, gate.js and report.js and bundles no second copy)',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: {
        path: '^src/',
        pathNot: ['^src/cli/', '^src/index\\.ts$', '^src/(gate|report)/index\\.ts$'],
      },
    },
    {
      name: 'testing-stands-alone',
      comment: 'salvo/testing (the test servers) imports only itself and shared',
      severity: 'error',
      from: { path: TESTING },
      to: { path: '^src/', pathNot: [TESTING, LAYERS[0][1]] },
    },
    {
      name: 'library-not-testing',
      comment: 'salvo/testing (the test servers) is for tests: no library code imports it',
      severity: 'error',
      from: { path: '^src/', pathNot: TESTING },
      to: { path: TESTING },
    },
    // A file of no layer is caught whichever way it is connected: by its imports, by a file that
    // imports it, or, importing nothing and imported by nothing, as an orphan.
    {
      name: 'in-a-layer',
      comment: 'every file of src/ belongs to a layer (add a new folder to LAYERS and to the Layout of CONTRIBUTING.md)',
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.map(([, path]) => path), TESTING] },
      to: {},
    },
    {
      name: 'in-a-layer-imported',
      comment: 'every file of src/ belongs to a layer (add a new folder to LAYERS and to the Layout of CONTRIBUTING.md)',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: [...LAYERS.map(([, path]) => path), TESTING] },
    },
    {
      name: 'in-a-layer-orphan',
      comment: 'every file of src/ belongs to a layer (add a new folder to LAYERS and to the Layout of CONTRIBUTING.md)',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: [...LAYERS.map(([, path]) => path), TESTING, '\\.d\\.ts$'] },
      to: {},
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
