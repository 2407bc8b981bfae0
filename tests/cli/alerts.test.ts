/**
 * The CLI's alert commands run as a subprocess against a started server (docs/cli.md): send
 * (flags, JSON lines on stdin, raw data), query in every output form, raw, history, the bulk
 * commands through /_bulk (a 2,000-alert ack included), notes, the alert lists, watch over the
 * live socket (an ack made over HTTP shows up), the polling fallback, tail and top.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Alert, Note } from '../../shared/alerts.ts';
import type { HistoryListEntry } from '../../shared/queries.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { alerta, alertaJson, alertaOk, jsonLines, start, tempHome, type RunOptions } from './helpers.ts';

interface Ctx extends AppContext {
  run: RunOptions;
  cleanup: () => void;
}

const test = suite<Ctx>('alerta: alert commands', {} as Ctx);
const tag = () => randomBytes(4).toString('hex');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'cli_alerts' });
  const { home, cleanup } = tempHome('alerts');
  ctx.cleanup = cleanup;
  ctx.run = { home, env: { ALERTA_ENDPOINT: ctx.api.base } };
});
test.after(async (ctx) => {
  ctx.cleanup?.();
  await stopApp(ctx);
});

/** `alerta send` with the flags every valid alert here needs (the reject plugin wants them). */
async function send(ctx: Ctx, resource: string, extra: string[] = []): Promise<{ id: string; alert: Alert }> {
  return alertaJson(
    ['send', '-r', resource, '-e', 'Down', '-E', 'Production', '-S', 'Web', ...extra],
    ctx.run,
  );
}

test('send: flags become the alert, the text line names the severity change', async (ctx) => {
  const r = `web-${tag()}`;
  const out = await alertaOk(
    [
      'send',
      '-r',
      r,
      '-e',
      'HttpError',
      '-E',
      'Production',
      '-S',
      'Web',
      '-S',
      'Api',
      '-s',
      'major',
      '-g',
      'Net',
    ].concat(
      [
        '-v',
        '503',
        '-t',
        'it broke',
        '-T',
        'dc1',
        '-A',
        'region=eu=west',
        '-O',
        'tests/cli',
        '--type',
        'httpAlert',
      ],
      ['--timeout', '600', '-C', 'HttpOK'],
    ),
    ctx.run,
  );
  const [line] = out.trim().split('\n');
  assert.match(line!, /^[0-9a-f-]{36} \(indeterminate -> major\)$/);
  const id = line!.split(' ')[0]!;
  const got = (await (await ctx.api.get(`/alert/${id}`)).json()) as { alert: Alert };
  const a = got.alert;
  assert.equal(
    [
      a.resource,
      a.event,
      a.environment,
      a.service,
      a.severity,
      a.group,
      a.value,
      a.text,
      a.tags,
      a.origin,
      a.type,
    ],
    [
      r,
      'HttpError',
      'Production',
      ['Web', 'Api'],
      'major',
      'Net',
      '503',
      'it broke',
      ['dc1'],
      'tests/cli',
      'httpAlert',
    ],
  );
  assert.is(a.attributes.region, 'eu=west');
  assert.is(a.timeout, 600);
  assert.ok(a.correlate.includes('HttpOK'));

  const again = await alertaOk(
    ['send', '-r', r, '-e', 'HttpError', '-E', 'Production', '-S', 'Web', '-s', 'major'],
    ctx.run,
  );
  assert.is(again.trim(), `${id} (1 duplicates)`);
});

test('send: JSON output is the server answer; environment from ALERTA_SEND_ENVIRONMENT', async (ctx) => {
  const r = `env-${tag()}`;
  const body = await alertaJson<{ id: string; alert: Alert }>(['send', '-r', r, '-e', 'X', '-S', 'Web'], {
    ...ctx.run,
    env: { ...ctx.run.env, ALERTA_SEND_ENVIRONMENT: 'Development', ALERTA_SEND_TAGS: 'one two' },
  });
  assert.is(body.alert.resource, r);
  assert.is(body.alert.environment, 'Development');
  assert.equal(body.alert.tags, ['one', 'two']);
  assert.match(body.alert.createTime, ISO);
});

