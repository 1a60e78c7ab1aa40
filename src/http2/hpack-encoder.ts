import { huffmanEncodeAll, huffmanEncodedLength } from './huffman.js';
import { STATIC_LENGTH, STATIC_NAMES, STATIC_VALUES } from './hpack-static-table.js';

/** Appends `value` with a `prefixBits`-bit prefix; `pattern` holds the representation's bits above it. */
export function encodeInteger(out: number[], value: number, prefixBits: number, pattern: number): void {
  const mask = (1 << prefixBits) - 1;
  if (value < mask) {
    out.push(pattern | value);
    return;
  }
  out.push(pattern | mask);
  let rest = value - mask;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
}

/** Appends a string literal, Huffman-coded only when that is shorter. */
function encodeString(out: number[], text: string): void {
  const bytes = Buffer.from(text, 'latin1');
  const huffmanLength = huffmanEncodedLength(bytes);
  if (huffmanLength < bytes.length) {
    encodeInteger(out, huffmanLength, 7, 0x80);
    for (const byte of huffmanEncodeAll(bytes)) out.push(byte);
  } else {
    encodeInteger(out, bytes.length, 7, 0);
    for (const byte of bytes) out.push(byte);
  }
}

/**
 * Encodes a request's header block once, to be sent unchanged on every stream: so it never touches
 * the dynamic table. Exact static matches are indexed, everything else is a literal without
 * indexing, naming the first static entry with the name when there is one. Names must be lower case.
 */
export function encodeHeaderBlock(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  const out: number[] = [];
  for (const [name, value] of fields) {
    let nameIndex = 0;
    let fieldIndex = 0;
    for (let index = 1; index <= STATIC_LENGTH; index++) {
      if (STATIC_NAMES[index] !== name) continue;
      if (nameIndex === 0) nameIndex = index;
      if (STATIC_VALUES[index] === value) {
        fieldIndex = index;
        break;
      }
    }
    if (fieldIndex !== 0) {
      encodeInteger(out, fieldIndex, 7, 0x80);
      continue;
    }
    encodeInteger(out, nameIndex, 4, 0);
    if (nameIndex === 0) encodeString(out, name);
    encodeString(out, value);
  }
  return Buffer.from(out);
}
