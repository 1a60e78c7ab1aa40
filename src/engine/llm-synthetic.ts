import type { PlannedLlm, TokenCount } from '../shared/llm.js';

/** Common English words that tokenizers of the Llama, GPT and Qwen families each count as one token (with the space before). */
const WORDS = (
  'the of and to in is for on that with as by at from this be are or an was it not but have all can more ' +
  'one will has new time about after first other some what when which people into year only over two work ' +
  'world state city school life day back long good make know just where well high most place great small'
).split(' ');

/** A 32-bit hash of `seed` and `index` (splitmix32's finaliser): the random state of prompt `index`. */
function hash(seed: number, index: number): number {
  let x = (seed * 0x9e3779b9 + index * 0x85ebca6b + 0x27d4eb2f) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return (x ^ (x >>> 15)) >>> 0;
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
function generator(state: number): () => number {
  let a = state;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One draw of a token count (at least 1). */
export function drawCount(count: TokenCount, random: () => number): number {
  if (typeof count === 'number') return count;
  if ('stddev' in count) {
    // Box-Muller; the second value is not kept so that each draw costs the same two numbers.
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const drawn = Math.round(count.mean + count.stddev * normal);
    return Math.max(1, count.min ?? 1, Math.min(count.max ?? Infinity, drawn));
  }
  return count.min + Math.floor(random() * (count.max - count.min + 1));
}

function words(count: number, random: () => number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += (i === 0 ? '' : ' ') + WORDS[Math.floor(random() * WORDS.length)]!;
  return text;
}

/**
 * Synthetic prompt `index` (0 <= index < count): `sharedPrefix` words common to every prompt, then
 * words of its own up to its input length, and its output length; the same for the same seed.
 */
export function syntheticPrompt(
  synthetic: NonNullable<PlannedLlm['synthetic']>,
  index: number,
): { text: string; outputTokens: number | undefined } {
  const random = generator(hash(synthetic.seed, index));
  const input = drawCount(synthetic.inputTokens, random);
  const outputTokens = synthetic.outputTokens === undefined ? undefined : drawCount(synthetic.outputTokens, random);
  const prefix = Math.min(synthetic.sharedPrefix, input);
  const shared = prefix > 0 ? words(prefix, generator(hash(synthetic.seed, -1))) : '';
  const own = words(input - prefix, random);
  return { text: shared === '' ? own : own === '' ? shared : `${shared} ${own}`, outputTokens };
}
