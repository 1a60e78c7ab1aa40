// A tiny key-value server with a line protocol of its own ("SET key value", "GET key"), standing in
// for whatever your service speaks: salvo loads it through the client in kv-task.mjs.
import { createServer } from 'node:net';

export function startKvServer() {
  const store = new Map();
  let commands = 0;
  const server = createServer((socket) => {
    let pending = '';
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      pending += chunk;
      let end;
      let replies = '';
      while ((end = pending.indexOf('\n')) >= 0) {
        const [command, key, value] = pending.slice(0, end).split(' ');
        pending = pending.slice(end + 1);
        commands++;
        if (command === 'SET') {
          store.set(key, value);
          replies += 'OK\n';
        } else if (command === 'GET') replies += `${store.get(key) ?? ''}\n`;
        else replies += `ERR unknown command ${command}\n`;
      }
      socket.write(replies);
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ port: server.address().port, commands: () => commands, close: () => new Promise((done) => server.close(done)) }),
    ),
  );
}
