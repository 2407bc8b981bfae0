import { Router } from '../router.ts';
import type { Context } from 'koa';
import { sql } from 'slonik';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { maskedValue, withoutUrlPasswords } from '../../secrets.ts';
import { isGranted } from '../../auth/scopes.ts';
import type { Auth } from '../../auth/types.ts';
import type { Deps } from '../../deps.ts';
import { tallyTotal } from '../../db/alert-tally.ts';
import { staleHeartbeats } from '../../domain/heartbeats.ts';
import { runHousekeeping } from '../../domain/housekeeping.ts';
import { forwardingStatus, refreshQueueGauge } from '../../forwarding/status.ts';
import { SWITCHES, isSwitchName, listSwitches, setSwitch, type SwitchName } from '../../domain/switches.ts';
import { RETRY_AFTER_SECONDS, appError } from '../../errors.ts';
import { build } from '../../version.ts';
import { httpCaller } from '../caller.ts';
import { requireScope } from '../middleware/require-scope.ts';

/** How long gtg and healthcheck wait for the database before answering 503. */
const PROBE_TIMEOUT_MS = 1500;

/** A value safe to print: secrets by name masked (secrets.ts), passwords in URLs removed. */
export function safeValue(name: string, value: unknown): string {
  const shown = maskedValue(name, value);
  if (shown === null || shown === undefined) return '';
  return withoutUrlPasswords(typeof shown === 'string' ? shown : JSON.stringify(shown));
}

