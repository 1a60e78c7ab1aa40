// examples/hosts: the plain-hosts recipe. ssh-agents.mjs runs against a stand-in `ssh` that runs the
// remote command in a local shell (with a stand-in `salvo` that prints what it was given), which
// checks the shell quoting and that the token reaches the agent's environment through stdin, never
// through a command line. The GitHub Actions matrix workflow is checked by GitHub's own workflow
// parser and for the wiring no schema sees (agents = expect, the agents' URL and the token).
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import t from 'tap';
import { parse } from 'yaml';
import { root } from '../fixtures/cli.js';
// @ts-expect-error: a plain .mjs example without declarations
import { remoteCommand, runAgents } from '../../examples/hosts/ssh-agents.mjs';

const dir = join(root, 'examples', 'hosts');

t.test('ssh-agents.mjs: one agent per host, the token on stdin only, failures named', async (t) => {
  const bin = await mkdtemp(join(tmpdir(), 'salvo-hosts-'));
  t.teardown(() => rm(bin, { recursive: true, force: true }));
  const argvLog = join(bin, 'argv.log');
  // `ssh -o BatchMode=yes HOST COMMAND`: logs its argv, then runs COMMAND as the host's shell would.
  await writeFile(join(bin, 'ssh'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${argvLog}'\nexport FAKE_HOST="$3"\nexec sh -c "$4"\n`);
  await writeFile(
    join(bin, 'salvo'),
    `#!/bin/sh\necho "argv: $*"\necho "token: $SALVO_AGENT_TOKEN"\nif [ "$FAKE_HOST" = "down" ]; then exit 3; fi\n`,
  );
  await chmod(join(bin, 'ssh'), 0o755);
  await chmod(join(bin, 'salvo'), 0o755);

  const token = "s3cret 'quoted' $HOME";
  const coordinator = "http://coordinator.internal:7070/?a=1&b='x'";
  const out = new PassThrough();
  let printed = '';
  out.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const failed = await runAgents({ hosts: ['alpha', 'user@beta', 'down'], coordinator, token, ssh: join(bin, 'ssh'), salvo: join(bin, 'salvo'), out });
  t.same(failed, ['down'], 'the host whose agent failed, by name');
  for (const host of ['alpha', 'user@beta', 'down']) {
    t.match(printed, `[${host}] argv: agent ${coordinator} --once`, `${host}: the coordinator URL as one word, --once`);
    t.match(printed, `[${host}] token: ${token}`, `${host}: the token reached the agent's environment intact`);
  }
  const argv = await readFile(argvLog, 'utf8');
  t.equal(argv.split('\n').filter((line) => line === 'BatchMode=yes').length, 3, 'three ssh sessions, none that can ask for a password');
  t.notOk(argv.includes('s3cret'), 'the token is on no command line');
  t.notOk(remoteCommand(coordinator).includes('s3cret'));
  await t.rejects(runAgents({ hosts: ['alpha'], coordinator, token: 'two\nlines', ssh: join(bin, 'ssh') }), /one line/);
});

function workflowErrors(name: string, content: string): string[] {
  const result = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  return result.context.errors.getErrors().map((error) => error.message);
}

interface WorkflowJob {
  'runs-on': string[];
  needs?: unknown;
  env: Record<string, string | number>;
  strategy?: { 'fail-fast'?: boolean; 'max-parallel'?: number; matrix: { agent: number[] } };
  steps: { run?: string; uses?: string }[];
}

t.test('the CI matrix workflow is valid, and its agents are the coordinator\'s, on its port, with its token', async (t) => {
  const content = await readFile(join(dir, 'github-workflow.yml'), 'utf8');
  t.same(workflowErrors('github-workflow.yml', content), []);
  t.match(workflowErrors('bad.yml', content.replace('fail-fast: false', 'fail-fast: false\n      bogus-key: 1')), [/bogus-key/], 'the parser is not vacuous');

  const { jobs } = parse(content) as { jobs: { coordinator: WorkflowJob; agents: WorkflowJob } };
  const { coordinator, agents } = jobs;
  t.equal(agents.strategy!.matrix.agent.length, Number(coordinator.env.SALVO_AGENTS), 'as many agent jobs as the coordinator expects');
  t.equal(agents.needs, undefined, 'agents run beside the coordinator, not after it');
  t.equal(coordinator.needs, undefined);
  t.equal(agents.strategy!['fail-fast'], false, 'one lost agent does not cancel the others');
  t.ok((agents.strategy!['max-parallel'] ?? Infinity) >= agents.strategy!.matrix.agent.length, 'every agent at once');

  const agentRun = agents.steps.find((step) => step.run?.includes('salvo agent'))!.run!;
  const url = new URL(/salvo agent (\S+)/.exec(agentRun)![1]!);
  t.equal(url.port, String(coordinator.env.SALVO_LISTEN).split(':')[1], 'the agents dial the port the coordinator listens on');
  t.match(agentRun, /--once$/);
  const coordinatorRun = coordinator.steps.at(-1)!.run!;
  t.equal(coordinatorRun, 'node examples/kubernetes/coordinator.mjs', 'the same coordinator script as the Kubernetes recipe');
  await t.resolves(readFile(join(root, 'examples', 'kubernetes', 'coordinator.mjs')));
  t.equal(coordinator.env.SALVO_AGENT_TOKEN, '${{ secrets.SALVO_AGENT_TOKEN }}', 'the token from a secret');
  t.equal(agents.env.SALVO_AGENT_TOKEN, coordinator.env.SALVO_AGENT_TOKEN, 'the same secret on both sides');
  t.notOk(/salvo agent .*--token /.test(agentRun), 'never on the command line');
});