test('send: alerts as JSON lines on a stdin pipe; an empty pipe is an error; no input a usage error', async (ctx) => {
  const r = `stdin-${tag()}`;
  const lines = [1, 2, 3].map((n) =>
    JSON.stringify({
      resource: `${r}-${n}`,
      event: 'Piped',
      environment: 'Production',
      service: ['Web'],
      raw_data: `raw ${n}`,
    }),
  );
  const out = await alertaOk(['send'], { ...ctx.run, input: `${lines.join('\n')}\n` });
  assert.is(out.trim().split('\n').length, 3);
  const raw = await alertaJson<{ id: string; rawData: string }[]>(['raw', '-f', `resource=~${r}`], ctx.run);
  assert.equal(raw.map((x) => x.rawData).sort(), ['raw 1', 'raw 2', 'raw 3']);

  const empty = await alerta(['send'], { ...ctx.run, input: '' });
  assert.is(empty.code, 1);
  assert.match(empty.stderr, /^ERROR: no alerts on stdin/);

  // stdin is /dev/null (not a pipe) and no -r/-e: nothing to send is a usage error, never a silent 0.
  const none = await alerta(['send'], ctx.run);
  assert.is(none.code, 2);
  assert.match(none.stderr, /Missing option "-r"/);

  // With -r and -e, a pipe on stdin is not read as alerts (the established client would).
  const flagged = await alertaOk(['send', '-r', `${r}-flag`, '-e', 'E', '-E', 'Production', '-S', 'Web'], {
    ...ctx.run,
    input: '{"resource":"ignored","event":"ignored"}\n',
  });
  assert.match(flagged, /\(indeterminate -> normal\)/);
  const ignored = await alertaJson<Alert[]>(['query', '-f', 'resource=ignored'], ctx.run);
  assert.is(ignored.length, 0);
});

test('send: --raw-data - reads raw data from stdin, @FILE from a file', async (ctx) => {
  const r = `raw-${tag()}`;
  await alertaOk(['send', '-r', r, '-e', 'A', '-E', 'Production', '-S', 'Web', '--raw-data', '-'], {
    ...ctx.run,
    input: 'SNMP TRAP PDU',
  });
  const raw = await alertaJson<{ rawData: string }[]>(['raw', '-f', `resource=${r}`], ctx.run);
  assert.equal(
    raw.map((x) => x.rawData),
    ['SNMP TRAP PDU'],
  );
  const table = await alertaOk(['raw', '-f', `resource=${r}`], ctx.run);
  assert.match(table, /RAW DATA/);
  assert.match(table, /SNMP TRAP PDU/);
});

test('send: a refused alert is one ERROR line and a non-zero exit', async (ctx) => {
  const r = await alerta(['send', '-r', 'x', '-e', 'y', '-E', 'Nowhere', '-S', 'Web'], ctx.run);
  assert.is.not(r.code, 0);
  assert.is(r.stdout, '');
  assert.is(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /^ERROR: .*environment/);
});

test('send: a policy rejection (403 from the reject plugin) exits 1, as the established client', async (ctx) => {
  const r = await alerta(['send', '-r', 'x', '-e', 'y', '-E', 'Nowhere', '-S', 'Web'], ctx.run);
  assert.is(r.code, 1);
  assert.match(r.stderr, /^ERROR: \[POLICY\] Alert environment does not match one of .* \(HTTP 403\)\n$/);
});

test('query: json, json_lines and the table styles', async (ctx) => {
  const r = `q-${tag()}`;
  const a = await send(ctx, `${r}-a`, ['-s', 'critical']);
  const b = await send(ctx, `${r}-b`, ['-s', 'minor']);
  const list = await alertaJson<Alert[]>(['query', '-f', `resource=~${r}`], ctx.run);
  assert.equal(list.map((x) => x.id).sort(), [a.id, b.id].sort());
  assert.ok(list.every((x) => x.history === undefined || Array.isArray(x.history)));

  const jl = await alertaOk(['--output', 'json_lines', 'query', '-q', `resource:${r}-a`], ctx.run);
  assert.equal(
    jsonLines<Alert>(jl).map((x) => x.id),
    [a.id],
  );

  const byId = await alertaJson<Alert[]>(['query', '-i', a.id.slice(0, 8)], ctx.run);
  assert.equal(
    byId.map((x) => x.id),
    [a.id],
  );

  const simple = await alertaOk(['query', '-f', `resource=~${r}`], ctx.run);
  const [header, rule] = simple.split('\n');
  // The whole output in the message: CI once saw another first line here, which no rerun repeated.
  assert.match(header!, /^ID\s+LAST RECEIVED\s+SEVERITY\s+STATUS\s+DUPL/, `query printed:\n${simple}`);
  assert.match(rule!, /^-+ {2}-+/, `query printed:\n${simple}`);
  assert.ok(simple.includes(a.id.slice(0, 8)) && simple.includes('critical'));

  const shapes: Record<string, RegExp> = {
    plain: /^ID {2,}LAST RECEIVED/,
    grid: /^\+-+\+/,
    psql: /^\+-+\+/,
    github: /^\| ID +\| LAST RECEIVED/,
    pipe: /^\| ID +\|/,
    tsv: /^ID\tLAST RECEIVED\tSEVERITY/,
  };
  for (const [style, shape] of Object.entries(shapes)) {
    const out = await alertaOk(['--output', style, 'query', '-f', `resource=~${r}`], ctx.run);
    assert.match(out, shape, style);
    assert.ok(out.includes(b.id.slice(0, 8)), style);
  }
  const pipe = await alertaOk(['--output', 'pipe', 'query', '-f', `resource=~${r}`], ctx.run);
  assert.match(pipe.split('\n')[1]!, /^\|:-+\|/);
  const grid = await alertaOk(['--output', 'grid', 'query', '-f', `resource=~${r}`], ctx.run);
  assert.match(grid.split('\n')[2]!, /^\+=+\+/);

  const medium = await alertaOk(['query', '--medium', '-f', `resource=${r}-a`], ctx.run);
  assert.match(
    medium,
    new RegExp(`^${a.id.slice(0, 8)}\\|\\d{4}/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d\\|critical\\|open\\|`),
  );
  const full = await alertaOk(['query', '--full', '-f', `resource=${r}-a`], ctx.run);
  assert.match(full, new RegExp(`alert id +\\| ${a.id}`));
});

