/** An option has the wrong type or shape. `code` is stable across versions. */
export class SalvoOptionError extends TypeError {
  readonly code = 'SALVO_INVALID_OPTION';
  override readonly name = 'SalvoOptionError';
}

/** An option is of the right type but outside its allowed range. `code` is stable across versions. */
export class SalvoRangeError extends RangeError {
  readonly code = 'SALVO_OUT_OF_RANGE';
  override readonly name = 'SalvoRangeError';
}
