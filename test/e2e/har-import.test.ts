// `salvo import`: a HAR recorded by headless Chromium browsing a small site (pages, assets, a
// third-party host, a pause between pages, a JSON POST) becomes a load file that `salvo run`
// replays against the site, the server's per-path counts matching byName.
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { headlessChromium } from '../fixtures/browser.js';
import { runSalvo } from '../fixtures/cli.js';
import type { LoadResult } from '../../src/index.js';

const PAGE = (body: string, tracker: string) =>
  `<!doctype html><html><head><link rel="stylesheet" href="/style.css"><script src="/app.js"></script>` +
  `<script src="${tracker}/track.js"></script></head><body>${body}<img src="/logo.png"></body></html>`;

async function listen(t: Test, handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  // Each on an address of its own, so that the tracker is another host, as a third party's would be.
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return String((server.address() as AddressInfo).port);
}

t.test('a HAR from headless Chromium, imported and run against the site it recorded', async (t) => {
  const browser = await headlessChromium(t);
  if (browser === undefined) return;
  const dir = mkdtempSync(join(tmpdir(), 'salvo-har-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const trackerSeen: string[] = [];
  const trackerPort = await listen(t, (request, response) => {
    trackerSeen.push(request.url!);
    response.setHeader('content-type', 'text/javascript');
    response.end('void 0;');
  });
  const tracker = `http://localhost:${trackerPort}`;
  const seen = new Map<string, number>();
  const port = await listen(t, (request, response) => {
    const path = request.url!.split('?')[0]!;
    seen.set(`${request.method} ${path}`, (seen.get(`${request.method} ${path}`) ?? 0) + 1);
    // No caching: every visit fetches its assets again, in the recording as in the replay.
    response.setHeader('cache-control', 'no-store');
    const types: Record<string, string> = { '/style.css': 'text/css', '/app.js': 'text/javascript', '/logo.png': 'image/png', '/api/cart': 'application/json' };
    response.setHeader('content-type', types[path] ?? 'text/html');
    if (path === '/') return void response.end(PAGE('<a href="/about">about</a>', tracker));
    if (path === '/about') return void response.end(PAGE('<h1>about</h1>', tracker));
    if (path === '/api/cart') return void request.resume().on('end', () => response.end('{"items":1}'));
    response.end(path === '/logo.png' ? Buffer.from('89504e470d0a1a0a', 'hex') : 'body{}');
  });
  const site = `http://127.0.0.1:${port}`;

  const har = join(dir, 'session.har');
  const context = await browser.newContext({ recordHar: { path: har } });
  const page = await context.newPage();
  await page.goto(`${site}/`);
  await page.waitForTimeout(400);
  await page.click('a');
  await page.waitForLoadState('load');
  await page.waitForTimeout(400);
  await page.evaluate(() => fetch('/api/cart', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"sku":7}' }));
  await context.close();
  t.ok(trackerSeen.length >= 2, 'the browser fetched from the third-party host too');

  const everything = await runSalvo(['import', har, '-o', join(dir, 'all.mjs')]);
  t.equal(everything.code, 0, everything.stderr);
  const all = (await import(join(dir, 'all.mjs'))).default as { url: string; requests: Array<{ name: string; path: string; think?: number; headers?: Record<string, string>; body?: string }> };
  t.equal(all.url, site, "the load file targets the first page's origin");
  t.same(all.requests.map((step) => step.name).filter((name) => name.startsWith('GET /') && !name.includes('.')), ['GET /', 'GET /about'], 'both pages, in order');
  t.ok(all.requests.some((step) => step.path === '/style.css'), 'static assets are kept by default');
  t.notOk(all.requests.some((step) => step.path === '/track.js'), 'the third-party host is left out');
  t.notOk(all.requests.some((step) => step.headers?.host !== undefined || step.headers?.cookie !== undefined || step.headers?.['accept-encoding'] !== undefined), 'no host, cookie or accept-encoding header replayed');

  const out = join(dir, 'pages.mjs');
  const imported = await runSalvo(['import', har, '-o', out, '--no-static']);
  t.equal(imported.code, 0, imported.stderr);
  t.match(imported.stderr, /wrote .*pages\.mjs: 3 requests/, 'it says what it kept');
  const pages = (await import(out)).default as typeof all;
  t.same(pages.requests.map((step) => step.name), ['GET /', 'GET /about', 'POST /api/cart'], '--no-static: the pages and the API call');
  t.ok(pages.requests[0]!.think! >= 300 && pages.requests[1]!.think! >= 300, `the recorded pauses are think times (${pages.requests.map((step) => step.think).join(', ')} ms)`);
  t.equal(pages.requests[2]!.body, '{"sku":7}', 'the POST body as recorded');
  t.equal(pages.requests[2]!.headers?.['content-type'], 'application/json', 'with its content type');
  t.match(readFileSync(out, 'utf8'), /^\/\/ Imported from/, 'a commented load file');

  seen.clear();
  const run = await runSalvo(['run', out, '-d', '2s', '-c', '3', '--json']);
  t.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout) as LoadResult;
  for (const name of ['GET /', 'GET /about', 'POST /api/cart']) {
    const named = result.byName![name]!;
    t.ok(named.requests.sent > 0, `${name} was replayed`);
    t.equal(seen.get(name), named.requests.sent, `${name}: the server saw ${seen.get(name)}, byName says ${named.requests.sent}`);
  }
  t.equal(seen.size, 3, 'nothing else reached the site');
});
