import { fstatSync, readFileSync } from 'node:fs';
import type { Alert, Note } from '../../shared/alerts.ts';
import type { HistoryListEntry } from '../../shared/queries.ts';
import { alertOption, keyValues, strings, UsageError } from '../args.ts';
import { answered, eachReported, listFrom, listing, readStdin, type Command } from '../context.ts';
import { localTime } from '../format.ts';
import { ApiError, CliError } from '../http.ts';
import { firstPage, idsOf, selectionOf, selectOptions } from '../selection.ts';
import { alertLines, alertNameColumns, alertTable } from '../views.ts';

const str = (v: unknown) => (typeof v === 'string' ? v : null);

// ---- send ---------------------------------------------------------------------------------

/**
 * Every key of POST /alert, with null for "not given" and [] / {} for empty lists and maps,
 * exactly as the established client sends them (clients.md trap 1).
 */
export function alertBody(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: fields.id ?? null,
    resource: fields.resource ?? null,
    event: fields.event ?? null,
    environment: fields.environment ?? null,
    severity: fields.severity ?? null,
    correlate: fields.correlate ?? [],
    service: fields.service ?? [],
    group: fields.group ?? null,
    value: fields.value ?? null,
    text: fields.text ?? null,
    tags: fields.tags ?? [],
    attributes: fields.attributes ?? {},
    origin: fields.origin ?? null,
    type: fields.type ?? null,
    createTime: fields.createTime ?? new Date().toISOString(),
    timeout: fields.timeout ?? null,
    rawData: fields.rawData ?? fields.raw_data ?? null,
    customer: fields.customer ?? null,
  };
}

/** Whether stdin carries data (a pipe, socket or file) rather than a terminal or /dev/null. */
function stdinHasData(): boolean {
  try {
    const st = fstatSync(0);
    return st.isFIFO() || st.isFile() || st.isSocket();
  } catch {
    return false;
  }
}

interface SendAnswer {
  status?: string;
  id?: string;
  message?: string;
  alert?: Alert;
}

/** `<id> (<prev> -> <sev>)`, `<id> (<n> duplicates)` or `<id> (<message>)` (clients.md trap 19). */
const sendLine = (a: SendAnswer) => {
  if (a.alert) {
    const what = a.alert.repeat
      ? `${a.alert.duplicateCount} duplicates`
      : `${a.alert.previousSeverity} -> ${a.alert.severity}`;
    return `${a.id ?? a.alert.id} (${what})`;
  }
  return `${a.id} (${a.message ?? 'ok'})`;
};

const send: Command = {
  name: 'send',
  summary: 'Send an alert',
  description:
    'Send an alert. Alerts can also be piped in as JSON lines (one alert object per line) when\n' +
    'neither -r nor -e is given, or with --stdin.',
  options: [
    alertOption('resource'),
    alertOption('event'),
    alertOption('environment'),
    alertOption('severity'),
    {
      name: 'correlate',
      flags: ['-C', '--correlate'],
      multiple: true,
      metavar: 'EVENT',
      help: 'Related event',
    },
    alertOption('service'),
    alertOption('group'),
    { name: 'value', flags: ['-v', '--value'], metavar: 'VALUE', help: 'Event value' },
    { name: 'text', flags: ['-t', '--text'], metavar: 'DESCRIPTION', help: 'Description of the alert' },
    alertOption('tags'),
    {
      name: 'attributes',
      flags: ['-A', '--attributes'],
      multiple: true,
      metavar: 'KEY=VALUE',
      help: 'Attribute',
    },
    alertOption('origin'),
    { name: 'type', flags: ['--type'], metavar: 'EVENT_TYPE', help: 'Event type, e.g. exceptionAlert' },
    alertOption('timeout'),
    {
      name: 'raw_data',
      flags: ['--raw-data'],
      metavar: 'STRING',
      help: "Raw data of the original alert; '@FILE' reads a file, '-' reads stdin",
    },
    alertOption('customer'),
    { name: 'stdin', flags: ['--stdin'], type: 'flag', help: 'Read alerts as JSON lines from stdin' },
  ],
  async run(ctx, o) {
    const results: SendAnswer[] = [];
    let failed = 0;
    /** One alert; in a batch a refused alert is reported and the rest still go. */
    const sendOne = async (body: Record<string, unknown>, batch: boolean) => {
      try {
        const r = await ctx.http.post<SendAnswer>('/alert', body);
        results.push(r);
        if (!ctx.isMachine) ctx.print(sendLine(r));
        else if (ctx.isJsonLines) ctx.json(r);
      } catch (err) {
        if (!batch || !(err instanceof ApiError)) throw err;
        failed++;
        ctx.warn(`ERROR: ${err.message}`);
      }
    };

    const rawFlag = str(o.raw_data);
    const readsAlerts = o.stdin === true || (!o.resource && !o.event && rawFlag !== '-' && stdinHasData());
    if (readsAlerts) {
      const text = await readStdin(ctx.stdin);
      const lines = text.split(/\r?\n/).filter((l) => l.trim());
      if (!lines.length) throw new CliError('no alerts on stdin (expected one JSON object per line)');
      for (const [n, line] of lines.entries()) {
        let fields: unknown;
        try {
          fields = JSON.parse(line);
        } catch (err) {
          throw new CliError(`stdin line ${n + 1}: not JSON (${(err as Error).message})`);
        }
        if (!fields || typeof fields !== 'object' || Array.isArray(fields)) {
          throw new CliError(`stdin line ${n + 1}: expected a JSON object`);
        }
        await sendOne(alertBody(fields as Record<string, unknown>), true);
      }
    } else {
      if (!o.resource || !o.event) {
        throw new UsageError(
          'Missing option "-r" / "--resource" and "-e" / "--event" (or alerts on stdin)',
          'send',
        );
      }
      let rawData = rawFlag;
      if (rawData === '-') rawData = await readStdin(ctx.stdin);
      else if (rawData?.startsWith('@')) {
        try {
          rawData = readFileSync(rawData.slice(1), 'utf8');
        } catch (err) {
          throw new UsageError(`Invalid value for "--raw-data": ${(err as Error).message}`, 'send');
        }
      }
      await sendOne(
        alertBody({
          resource: o.resource,
          event: o.event,
          environment: o.environment,
          severity: o.severity,
          correlate: strings(o.correlate),
          service: strings(o.service),
          group: o.group,
          value: o.value,
          text: o.text,
          tags: strings(o.tags),
          attributes: keyValues(o.attributes as string[], '-A'),
          origin: o.origin,
          type: o.type,
          timeout: o.timeout,
          rawData,
          customer: o.customer,
        }),
        false,
      );
    }
    if (ctx.isJson) ctx.json(results.length === 1 && !readsAlerts ? results[0] : results);
    return failed ? 1 : 0;
  },
};

