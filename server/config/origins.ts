/**
 * Does CORS_ORIGINS list this origin: exactly, as `*`, or by a regular expression? As in the
 * established server (flask-cors), an entry holding regex characters is a pattern matched from the
 * start of the origin (the default that admits `*.local.alerta.io` is one).
 */
export function originMatcher(origins: readonly string[]): (origin: string) => boolean {
  const isPattern = (o: string) => o !== '*' && /[\\^$*+?()[\]{}|]/.test(o);
  const exact = new Set(origins.filter((o) => !isPattern(o)));
  const patterns = origins.filter(isPattern).map((o) => new RegExp(o.startsWith('^') ? o : `^(?:${o})`));
  return (origin) => exact.has('*') || exact.has(origin) || patterns.some((p) => p.test(origin));
}
