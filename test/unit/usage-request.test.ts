import t from 'tap';
import { askForUsage } from '../../src/engine/usage-request.js';
import type { PlannedRequest } from '../../src/shared/plan.js';

const request = (body: unknown): PlannedRequest => ({
  method: 'POST', path: '/', headers: {}, body: body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  dynamic: false, capture: false, name: 'r', nameIndex: 0,
});
const bodyOf = (r: PlannedRequest): unknown => JSON.parse(r.body!.toString());

t.test('an OpenAI-style streaming body is asked for usage; every other is sent as given', async (t) => {
  t.same(bodyOf(askForUsage(request({ stream: true, messages: [] }))), { stream: true, messages: [], stream_options: { include_usage: true } });
  t.same(bodyOf(askForUsage(request({ stream: true, prompt: 'x', stream_options: { continuous_usage_stats: true } }))), { stream: true, prompt: 'x', stream_options: { continuous_usage_stats: true, include_usage: true } });
  for (const given of [{ stream: true, messages: [], stream_options: { include_usage: false } }, { stream: false, messages: [] }, { stream: true }, '[1]', 'not json', undefined]) {
    const r = request(given);
    t.equal(askForUsage(r), r, `left alone: ${JSON.stringify(given)}`);
  }
});
