/**
 * How an error's `option` (and its message) names one key of an object option, the one way every
 * option does: `thresholds['latency.p99']`, `headers['x-a']`, `margins['errors.rate']` (a
 * JavaScript string literal in single quotes).
 */
export function optionKey(parent: string, key: string): string {
  return `${parent}['${key.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}']`;
}

/** What a SalvoOptionError or SalvoRangeError is about, beside its message. */
export interface SalvoErrorDetail {
  /**
   * The option as runLoad's (or the called function's) options spell it: `connections`,
   * `requests[1].path`, `websocket.rate`, `thresholds['latency.p99']` (`optionKey`).
   */
  readonly option: string;
  /** The value given for `option`; left out when the error is about a combination of options. */
  readonly value?: unknown;
  /**
   * Other options the message names (`websocket.message` in "websocket.rate needs
   * websocket.message"), so that a front end such as the CLI can give them its own names.
   */
  readonly mentions?: readonly string[];
  readonly cause?: unknown;
}

/**
 * Whether `value` is an error of `base` with salvo's `code`: each entry point (`salvo`, `salvo/gate`,
 * `salvo/report`) bundles its own copy of these classes, and `instanceof` holds across the copies.
 */
function isSalvoError(value: unknown, base: ErrorConstructor, ...codes: string[]): boolean {
  return value instanceof base && codes.includes((value as { code?: unknown }).code as string);
}

/** An option has the wrong type or shape. `code` is stable across versions. */
export class SalvoOptionError extends TypeError {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isSalvoError(value, TypeError, 'SALVO_INVALID_OPTION');
  }
  readonly code = 'SALVO_INVALID_OPTION';
  override readonly name = 'SalvoOptionError';
  /** The option at fault, as the API spells it (`requests[1].path`); `''` when built without a detail. */
  readonly option: string;
  /** The value given for it (undefined where the error is about a combination of options). */
  readonly value: unknown;
  /** Other options the message names. */
  readonly mentions: readonly string[];

  /** `detail` is optional for code of 0.x that builds these errors itself; salvo's own always give it. */
  constructor(message: string, detail?: SalvoErrorDetail) {
    super(message, detail?.cause === undefined ? undefined : { cause: detail.cause });
    this.option = detail?.option ?? '';
    this.value = detail?.value;
    this.mentions = detail?.mentions ?? [];
  }
}

/** An option is of the right type but outside its allowed range. `code` is stable across versions. */
export class SalvoRangeError extends RangeError {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isSalvoError(value, RangeError, 'SALVO_OUT_OF_RANGE');
  }
  readonly code = 'SALVO_OUT_OF_RANGE';
  override readonly name = 'SalvoRangeError';
  /** The option at fault, as the API spells it (`websocket.rate`); `''` when built without a detail. */
  readonly option: string;
  /** The value given for it. */
  readonly value: unknown;
  /** Other options the message names. */
  readonly mentions: readonly string[];

  /** `detail` is optional for code of 0.x that builds these errors itself; salvo's own always give it. */
  constructor(message: string, detail?: SalvoErrorDetail) {
    super(message, detail?.cause === undefined ? undefined : { cause: detail.cause });
    this.option = detail?.option ?? '';
    this.value = detail?.value;
    this.mentions = detail?.mentions ?? [];
  }
}

/**
 * A task module's `setup` threw (or rejected) in some thread before the run started
 * (`SALVO_TASK_SETUP_FAILED`; `cause` is what it threw, with its message, stack and `code`), or had
 * not finished within `setupTimeout` (`SALVO_TASK_SETUP_TIMEOUT`): nothing was sent, and every
 * thread whose setup had finished ran its `teardown`.
 */
export class SalvoTaskSetupError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isSalvoError(value, Error, 'SALVO_TASK_SETUP_FAILED', 'SALVO_TASK_SETUP_TIMEOUT');
  }
  readonly code: 'SALVO_TASK_SETUP_FAILED' | 'SALVO_TASK_SETUP_TIMEOUT';
  override readonly name = 'SalvoTaskSetupError';

  constructor(message: string, options?: { cause?: unknown; code?: SalvoTaskSetupError['code'] }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = options?.code ?? 'SALVO_TASK_SETUP_FAILED';
  }
}

/**
 * A coordinated run (`agents`) could not start: fewer than `expect` agents connected and proved the
 * token within `readyTimeout` (`SALVO_AGENTS_NOT_READY`). Nothing was sent.
 */
export class SalvoAgentsError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isSalvoError(value, Error, 'SALVO_AGENTS_NOT_READY');
  }
  readonly code = 'SALVO_AGENTS_NOT_READY';
  override readonly name = 'SalvoAgentsError';
}
