// The small HTML vocabulary every report page is written in: escaping, numbers, tables, sections.

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const FINE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Milliseconds: 3 decimals below 10 ms, 2 above; `n/a` for a missing value. */
export function ms(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value)
    ? `${(Math.abs(value) < 10 ? FINE : DECIMAL).format(value)} ms`
    : 'n/a';
}

/** A count with separators, or a rate with up to 3 decimals below 10 and 2 above. */
export function number(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'n/a';
  return Number.isInteger(value) ? COUNT.format(value) : (Math.abs(value) < 10 ? FINE : DECIMAL).format(value);
}

/** A fraction as a percentage with up to 2 decimals: 0.0123 is `1.23%`. */
export function percent(fraction: number | null | undefined): string {
  return typeof fraction === 'number' && Number.isFinite(fraction) ? `${DECIMAL.format(fraction * 100)}%` : 'n/a';
}

/** Decimal (SI) byte units, as network throughput is quoted. */
export function bytes(value: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) [value, unit] = [value / 1000, unit + 1];
  return `${(unit === 0 ? COUNT : DECIMAL).format(value)} ${units[unit]}`;
}

export function plural(count: number, noun: string): string {
  return `${COUNT.format(count)} ${noun}${count === 1 ? '' : 's'}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A real table for keyboards and screen readers: a caption when given, `<th scope="col">` headers,
 * and the first cell of each row a `<th scope="row">` unless `rowHeaders` is false. Cells are HTML.
 */
export function table(
  head: string[],
  rows: string[][],
  options: { className?: string; caption?: string; id?: string; rowHeaders?: boolean; textColumns?: number[] } = {},
): string {
  const rowHeaders = options.rowHeaders ?? true;
  // Words in a table of numbers: left-aligned and free to wrap.
  const text = new Set(options.textColumns ?? []);
  const headCells = head.map((cell, i) => `<th scope="col"${text.has(i) ? ' class="text"' : ''}>${cell}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((cell, i) => (i === 0 && rowHeaders ? `<th scope="row">${cell}</th>` : `<td${text.has(i) ? ' class="text"' : ''}>${cell}</td>`)).join('')}</tr>`,
    )
    .join('');
  const attributes = `${options.id === undefined ? '' : ` id="${options.id}"`}${options.className === undefined ? '' : ` class="${options.className}"`}`;
  const caption = options.caption === undefined ? '' : `<caption>${escapeHtml(options.caption)}</caption>`;
  return `<table${attributes}>${caption}<thead><tr>${headCells}</tr></thead><tbody>${body}</tbody></table>`;
}

export function section(title: string, body: string, id: string): string {
  return `<section id="${id}" aria-labelledby="${id}-title"><h2 id="${id}-title">${escapeHtml(title)}</h2>${body}</section>`;
}

/** Headline numbers as cards: `[label, value, note?]`, the value plain text. */
export function cards(items: ReadonlyArray<readonly [string, string, string?]>): string {
  return `<div class="cards">${items
    .map(
      ([label, value, note]) =>
        `<div class="card"><div class="label">${escapeHtml(label)}</div><div class="value">${escapeHtml(value)}</div>${note === undefined ? '' : `<div class="note">${escapeHtml(note)}</div>`}</div>`,
    )
    .join('')}</div>`;
}