// ---- query, raw, history ------------------------------------------------------------------

const query: Command = {
  name: 'query',
  summary: 'Search for alerts',
  options: [
    ...selectOptions(),
    {
      name: 'display',
      flags: ['--oneline'],
      type: 'flag',
      value: 'oneline',
      default: 'oneline',
      help: 'Table, one row per alert (default)',
    },
    {
      name: 'display',
      flags: ['--medium'],
      type: 'flag',
      value: 'medium',
      help: 'Important alert attributes, one line each',
    },
    { name: 'display', flags: ['--full'], type: 'flag', value: 'full', help: 'Full alert details' },
  ],
  async run(ctx, o) {
    const r = await firstPage<{ alerts: Alert[] }>(ctx.http, '/alerts', o);
    if (ctx.isMachine) return void ctx.json(r.alerts);
    const { timezone } = ctx.settings;
    if (o.display === 'oneline') return void ctx.print(alertTable(r.alerts, ctx.output, timezone, ctx.color));
    // Oldest first, so the newest ends up next to the prompt.
    for (const a of [...r.alerts].reverse())
      ctx.print(alertLines(a, timezone, ctx.color, o.display === 'full'));
  },
};

const raw: Command = {
  name: 'raw',
  summary: 'Show alert raw data',
  options: selectOptions(),
  async run(ctx, o) {
    // show-raw-data: without it the server leaves rawData out (the established client forgets it).
    const r = await firstPage<{ alerts: Alert[] }>(ctx.http, '/alerts', o, [['show-raw-data', 'true']]);
    const rows = r.alerts.map((a) => ({ id: a.id, rawData: a.rawData }));
    listing(ctx, rows, [
      { header: 'ID', value: (x) => x.id.slice(0, 8) },
      { header: 'RAW DATA', value: (x) => x.rawData },
    ]);
  },
};

const history: Command = {
  name: 'history',
  summary: 'Show alert history',
  options: selectOptions(),
  async run(ctx, o) {
    const r = await firstPage<{ history: HistoryListEntry[] }>(ctx.http, '/alerts/history', o);
    const tz = ctx.settings.timezone;
    listing(ctx, r.history, [
      { header: 'ID', value: (h) => h.id.slice(0, 8) },
      { header: 'LAST UPDATED', value: (h) => localTime(h.updateTime, tz) },
      { header: 'SEVERITY', value: (h) => h.severity },
      { header: 'STATUS', value: (h) => h.status },
      { header: 'TYPE', value: (h) => h.type },
      ...alertNameColumns<HistoryListEntry>(),
      { header: 'USER', value: (h) => h.user },
      { header: 'TEXT', value: (h) => h.text },
    ]);
  },
};

// ---- alerts (environments, services, groups, tags) -----------------------------------------

