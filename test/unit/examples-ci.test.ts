// The CI files of examples/ci-gate, which cannot run here: the GitHub Actions workflow checked by
// GitHub's own workflow parser and its schema (@actions/workflow-parser); the GitLab job parsed as
// YAML and checked against what gate.mjs writes (no npm package ships GitLab's CI schema on its own:
// gitlab-ci-local bundles it inside its CLI, which needs Node 22 or Bun).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import t from 'tap';
import { parse } from 'yaml';
import { root } from '../fixtures/cli.js';

const dir = join(root, 'examples', 'ci-gate');

function workflowErrors(name: string, content: string): string[] {
  const result = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  return result.context.errors.getErrors().map((error) => error.message);
}

t.test('the GitHub Actions workflow is valid against GitHub\'s workflow schema, and runs the gate', async (t) => {
  const content = await readFile(join(dir, 'github-workflow.yml'), 'utf8');
  t.same(workflowErrors('github-workflow.yml', content), []);
  t.match(content, /run: node examples\/ci-gate\/gate\.mjs --url http:\/\/127\.0\.0\.1:3000\/ --id api/);
  t.match(content, /report_paths: reports\/junit\.xml/);
  // The parser does reject what the schema forbids: the check above is not vacuous.
  t.match(workflowErrors('bad.yml', content.replace('runs-on: ubuntu-latest', 'runs-on: ubuntu-latest\n    bogus-key: 1')), [/bogus-key/]);
});

t.test('the GitLab job collects the JUnit file and the reports the gate writes', async (t) => {
  const config = parse(await readFile(join(dir, 'gitlab-ci.yml'), 'utf8')) as Record<string, Record<string, unknown>>;
  const job = config['load-gate']!;
  t.same(config.stages, ['test']);
  t.match(job, {
    stage: 'test',
    script: ['npm ci', 'node examples/ci-gate/server.mjs &', 'node examples/ci-gate/gate.mjs --url http://127.0.0.1:3000/ --id api $GATE_FLAGS'],
    cache: { key: 'salvo-history', paths: ['.salvo-history/'], policy: '$HISTORY_POLICY' },
    artifacts: { when: 'always', paths: ['reports/'], reports: { junit: 'reports/junit.xml' } },
  });
  const gate = await readFile(join(dir, 'gate.mjs'), 'utf8');
  t.match(gate, "history: { type: 'string', default: '.salvo-history' }");
  t.match(gate, "out: { type: 'string', default: 'reports' }");
  t.match(gate, "join(values.out, 'junit.xml')");
});
