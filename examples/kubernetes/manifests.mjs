#!/usr/bin/env node
// The Kubernetes objects of one coordinated load test: N agent pods (an Indexed Job running
// `salvo agent`), the coordinator (a Job running your script, whose runLoad has `agents`), a Service
// the agents reach the coordinator by, a NetworkPolicy letting only those agents in, and the Secret
// holding the token both sides present. No operator, no CRD: core Kubernetes 1.29 or later.
//   node manifests.mjs --agents 8 --image registry.example.com/salvo-load:1 [--name salvo] [--port 7070]
//     [--script coordinator.mjs] [--tolerate-lost 0] [--agent-cpu 2] [--coordinator-cpu 1] [--deadline 7200]
//     [--existing-secret NAME[/KEY]] | kubectl apply -f -
// prints one `List` (JSON, which kubectl reads as YAML). Built with kubernetes-models: every object
// is validated against the API schema here and in salvo's tests, and tsc checks the field names.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';

/**
 * Exit statuses of `salvo agent` that no retry can mend (bad flags, an unreadable token file, a
 * coordinator that refused the token): the whole agents' Job fails at once instead of retrying.
 */
export const AGENT_FATAL_EXIT_CODES = [2];

/**
 * @typedef {object} FleetSpec
 * @property {string} image the image with salvo and your coordinator script (and its task module and data)
 * @property {number} agents how many agent pods: the coordinator's `agents.expect`
 * @property {string} [name] prefix of every object's name (`salvo`: `salvo-coordinator`, `salvo-agents`, ...)
 * @property {number} [port] the coordinator's agents port (`agents.listen`)
 * @property {string} [script] the coordinator's script in the image
 * @property {number} [tolerateLost] agents the run may lose and go on (`agents.tolerateLost`)
 * @property {number} [retriesPerAgent] how often a crashed agent pod is replaced (evictions are not counted)
 * @property {string} [agentCpu] CPUs of each agent pod (requests = limits: Guaranteed QoS)
 * @property {string} [coordinatorCpu] CPUs of the coordinator pod
 * @property {number} [deadlineSeconds] both Jobs end by then, whatever state they are in
 * @property {{ name: string, key: string }} [existingSecret] a Secret you manage; otherwise one is made with a random token
 * @property {string} [token] the token of the Secret made here (random when not given)
 */

/**
 * Builds and validates the objects of one coordinated run.
 * @param {FleetSpec} spec
 */
