import { hostname } from 'node:os';
import { UsageError, type OptionSpec } from '../args.ts';
import { eachReported, type Context } from '../context.ts';
import { localTime } from '../format.ts';

// What the administration commands (blackouts.ts … groups.ts, notifications.ts) share.

/** `-D ID`: delete `what`, found `by` its id (or, for notification receivers and rules, its name). */
export const DELETE = (what: string, by = 'using its id'): OptionSpec => ({
  name: 'delete',
  flags: ['-D', '--delete'],
  metavar: 'ID',
  help: `Delete ${what} ${by}`,
});
export const enc = encodeURIComponent;
/** `alerta/<hostname>`: where heartbeats and generated alerts say they come from. */
export const origin = () => `alerta/${hostname()}`;

/** Prints a created object: its id (or `idOf`) as text, the whole answer as JSON. */
export function created(
  ctx: Context,
  answer: Record<string, unknown>,
  key: string,
  idOf = (o: Record<string, unknown>) => o.id,
) {
  const obj = (answer[key] ?? answer) as Record<string, unknown>;
  if (ctx.isMachine) ctx.json(obj);
  else ctx.print(String(idOf(obj) ?? answer.id ?? ''));
}

/** `--purge`: deletes each of `items` at `<path>/<id>` under the label `Purging <n> <what>`. */
export function purge<T extends { id: string }>(
  ctx: Context,
  what: string,
  path: string,
  items: readonly T[],
  name: (item: T) => string,
): Promise<number> {
  return eachReported(
    ctx,
    `Purging ${items.length} ${what}`,
    items,
    name,
    (x) => ctx.http.delete(`${path}/${enc(x.id)}`),
    { announce: true },
  );
}

/** `--alert`: raises the alert `bodyOf` gives for each of `items`, labelled `Alerting <n> <what>`. */
export function alertEach<T>(
  ctx: Context,
  what: string,
  items: readonly T[],
  name: (item: T) => string,
  bodyOf: (item: T) => Record<string, unknown>,
  options?: { announce?: boolean },
): Promise<number> {
  return eachReported(
    ctx,
    `Alerting ${items.length} ${what}`,
    items,
    name,
    async (x) => ctx.http.post('/alert', bodyOf(x)),
    options,
  );
}

export const when = (ctx: Context) => (iso: unknown) => localTime(iso, ctx.settings.timezone);

/** The alarm model's severities, from the server's /config. */
export function severities(ctx: Context): Record<string, number> {
  const model = ctx.remote.alarm_model as { severity?: Record<string, number> } | undefined;
  return model?.severity ?? (ctx.remote.severity as Record<string, number> | undefined) ?? {};
}
export function normalSeverity(ctx: Context): string {
  const model = ctx.remote.alarm_model as { defaults?: { normal_severity?: string } } | undefined;
  return model?.defaults?.normal_severity ?? 'normal';
}
/** heartbeat(s) -s: a known, non-normal severity (checked before sending, as before). */
export function checkSeverity(ctx: Context, severity: string, command: string) {
  const normal = ['normal', 'ok', 'cleared'];
  if (normal.includes(severity)) {
    throw new UsageError(
      `Must be a non-normal severity. "${severity}" is one of ${normal.join(', ')}`,
      command,
    );
  }
  const known = Object.keys(severities(ctx));
  if (known.length && !known.includes(severity)) {
    throw new UsageError(
      `Must be a valid severity. "${severity}" is not one of ${known.join(', ')}`,
      command,
    );
  }
}
