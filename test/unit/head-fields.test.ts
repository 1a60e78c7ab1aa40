import t from 'tap';
import { ResponseParser } from '../../src/http1/parser.js';

const head = (encoding: string | undefined, date: string): string =>
  `HTTP/1.1 200 OK\r\nDate: ${date}\r\n${encoding === undefined ? '' : `Content-Encoding: ${encoding}\r\n`}Content-Length: 2\r\n\r\nab`;

t.test("a body parser tells each head's content-encoding, from a parsed head and from the head template alike", async (t) => {
  const told: string[] = [];
  let responses = 0;
  const parser = new ResponseParser({ onResponse: () => (responses++, true), onBody: () => true, onEncoding: (coding) => (told.push(coding), true) }, { body: true });
  // The same head twice (the second matches the template learnt from the first), then one without a coding, then br.
  for (const [encoding, date] of [['gzip', 'Mon, 01 Jan 2024 00:00:00 GMT'], ['gzip', 'Mon, 01 Jan 2024 00:00:01 GMT'], [undefined, 'Mon, 01 Jan 2024 00:00:02 GMT'], ['br', 'Mon, 01 Jan 2024 00:00:03 GMT'], ['br', 'Mon, 01 Jan 2024 00:00:04 GMT']] as const) {
    const bytes = Buffer.from(head(encoding, date));
    t.equal(parser.execute(bytes, 0, bytes.length), undefined);
  }
  t.equal(responses, 5);
  t.same(told, ['gzip', 'gzip', 'br', 'br'], 'told for each coded head, never for the uncoded one');
});

t.test('onEncoding returning false ends the response at its head; a HEAD answer is not told', async (t) => {
  const statuses: number[] = [];
  const parser = new ResponseParser({ onResponse: (status, _bytes, willClose) => (statuses.push(willClose ? -status : status), true), onBody: () => true, onEncoding: () => false }, { body: true });
  const bytes = Buffer.from(head('zstd', 'Mon, 01 Jan 2024 00:00:00 GMT'));
  parser.execute(bytes, 0, bytes.length);
  t.same(statuses, [-200], 'completed at once, the connection to close');
  const told: string[] = [];
  let answered = 0;
  const headAnswer = Buffer.from('HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 20\r\n\r\n');
  const counting = new ResponseParser({ onResponse: () => (answered++, true), onBody: () => true, onEncoding: (coding) => (told.push(coding), true) }, { body: true });
  counting.headRequest = true;
  counting.execute(headAnswer, 0, headAnswer.length);
  t.equal(answered, 1, 'the HEAD answer completed at its head');
  t.same(told, [], 'its coding not told: there is no body');
});
