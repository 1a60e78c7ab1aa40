import { SalvoTaskSetupError } from '../shared/errors.js';

/**
 * A task's setup error as it crosses from a worker thread: a thread's Error arrives with its message
 * and stack but without its `code` or any other field of its own (and a SalvoTaskSetupError as a
 * plain Error), so both travel as plain data and are made again in the main thread.
 */
export interface SentSetupError {
  salvoTaskSetupError: { message: string; code: SalvoTaskSetupError['code']; cause?: SentError | { value: unknown } };
}

/** An error of the user's, field by field. */
interface SentError {
  name: string;
  message: string;
  stack: string | undefined;
  fields: Record<string, unknown>;
}

/** What a worker thread throws in place of `error`. */
export function sendSetupError(error: SalvoTaskSetupError): SentSetupError {
  const { cause } = error;
  const sent: SentSetupError['salvoTaskSetupError'] = { message: error.message, code: error.code };
  if (cause instanceof Error) {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(cause)) if (copyable(value)) fields[key] = value;
    sent.cause = { name: cause.name, message: cause.message, stack: cause.stack, fields };
  } else if (cause !== undefined && copyable(cause)) {
    sent.cause = { value: cause };
  }
  return { salvoTaskSetupError: sent };
}

/** The SalvoTaskSetupError a worker thread sent (`sendSetupError`), or undefined for anything else. */
export function receivedSetupError(thrown: unknown): SalvoTaskSetupError | undefined {
  const sent = (thrown as Partial<SentSetupError> | null)?.salvoTaskSetupError;
  if (typeof sent !== 'object' || sent === null) return undefined;
  const { cause } = sent;
  if (cause === undefined) return new SalvoTaskSetupError(sent.message, { code: sent.code });
  if ('value' in cause) return new SalvoTaskSetupError(sent.message, { code: sent.code, cause: cause.value });
  const error = Object.assign(new Error(cause.message), cause.fields);
  if (cause.name !== 'Error')
    Object.defineProperty(error, 'name', { value: cause.name, configurable: true, writable: true });
  error.stack = cause.stack;
  return new SalvoTaskSetupError(sent.message, { code: sent.code, cause: error });
}

function copyable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}
