import t from 'tap';
import snappy from 'snappyjs';
import { encodeWriteRequest } from '../../src/outputs/remote-write.js';

t.test('a WriteRequest is the protobuf bytes the remote-write spec defines', async (t) => {
  const bytes = encodeWriteRequest([
    {
      labels: [['__name__', 'a'], ['status', '200']],
      samples: [
        { value: 1, timestampMs: 1_700_000_000_000 },
        { value: 0.25, timestampMs: 1_700_000_001_000 },
      ],
    },
  ]);
  // Worked out by hand from prometheus/prompb/types.proto: field 1 (timeseries) of 0x42 bytes holding
  // two labels (field 1) and two samples (field 2: a fixed64 double, then the timestamp as a varint
  // of more than 32 bits).
  t.equal(
    bytes.toString('hex'),
    '0a420a0d0a085f5f6e616d655f5f1201610a0d0a067374617475731203323030' +
      '121009000000000000f03f1080d095ffbc31121009000000000000d03f10e8d795ffbc31',
  );
  t.equal(encodeWriteRequest([]).length, 0, 'an empty request is no bytes');
});

t.test('long labels take multi-byte lengths, and the body survives snappy', async (t) => {
  const value = 'x'.repeat(300);
  const bytes = encodeWriteRequest([{ labels: [['__name__', 'b'], ['long', value]], samples: [{ value: -2.5, timestampMs: 0 }] }]);
  t.ok(bytes.includes(Buffer.from([0x12, 0xac, 0x02])), 'a 300-byte value has the 2-byte length ac 02');
  t.same(Buffer.from(snappy.uncompress(snappy.compress(bytes))), bytes);
});