/** The version the manifest and status show: all of it, the major number, or nothing (SERVER_VERSION). */
export function shownVersion(config: Pick<Config, 'SERVER_VERSION'>): string | null {
  if (config.SERVER_VERSION === 'off') return null;
  return config.SERVER_VERSION === 'major' ? build.version.split('.')[0]! : build.version;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The live bus: with Redis, whether it is connected and since when, and the changes waiting to be
 * published. Writes never wait for it, so gtg and healthcheck do not depend on it (docs/operations.md).
 */
function busStatus(deps: Deps) {
  const s = deps.bus.state();
  return {
    kind: s.kind,
    connected: s.connected,
    since: new Date(s.since).toISOString(),
    outbox: s.outbox,
    outboxBytes: s.outboxBytes,
    dropped: s.dropped,
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Liveness, readiness, build identity, metrics, switches and housekeeping (api.md §11). */
export function managementRoutes(deps: Deps): Router {
  const router = new Router();
  const { config } = deps;

  const databaseAnswers = () =>
    withTimeout(deps.db.oneFirst(sql.type(z.object({ ok: z.number() }))`SELECT 1 AS ok`), PROBE_TIMEOUT_MS);

  /** A failed probe's answer: logged as `event`, 503 with Retry-After and `body`. */
  const probeFailed = (ctx: Context, event: string, err: unknown, body: string) => {
    deps.log.warn({ err: (err as Error).message }, event);
    ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
    ctx.status = 503;
    ctx.body = body;
  };

  const countAlerts = async () => {
    const n = await tallyTotal(deps.db);
    deps.metrics.app.setTotal(n);
  };

  /** GET /_ — the application is up; never touches the database. */
  router.get('/_', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'OK';
  });

  /** GET /management — an index of the management links. */
  router.get('/management', (ctx) => {
    const base = `${ctx.protocol}://${ctx.host}${config.API_PREFIX}/management`;
    const links = [
      'manifest',
      'properties',
      'switchboard',
      'gtg',
      'healthcheck',
      'housekeeping',
      'status',
      'metrics',
    ];
    ctx.type = 'text/html';
    ctx.body = `<!doctype html><title>Management</title><ul>${links
      .map((l) => `<li><a href="${escapeHtml(`${base}/${l}`)}">${l}</a></li>`)
      .join('')}</ul>`;
  });

  /** GET /management/gtg — ready: the database answers (503 within PROBE_TIMEOUT_MS otherwise). */
  router.get('/management/gtg', async (ctx) => {
    ctx.type = 'text/plain';
    try {
      await databaseAnswers();
      ctx.body = 'OK';
    } catch (err) {
      probeFailed(ctx, 'gtg.database.down', err, 'FAILED');
    }
  });

  /** GET /management/healthcheck — 503 when the database is down or a heartbeat is older than 4× its timeout. */
  router.get('/management/healthcheck', async (ctx) => {
    ctx.type = 'text/plain';
    try {
      await databaseAnswers();
      const stale = await withTimeout(staleHeartbeats(deps), PROBE_TIMEOUT_MS);
      if (stale.length) {
        ctx.status = 503;
        ctx.body = stale.map((h) => `HEARTBEAT_STALE: ${h.origin}`).join('\n');
        return;
      }
      ctx.body = 'OK';
    } catch (err) {
      probeFailed(ctx, 'healthcheck.failed', err, 'HEALTH_CHECK_FAILED: Internal Error!');
    }
  });

  /** GET /management/manifest — `release` per SERVER_VERSION: full, major, or null when off (api.md §11). */
  router.get('/management/manifest', requireScope(deps, 'read:management'), (ctx) => {
    ctx.body = {
      build: build.name,
      date: build.date,
      release: shownVersion(config),
      revision: build.revision,
    };
  });

  /** GET /management/properties — request, process and settings as `name: value` lines, secrets masked. */
  router.get('/management/properties', requireScope(deps, 'admin:management'), (ctx) => {
    const lines: string[] = [];
    lines.push(`REQUEST_METHOD: ${ctx.method}`, `PATH_INFO: ${ctx.path}`, `REMOTE_ADDR: ${ctx.ip}`);
    for (const [name, value] of Object.entries(ctx.headers)) {
      lines.push(`HTTP_${name.toUpperCase().replace(/-/g, '_')}: ${safeValue(name, value)}`);
    }
    for (const name of Object.keys(process.env).sort())
      lines.push(`${name}: ${safeValue(name, process.env[name])}`);
    lines.push(
      `version: ${build.version}`,
      `node: ${process.version}`,
      `pid: ${process.pid}`,
      `uptime: ${Date.now() - deps.startedAt}`,
    );
    const settings: Readonly<Record<string, unknown>> = config;
    for (const name of Object.keys(settings)
      .filter((k) => /^[A-Z]/.test(k))
      .sort()) {
      lines.push(`${name}: ${safeValue(name, settings[name])}`);
    }
    ctx.type = 'text/plain';
    ctx.body = `${lines.join('\n')}\n`;
  });

  /** GET /management/status — application metrics and switches as JSON (api.md §11). */
  router.get('/management/status', requireScope(deps, 'read:management'), async (ctx) => {
    await countAlerts();
    const switches = await listSwitches(deps);
    const forwarding = await forwardingStatus(deps);
    const notifications = await deps.notifier.status(httpCaller(ctx, deps).customers);
    const now = Date.now();
    const auth = ctx.state.auth as Auth;
    const isAdmin = auth.unrestricted || isGranted(auth.scopes, 'admin:management', config.DELETE_SCOPES);
    ctx.body = {
      application: 'alerta',
      version: shownVersion(config),
      time: now,
      uptime: now - deps.startedAt,
      metrics: [
        ...(await deps.metrics.app.snapshot()),
        ...forwarding.metrics,
        ...notifications.metrics,
        ...switches.map((s) => ({
          group: 'switch',
          name: s.name,
          type: 'text',
          title: SWITCHES[s.name].title,
          description: SWITCHES[s.name].description,
          value: s.isOn ? 'ON' : 'OFF',
        })),
      ],
      forwarding: forwarding.forwarding,
      notifications: notifications.notifications,
      bus: busStatus(deps),
      // Which settings are unsafe is for administrators only (docs/management.md).
      ...(isAdmin ? { warnings: config.warnings } : {}),
    };
  });

  /** GET /management/metrics — Prometheus text. */
  router.get('/management/metrics', requireScope(deps, 'read:management'), async (ctx) => {
    await countAlerts();
    await refreshQueueGauge(deps);
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });

  async function switchboardPage(ctx: Context, only: string | null) {
    const switches = (await listSwitches(deps)).filter((s) => only === null || s.name === only);
    if (only !== null && switches.length === 0) throw appError('unknown_switch', only);
    const rows = switches
      .map((s) => {
        const option = (v: string) =>
          `<option value="${v}"${(s.isOn ? 'ON' : 'OFF') === v ? ' selected' : ''}>${v}</option>`;
        return `<tr><td>${escapeHtml(SWITCHES[s.name].title)}</td><td>${escapeHtml(SWITCHES[s.name].description)}</td>
<td><select name="${s.name}">${option('ON')}${option('OFF')}</select></td></tr>`;
      })
      .join('\n');
    ctx.type = 'text/html';
    ctx.body = `<!doctype html><html><head><title>Switchboard</title></head><body><h1>Switchboard</h1>
<form method="post"><table>${rows}</table><button type="submit">Update</button></form></body></html>`;
  }

  /** GET /management/switchboard — the switches as an HTML form (`?switch=<name>` for one). */
  router.get('/management/switchboard', requireScope(deps, 'admin:management'), async (ctx) => {
    await switchboardPage(ctx, typeof ctx.query.switch === 'string' ? ctx.query.switch : null);
  });

  /** POST /management/switchboard — form-encoded `<switch name>=ON|OFF`; answers with the page. */
  router.post('/management/switchboard', requireScope(deps, 'admin:management'), async (ctx) => {
    const form = new URLSearchParams(ctx.request.rawBody ?? '');
    const changes: [SwitchName, boolean][] = [];
    for (const [name, value] of form) {
      if (!isSwitchName(name))
        throw appError('unknown_switch', name).with({
          errors: [`switches: ${Object.keys(SWITCHES).join(', ')}`],
        });
      const state = value.toUpperCase();
      if (state !== 'ON' && state !== 'OFF') throw appError('invalid_switch_state', name);
      changes.push([name, state === 'ON']);
    }
    for (const [name, on] of changes) await setSwitch(deps, name, on);
    await switchboardPage(ctx, null);
  });

  /** GET|POST /management/housekeeping — one housekeeping run now. */
  router.get('/management/housekeeping', requireScope(deps, 'admin:management'), housekeeping);
  router.post('/management/housekeeping', requireScope(deps, 'admin:management'), housekeeping);
  async function housekeeping(ctx: Context) {
    const result = await runHousekeeping(deps, new URLSearchParams(ctx.querystring), httpCaller(ctx, deps));
    ctx.status = result.status;
    ctx.body = result.body;
  }

  return router;
}
