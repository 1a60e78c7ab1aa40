// The Socket.IO hot path, frame → packet → event name → timestamp, per received frame: salvo's
// in-place header reader (src/socketio/packet.ts) against engine.io-parser + socket.io-parser, what
// socket.io-client runs on each frame (both come with the `socket.io` devDependency). No network:
// the same frames, decoded in a loop, alternating contenders, median of the rounds.
//
//   node --import tsx benchmarks/socketio-codec.mjs [--rounds 7] [--frames 1000000]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { decodePacket } from 'engine.io-parser';
import { Decoder } from 'socket.io-parser';
import { eventNameBytes, fieldKeyBytes, firstArgumentField, isEvent, PacketHeader } from '../src/socketio/packet.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, frames: { type: 'string', default: '1000000' } } });
const rounds = Number(values.rounds);
const frames = Number(values.frames);

// A broadcast as socket.io 4 sends it (text frames arrive from ws as Buffers), and an ack.
const tick = Buffer.from(`42["tick",{"ts":${Date.now()},"room":"lobby","seq":12345}]`);
const ack = Buffer.from('4317[{"hello":1}]');

function salvo(frame, wantStamp) {
  const header = new PacketHeader();
  const name = eventNameBytes('tick');
  const key = fieldKeyBytes('ts');
  let sum = 0;
  const startedAt = performance.now();
  for (let i = 0; i < frames; i++) {
    header.read(frame);
    if (header.type === 2 && isEvent(frame, header.payloadAt, name)) sum += wantStamp ? firstArgumentField(frame, header.payloadAt, name.length, key, 'ts') : 1;
    else if (header.type === 3) sum += header.id;
  }
  return { ns: ((performance.now() - startedAt) * 1e6) / frames, sum };
}

function parser(frame, wantStamp) {
  const decoder = new Decoder();
  let sum = 0;
  decoder.on('decoded', (packet) => {
    if (packet.type === 2 && packet.data[0] === 'tick') sum += wantStamp ? packet.data[1].ts : 1;
    else if (packet.type === 3) sum += packet.id;
  });
  const startedAt = performance.now();
  for (let i = 0; i < frames; i++) decoder.add(decodePacket(frame.toString()).data);
  return { ns: ((performance.now() - startedAt) * 1e6) / frames, sum };
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const scenarios = [
  ['broadcast with timestamp', tick, true],
  ['event name only (reply)', tick, false],
  ['ack', ack, false],
];
for (const [name, frame, stamp] of scenarios) {
  const results = { salvo: [], parser: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['salvo', 'parser'] : ['parser', 'salvo'];
    for (const contender of order) results[contender].push((contender === 'salvo' ? salvo : parser)(frame, stamp).ns);
  }
  const s = median(results.salvo);
  const p = median(results.parser);
  console.log(`${name.padEnd(26)} salvo ${s.toFixed(0).padStart(5)} ns/frame   engine.io-parser + socket.io-parser ${p.toFixed(0).padStart(5)} ns/frame   (${(p / s).toFixed(1)}x)`);
}