test('query: colour by severity with --color, none by default off a terminal or with NO_COLOR', async (ctx) => {
  const r = `c-${tag()}`;
  await send(ctx, r, ['-s', 'critical']);
  const colored = await alertaOk(['--color', 'query', '--medium', '-f', `resource=${r}`], ctx.run);
  assert.ok(colored.includes('\x1b[31m'), 'critical is red');
  const plain = await alertaOk(['query', '--medium', '-f', `resource=${r}`], ctx.run);
  assert.not.ok(plain.includes('\x1b['));
  const noColor = await alertaOk(['query', '-f', `resource=${r}`], {
    ...ctx.run,
    env: { ...ctx.run.env, NO_COLOR: '1' },
  });
  assert.not.ok(noColor.includes('\x1b['));
});

test('history keeps its filters in JSON; alerts lists environments, services, groups and tags', async (ctx) => {
  const r = `h-${tag()}`;
  const a = await send(ctx, r, ['-s', 'major', '-g', `G${r}`, '-T', `t-${r}`]);
  await alertaOk(['ack', '-i', a.id], ctx.run);
  const history = await alertaJson<HistoryListEntry[]>(['history', '-f', `resource=${r}`], ctx.run);
  assert.ok(history.length >= 2);
  assert.ok(
    history.every((h) => h.resource === r),
    'only the selected alert',
  );
  assert.ok(history.some((h) => h.status === 'ack'));
  const table = await alertaOk(['history', '-i', a.id], ctx.run);
  assert.match(table, /LAST UPDATED/);

  const envs = await alertaJson<{ environment: string; count: number }[]>(['alerts', '-E'], ctx.run);
  assert.ok(envs.some((e) => e.environment === 'Production' && e.count > 0));
  const services = await alertaJson<{ service: string }[]>(['alerts', '-S'], ctx.run);
  assert.ok(services.some((s) => s.service === 'Web'));
  const groups = await alertaJson<{ group: string }[]>(['alerts', '-g'], ctx.run);
  assert.ok(groups.some((g) => g.group === `G${r}`));
  const tags = await alertaJson<{ tag: string }[]>(['alerts', '-T'], ctx.run);
  assert.ok(tags.some((t) => t.tag === `t-${r}`));
  const none = await alerta(['alerts'], ctx.run);
  assert.is(none.code, 2);
});

