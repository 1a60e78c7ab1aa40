import type { PlannedRequest } from '../shared/plan.js';

/**
 * `stream.usage`: an OpenAI-style streaming request (a JSON object body with `stream: true` and
 * `messages` or `prompt`) that does not say whether it wants usage gets
 * `stream_options: { include_usage: true }`, so that the server sends its own token counts in the
 * last chunk. Every other request is sent as given.
 */
export function askForUsage(request: PlannedRequest): PlannedRequest {
  const { body } = request;
  if (body === undefined || body.length === 0 || body[0] !== 0x7b) return request;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return request;
  }
  const fields = json as Record<string, unknown>;
  if (fields.stream !== true || (fields.messages === undefined && fields.prompt === undefined)) return request;
  const options = fields.stream_options;
  if (options !== undefined && (options === null || typeof options !== 'object' || 'include_usage' in options))
    return request;
  const asked = { ...fields, stream_options: { ...(options as object | undefined), include_usage: true } };
  return { ...request, body: Buffer.from(JSON.stringify(asked)) };
}
