// `salvo URL --socketio-*`: what the flags become, the command run as a child process against a real
// socket.io server (exact counts at the server and in the result), and bad Socket.IO flags named.
import t from 'tap';
import { runCli } from '../../src/cli/commands.js';
import { parseRunFlags } from '../../src/cli/run-flags.js';
import type { LoadResult } from '../../src/index.js';
import { decodeHistogram } from '../../src/stats/histogram.js';
import { Capture, runSalvo } from '../fixtures/cli.js';
import { socketIoServer } from '../fixtures/socketio-server.js';

const url = 'http://127.0.0.1:3000';

async function salvo(args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(args, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Messages the run timed (the latency histogram's count). */
function timed(result: LoadResult): number {
  const histogram = decodeHistogram(result.histogram);
  const count = histogram.totalCount;
  histogram.destroy();
  return count;
}

t.test('every --socketio-* flag becomes its socketio option', async (t) => {
  const options = parseRunFlags([
    url, '-c', '20', '--socketio-emit', 'echo', '--socketio-data', '{"hello":1}', '--socketio-ack', '--socketio-rate', '10',
    '--socketio-listen', 'tick', '--socketio-timestamp', 'ts', '--socketio-namespace', '/chat', '--socketio-auth', '{"token":"x"}',
    '--socketio-path', '/io/',
  ]).options;
  t.same(options, {
    url,
    connections: 20,
    duration: 10_000,
    socketio: {
      path: '/io/',
      namespace: '/chat',
      auth: { token: 'x' },
      emit: { event: 'echo', data: { hello: 1 } },
      rate: 10,
      ack: true,
      listen: { event: 'tick', timestamp: { field: 'ts' } },
    },
  });
  t.same(parseRunFlags([url, '--socketio-emit', 'ping', '--socketio-reply', 'pong']).options.socketio, { emit: { event: 'ping' }, reply: 'pong' });
  t.same(parseRunFlags([url, '--socketio-listen', 'news']).options.socketio, { listen: { event: 'news' } });
  t.same(parseRunFlags([url, '--socketio-emit', 'e', '--socketio-data', '"text"', '--socketio-rate', 'fast']).options.socketio, {
    emit: { event: 'e', data: 'text' },
    rate: 'fast',
  }, 'a rate that is no number is passed on for runLoad to reject by name');
  t.equal(parseRunFlags([url, '-c', '2']).options.socketio, undefined, 'no Socket.IO flag, no socketio option');
});

t.test('salvo URL --socketio-emit --socketio-ack: exactly the amount emitted, acknowledged and timed', async (t) => {
  const data: string[] = [];
  const server = await socketIoServer(t, {}, (io) => io.on('connection', (socket) => socket.on('echo', (value: unknown) => data.push(JSON.stringify(value)))));
  const { code, stdout, stderr } = await runSalvo([server.url, '-c', '3', '-a', '300', '--socketio-emit', 'echo', '--socketio-data', '{"hello":[1,"x"]}', '--socketio-ack', '--json']);
  t.equal(code, 0, stderr);
  const result = JSON.parse(stdout) as LoadResult;
  t.equal(server.stats.echoes, 300, 'the server saw exactly -a emits');
  t.equal(server.stats.connects, 3, 'one namespace connection per -c');
  t.same(new Set(data), new Set(['{"hello":[1,"x"]}']), "every emit carried --socketio-data's JSON");
  t.equal(result.transport, 'socket.io');
  t.same(result.messages && { sent: result.messages.sent, received: result.messages.received }, { sent: 300, received: 300 });
  t.equal(timed(result), 300, 'each ack timed');
  t.equal(result.errors.total, 0);
});

t.test('--socketio-reply, --socketio-listen with --socketio-timestamp, a namespace with auth: each event counted and timed', async (t) => {
  const tokens: unknown[] = [];
  const server = await socketIoServer(t, {}, (io) => {
    const chat = io.of('/chat');
    chat.use((socket, next) => {
      tokens.push(socket.handshake.auth.token);
      next();
    });
    // Each emit gets a timestamped `tick` first, then its `pong`: both arrive before the run's last reply.
    chat.on('connection', (socket) =>
      socket.on('ping-me', () => {
        socket.emit('tick', { ts: Date.now() });
        socket.emit('pong', 'ok');
      }),
    );
  });
  const { code, stdout, stderr } = await runSalvo([
    server.url, '-c', '2', '-a', '100', '--socketio-namespace', '/chat', '--socketio-auth', '{"token":"s3cret"}',
    '--socketio-emit', 'ping-me', '--socketio-reply', 'pong', '--socketio-listen', 'tick', '--socketio-timestamp', 'ts', '--json',
  ]);
  t.equal(code, 0, stderr);
  const result = JSON.parse(stdout) as LoadResult;
  t.same(tokens, ['s3cret', 's3cret'], "each connection's namespace connect carried --socketio-auth");
  t.same(result.messages && { sent: result.messages.sent, received: result.messages.received }, { sent: 100, received: 200 }, 'pongs and ticks');
  t.equal(timed(result), 200, 'each pong timed from its emit, each tick from its ts');
  t.equal(result.errors.total, 0);
});

t.test('--help lists the Socket.IO flags; salvo capacity has none', async (t) => {
  const help = await salvo(['--help']);
  for (const flag of ['--socketio-emit EVENT', '--socketio-data JSON', '--socketio-ack', '--socketio-reply EVENT', '--socketio-rate N', '--socketio-listen EVENT', '--socketio-timestamp FIELD', '--socketio-namespace NS', '--socketio-auth JSON', '--socketio-path PATH']) {
    t.ok(help.stdout.includes(flag), `lists ${flag}`);
  }
  const capacity = await salvo(['capacity', url, '--slo', 'latency.p99<5', '--socketio-emit', 'echo']);
  t.equal(capacity.code, 2);
  t.equal(capacity.stderr, "salvo: Unknown option '--socketio-emit'\n(salvo capacity --help lists the flags)\n");
});

t.test('bad Socket.IO flags are named as flags, exit 2, and nothing connects', async (t) => {
  const server = await socketIoServer(t);
  const cases: Array<[string[], string]> = [
    [['--socketio-ack'], 'a Socket.IO run needs --socketio-emit EVENT (what each connection emits), --socketio-listen EVENT (what the server pushes), or both'],
    [['--socketio-emit', 'e', '--socketio-data', '{hello:1}', '--socketio-ack'], `--socketio-data must be JSON, such as '{"hello":1}' or '"text"' (quoted); got "{hello:1}"`],
    [['--socketio-listen', 'tick', '--socketio-auth', 'token'], `--socketio-auth must be JSON, such as '{"hello":1}' or '"text"' (quoted); got "token"`],
    [['--socketio-listen', 'tick', '--socketio-data', '1'], '--socketio-data is the argument of --socketio-emit: give the event too'],
    [['--socketio-emit', 'e', '--socketio-timestamp', 'ts'], '--socketio-timestamp times the --socketio-listen events: give the event too'],
    [['--socketio-emit', 'e'], '--socketio-emit without ack or reply has nothing to wait for: give --socketio-ack, --socketio-reply, or --socketio-rate'],
    [['--socketio-emit', 'e', '--socketio-ack', '--socketio-reply', 'r'], '--socketio-ack and --socketio-reply both time an emit; give one'],
    [['--socketio-emit', 'e', '--socketio-rate', '0'], '--socketio-rate must be a number of emits per second per connection, more than zero; got 0'],
    [['--socketio-listen', 'tick', '--socketio-namespace', 'chat'], "--socketio-namespace must start with / and have no comma or space (default '/'); got \"chat\""],
    [['--socketio-listen', 'tick', '--socketio-auth', '[1]'], "--socketio-auth must be an object (the namespace connect's auth payload); got [1]"],
    [['--socketio-listen', 'tick', '--socketio-path', 'io'], '--socketio-path must be a path starting with / (default /socket.io/); got "io"'],
    [['--socketio-listen', ''], '--socketio-listen must be an event name (a non-empty string); got ""'],
  ];
  for (const [flags, message] of cases) {
    const { code, stdout, stderr } = await salvo([server.url, ...flags]);
    t.equal(code, 2, `${flags.join(' ')}: exit 2`);
    t.equal(stdout, '', `${flags.join(' ')}: nothing on stdout`);
    t.ok(stderr.startsWith(`salvo: ${message}`), `${flags.join(' ')}: ${stderr.split('\n')[0]}`);
    t.notMatch(stderr, /socketio\./, 'no library option names');
  }
  t.equal(server.stats.connects, 0, 'nothing connected');
});
