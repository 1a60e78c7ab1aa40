// An LLM serving benchmark as an inference team runs one: the sample ShareGPT dataset, a fixed
// output length, SLOs on TTFT and TPOT, goodput, and the result in vLLM's benchmark JSON names.
// The server is a small local mock with an engine's shape: 4 batch slots (more requests queue),
// a prefill of 0.2 ms per input word, then one token every 5 ms, and `usage` when asked.
// `npm run build` first; then `node examples/llm/serving.mjs`.
import http from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { formatResult, runLoad, toVllmJson } from 'salvo';

const SLOTS = 4;
const PREFILL_MS_PER_WORD = 0.2;
const DECODE_MS = 5;

function startMockEngine() {
  const queue = [];
  let busy = 0;
  const release = () => {
    busy--;
    const next = queue.shift();
    if (next !== undefined) next();
  };
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text);
      const words = body.messages.map((m) => m.content).join(' ').split(/\s+/).length;
      const tokens = body.max_tokens ?? 16;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const write = (json) => response.write(`data: ${JSON.stringify(json)}\n\n`);
      const generate = () => {
        busy++;
        let sent = 0;
        const token = () => {
          if (response.destroyed) return release();
          write({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: ' tok' } }] });
          if (++sent < tokens) return void setTimeout(token, DECODE_MS);
          if (body.stream_options?.include_usage) write({ choices: [], usage: { prompt_tokens: words, completion_tokens: sent } });
          response.end('data: [DONE]\n\n');
          release();
        };
        setTimeout(token, PREFILL_MS_PER_WORD * words);
      };
      if (busy < SLOTS) generate();
      else queue.push(generate);
    });
  });
  server.listen(0, '127.0.0.1');
  return once(server, 'listening').then(() => ({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() }));
}

const engine = await startMockEngine();
try {
  // Six users on four slots: two of them always wait for a slot, which their TTFT shows.
  const result = await runLoad({
    url: engine.url, // a url without a path gets the API's: /v1/chat/completions
    connections: 6,
    duration: '3s',
    llm: {
      api: 'openai-chat',
      model: 'mock',
      prompts: fileURLToPath(new URL('sample-sharegpt.jsonl', import.meta.url)),
      maxTokens: 32,
      ignoreEos: true,
    },
    slo: { ttft: 100, tpot: 10 },
  });
  console.log(formatResult(result));
  const vllm = toVllmJson(result, { percentiles: [50, 99], modelId: 'mock' });
  console.log(JSON.stringify({ completed: vllm.completed, request_goodput: vllm.request_goodput, output_throughput: vllm.output_throughput, p99_ttft_ms: vllm.p99_ttft_ms, mean_tpot_ms: vllm.mean_tpot_ms }));
  // Every answer had 32 tokens (ignore_eos), as the server's usage says.
  if (!result.ok || result.stream.outputTokensPerStream !== 32 || result.goodput === undefined) process.exitCode = 1;
} finally {
  engine.close();
}
