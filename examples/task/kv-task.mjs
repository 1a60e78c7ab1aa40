// A task module: salvo imports it in each worker thread. setup opens this thread's connection (its
// state is every call's ctx.state), the default export is one call, teardown closes the connection.
import { connect } from 'node:net';
import { once } from 'node:events';
import { threadId } from 'node:worker_threads';

export async function setup() {
  const socket = connect(Number(process.env.KV_PORT), '127.0.0.1');
  await once(socket, 'connect');
  socket.setNoDelay(true);
  // Replies come back in the order the commands went out: one waiting call per line.
  const waiting = [];
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    pending += chunk;
    let end;
    while ((end = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      const call = waiting.shift();
      if (line.startsWith('ERR')) call?.reject(Object.assign(new Error(line), { code: 'KV_ERR' }));
      else call?.resolve(line);
    }
  });
  const send = (command) =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      socket.write(`${command}\n`);
    });
  return { socket, send };
}

export default async function session(ctx) {
  // ctx.slot counts within a thread: the thread's id keeps the threads' keys apart.
  const key = `user:${threadId}:${ctx.slot}`;
  await ctx.measure('SET', () => ctx.state.send(`SET ${key} ${ctx.iteration}`));
  const value = await ctx.measure('GET', () => ctx.state.send(`GET ${key}`));
  ctx.check('read back', value === String(ctx.iteration));
}

export function teardown({ socket }) {
  socket.end();
}
