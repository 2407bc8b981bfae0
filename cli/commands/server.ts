import { readFileSync } from 'node:fs';
import { redactSecrets } from '../config.ts';
import type { Command, Context } from '../context.ts';
import { renderTable, safeTimeZone, uptimeText } from '../format.ts';

/** status, uptime, version, config, housekeeping. */

interface Metric {
  group: string;
  name: string;
  title?: string;
  type: string;
  value?: unknown;
  count?: number;
  totalTime?: number;
}
interface MgmtStatus {
  version?: string;
  time: number;
  uptime: number;
  metrics: Metric[];
}

/** This client's version: its package's (cli/package.json). */
export function clientVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? 'unknown';
}

/** A command that shows part of GET /management/status: `shown` of it as JSON, or as `text`. */
function statusCommand<T>(
  name: string,
  summary: string,
  shown: (r: MgmtStatus) => T,
  text: (shown: T, ctx: Context) => string,
): Command {
  return {
    name,
    summary,
    options: [],
    async run(ctx) {
      const data = shown(await ctx.http.get<MgmtStatus>('/management/status'));
      if (ctx.isMachine) ctx.json(data);
      else ctx.print(text(data, ctx));
    },
  };
}

const status = statusCommand(
  'status',
  'Show server switches and metrics',
  (r) => r,
  (r, ctx) =>
    renderTable(
      r.metrics,
      [
        { header: 'METRIC', value: (m) => m.title },
        { header: 'TYPE', value: (m) => m.type },
        { header: 'NAME', value: (m) => `${m.group}.${m.name}` },
        { header: 'VALUE', value: (m) => m.value ?? m.count ?? 0 },
        {
          header: 'AVERAGE',
          value: (m) => (m.type === 'timer' && m.count ? (m.totalTime ?? 0) / m.count : null),
        },
      ],
      ctx.output,
    ),
);

const uptime = statusCommand(
  'uptime',
  'Show server uptime',
  (r) => ({ time: r.time, uptime: r.uptime }),
  (r, ctx) => {
    const now = new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone: safeTimeZone(ctx.settings.timezone),
    }).format(new Date(r.time));
    return `${now} up ${uptimeText(r.uptime)}`;
  },
);

const version = statusCommand(
  'version',
  'Show server and client versions',
  (r) => ({ server: r.version ?? 'unknown', client: clientVersion(), node: process.versions.node }),
  (v) => `alerta ${v.server}\nalerta client ${v.client}\nnode ${v.node}`,
);

const config: Command = {
  name: 'config',
  summary: 'Show the client configuration (secrets hidden)',
  options: [],
  async run(ctx) {
    const s = ctx.settings;
    const local: Record<string, unknown> = {
      config_file: s.configFile,
      profile: s.profile,
      endpoint: s.endpoint,
      key: s.key,
      secret: s.secret,
      username: s.username,
      password: s.password,
      client_id: s.clientId,
      timezone: s.timezone,
      timeout: s.timeout,
      sslverify: s.sslverify,
      sslcert: s.sslcert,
      sslkey: s.sslkey,
      output: ctx.output,
      color: ctx.color,
      debug: s.debug,
    };
    // The server's settings sit under ours (clients.md §2); its client_id fills a missing local one.
    const merged = redactSecrets({
      ...ctx.remote,
      ...local,
      client_id: s.clientId ?? ctx.remote.client_id ?? null,
    }) as Record<string, unknown>;
    if (ctx.isMachine) return void ctx.json(merged);
    const rows = Object.keys(merged)
      .sort()
      .map((k) => [k, merged[k]] as const);
    ctx.print(
      renderTable(
        rows,
        [
          { header: 'OPTION', value: (r) => r[0] },
          { header: 'VALUE', value: (r) => r[1] },
        ],
        ctx.output,
      ),
    );
  },
};

const housekeeping: Command = {
  name: 'housekeeping',
  summary: 'Expire, unshelve and delete old alerts now',
  options: [
    {
      name: 'expired',
      flags: ['--expired'],
      type: 'int',
      metavar: 'HOURS',
      help: 'Delete expired and closed alerts after this many hours',
    },
    {
      name: 'info',
      flags: ['--info'],
      type: 'int',
      metavar: 'HOURS',
      help: 'Delete informational alerts after this many hours',
    },
  ],
  async run(ctx, o) {
    const r = await ctx.http.get<Record<string, unknown>>('/management/housekeeping', {
      expired: o.expired as number | undefined,
      info: o.info as number | undefined,
    });
    if (ctx.isMachine) return void ctx.json(r);
    if (r && typeof r === 'object') {
      const parts = Object.entries(r)
        .filter(([, v]) => Array.isArray(v))
        .map(([k, v]) => `${k} ${(v as unknown[]).length}`);
      ctx.print(parts.length ? `housekeeping done: ${parts.join(', ')}` : 'housekeeping done');
    } else ctx.print('housekeeping done');
  },
};

export const serverCommands: Command[] = [status, uptime, version, config, housekeeping];
