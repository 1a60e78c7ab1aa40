// Prometheus remote write 1.0 (https://prometheus.io/docs/specs/remote_write_spec/): a protobuf
// WriteRequest, snappy block-compressed. Only four messages are written, so they are encoded here
// (about 40 lines) instead of loading protobufjs (3.8 MB with its dependencies) for them:
//   WriteRequest { repeated TimeSeries timeseries = 1; }
//   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
//   Label        { string name = 1; string value = 2; }
//   Sample       { double value = 1; int64 timestamp = 2; }   (timestamp: epoch ms)

/** One series: labels sorted by name (`__name__` first, as the spec asks), samples in time order. */
export interface Series {
  labels: ReadonlyArray<readonly [name: string, value: string]>;
  samples: Array<{ value: number; timestampMs: number }>;
}

const LENGTH_DELIMITED = 2;
const FIXED64 = 1;
const VARINT = 0;

/** A non-negative integer up to 2^53 as a base-128 varint (timestamps pass 2^32: no bitwise ops). */
function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value >= 0x80) {
    bytes.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  bytes.push(value);
  return bytes;
}

function key(field: number, wireType: number): number[] {
  return varint((field << 3) | wireType);
}

function delimited(field: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([...key(field, LENGTH_DELIMITED), ...varint(payload.length)]), payload]);
}

function label(name: string, value: string): Buffer {
  return Buffer.concat([delimited(1, Buffer.from(name)), delimited(2, Buffer.from(value))]);
}

function sample(value: number, timestampMs: number): Buffer {
  const bytes = Buffer.alloc(9);
  bytes[0] = key(1, FIXED64)[0]!;
  bytes.writeDoubleLE(value, 1);
  return Buffer.concat([bytes, Buffer.from([...key(2, VARINT), ...varint(timestampMs)])]);
}

/** The protobuf bytes of a WriteRequest holding `series` (not yet compressed). */
export function encodeWriteRequest(series: readonly Series[]): Buffer {
  return Buffer.concat(
    series.map(({ labels, samples }) =>
      delimited(
        1,
        Buffer.concat([
          ...labels.map(([name, value]) => delimited(1, label(name, value))),
          ...samples.map(({ value, timestampMs }) => delimited(2, sample(value, timestampMs))),
        ]),
      ),
    ),
  );
}
