// The Engine.IO / Socket.IO packet codec: headers read in place, event names compared in place, and
// the timestamp field scanned in place giving what JSON.parse gives.
import t from 'tap';
import {
  encodeConnect,
  engineUrl,
  eventNameBytes,
  fieldKeyBytes,
  firstArgumentField,
  isEvent,
  PacketHeader,
  pingDeadlineMs,
  parsedField,
} from '../../src/socketio/packet.js';

t.test('headers', async (t) => {
  const header = new PacketHeader();
  const read = (text: string) => {
    const ok = header.read(Buffer.from(text));
    return { ok, engine: String.fromCharCode(header.engine), type: header.type, attachments: header.attachments, id: header.id, payload: text.slice(header.payloadAt) };
  };
  t.same(read('2'), { ok: true, engine: '2', type: -1, attachments: 0, id: -1, payload: '' }, 'ping');
  t.same(read('0{"sid":"a"}'), { ok: true, engine: '0', type: -1, attachments: 0, id: -1, payload: '{"sid":"a"}' }, 'open');
  t.same(read('40{"sid":"x"}'), { ok: true, engine: '4', type: 0, attachments: 0, id: -1, payload: '{"sid":"x"}' }, 'connect');
  t.same(read('40/chat,{"sid":"x"}'), { ok: true, engine: '4', type: 0, attachments: 0, id: -1, payload: '{"sid":"x"}' }, 'connect to a namespace');
  t.same(read('42["tick",1]'), { ok: true, engine: '4', type: 2, attachments: 0, id: -1, payload: '["tick",1]' }, 'event');
  t.same(read('42/chat,17["e"]'), { ok: true, engine: '4', type: 2, attachments: 0, id: 17, payload: '["e"]' }, 'event with namespace and ack id');
  t.same(read('4312[{"a":1}]'), { ok: true, engine: '4', type: 3, attachments: 0, id: 12, payload: '[{"a":1}]' }, 'ack');
  t.same(read('452-["b",{"_placeholder":true,"num":0}]'), { ok: true, engine: '4', type: 5, attachments: 2, id: -1, payload: '["b",{"_placeholder":true,"num":0}]' }, 'binary event');
  t.same(read('461-/x,3[{"_placeholder":true,"num":0}]'), { ok: true, engine: '4', type: 6, attachments: 1, id: 3, payload: '[{"_placeholder":true,"num":0}]' }, 'binary ack');
  t.same(read('44{"message":"no"}'), { ok: true, engine: '4', type: 4, attachments: 0, id: -1, payload: '{"message":"no"}' }, 'connect error');
  t.equal(read('').ok, false);
  t.equal(read('x').ok, false);
  t.equal(read('49').ok, false);
  t.equal(read('45["no dash"]').ok, false);
});

t.test('encoding', async (t) => {
  t.equal(encodeConnect('/', undefined), '40');
  t.equal(encodeConnect('/', '{"token":"x"}'), '40{"token":"x"}');
  t.equal(encodeConnect('/chat', undefined), '40/chat,');
  t.equal(encodeConnect('/chat', '{"token":"x"}'), '40/chat,{"token":"x"}');
  t.equal(engineUrl(new URL('http://127.0.0.1:3000'), '/socket.io/'), 'ws://127.0.0.1:3000/socket.io/?EIO=4&transport=websocket');
  t.equal(engineUrl(new URL('https://example.test'), '/io/'), 'wss://example.test/io/?EIO=4&transport=websocket');
  t.equal(engineUrl(new URL('wss://example.test:8443/'), '/socket.io/'), 'wss://example.test:8443/socket.io/?EIO=4&transport=websocket');
});

t.test('event names compared in place', async (t) => {
  const tick = eventNameBytes('tick');
  const is = (text: string) => isEvent(Buffer.from(text), 0, tick);
  t.ok(is('["tick",1]'));
  t.ok(is('["tick"]'));
  t.notOk(is('["ticks",1]'));
  t.notOk(is('["tic",1]'));
  t.notOk(is('["tick"'));
  t.ok(isEvent(Buffer.from('["a \\"q\\"",1]'), 0, eventNameBytes('a "q"')), 'a name with quotes, as JSON writes it');
});

t.test('the timestamp field scanned in place gives what JSON.parse gives', async (t) => {
  const frames = [
    '["tick",{"ts":1732570000123}]',
    '["tick",{"room":"a,\\"}b","nested":{"ts":1},"list":[{"ts":2},"]"],"ts":1732570000123.5}]',
    '["tick",{"ts":-5}]',
    '["tick",{"ts":1e3}]',
    '["tick",{"ts":"1"}]',
    '["tick",{"ts":null}]',
    '["tick",{"ts":true}]',
    '["tick",{"other":1}]',
    '["tick",{}]',
    '["tick",5]',
    '["tick"]',
    '["tick",[1,2]]',
    '["tick", {"ts": 7}]',
    '["tick",{"t\\u0073":8}]',
    '["tick",{"ts":{"a":1}}]',
    '["tick",{"x":"\\\\","ts":9}]',
    '["tick",{"ts":12',
  ];
  const name = eventNameBytes('tick');
  const key = fieldKeyBytes('ts');
  for (const frame of frames) {
    const data = Buffer.from(frame);
    t.equal(firstArgumentField(data, 0, name.length, key, 'ts'), parsedField(data, 0, 'ts'), frame);
  }
});

t.test('the ping deadline from an Engine.IO open packet', async (t) => {
  const open = (json: string) => Buffer.from(`0${json}`);
  t.equal(pingDeadlineMs(open('{"sid":"a","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}')), 45_000);
  t.equal(pingDeadlineMs(open('{"sid":"a","pingInterval":200,"pingTimeout":0}')), 200);
  t.equal(pingDeadlineMs(open('{"sid":"a"}')), 0, 'no heartbeat announced: no deadline');
  t.equal(pingDeadlineMs(open('{"pingInterval":"25000","pingTimeout":20000}')), 0, 'not numbers');
  t.equal(pingDeadlineMs(open('{"pingInterval":0,"pingTimeout":20000}')), 0, 'no interval');
  t.equal(pingDeadlineMs(open('not json')), 0);
});