test('tag, untag, update, ack, unack, shelve, unshelve, close, action and delete go through /_bulk', async (ctx) => {
  const r = `b-${tag()}`;
  const a = await send(ctx, `${r}-1`, ['-s', 'major']);
  const b = await send(ctx, `${r}-2`, ['-s', 'major']);
  const sel = ['-f', `resource=~${r}`];
  const state = async () =>
    (await alertaJson<Alert[]>(['query', ...sel], ctx.run)).sort((x, y) =>
      x.resource.localeCompare(y.resource),
    );

  const tagged = await alertaJson<{ count: number; updated: string[] }>(
    ['tag', ...sel, '-T', 'x', '-T', 'y'],
    ctx.run,
  );
  assert.is(tagged.count, 2);
  assert.equal(tagged.updated.sort(), [a.id, b.id].sort());
  await alertaOk(['untag', '-i', a.id.slice(0, 8), '-T', 'x'], ctx.run);
  let now = await state();
  assert.equal([now[0]!.tags.sort(), now[1]!.tags.sort()], [['y'], ['x', 'y']]);

  assert.is(
    (await alertaOk(['update', ...sel, '-A', 'owner=ops', '-A', 'ticket=T-1'], ctx.run)).trim(),
    '2 alerts updated',
  );
  now = await state();
  assert.ok(now.every((x) => x.attributes.owner === 'ops' && x.attributes.ticket === 'T-1'));

  const steps: [string[], string][] = [
    [['ack', '--text', 'looking'], 'ack'],
    [['unack'], 'open'],
    [['shelve', '--timeout', '300'], 'shelved'],
    [['unshelve'], 'open'],
    [['close'], 'closed'],
    [['action', '-a', 'open'], 'open'],
  ];
  for (const [args, status] of steps) {
    const out = await alertaJson<{ count: number; errors: string[] }>(
      [...args, '-q', `resource:${r}*`],
      ctx.run,
    );
    assert.equal([out.count, out.errors], [2, []], args[0]);
    now = await state();
    assert.equal(
      now.map((x) => x.status),
      [status, status],
      args[0],
    );
  }
  const history = await alertaJson<HistoryListEntry[]>(['history', ...sel], ctx.run);
  assert.ok(
    history.some((h) => h.status === 'ack' && h.text === 'looking'),
    'the --text reached the history',
  );

  // A transition the alarm model refuses: reported per alert, exit 1.
  const bad = await alerta(['unshelve', ...sel], ctx.run);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /ERROR: /);

  const gone = await alertaJson<{ count: number; deleted: string[] }>(['delete', ...sel], ctx.run);
  assert.is(gone.count, 2);
  assert.is((await state()).length, 0);

  const missing = await alerta(['ack', '-i', 'ffffffff'], ctx.run);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^ERROR: no alert matches ffffffff/);
  const nothing = await alertaJson<{ count: number }>(['ack', '-f', `resource=${r}-none`], ctx.run);
  assert.is(nothing.count, 0);
});

test('delete with no selection is refused without --yes when nobody can be asked', async (ctx) => {
  const before = (await (await ctx.api.get('/alerts/count')).json()) as { total: number };
  const r = await alerta(['delete'], ctx.run);
  assert.is(r.code, 2);
  assert.match(r.stderr, /--yes/);
  const after = (await (await ctx.api.get('/alerts/count')).json()) as { total: number };
  assert.is(after.total, before.total);
});

test('ack of 2,000 alerts: one bulk task, every one acked', async (ctx) => {
  const group = `Bulk${tag()}`;
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < 2000) {
        const n = next++;
        const res = await ctx.api.post('/alert', {
          resource: `bulk-${n}`,
          event: 'Load',
          group,
          environment: 'Production',
          service: ['Web'],
          severity: 'minor',
        });
        assert.is(res.status, 201);
      }
    }),
  );
  const out = await alertaJson<{ count: number; updated: string[]; errors: string[] }>(
    ['ack', '-f', `group=${group}`, '--text', 'bulk'],
    { ...ctx.run, timeoutMs: 120_000 },
  );
  assert.equal([out.count, out.updated.length, out.errors], [2000, 2000, []]);
  const count = (await (await ctx.api.get(`/alerts/count?group=${group}&status=ack`)).json()) as {
    total: number;
  };
  assert.is(count.total, 2000);
});

test('note adds notes to every selected alert, notes lists them, note -D deletes one', async (ctx) => {
  const r = `n-${tag()}`;
  const a = await send(ctx, `${r}-1`);
  await send(ctx, `${r}-2`);
  const added = await alertaJson<Note[]>(['note', '-f', `resource=~${r}`, '--text', 'rebooted'], ctx.run);
  assert.is(added.length, 2);
  assert.ok(added.every((n) => n.text === 'rebooted'));
  const listed = await alertaJson<Note[]>(['notes', '-i', a.id.slice(0, 8)], ctx.run);
  assert.is(listed.length, 1);
  assert.is(listed[0]!.related.alert, a.id);
  const table = await alertaOk(['notes', '-i', a.id], ctx.run);
  assert.match(table, /rebooted/);
  await alertaOk(['note', '-D', a.id, listed[0]!.id], ctx.run);
  assert.equal(await alertaJson<Note[]>(['notes', '-i', a.id], ctx.run), []);
  const noText = await alerta(['note', '-i', a.id], ctx.run);
  assert.is(noText.code, 2);
});