type Counted = Record<string, unknown> & { environment: string; count: number };

const alertsCmd: Command = {
  name: 'alerts',
  summary: 'List environments, services, groups and tags',
  options: [
    { name: 'environments', flags: ['-E', '--environments'], type: 'flag', help: 'List alert environments' },
    { name: 'services', flags: ['-S', '--services'], type: 'flag', help: 'List alert services' },
    { name: 'groups', flags: ['-g', '--groups'], type: 'flag', help: 'List alert groups' },
    { name: 'tags', flags: ['-T', '--tags'], type: 'flag', help: 'List alert tags' },
  ],
  async run(ctx, o) {
    const pick = (
      [
        ['environments', '/environments', 'environments', null],
        ['services', '/services', 'services', 'service'],
        ['groups', '/alerts/groups', 'groups', 'group'],
        ['tags', '/alerts/tags', 'tags', 'tag'],
      ] as const
    ).find(([flag]) => o[flag]);
    if (!pick) throw new UsageError('Must choose an alert attribute to list (-E, -S, -g or -T).', 'alerts');
    const [, path, key, field] = pick;
    const r = await ctx.http.get<Record<string, Counted[]>>(path);
    const items = r[key] ?? [];
    const counts = (v: unknown) =>
      v && typeof v === 'object'
        ? Object.entries(v)
            .map(([k, n]) => `${k}=${String(n)}`)
            .join(', ')
        : '';
    listing(ctx, items, [
      { header: 'ENVIRONMENT', value: (i) => i.environment },
      ...(field ? [{ header: field.toUpperCase(), value: (i: Counted) => i[field] }] : []),
      { header: 'COUNT', value: (i) => i.count },
      { header: 'SEVERITY COUNTS', value: (i) => counts(i.severityCounts) },
      { header: 'STATUS COUNTS', value: (i) => counts(i.statusCounts) },
    ]);
  },
};

// ---- notes ----------------------------------------------------------------------------------

const note: Command = {
  name: 'note',
  summary: 'Add or delete alert notes',
  description:
    'Add a note to alerts, or delete one.\n\n' +
    '  alerta note -i ALERT_ID --text "rebooted"\n  alerta note -f resource=web01 --text "known issue"\n' +
    '  alerta note -D ALERT_ID NOTE_ID',
  options: [
    ...selectOptions('alert_ids', '--alert-ids'),
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Note text' },
    {
      name: 'delete',
      flags: ['-D', '--delete'],
      nargs: 2,
      metavar: 'ALERT_ID NOTE_ID',
      help: 'Delete a note',
    },
  ],
  async run(ctx, o) {
    if (Array.isArray(o.delete)) {
      const [alertId, noteId] = o.delete as string[];
      const path = `/alert/${encodeURIComponent(alertId!)}/note/${encodeURIComponent(noteId!)}`;
      return answered(ctx, await ctx.http.delete(path));
    }
    if (typeof o.text !== 'string' || !o.text) throw new UsageError('Missing option "--text"', 'note');
    const ids = await idsOf(ctx.http, selectionOf(o, 'alert_ids'));
    const notes: Note[] = [];
    const failed = await eachReported(
      ctx,
      `Adding a note to ${ids.length} alerts`,
      ids,
      (id) => id,
      async (id) => {
        const r = await ctx.http.put<{ note: Note }>(`/alert/${encodeURIComponent(id)}/note`, {
          text: o.text,
        });
        notes.push(r.note);
      },
    );
    if (ctx.isMachine) ctx.json(notes);
    else for (const n of notes) ctx.print(n.id);
    return failed ? 1 : 0;
  },
};

const notes: Command = {
  name: 'notes',
  summary: 'List alert notes',
  options: [
    { name: 'alert_id', flags: ['-i', '--alert-id'], metavar: 'ID', help: 'Alert id (short ids work)' },
  ],
  async run(ctx, o) {
    if (typeof o.alert_id !== 'string') throw new UsageError('Missing option "-i" / "--alert-id"', 'notes');
    const tz = ctx.settings.timezone;
    await listFrom<Note>(ctx, `/alert/${encodeURIComponent(o.alert_id)}/notes`, 'notes', [
      { header: 'NOTE ID', value: (n) => n.id.slice(0, 8) },
      { header: 'ALERT ID', value: (n) => n.related?.alert?.slice(0, 8) },
      { header: 'NOTE', value: (n) => n.text },
      { header: 'USER', value: (n) => n.user },
      { header: 'TYPE', value: (n) => n.type },
      { header: 'CREATED', value: (n) => localTime(n.createTime, tz) },
      { header: 'UPDATED', value: (n) => localTime(n.updateTime, tz) },
    ]);
  },
};

export const alertCommands: Command[] = [send, query, raw, history, alertsCmd, note, notes];