export function fleetManifests({
  image,
  agents,
  name = 'salvo',
  port = 7070,
  script = 'coordinator.mjs',
  tolerateLost = 0,
  retriesPerAgent = 1,
  agentCpu = '2',
  coordinatorCpu = '1',
  deadlineSeconds = 7200,
  existingSecret,
  token = randomBytes(32).toString('base64url'),
}) {
  // The Service's name becomes the agents' host name: a DNS label (RFC 1035) of at most 63
  // characters, which the schemas do not check and the API server does.
  if (!/^[a-z]([-a-z0-9]{0,49}[a-z0-9])?$/.test(name)) {
    throw new Error(`name ${JSON.stringify(name)} must be lowercase letters, digits and '-', start with a letter, at most 51 characters`);
  }
  const instance = { 'app.kubernetes.io/name': 'salvo', 'app.kubernetes.io/instance': name };
  const coordinatorLabels = { ...instance, 'app.kubernetes.io/component': 'coordinator' };
  const agentLabels = { ...instance, 'app.kubernetes.io/component': 'agent' };
  const secretRef = existingSecret ?? { name: `${name}-agent-token`, key: 'token' };
  // Both sides read the token from the Secret: it is never a plain value in a manifest or a command line.
  const tokenEnv = { name: 'SALVO_AGENT_TOKEN', valueFrom: { secretKeyRef: { name: secretRef.name, key: secretRef.key } } };
  const serviceName = `${name}-coordinator`;
  /** @type {{ restartPolicy: 'Never', enableServiceLinks: boolean }} */
  const common = {
    restartPolicy: 'Never',
    // A Service called salvo-coordinator would otherwise put SALVO_COORDINATOR_* variables in every pod.
    enableServiceLinks: false,
  };

  const secret =
    existingSecret === undefined
      ? new Secret({ metadata: { name: secretRef.name, labels: instance }, type: 'Opaque', stringData: { [secretRef.key]: token } })
      : undefined;

  const coordinator = new Job({
    metadata: { name: serviceName, labels: coordinatorLabels },
    spec: {
      // A second coordinator would start a second run with agents that already ran theirs (--once).
      backoffLimit: 0,
      activeDeadlineSeconds: deadlineSeconds,
      ttlSecondsAfterFinished: 24 * 3600,
      template: {
        metadata: { labels: coordinatorLabels },
        spec: {
          ...common,
          containers: [
            {
              name: 'coordinator',
              image,
              command: ['node', script],
              ports: [{ name: 'agents', containerPort: port, protocol: 'TCP' }],
              env: [
                { name: 'SALVO_AGENTS', value: String(agents) },
                { name: 'SALVO_LISTEN', value: `0.0.0.0:${port}` },
                { name: 'SALVO_TOLERATE_LOST', value: String(tolerateLost) },
                tokenEnv,
              ],
              resources: { requests: { cpu: coordinatorCpu, memory: '512Mi' }, limits: { cpu: coordinatorCpu, memory: '1Gi' } },
            },
          ],
        },
      },
    },
  });

  const service = new Service({
    metadata: { name: serviceName, labels: coordinatorLabels },
    spec: {
      type: 'ClusterIP',
      selector: coordinatorLabels,
      ports: [{ name: 'agents', port, targetPort: 'agents', protocol: 'TCP' }],
    },
  });

  // Only this run's agents may open the coordinator's port (where the CNI enforces NetworkPolicy;
  // the token is checked either way).
  const networkPolicy = new NetworkPolicy({
    metadata: { name: serviceName, labels: coordinatorLabels },
    spec: {
      podSelector: { matchLabels: coordinatorLabels },
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: { matchLabels: agentLabels } }], ports: [{ port, protocol: 'TCP' }] }],
    },
  });

  const agentsJob = new Job({
    metadata: { name: `${name}-agents`, labels: agentLabels },
    spec: {
      // Indexed: stable pod host names (salvo-agents-0, -1, ...), which name a lost agent in the result.
      completionMode: 'Indexed',
      completions: agents,
      parallelism: agents,
      // A crashed agent is replaced (it reconnects while the coordinator still waits for its agents;
      // once the run started, the coordinator has reported it lost and judges the run): per index,
      // so one flaky node does not use up the others' retries. No maxFailedIndexes: the coordinator,
      // not the Job, decides whether the run goes on without an agent.
      backoffLimitPerIndex: retriesPerAgent,
      // The replacement starts only after the old pod is gone: never two agents of one index at once.
      podReplacementPolicy: 'Failed',
      podFailurePolicy: {
        rules: [
          // Evicted, preempted, node drained: not the agent's fault, replaced without counting.
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
          { action: 'FailJob', onExitCodes: { containerName: 'agent', operator: 'In', values: AGENT_FATAL_EXIT_CODES } },
        ],
      },
      // A replacement keeps retrying a coordinator that has finished: the deadline ends it.
      activeDeadlineSeconds: deadlineSeconds,
      ttlSecondsAfterFinished: 24 * 3600,
      template: {
        metadata: { labels: agentLabels },
        spec: {
          ...common,
          // One generator per node where the cluster allows it, so they do not share a NIC or CPU.
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: agentLabels } },
          ],
          containers: [
            {
              name: 'agent',
              image,
              // Retries until the coordinator is up, runs the segment it is handed, exits after one run.
              command: ['salvo', 'agent', `ws://${serviceName}:${port}`, '--once'],
              env: [tokenEnv],
              // Guaranteed QoS: a throttled generator measures its own stalls as latency.
              resources: { requests: { cpu: agentCpu, memory: '512Mi' }, limits: { cpu: agentCpu, memory: '512Mi' } },
            },
          ],
        },
      },
    },
  });

  const objects = { secret, coordinator, service, networkPolicy, agents: agentsJob };
  for (const object of Object.values(objects)) object?.validate();
  return objects;
}

/**
 * The objects as one `List` for `kubectl apply -f -`, the Secret first.
 * @param {ReturnType<typeof fleetManifests>} objects
 */
export function asList({ secret, coordinator, service, networkPolicy, agents }) {
  const items = [secret, service, networkPolicy, coordinator, agents].filter((object) => object !== undefined);
  return { apiVersion: 'v1', kind: 'List', items: items.map((object) => object.toJSON()) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      agents: { type: 'string', default: '4' },
      image: { type: 'string' },
      name: { type: 'string', default: 'salvo' },
      port: { type: 'string', default: '7070' },
      script: { type: 'string', default: 'coordinator.mjs' },
      'tolerate-lost': { type: 'string', default: '0' },
      'agent-cpu': { type: 'string', default: '2' },
      'coordinator-cpu': { type: 'string', default: '1' },
      deadline: { type: 'string', default: '7200' },
      'existing-secret': { type: 'string' },
    },
  });
  if (values.image === undefined) {
    console.error('usage: manifests.mjs --image IMAGE [--agents 4] [--name salvo] [--port 7070] [--script coordinator.mjs] [--tolerate-lost 0] [--agent-cpu 2] [--coordinator-cpu 1] [--deadline 7200] [--existing-secret NAME[/KEY]]');
    process.exit(2);
  }
  const [secretName, secretKey = 'token'] = values['existing-secret']?.split('/') ?? [];
  const objects = fleetManifests({
    image: values.image,
    agents: Number(values.agents),
    name: values.name,
    port: Number(values.port),
    script: values.script,
    tolerateLost: Number(values['tolerate-lost']),
    agentCpu: values['agent-cpu'],
    coordinatorCpu: values['coordinator-cpu'],
    deadlineSeconds: Number(values.deadline),
    ...(secretName === undefined ? {} : { existingSecret: { name: secretName, key: secretKey } }),
  });
  console.log(JSON.stringify(asList(objects), null, 2));
}
