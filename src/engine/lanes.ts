import { Lane } from '../transports/transport.js';

/** The lanes of `connections` connections, `perConnection` each: lane `i * perConnection + k` rides connection i. */
export function makeLanes(connections: number, perConnection: number): Lane[] {
  const lanes: Lane[] = [];
  for (let connection = 0; connection < connections; connection++) {
    for (let i = 0; i < perConnection; i++) lanes.push(new Lane(lanes.length, connection));
  }
  return lanes;
}

/** The first `usable` lanes of every connection, the first lane of each before any second (pipelined) one. */
export function firstLanesFirst(lanes: Lane[], perConnection: number, usable: number): Lane[] {
  const free: Lane[] = [];
  for (let depth = 0; depth < usable; depth++) {
    for (let lane = depth; lane < lanes.length; lane += perConnection) free.push(lanes[lane]!);
  }
  return free;
}
