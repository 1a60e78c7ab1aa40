/**
 * One of Node's internal bindings through `process.binding`, or undefined where it is gone or
 * refused (a permission model, a future Node). Callers feature-detect every member they use.
 *
 * `process.binding` is deprecated (DEP0111) but documentation-only: it warns only under
 * `--pending-deprecation`, and not for the bindings salvo asks for, which Node 20, 22 and 24 keep
 * on its allow-list (`stream_wrap`, `tcp_wrap`).
 */
export function processBinding(name: string): unknown {
  const binding = (process as unknown as { binding?: (name: string) => unknown }).binding;
  if (typeof binding !== 'function') return undefined;
  const noDeprecation = process.noDeprecation;
  try {
    process.noDeprecation = true;
    return binding(name);
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = noDeprecation;
  }
}
