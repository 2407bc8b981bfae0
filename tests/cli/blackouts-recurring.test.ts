/**
 * `alerta blackout --rrule/--timezone/--end` and the RECURRENCE column of `alerta blackouts`
 * (docs/cli.md, ours): a recurring blackout created from the command line and listed with its rule
 * in words; a list without one keeps the established columns.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Blackout } from '../../shared/blackouts.ts';
import { startApp, stopApp, type AppContext } from '../helpers/app.ts';
import { alerta, alertaJson, alertaOk, tempHome, type RunOptions } from './helpers.ts';

interface Ctx extends AppContext {
  run: RunOptions;
  cleanup: () => void;
}

const test = suite<Ctx>('alerta: recurring blackouts', {} as Ctx);

test.before(async (ctx) => {
  await startApp(ctx, { TEST_LABEL: 'cli_blackouts_recurring' });
  const h = tempHome('blackouts');
  ctx.cleanup = h.cleanup;
  ctx.run = { home: h.home, env: { ALERTA_ENDPOINT: ctx.api.base } };
});
test.after(async (ctx) => {
  ctx.cleanup?.();
  await stopApp(ctx);
});

test('blackout --rrule --timezone --end creates a recurring one; blackouts lists it in words', async (ctx) => {
  const plain = await alertaOk(['blackouts'], ctx.run);
  assert.not.match(plain, /RECURRENCE/);
  const b = await alertaJson<Blackout>(
    [
      'blackout',
      '-E',
      'Production',
      '-r',
      'db01',
      '--rrule',
      'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0',
      '--timezone',
      'Europe/Berlin',
      '--duration',
      '50400',
      '--end',
      '2099-01-01T00:00:00Z',
    ],
    ctx.run,
  );
  assert.equal(
    [b.rrule, b.timezone, b.duration, b.endTime],
    [
      'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=18;BYMINUTE=0',
      'Europe/Berlin',
      50400,
      '2099-01-01T00:00:00.000Z',
    ],
  );
  const table = await alertaOk(['blackouts'], ctx.run);
  assert.match(table, /RECURRENCE/);
  assert.match(table, /every weekday 18:00–08:00 Europe\/Berlin; (on now until|next) /);
  // A bad rule is the server's 400, naming the field.
  const bad = await alerta(['blackout', '-E', 'Production', '--rrule', 'FREQ=DAILY;BYHOUR=99'], ctx.run);
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr + bad.stdout, /rrule: BYHOUR/);
});

test.run();
