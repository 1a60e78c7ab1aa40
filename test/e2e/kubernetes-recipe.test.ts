// examples/kubernetes: the coordinated run's objects (agents' Indexed Job, coordinator Job, Service,
// NetworkPolicy, Secret) are checked against the Kubernetes API schemas (kubernetes-models'
// validate), their field names against the API types (tsc on manifests.mjs), and their wiring, which
// no schema sees: the agents find the coordinator, count as many as it expects, and hold the token
// only by reference. No cluster is needed.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { Job, type IJob } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy, type INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { Secret, type ISecret } from 'kubernetes-models/v1/Secret';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import type { IContainer } from 'kubernetes-models/v1/Container';
// @ts-expect-error: a plain .mjs example without declarations
import { AGENT_FATAL_EXIT_CODES, asList, fleetManifests } from '../../examples/kubernetes/manifests.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = join(root, 'examples', 'kubernetes');

interface Built {
  secret: ISecret | undefined;
  coordinator: IJob;
  service: IService;
  networkPolicy: INetworkPolicy;
  agents: IJob;
}

function build(spec: Record<string, unknown>): Built {
  const objects = fleetManifests({ image: 'registry.example.com/salvo-load:1', ...spec }) as Record<string, { toJSON(): unknown } | undefined>;
  const json = <T>(key: string): T => objects[key]?.toJSON() as T;
  return { secret: json('secret'), coordinator: json('coordinator'), service: json('service'), networkPolicy: json('networkPolicy'), agents: json('agents') };
}

const containerOf = (job: IJob): IContainer => job.spec!.template.spec!.containers[0]!;
const envOf = (container: IContainer, name: string) => container.env!.find((entry) => entry.name === name);
const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

t.test('every object is valid against its API schema, and the schema checks what the recipe relies on', async (t) => {
  const built = build({ agents: 8 });
  t.doesNotThrow(() => new Secret(built.secret!).validate(), 'v1 Secret');
  t.doesNotThrow(() => new Service(built.service).validate(), 'v1 Service');
  t.doesNotThrow(() => new NetworkPolicy(built.networkPolicy).validate(), 'networking.k8s.io/v1 NetworkPolicy');
  t.doesNotThrow(() => new Job(built.coordinator).validate(), 'batch/v1 Job (coordinator)');
  t.doesNotThrow(() => new Job(built.agents).validate(), 'batch/v1 Job (agents)');
  // Not vacuous: the schemas reject a wrong podFailurePolicy action, a per-index limit that is not a
  // number, a Service port that is not one, and a Secret value that is not a string.
  const policy = built.agents.spec!.podFailurePolicy!;
  t.throws(() => new Job({ ...built.agents, spec: { ...built.agents.spec!, podFailurePolicy: { rules: [{ ...policy.rules[0]!, action: 'Retry' as 'Ignore' }] } } }).validate(), /action/);
  t.throws(() => new Job({ ...built.agents, spec: { ...built.agents.spec!, backoffLimitPerIndex: '1' as unknown as number } }).validate(), /backoffLimitPerIndex/);
  t.throws(() => new Service({ ...built.service, spec: { ...built.service.spec!, ports: [{ port: 'x' as unknown as number }] } }).validate(), /port/);
  t.throws(() => new Secret({ ...built.secret!, stringData: { token: 1 as unknown as string } }).validate(), /stringData/);
  t.throws(() => fleetManifests({ image: 'x', agents: 2.5 }), /completions must be integer/, 'a wrong value fails at build time');
  // The API server's own rule for names, which the schemas leave out: the Service's is a host name.
  t.throws(() => fleetManifests({ image: 'x', agents: 2, name: 'Load_Test' }), /name "Load_Test" must be lowercase/);
  t.throws(() => fleetManifests({ image: 'x', agents: 2, name: 'a'.repeat(52) }), /at most 51/);
  t.doesNotThrow(() => fleetManifests({ image: 'x', agents: 2, name: 'a'.repeat(51) }));
});

t.test('the agents are as many as the coordinator expects, one Indexed Job', async (t) => {
  const { coordinator, agents } = build({ agents: 8, tolerateLost: 1 });
  t.equal(agents.spec!.completionMode, 'Indexed');
  t.equal(agents.spec!.completions, 8);
  t.equal(agents.spec!.parallelism, 8, 'all at once: the coordinator waits for every one');
  t.equal(envOf(containerOf(coordinator), 'SALVO_AGENTS')!.value, '8', 'expect = completions');
  t.equal(envOf(containerOf(coordinator), 'SALVO_TOLERATE_LOST')!.value, '1');
  t.equal(coordinator.spec!.backoffLimit, 0, 'never a second coordinator');
});

