// Loads an OpenAI-compatible streaming endpoint (POST /v1/chat/completions with "stream": true) and
// finds how many streams per second it serves at a time-to-first-token objective. The endpoint is
// a small local mock with an LLM server's shape: 8 batch slots (more requests queue for a slot, which
// is where TTFT grows under load), a 40 ms prefill, then one token every 10 ms as an SSE
// `chat.completion.chunk`, and `data: [DONE]`. `npm run build` first; then
// `node examples/llm-streaming.mjs`.
import http from 'node:http';
import { once } from 'node:events';
import { findCapacity, formatCapacity, formatCapacityStep, formatResult, runLoad } from 'salvo';

const SLOTS = 8;
const PREFILL_MS = 40;
const TOKEN_MS = 10;
const TOKENS = 8;

/** The mock: requests wait for one of SLOTS slots, then stream TOKENS tokens. */
function startMockLlm() {
  const queue = [];
  let busy = 0;
  const release = () => {
    busy--;
    const next = queue.shift();
    if (next !== undefined) next();
  };
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const { messages = [] } = JSON.parse(body || '{}');
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.flushHeaders();
      const stream = () => {
        busy++;
        let sent = 0;
        const token = () => {
          if (response.destroyed) return release();
          if (sent === TOKENS) {
            response.end('data: [DONE]\n\n');
            return release();
          }
          const chunk = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', model: 'mock', choices: [{ index: 0, delta: { content: ` word${sent}` }, finish_reason: null }] };
          response.write(`data: ${JSON.stringify(chunk)}\n\n`);
          sent++;
          setTimeout(token, TOKEN_MS);
        };
        setTimeout(token, PREFILL_MS + messages.length);
      };
      if (busy < SLOTS) stream();
      else queue.push(stream);
    });
  });
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => ({ url: `http://127.0.0.1:${server.address().port}/v1/chat/completions`, close: () => server.close() }));
}

const mock = await startMockLlm();
const request = {
  url: mock.url,
  method: 'POST',
  body: { model: 'mock', stream: true, messages: [{ role: 'user', content: 'Say something.' }] },
  stream: { format: 'sse', until: '[DONE]', tokens: 'choices.0.delta.content' },
};
try {
  // Four users at a time: each gets a slot at once, so TTFT is the prefill.
  const result = await runLoad({ ...request, connections: 4, duration: '3s', thresholds: { 'stream.ttft.p99': '< 150' } });
  console.log(formatResult(result));
  const { ttft, itl, tpot, outputTokensPerSecond } = result.stream;
  console.log(`TTFT p50 ${ttft.p50} ms, ITL p50 ${itl.p50} ms, TPOT p50 ${tpot.p50.toFixed(1)} ms, ${outputTokensPerSecond.toFixed(0)} output tokens/s`);
  // Each ended stream had TOKENS tokens; the streams still open at the end count in outputTokens only.
  if (!result.ok || result.stream.outputTokensPerStream !== TOKENS) process.exitCode = 1;

  // Streams per second at a TTFT objective: 8 slots of 40 + 8 x 10 ms streams serve about 65/s. Steps
  // of 4 s: a stream still open when its step ends is not completed in it, and 2 s steps would lose
  // enough of them to look like a generator that fell behind.
  const capacity = await findCapacity({
    ...request,
    connections: 64,
    slo: { 'stream.ttft.p99': '< 150', 'errors.rate': '< 0.001' },
    start: 16,
    stepDuration: '4s',
    confirmDuration: '4s',
    pause: '250ms',
    onStep: (event) => {
      if (event.type === 'end') console.log(formatCapacityStep(event.step, event.index));
    },
  });
  console.log(formatCapacity(capacity));
  if (capacity.capacity === undefined) process.exitCode = 1;
} finally {
  mock.close();
}
