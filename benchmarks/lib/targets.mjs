// The servers under load: nginx with one worker when installed, else salvo's test server, each in
// its own process pinned to the target core.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { killGroup, wrapCommand } from './system.mjs';

/** Response bodies every target serves, by path. */
export const BODY_PATHS = { '2b': '/2b', '1k': '/1k', '64k': '/64k' };
export const BODY_BYTES = { '2b': 2, '1k': 1024, '64k': 65536 };

const TEST_SERVER_SCRIPT = fileURLToPath(new URL('../servers/salvo-test-server.mjs', import.meta.url));
const START_TIMEOUT_MS = 15_000;

/** A port that was free on 127.0.0.1 a moment ago. */
export async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

/** Resolves once something accepts connections on 127.0.0.1:`port`; throws after `deadline` (ms since epoch). */
export async function waitForPort(port, deadline) {
  while (Date.now() < deadline) {
    const connected = await new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${START_TIMEOUT_MS} ms`);
}

function nginxConfig(dir, port, tlsPort) {
  // One worker so that the target has exactly one core; keep-alive connections are never closed by
  // the server during a run. Small bodies come from \`return\` (no file access at all); 64 KiB is
  // over nginx's 4 KiB limit on a config parameter, so it is a static file from the open-file cache.
  // No tcp_nopush: with sendfile it holds pipelined responses back for tens of milliseconds.
  return `worker_processes 1;
worker_rlimit_nofile 16384;
daemon off;
master_process on;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events {
  worker_connections 8192;
  multi_accept on;
}
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  open_file_cache max=16 inactive=600s;
  open_file_cache_valid 600s;
  sendfile on;
  tcp_nodelay on;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    root ${dir}/www;
    location = /2b { return 200 "${'x'.repeat(BODY_BYTES['2b'])}"; }
    location = /1k { return 200 "${'x'.repeat(BODY_BYTES['1k'])}"; }
    location = /64k { try_files /64k =404; }
  }${tlsPort === undefined ? '' : httpsServer(dir, tlsPort)}
}
`;
}

// The same locations over TLS. nginx's defaults otherwise: TLS 1.2 and 1.3, session tickets on
// (what clients resume with), no server-side session cache.
function httpsServer(dir, port) {
  return `
  server {
    listen 127.0.0.1:${port} ssl backlog=4096;
    ssl_certificate ${dir}/cert.pem;
    ssl_certificate_key ${dir}/key.pem;
    root ${dir}/www;
    location = /2b { return 200 "${'x'.repeat(BODY_BYTES['2b'])}"; }
    location = /1k { return 200 "${'x'.repeat(BODY_BYTES['1k'])}"; }
    location = /64k { try_files /64k =404; }
  }`;
}

/** A self-signed P-256 certificate for 127.0.0.1/localhost, written into `dir` as cert.pem/key.pem. */
async function writeSelfSignedCert(dir) {
  const argv = ['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')];
  const child = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`openssl could not make a certificate (exit ${code})`);
  await chmod(join(dir, 'key.pem'), 0o644);
}

/**
 * Starts nginx with one worker on a free 127.0.0.1 port; with `{ https: true }` also on a second
 * port over TLS with a fresh self-signed certificate (`httpsUrl`).
 * Resolves with `{ name, baseUrl, httpsUrl?, stop() }`.
 */
export async function startNginx(nginxPath, pinning, { https = false } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'salvo-bench-nginx-'));
  // Workers drop to an unprivileged user when nginx runs as root: they must be able to read here.
  await chmod(dir, 0o755);
  const www = join(dir, 'www');
  await mkdir(www);
  await mkdir(join(dir, 'tmp'));
  await writeFile(join(www, '64k'), 'x'.repeat(BODY_BYTES['64k']), { mode: 0o644 });
  await chmod(www, 0o755);
  const port = await freePort();
  const tlsPort = https ? await freePort() : undefined;
  if (https) await writeSelfSignedCert(dir);
  const confPath = join(dir, 'nginx.conf');
  await writeFile(confPath, nginxConfig(dir, port, tlsPort));
  const argv = wrapCommand([nginxPath, '-c', confPath, '-p', dir], {
    taskset: pinning.taskset,
    cpu: pinning.target,
  });
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit').then(() => {
    throw new Error(`nginx exited at start: ${stderr.trim()}`);
  });
  try {
    await Promise.race([waitForPort(port, Date.now() + START_TIMEOUT_MS), exited]);
  } catch (error) {
    killGroup(child.pid);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  exited.catch(() => {});
  return {
    name: 'nginx 1 worker',
    baseUrl: `http://127.0.0.1:${port}`,
    ...(tlsPort === undefined ? {} : { httpsUrl: `https://127.0.0.1:${tlsPort}` }),
    paths: BODY_PATHS,
    async stop() {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts salvo's `createTestServer` in a separate process with the given options.
 * Resolves with `{ name, baseUrl, stop() }`; `baseUrl` is the server's `.url` without a trailing '/'.
 */
export async function startTestServer(options, pinning) {
  const argv = wrapCommand([process.execPath, TEST_SERVER_SCRIPT, JSON.stringify(options)], {
    taskset: pinning.taskset,
    cpu: pinning.target,
  });
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout });
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error(`test server did not start in ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS).unref(),
  );
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`test server exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`);
  });
  let line;
  try {
    [line] = await Promise.race([once(lines, 'line'), exited, timeout]);
  } catch (error) {
    killGroup(child.pid);
    throw error;
  }
  exited.catch(() => {});
  const { url } = JSON.parse(line);
  return {
    name: `salvo test server ${JSON.stringify(options)}`,
    baseUrl: url.replace(/\/$/, ''),
    async stop() {
      lines.close();
      await stopChild(child);
    },
  };
}

async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  killGroup(child.pid, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child.pid), 5000);
  await exited;
  clearTimeout(timer);
}