t.test('the agents reach the coordinator through the Service, on the port it listens on', async (t) => {
  const { coordinator, service, networkPolicy, agents } = build({ agents: 4, name: 'orders', port: 9100 });
  const coordinatorPod = coordinator.spec!.template;
  const agentPod = agents.spec!.template;
  const selector = service.spec!.selector!;
  t.ok(matches(selector, coordinatorPod.metadata!.labels), 'the Service selects the coordinator pod');
  t.notOk(matches(selector, agentPod.metadata!.labels), 'and not the agents');

  const [servicePort] = service.spec!.ports!;
  const containerPort = containerOf(coordinator).ports!.find((port) => port.name === servicePort!.targetPort);
  t.ok(containerPort, 'the Service targets a named port of the coordinator container');
  const listen = envOf(containerOf(coordinator), 'SALVO_LISTEN')!.value!;
  t.equal(listen, '0.0.0.0:9100', 'listens on every interface of the pod');
  t.equal(containerPort!.containerPort, Number(listen.split(':')[1]), 'the port it listens on');

  const command = containerOf(agents).command!;
  t.same(command.slice(0, 2), ['salvo', 'agent']);
  t.ok(command.includes('--once'), 'an agent exits after its run, so the Job completes');
  const url = new URL(command[2]!);
  t.equal(url.hostname, service.metadata!.name, 'the URL names the Service');
  t.equal(Number(url.port), servicePort!.port, 'and its port');
  t.equal(url.hostname, 'orders-coordinator');

  t.ok(matches(networkPolicy.spec!.podSelector.matchLabels!, coordinatorPod.metadata!.labels), 'the policy guards the coordinator');
  const [rule] = networkPolicy.spec!.ingress!;
  t.ok(matches(rule!.from![0]!.podSelector!.matchLabels!, agentPod.metadata!.labels), 'and lets the agents in');
  t.notOk(matches(rule!.from![0]!.podSelector!.matchLabels!, coordinatorPod.metadata!.labels));
  t.same(rule!.ports, [{ port: 9100, protocol: 'TCP' }], 'on the agents port only');
  for (const pod of [coordinatorPod, agentPod]) t.equal(pod.spec!.enableServiceLinks, false, 'no SALVO_COORDINATOR_* variables from the Service');
});

t.test('the token: one Secret, referenced by both sides, never a plain value', async (t) => {
  const token = 'a-token-that-must-stay-secret';
  const built = build({ agents: 3, token });
  const { secret, coordinator, agents } = built;
  for (const [side, job] of [['coordinator', coordinator], ['agents', agents]] as const) {
    const ref = envOf(containerOf(job), 'SALVO_AGENT_TOKEN')!;
    t.equal(ref.value, undefined, `${side}: no plain value`);
    t.equal(ref.valueFrom!.secretKeyRef!.name, secret!.metadata!.name, `${side}: the Secret's name`);
    t.equal(secret!.stringData![ref.valueFrom!.secretKeyRef!.key], token, `${side}: a key the Secret has`);
    t.notOk(JSON.stringify(job).includes(token), `${side}: the token appears nowhere in the Job`);
    t.notOk(containerOf(job).env!.some((entry) => entry.value?.includes(token)));
  }
  for (const object of [built.service, built.networkPolicy]) t.notOk(JSON.stringify(object).includes(token));
  t.not(build({ agents: 3 }).secret!.stringData!.token, build({ agents: 3 }).secret!.stringData!.token, 'a fresh random token each time');

  const existing = build({ agents: 3, existingSecret: { name: 'load-token', key: 'agents' } });
  t.equal(existing.secret, undefined, 'a Secret you manage is referenced, not made');
  t.same(envOf(containerOf(existing.agents), 'SALVO_AGENT_TOKEN')!.valueFrom, { secretKeyRef: { name: 'load-token', key: 'agents' } });
  t.same(envOf(containerOf(existing.coordinator), 'SALVO_AGENT_TOKEN')!.valueFrom, { secretKeyRef: { name: 'load-token', key: 'agents' } });
});

