/**
 * Parameters that configure the page, never the query (docs/ui.md; a plain module so unit tests can
 * import it): `cols` (the console's columns)
 * and `filter=none` (no default filter) are the console's and the wall's (docs/ui-console.md); `tiles`,
 * `columns`, `resort`, `group-by`, `heartbeats` and the `sound*` ones are the wall's (docs/ui-wall.md).
 */
export const UI_ONLY: ReadonlySet<string> = new Set([
  'kiosk',
  'theme',
  'scale',
  'density',
  'api-key',
  'cols',
  'filter',
  'tiles',
  'columns',
  'resort',
  'sound',
  'sound-repeat',
  'sound-mute',
  'group-by',
  'heartbeats',
]);

/** The view's query string from the page's URL, without the UI-only parameters. */
export function viewQuery(search: string): string {
  const params = new URLSearchParams(search);
  for (const k of [...params.keys()]) if (UI_ONLY.has(k)) params.delete(k);
  return params.toString();
}
