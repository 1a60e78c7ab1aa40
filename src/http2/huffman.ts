/**
 * The HPACK Huffman code (RFC 7541 section 5.2, Appendix B). The code is canonical, so the code
 * length of each symbol is all the data there is: the codes and the decoder's state machine are
 * built from it when the module loads.
 */

/** Code length in bits of symbols 0-255 and of EOS (256), from RFC 7541 Appendix B. */
const CODE_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0-15
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 16-31
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, //          ' ' - '/'
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, //               '0' - '?'
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, //                 '@' - 'O'
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, //              'P' - '_'
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, //                 '`' - 'o'
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, //             'p' - 127
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 128-143
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 144-159
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 160-175
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 176-191
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 192-207
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 208-223
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 224-239
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 240-255
  30, // EOS
];

const SYMBOLS = 257;
const EOS = 256;

/** Codes right-aligned (at most 30 bits, so they stay small integers), by symbol. */
const CODES = new Uint32Array(SYMBOLS);
const LENGTHS = Uint8Array.from(CODE_LENGTHS);

{
  // Canonical assignment: by length, then by symbol, each code one more than the last, shifted
  // left when the length grows.
  const order = Array.from({ length: SYMBOLS }, (_, symbol) => symbol).sort(
    (a, b) => LENGTHS[a]! - LENGTHS[b]! || a - b,
  );
  let code = 0;
  let length = LENGTHS[order[0]!]!;
  for (const symbol of order) {
    code *= 2 ** (LENGTHS[symbol]! - length);
    length = LENGTHS[symbol]!;
    CODES[symbol] = code;
    code++;
  }
  // A complete code ends exactly on the all-ones code of the longest length (EOS).
  if (code !== 2 ** length || CODES[EOS] !== 2 ** 30 - 1) {
    throw new Error('HPACK Huffman code lengths are not a complete code');
  }
}

/*
 * The decoder reads 4 bits at a time. Its states are the internal nodes of the code tree: the bits
 * read since the last symbol. No code is shorter than 5 bits, so one nibble ends at most one symbol.
 * A transition is packed as next state | symbol << 8 | EMIT | FAIL.
 */
const EMIT = 1 << 16;
const FAIL = 1 << 17;
/** 257 leaves make 256 internal nodes, numbered in the order they are made: the root is 0. */
const STATES = SYMBOLS - 1;
const TRANSITIONS = new Uint32Array(STATES * 16);
/**
 * Whether input may end in a state: at a symbol boundary, or inside a run of at most 7 one bits,
 * the padding allowed (a prefix of EOS shorter than a byte).
 */
const ACCEPTING = new Uint8Array(STATES);

{
  // children[2 * node + bit]: an internal node's number, or ~symbol for a leaf.
  const children = new Int32Array(2 * STATES).fill(-SYMBOLS - 1);
  let nodes = 1;
  for (let symbol = 0; symbol < SYMBOLS; symbol++) {
    let node = 0;
    for (let bit = LENGTHS[symbol]! - 1; bit >= 0; bit--) {
      const slot = 2 * node + ((CODES[symbol]! >>> bit) & 1);
      if (bit === 0) {
        children[slot] = ~symbol;
      } else {
        if (children[slot] === -SYMBOLS - 1) children[slot] = nodes++;
        node = children[slot]!;
      }
    }
  }
  ACCEPTING[0] = 1;
  for (let node = 0, depth = 0; depth < 7; depth++) {
    node = children[2 * node + 1]!;
    ACCEPTING[node] = 1;
  }
  for (let state = 0; state < STATES; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let transition = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const child = children[2 * node + ((nibble >>> bit) & 1)]!;
        if (child >= 0) {
          node = child;
        } else if (~child === EOS) {
          transition = FAIL;
          break;
        } else {
          transition = EMIT | (~child << 8);
          node = 0;
        }
      }
      TRANSITIONS[state * 16 + nibble] = transition | (transition & FAIL ? 0 : node);
    }
  }
}

/**
 * Decodes `src[start, end)` into `out` from index 0 and returns the number of bytes written, or -1
 * when the input holds EOS or ends in anything but at most 7 bits of one-padding. `out` must hold
 * `(end - start) * 8 / 5` bytes: the shortest codes are 5 bits.
 */
export function huffmanDecode(src: Uint8Array, start: number, end: number, out: Uint8Array): number {
  let state = 0;
  let n = 0;
  for (let i = start; i < end; i++) {
    const byte = src[i]!;
    let t = TRANSITIONS[(state << 4) | (byte >>> 4)]!;
    if (t > 0xffff) {
      if (t & FAIL) return -1;
      out[n++] = (t >>> 8) & 0xff;
    }
    t = TRANSITIONS[((t & 0xff) << 4) | (byte & 15)]!;
    if (t > 0xffff) {
      if (t & FAIL) return -1;
      out[n++] = (t >>> 8) & 0xff;
    }
    state = t & 0xff;
  }
  return ACCEPTING[state] === 1 ? n : -1;
}

/** The length in bytes of the Huffman encoding of `bytes`, padding included. */
export function huffmanEncodedLength(bytes: Uint8Array): number {
  let bits = 0;
  for (let i = 0; i < bytes.length; i++) bits += LENGTHS[bytes[i]!]!;
  return Math.ceil(bits / 8);
}

/**
 * Writes the Huffman encoding of `bytes` into `out` at `offset`, padded with one bits, and returns
 * the offset after it. Pending bits are kept in a double (at most 7 + 30 of them), not an int32.
 */
export function huffmanEncode(bytes: Uint8Array, out: Uint8Array, offset: number): number {
  let pending = 0;
  let bits = 0;
  for (let i = 0; i < bytes.length; i++) {
    const symbol = bytes[i]!;
    pending = pending * 2 ** LENGTHS[symbol]! + CODES[symbol]!;
    bits += LENGTHS[symbol]!;
    while (bits >= 8) {
      bits -= 8;
      const scale = 2 ** bits;
      const byte = Math.floor(pending / scale);
      out[offset++] = byte;
      pending -= byte * scale;
    }
  }
  if (bits > 0) out[offset++] = (pending << (8 - bits)) | (0xff >>> bits);
  return offset;
}

/** `bytes` Huffman-coded, in a Buffer of its own. */
export function huffmanEncodeAll(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(huffmanEncodedLength(bytes));
  huffmanEncode(bytes, out, 0);
  return out;
}
