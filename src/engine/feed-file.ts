// `feed` files read into rows once, when the run is planned: CSV (RFC 4180, with a header row) and
// JSON Lines. Small enough to keep by hand; a row is plain data that crosses to worker threads.
import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { SalvoOptionError } from '../shared/errors.js';

/**
 * CSV text as arrays of fields: fields split on commas, a quoted field may hold commas, line breaks
 * and `""` for a quote; lines end in LF or CRLF; blank lines are skipped. Throws with the line of
 * an unterminated quote.
 */
export function parseCsvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let quoteLine = 0;
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = (): void => {
    record.push(field);
    field = '';
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
  };
  for (; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char !== '"') {
        if (char === '\n') line++;
        field += char;
      } else if (text[index + 1] === '"') {
        field += '"';
        index++;
      } else quoted = false;
    } else if (char === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n') {
      endRecord();
      line++;
    } else if (char !== '\r' || text[index + 1] !== '\n') field += char;
  }
  if (quoted) throw new Error(`a quoted field opened on line ${quoteLine} never closes`);
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

/** CSV text with a header row as one object per row, of the header's names to the row's strings. */
export function parseCsvRows(text: string): Array<Record<string, string>> {
  const [header, ...records] = parseCsvRecords(text);
  if (header === undefined) return [];
  return records.map((fields, index) => {
    if (fields.length !== header.length)
      throw new Error(`row ${index + 1} has ${fields.length} fields; the header has ${header.length}`);
    return Object.fromEntries(header.map((name, column) => [name, fields[column]!]));
  });
}

/** JSON Lines: one JSON value per non-blank line. */
export function parseJsonLines(text: string): unknown[] {
  const rows: unknown[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      rows.push(JSON.parse(line));
    } catch (error) {
      throw new Error(`line ${index + 1} is not JSON (${(error as Error).message})`, { cause: error });
    }
  });
  return rows;
}

/** The rows of a `feed` file (relative paths from the working directory), by its extension. */
export function readFeedFile(option: string, path: string): unknown[] {
  const extension = extname(path).toLowerCase();
  const parse =
    extension === '.csv'
      ? parseCsvRows
      : extension === '.jsonl' || extension === '.ndjson'
        ? parseJsonLines
        : undefined;
  if (parse === undefined) {
    throw new SalvoOptionError(`${option} must be a .csv, .jsonl or .ndjson file; got ${JSON.stringify(path)}`, {
      option,
      value: path,
    });
  }
  let text: string;
  try {
    text = readFileSync(resolve(path), 'utf8');
  } catch (error) {
    throw new SalvoOptionError(`${option}: cannot read ${JSON.stringify(path)} (${(error as Error).message})`, {
      option,
      value: path,
    });
  }
  try {
    return parse(text);
  } catch (error) {
    throw new SalvoOptionError(`${option}: ${JSON.stringify(path)}: ${(error as Error).message}`, {
      option,
      value: path,
    });
  }
}
