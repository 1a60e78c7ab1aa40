// `cookies` and `followRedirects`, checked once for the plan: what a journey keeps between its
// requests (see session-state.ts).
import { SalvoOptionError, SalvoRangeError } from '../shared/errors.js';
import type { LoadOptions } from '../shared/load-options.js';
import type { Plan } from '../shared/plan.js';
import { rejectUnknownKeys, show } from '../shared/validate.js';

/** More would be a redirect loop: browsers stop at 20, curl at 50. */
export const MAX_REDIRECTS = 50;

/** The plan's `cookies` and `followRedirects`, each present only when on. */
export function planSession(options: LoadOptions): Pick<Plan, 'cookies' | 'followRedirects'> {
  const planned: Pick<Plan, 'cookies' | 'followRedirects'> = {};
  const { cookies, followRedirects } = options;
  if (cookies === true) planned.cookies = 'journey';
  else if (typeof cookies === 'object' && cookies !== null && !Array.isArray(cookies)) {
    rejectUnknownKeys(cookies, ['keep'], 'cookies');
    if (cookies.keep !== undefined && typeof cookies.keep !== 'boolean') {
      throw new SalvoOptionError(`cookies.keep must be true or false; got ${show(cookies.keep)}`, {
        option: 'cookies.keep',
        value: cookies.keep,
      });
    }
    planned.cookies = cookies.keep === true ? 'connection' : 'journey';
  } else if (cookies !== undefined && cookies !== false) {
    throw new SalvoOptionError(`cookies must be true, false or { keep: true }; got ${show(cookies)}`, {
      option: 'cookies',
      value: cookies,
    });
  }
  if (followRedirects !== undefined) {
    if (typeof followRedirects !== 'number' || Number.isNaN(followRedirects)) {
      throw new SalvoOptionError(`followRedirects must be a whole number of redirects; got ${show(followRedirects)}`, {
        option: 'followRedirects',
        value: followRedirects,
      });
    }
    if (!Number.isInteger(followRedirects) || followRedirects < 0 || followRedirects > MAX_REDIRECTS) {
      throw new SalvoRangeError(
        `followRedirects must be a whole number from 0 to ${MAX_REDIRECTS}; got ${show(followRedirects)}`,
        {
          option: 'followRedirects',
          value: followRedirects,
        },
      );
    }
    if (followRedirects > 0) planned.followRedirects = followRedirects;
  }
  // A streamed body is read as events as it comes, never copied for a jar or a Location.
  if (options.stream !== undefined && (planned.cookies !== undefined || planned.followRedirects !== undefined)) {
    const option = planned.cookies !== undefined ? 'cookies' : 'followRedirects';
    throw new SalvoOptionError(`${option} cannot be combined with stream; got ${option} ${show(options[option])}`, {
      option,
      value: options[option],
      mentions: ['stream'],
    });
  }
  return planned;
}
