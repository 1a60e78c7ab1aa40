import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import grpc from '@grpc/grpc-js';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import { CheckoutClient, charge } from '../fixtures/grpc-checkout.mjs';

/** The gRPC server in a process of its own (test/fixtures/grpc-server-process.mjs), and what it counted. */
async function grpcServer(t: Test): Promise<{ address: string; counted(): Promise<{ calls: number; rejected: number }> }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../fixtures/grpc-server-process.mjs', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.teardown(() => child.stdin.end());
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  return {
    address: line.toString().trim(),
    async counted() {
      child.stdin.write('\n');
      const [reply] = (await once(child.stdout, 'data')) as [Buffer];
      return JSON.parse(reply.toString()) as { calls: number; rejected: number };
    },
  };
}

t.test('unary gRPC calls: the server answers exactly amount calls, and its status codes are the errors', async (t) => {
  const server = await grpcServer(t);
  const client = new CheckoutClient(server.address, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  let calls = 0;
  const result = await runLoad({
    // Every tenth call asks for a negative amount, which the server refuses (INVALID_ARGUMENT, 3).
    task: async (ctx) => void (await charge(client, { amount: calls++ % 10 === 9 ? -1 : 25 }, ctx.signal)),
    concurrency: 8,
    amount: 800,
  });
  const counted = await server.counted();
  t.equal(counted.calls, 800, 'the server answered amount calls');
  t.equal(result.requests.sent, 800);
  t.equal(result.errors.byCode['3'], counted.rejected, "the server's INVALID_ARGUMENT answers, under gRPC's status code");
  t.equal(counted.rejected, 80);
  t.equal(result.requests.completed, 720);
  t.match(result.errors.samples, [{ code: '3', message: /INVALID_ARGUMENT: amount -1 is negative/ }]);
  t.ok(result.latency.min > 0 && result.latency.p50 < result.latency.max, `latency p50 ${result.latency.p50} ms`);
});

t.test('a gRPC task module over 2 workers: one client per thread, exactly amount calls at the server', async (t) => {
  const server = await grpcServer(t);
  process.env.SALVO_GRPC_ADDRESS = server.address;
  const result = await runLoad({ task: fileURLToPath(new URL('../fixtures/tasks/grpc-task.mjs', import.meta.url)), concurrency: 6, workers: 2, amount: 600 });
  t.equal((await server.counted()).calls, 600);
  t.equal(result.workers, 2);
  t.equal(result.requests.completed, 600);
  t.equal(result.errors.total, 0);
});

t.test('an open loop of gRPC calls: every call salvo sent reached the server', async (t) => {
  const server = await grpcServer(t);
  const client = new CheckoutClient(server.address, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const result = await runLoad({ task: async (ctx) => void (await charge(client, { amount: 1 }, ctx.signal)), concurrency: 20, rate: 400, duration: 1000 });
  t.equal(result.rate, 400);
  t.equal(result.requests.sent + result.requests.missed, 400, 'the schedule was 400 calls');
  // Every call that ended reached the server; the unfinished ones at the end had their signal
  // aborted, which cancels a gRPC call, perhaps before it left.
  const { sent, completed, unfinished } = result.requests;
  t.equal(completed + result.errors.total + unfinished, sent);
  const counted = (await server.counted()).calls;
  t.ok(counted >= sent - unfinished && counted <= sent, `the server answered ${counted} of ${sent} sent, ${unfinished} unfinished`);
});