t.test('lost agents: Kubernetes replaces them sensibly (rules the API server checks and the schema does not)', async (t) => {
  const { agents } = build({ agents: 4, retriesPerAgent: 2 });
  const spec = agents.spec!;
  t.equal(spec.template.spec!.restartPolicy, 'Never', 'podFailurePolicy requires restartPolicy Never');
  t.equal(spec.podReplacementPolicy, 'Failed', 'a replacement waits for the old pod to end: never two agents of one index');
  t.equal(spec.backoffLimitPerIndex, 2, 'each agent has its own retries');
  t.equal(spec.maxFailedIndexes, undefined, 'the coordinator, not the Job, decides whether a run goes on without an agent');
  t.equal(spec.backoffLimit, undefined, 'backoffLimitPerIndex replaces it');
  const [ignore, fail] = spec.podFailurePolicy!.rules;
  t.same(ignore, { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }, 'an evicted or preempted agent is replaced without counting');
  t.equal(fail!.action, 'FailJob');
  t.equal(fail!.onExitCodes!.containerName, containerOf(agents).name, 'the rule names the agent container');
  t.same(fail!.onExitCodes!.values, AGENT_FATAL_EXIT_CODES);
  t.ok(fail!.onExitCodes!.values.includes(2), 'bad flags (exit 2, `salvo` usage) stop every agent instead of retrying');
  t.notOk(fail!.onExitCodes!.values.includes(0), 'the API server rejects 0 in an `In` exit-code rule');
  t.ok(spec.activeDeadlineSeconds! > 0, 'a replacement that outlives the coordinator ends at the deadline');
  t.equal(spec.template.spec!.topologySpreadConstraints![0]!.topologyKey, 'kubernetes.io/hostname', 'one agent per node where possible');
  const resources = containerOf(agents).resources!;
  t.same(resources.requests!.cpu, resources.limits!.cpu, 'Guaranteed QoS: requests = limits');
});

t.test('the coordinator script reads what its Job sets, and the image holds it', async (t) => {
  const { coordinator } = build({ agents: 2 });
  const container = containerOf(coordinator);
  t.same(container.command, ['node', 'coordinator.mjs']);
  const script = await readFile(join(dir, 'coordinator.mjs'), 'utf8');
  const required = [...script.matchAll(/required\('(\w+)'\)/g)].map(([, name]) => name!);
  t.same(required.sort(), ['SALVO_AGENTS', 'SALVO_AGENT_TOKEN', 'SALVO_LISTEN']);
  for (const name of required) t.ok(envOf(container, name), `the Job sets ${name}`);
  t.match(script, /agents: \{\s*expect: Number\(required\('SALVO_AGENTS'\)\),\s*listen: required\('SALVO_LISTEN'\),\s*token: required\('SALVO_AGENT_TOKEN'\)/);
  const dockerfile = await readFile(join(dir, 'Dockerfile'), 'utf8');
  t.match(dockerfile, /^COPY coordinator\.mjs \.\/$/m);
  t.match(dockerfile, /^ENV PATH=\/app\/node_modules\/\.bin:\$PATH$/m, 'the agents\' `salvo` command is on the PATH');
});

t.test('manifests.mjs prints one List that kubectl applies, the Secret first', async (t) => {
  const { stdout } = await run(process.execPath, [join(dir, 'manifests.mjs'), '--image', 'x', '--agents', '5', '--port', '7171'], { cwd: root });
  const list = JSON.parse(stdout) as { kind: string; items: { kind: string; metadata: { name: string } }[] };
  t.equal(list.kind, 'List');
  t.same(list.items.map(({ kind, metadata }) => `${kind}/${metadata.name}`), [
    'Secret/salvo-agent-token',
    'Service/salvo-coordinator',
    'NetworkPolicy/salvo-coordinator',
    'Job/salvo-coordinator',
    'Job/salvo-agents',
  ]);
  const agents = list.items[4] as unknown as IJob;
  t.equal(agents.spec!.completions, 5);
  t.equal(containerOf(agents).command![2], 'ws://salvo-coordinator:7171');
  t.same(asList(fleetManifests({ image: 'x', agents: 1, existingSecret: { name: 's', key: 'k' } })).items.map((item: { kind: string }) => item.kind), ['Service', 'NetworkPolicy', 'Job', 'Job']);
  const usage = await run(process.execPath, [join(dir, 'manifests.mjs')], { cwd: root }).catch((error: { code: number; stderr: string }) => error);
  t.match(usage, { code: 2, stderr: /usage: manifests\.mjs --image IMAGE/ });
});

t.test('manifests.mjs type-checks against the Kubernetes API types (a misspelt field fails)', async (t) => {
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  const { stdout } = await run(process.execPath, [tsc, '-p', 'examples/kubernetes'], { cwd: root });
  t.equal(stdout, '', 'no type errors');
});
