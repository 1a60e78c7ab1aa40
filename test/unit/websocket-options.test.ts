// The `websocket` option and a ws: url: bad input rejects with an error naming the option.
import t from 'tap';
import { runLoad, SalvoOptionError, SalvoRangeError } from '../../src/index.js';
import type { LoadOptions } from '../../src/index.js';
import { parseRunFlags } from '../../src/cli/run-flags.js';

const url = 'ws://127.0.0.1:9/';

const bad: Array<[string, LoadOptions, RegExp, typeof SalvoOptionError | typeof SalvoRangeError]> = [
  ['unknown websocket key', { url, websocket: { mesage: 'x' } as never }, /unknown option websocket\.mesage/, SalvoOptionError],
  ['message of the wrong type', { url, websocket: { message: 42 as never } }, /websocket\.message must be a string, a Buffer or a function/, SalvoOptionError],
  ['zero rate', { url, websocket: { message: 'x', rate: 0 } }, /websocket\.rate must be .* more than zero; got 0/, SalvoRangeError],
  ['rate without message', { url, websocket: { rate: 5 } }, /websocket\.rate needs websocket\.message/, SalvoOptionError],
  ['bad timestamp', { url, websocket: { timestamp: 'ts' as never } }, /websocket\.timestamp must be a function .* or \{ field: 'name' \}/, SalvoOptionError],
  ['bad perMessageDeflate', { url, websocket: { perMessageDeflate: 'yes' as never } }, /websocket\.perMessageDeflate must be true or false/, SalvoOptionError],
  ['bad protocols', { url, websocket: { protocols: ['a b'] } }, /websocket\.protocols must be/, SalvoOptionError],
  ['websocket not an object', { url, websocket: 'echo' as never }, /websocket must be an object/, SalvoOptionError],
  ['amount without message', { url, amount: 10, websocket: { timestamp: { field: 'ts' } } }, /amount counts messages sent and needs websocket\.message/, SalvoOptionError],
  ['top-level rate', { url, rate: 10, websocket: { message: 'x' } }, /rate is an HTTP option .* use websocket\.rate/, SalvoOptionError],
  ['HTTP method', { url, method: 'POST' }, /method is an HTTP option/, SalvoOptionError],
  ['rate stages', { url, stages: [{ duration: 100, rate: 5 }] }, /stages of a WebSocket run ramp connections/, SalvoOptionError],
  ['websocket on an http url', { url: 'http://127.0.0.1:9/', websocket: { message: 'x' } }, /websocket needs a ws: or wss: url/, SalvoOptionError],
  ['a message function with workers', { url, connections: 2, workers: 2, websocket: { message: () => 'x' } }, /websocket\.message is a function, which cannot be sent to worker threads/, SalvoOptionError],
  ['a timestamp function with workers', { url, connections: 2, workers: 2, websocket: { timestamp: () => 0 } }, /websocket\.timestamp is a function, .* \{ field: 'name' \}/, SalvoOptionError],
];

for (const [name, options, message, type] of bad) {
  t.test(name, async (t) => {
    await t.rejects(runLoad(options), message);
    await t.rejects(runLoad(options), type);
  });
}

t.test('a gopher: url still names the schemes that work', async (t) => {
  await t.rejects(runLoad({ url: 'gopher://x/' }), /url must use http: or https: \(ws: or wss: for a WebSocket run\)/);
});

t.test('the salvo command: --ws-message, --ws-rate and --ws-timestamp make the websocket option', async (t) => {
  t.same(parseRunFlags([url, '--ws-message', 'ping', '--ws-rate', '5', '--ws-timestamp', 'ts']).options.websocket, {
    message: 'ping',
    rate: 5,
    timestamp: { field: 'ts' },
  });
  t.equal(parseRunFlags([url]).options.websocket, undefined, 'none without the flags');
});