test('watch: the snapshot, then an ack and a delete made over HTTP, as JSON lines', async (ctx) => {
  const r = `w-${tag()}`;
  const a = await send(ctx, r, ['-s', 'major']);
  const watch = start(['--output', 'json_lines', 'watch', '-f', `resource=${r}`], ctx.run);
  try {
    const first = JSON.parse(await watch.waitFor((l) => l.includes(a.id), 'the snapshot line')) as {
      event: string;
      alert: Alert;
    };
    assert.equal([first.event, first.alert.status], ['snapshot', 'open']);
    const acked = await ctx.api.put(`/alert/${a.id}/action`, { action: 'ack' });
    assert.is(acked.status, 200);
    const line = await watch.waitFor((l) => l.includes('"status":"ack"'), 'the ack');
    const ev = JSON.parse(line) as { event: string; alert: Alert };
    assert.equal([ev.event, ev.alert.id, ev.alert.status], ['alert.updated', a.id, 'ack']);
    assert.is((await ctx.api.delete(`/alert/${a.id}`)).status, 200);
    const removed = JSON.parse(await watch.waitFor((l) => l.includes('removed-from-view'), 'the delete'));
    assert.equal(removed, { event: 'alert.removed-from-view', id: a.id });
  } finally {
    assert.is(await watch.stop(), 0, 'SIGTERM ends a watch normally');
  }
  assert.not.match(watch.stderr(), /polling/);
});

test('watch: text lines show the status; --poll falls back to GET /alerts', async (ctx) => {
  const r = `wp-${tag()}`;
  const a = await send(ctx, r, ['-s', 'warning']);
  const watch = start(['watch', '-f', `resource=${r}`], ctx.run);
  const poll = start(['watch', '--poll', '-n', '1', '-f', `resource=~${r}`], ctx.run);
  try {
    await watch.waitFor(
      (l) => l.startsWith(a.id.slice(0, 8)) && l.includes('|warning|open|'),
      'the open line',
    );
    await ctx.api.put(`/alert/${a.id}/action`, { action: 'ack' });
    await watch.waitFor((l) => l.startsWith(a.id.slice(0, 8)) && l.includes('|warning|ack|'), 'the ack line');
    await poll.waitFor((l) => l.startsWith(a.id.slice(0, 8)), 'the polled snapshot');
    const b = await send(ctx, `${r}-new`, ['-s', 'minor']);
    await poll.waitFor((l) => l.startsWith(b.id.slice(0, 8)), 'a new alert seen by polling');
  } finally {
    await watch.stop();
    await poll.stop();
  }
});

test('tail: raw socket events as JSON lines', async (ctx) => {
  const r = `t-${tag()}`;
  const tail = start(['tail', '-f', `resource=${r}`], ctx.run);
  try {
    const sub = JSON.parse(
      await tail.waitFor((l) => l.includes('"subscribed"'), 'the subscription'),
    ) as Record<string, unknown>;
    assert.equal([sub.status, sub.mode], ['ok', 'snapshot']);
    const a = await send(ctx, r);
    const line = await tail.waitFor((l) => l.includes(a.id), 'the new alert');
    const ev = JSON.parse(line) as { event: string; seq: number; alerts: Alert[] };
    assert.is(ev.event, 'alert.updated');
    assert.ok(ev.seq > 0);
    assert.equal(
      ev.alerts.map((x) => x.id),
      [a.id],
    );
  } finally {
    await tail.stop();
  }
  assert.ok(
    tail.lines().every((l) => JSON.parse(l) && true),
    'every line is JSON',
  );
});

test('top: one frame as JSON or text when not on a terminal', async (ctx) => {
  const r = `top-${tag()}`;
  const a = await send(ctx, r, ['-s', 'critical']);
  const frame = await alertaJson<{ status: { version: string }; alerts: { alerts: Alert[]; total: number } }>(
    ['top', '-f', `resource=${r}`],
    ctx.run,
  );
  assert.equal(
    frame.alerts.alerts.map((x) => x.id),
    [a.id],
  );
  assert.is(frame.alerts.total, 1);
  assert.type(frame.status.version, 'string');
  const text = await alertaOk(['top', '-f', `resource=${r}`], ctx.run);
  assert.match(text, /^alerta top - /);
  // The server's uptime in days, hours and minutes, as `uptime` shows it.
  assert.match(text.split('\n')[0]!, / up \d+ days \d\d:\d\d /);
  assert.ok(text.includes(a.id.slice(0, 8)));
});

test.run();
