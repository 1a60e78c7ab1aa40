import t from 'tap';
import { planLoad } from '../../src/options.js';
import type { LoadOptions } from '../../src/shared/load-options.js';

const url = 'http://127.0.0.1:1/';
const write = 'http://127.0.0.1:9090/api/v1/write';
const outputs = (value: unknown) => planLoad({ url, outputs: value } as LoadOptions).hooks.outputs;

t.test('outputs are planned into the hooks (main thread only), with defaults', async (t) => {
  t.same(outputs([{ type: 'prometheus', url: write }]), [{ type: 'prometheus', url: write, labels: {}, headers: {} }]);
  t.same(
    outputs([{ type: 'prometheus', url: write, labels: { testid: 'checkout-v2', team: 'a' }, headers: { Authorization: 'Bearer x' } }]),
    [{ type: 'prometheus', url: write, labels: { testid: 'checkout-v2', team: 'a' }, headers: { authorization: 'Bearer x' } }],
  );
  t.equal(outputs(undefined), undefined);
  t.notOk('outputs' in planLoad({ url, outputs: [{ type: 'prometheus', url: write }] }).plan, 'never copied into worker threads');
});

t.test('bad outputs name the key', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [{ type: 'prometheus', url: write }, /^outputs must be an array/],
    [['x'], /^outputs\[0\] must be an object/],
    [[{ url: write }], /^outputs\[0\]\.type must be one of 'prometheus'; got undefined/],
    [[{ type: 'influxdb', url: write }], /^outputs\[0\]\.type must be one of 'prometheus'; got "influxdb"/],
    [[{ type: 'prometheus' }], /^outputs\[0\]\.url must be an http: or https: URL/],
    [[{ type: 'prometheus', url: write }, { type: 'prometheus', url: 'ftp://x/' }], /^outputs\[1\]\.url must be an http: or https: URL .*"ftp:\/\/x\/"/],
    [[{ type: 'prometheus', url: write, lables: {} }], /^unknown option "outputs\[0\]\.lables"; did you mean labels\?/],
    [[{ type: 'prometheus', url: write, labels: { 'test-id': 'x' } }], /^outputs\[0\]\.labels has an invalid Prometheus label name "test-id"/],
    [[{ type: 'prometheus', url: write, labels: { __name__: 'x' } }], /^outputs\[0\]\.labels has an invalid Prometheus label name "__name__"/],
    [[{ type: 'prometheus', url: write, labels: { status: 'x' } }], /^outputs\[0\]\.labels\.status is a label salvo's own series carry/],
    [[{ type: 'prometheus', url: write, labels: { testid: 7 } }], /^outputs\[0\]\.labels\.testid must be a non-empty string; got 7/],
    [[{ type: 'prometheus', url: write, labels: [] }], /^outputs\[0\]\.labels must be an object/],
    [[{ type: 'prometheus', url: write, headers: { 'a b': 'x' } }], /^outputs\[0\]\.headers has an invalid header name "a b"/],
  ];
  for (const [value, message] of cases) {
    t.throws(() => outputs(value), { name: 'SalvoOptionError', message }, String(message));
  }
});
