// A request spec's `form`, encoded once as its body: URL-encoded fields (what an HTML form posts),
// or multipart/form-data when a field is a file (RFC 7578), each with its content type.
import { randomBytes } from 'node:crypto';
import { SalvoOptionError } from './errors.js';
import { show } from './validate.js';
import type { FormBody, FormFile, FormValue } from './form.js';

/** `form` as a body and the content type that says how to read it. */
export function encodeForm(option: string, form: unknown): { body: Buffer; contentType: string } {
  if (typeof form !== 'object' || form === null || Array.isArray(form) || Buffer.isBuffer(form)) {
    throw new SalvoOptionError(`${option} must be an object of field names to values; got ${show(form)}`, {
      option,
      value: form,
    });
  }
  const { multipart, ...fields } = form as FormBody;
  if (multipart !== undefined && typeof multipart !== 'boolean') {
    throw new SalvoOptionError(`${option}.multipart must be true or false; got ${show(multipart)}`, {
      option: `${option}.multipart`,
      value: multipart,
    });
  }
  const entries: Array<[string, FormValue]> = [];
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) entries.push([name, checkValue(option, name, item)]);
  }
  const files = entries.some(([, value]) => typeof value === 'object');
  if (multipart === true || files) return encodeMultipart(entries);
  const params = new URLSearchParams();
  for (const [name, value] of entries) params.append(name, String(value));
  return { body: Buffer.from(params.toString()), contentType: 'application/x-www-form-urlencoded' };
}

function checkValue(option: string, name: string, value: unknown): FormValue {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const file = value as Partial<FormFile> | null;
  const content = file?.content;
  if (
    typeof file === 'object' &&
    file !== null &&
    (typeof content === 'string' || content instanceof Uint8Array) &&
    (file.filename === undefined || typeof file.filename === 'string') &&
    (file.contentType === undefined || typeof file.contentType === 'string')
  ) {
    return file as FormFile;
  }
  const field = `${option}.${name}`;
  throw new SalvoOptionError(
    `${field} must be a string, number, boolean, Buffer or { content, filename?, contentType? }; got ${show(value)}`,
    { option: field, value },
  );
}

/** Quotes a name or filename in a part's content-disposition (RFC 7578 4.2: `"` and line breaks escaped). */
function quoted(text: string): string {
  return `"${text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

function encodeMultipart(entries: Array<[string, FormValue]>): { body: Buffer; contentType: string } {
  const boundary = `----salvo${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of entries) {
    let head = `--${boundary}\r\ncontent-disposition: form-data; name=${quoted(name)}`;
    let content: Buffer;
    if (Buffer.isBuffer(value) || typeof value === 'object') {
      const file: FormFile = Buffer.isBuffer(value) ? { content: value } : value;
      head += `; filename=${quoted(file.filename ?? 'blob')}\r\ncontent-type: ${file.contentType ?? 'application/octet-stream'}`;
      const bytes = file.content;
      content =
        typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } else {
      content = Buffer.from(String(value));
    }
    parts.push(Buffer.from(`${head}\r\n\r\n`), content, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
