// The llm workload's other APIs and a server nobody here wrote: Ollama's /api/chat and
// /api/generate framing (NDJSON, `done` with eval_count) against a small fake Ollama, and an
// OpenAI-compatible mock server from npm (@dwmkerr/mock-llm, which echoes the prompt in chunks).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { runLoad } from '../../src/index.js';
import { freePort } from '../fixtures/free-port.js';

const TOKENS = 7;

/** A fake Ollama: each request's body kept; TOKENS lines of one token each, then `done` with the counts. */
async function fakeOllama(t: Test): Promise<{ url: string; bodies: Array<{ path: string; body: Record<string, unknown> }> }> {
  const bodies: Array<{ path: string; body: Record<string, unknown> }> = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      bodies.push({ path: request.url ?? '', body });
      const chat = request.url === '/api/chat';
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      let sent = 0;
      const line = (): void => {
        if (sent === TOKENS) {
          response.end(`${JSON.stringify({ model: body.model, done: true, done_reason: 'length', eval_count: TOKENS, prompt_eval_count: 11, ...(chat ? { message: { role: 'assistant', content: '' } } : { response: '' }) })}\n`);
          return;
        }
        sent++;
        response.write(`${JSON.stringify({ model: body.model, done: false, ...(chat ? { message: { role: 'assistant', content: ' o' } } : { response: ' o' }) })}\n`);
        setTimeout(line, 1);
      };
      setTimeout(line, 2);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, bodies };
}

t.test('Ollama /api/chat and /api/generate: NDJSON framing, eval_count and prompt_eval_count, num_predict, turns', async (t) => {
  const ollama = await fakeOllama(t);
  const dataset = join(mkdtempSync(join(tmpdir(), 'salvo-ollama-')), 'two-turns.json');
  writeFileSync(dataset, JSON.stringify([{ conversations: [{ from: 'human', value: 'Why is the sky blue?' }, { from: 'gpt', value: '...' }, { from: 'human', value: 'And at sunset?' }] }]));
  const chat = await runLoad({ url: ollama.url, connections: 1, amount: 4, llm: { api: 'ollama-chat', model: 'llama3.2:1b', prompts: dataset, maxTokens: 64, turns: 2 } });
  t.equal(chat.errors.total, 0);
  t.equal(chat.stream!.format, 'ndjson');
  t.equal(chat.stream!.streams, 4);
  t.equal(chat.stream!.outputTokens, 4 * TOKENS, "output tokens: Ollama's eval_count");
  t.equal(chat.stream!.inputTokens, 4 * 11, "input tokens: Ollama's prompt_eval_count");
  const sent = ollama.bodies.splice(0);
  t.ok(sent.every(({ path }) => path === '/api/chat'), 'a url without a path gets /api/chat');
  t.same(sent[0]!.body, { model: 'llama3.2:1b', messages: [{ role: 'user', content: 'Why is the sky blue?' }], stream: true, options: { num_predict: 64 } }, "Ollama's chat body: no stream_options, num_predict for maxTokens");
  t.same(sent.map(({ body }) => (body.messages as unknown[]).length), [1, 3, 1, 3], 'two-turn sessions');
  t.same((sent[1]!.body.messages as unknown[])[1], { role: 'assistant', content: ' o'.repeat(TOKENS) }, "the second turn carries the first answer, joined from Ollama's lines");

  const generate = await runLoad({ url: ollama.url, connections: 2, amount: 6, llm: { api: 'ollama-generate', model: 'm', synthetic: { inputTokens: 12, outputTokens: 5, sharedPrefix: 4 } } });
  t.equal(generate.errors.total, 0);
  t.equal(generate.stream!.outputTokens, 6 * TOKENS);
  const generated = ollama.bodies.splice(0);
  t.ok(generated.every(({ path, body }) => path === '/api/generate' && typeof body.prompt === 'string' && (body.options as { num_predict: number }).num_predict === 5), 'a prompt and num_predict from the synthetic output length');
  const prompts = generated.map(({ body }) => (body.prompt as string).split(' '));
  t.ok(prompts.every((words) => words.length === 12), 'synthetic prompts of 12 words');
  t.equal(new Set(prompts.map((words) => words.slice(0, 4).join(' '))).size, 1, 'all start with the same 4-word shared prefix');
  t.equal(new Set(prompts.map((words) => words.join(' '))).size, 6, 'and differ after it');
});

t.test('an OpenAI-compatible mock server from npm (@dwmkerr/mock-llm): streams parsed, token counts right, no errors', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'salvo-mock-llm-'));
  const config = join(dir, 'mock-llm.yaml');
  // JSON is YAML: the default rules (echo the last user message), chunks of 5 characters every 2 ms.
  writeFileSync(config, JSON.stringify({ streaming: { chunkSize: 5, chunkIntervalMs: 2 } }));
  const port = await freePort();
  const main = createRequire(import.meta.url).resolve('@dwmkerr/mock-llm/dist/main.js');
  const child = spawn(process.execPath, [main, '--config', config], { env: { ...process.env, HOST: '127.0.0.1', PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => child.kill());
  // Its stdout is read to the end: it logs every request there.
  let banner = '';
  await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => void ((banner += String(chunk)).includes('running') && resolve())));

  const prompts = ['Hello there', 'What is the capital of France', 'Tell me a story about a lighthouse keeper'];
  const result = await runLoad({ url: `http://127.0.0.1:${port}`, connections: 3, amount: 9, llm: { api: 'openai-chat', model: 'gpt-5.2', prompts, maxTokens: 50 } });
  t.equal(result.errors.total, 0, 'no errors');
  t.same(result.statusCodes, { 200: 9 });
  t.equal(result.stream!.streams, 9, 'every answer read as a stream');
  t.equal(result.stream!.ended, 9, 'each ended by [DONE]');
  // The mock echoes each prompt in 5-character chunks, one event each, and sends no usage: one token per event.
  const chunks = prompts.reduce((sum, prompt) => sum + Math.ceil(prompt.length / 5), 0);
  t.equal(result.stream!.outputTokens, 3 * chunks, `output tokens: the ${chunks} chunks of the three prompts, three times`);
  t.equal(result.stream!.usageStreams, 0, 'the mock reports no usage');
  t.ok(result.stream!.ttft!.p50 > 0 && result.stream!.tpot!.p50 >= 1, 'TTFT and TPOT measured');
});
