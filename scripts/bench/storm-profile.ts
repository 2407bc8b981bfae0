/**
 * Profiles one side of storm-cost.ts: N new alerts as Alertmanager payloads (or `--single` as
 * POST /alert) at a fixed pace against a server started with --cpu-prof; the profile lands in
 * --dir (default /tmp/storm-prof). For finding where the webhook path spends per alert.
 *   node_modules/.bin/node scripts/bench/storm-profile.ts [--alerts 10000] [--rate 1000] [--single] [--dir D]
 */
import { createTestDatabase, dropTestDatabase } from '../../tests/helpers/db.ts';
import { startServerProcess } from '../../tests/helpers/process.ts';
import { flag, numberArg, textArg } from './args.ts';
import { EVENTS, amAlert, amPayload, createPoster, paced, singleBodies } from './storm-payloads.ts';

const alerts = numberArg('alerts', 10_000);
const rate = numberArg('rate', 1000);
const single = flag('single');
const dir = textArg('dir') ?? '/tmp/storm-prof';
const db = await createTestDatabase('storm_prof');
const server = await startServerProcess({ DATABASE_URL: db.url, LOG_LEVEL: 'error' }, 60_000, [
  '--cpu-prof',
  `--cpu-prof-dir=${dir}`,
]);
const poster = createPoster(server.url.replace(/\/$/, ''), 256);
try {
  const list = Array.from({ length: alerts }, (_, i) =>
    amAlert('p-h', Math.floor(i / EVENTS.length), i % EVENTS.length),
  );
  const payloads = Array.from({ length: Math.ceil(alerts / 50) }, (_, k) =>
    amPayload(list.slice(k * 50, k * 50 + 50)),
  );
  const bodies = single ? singleBodies(payloads) : payloads;
  const answers = await paced(
    poster.post,
    single ? '/api/alert' : '/api/webhooks/prometheus',
    bodies,
    alerts / rate,
  );
  console.log(
    `${answers.filter((a) => a.status === 201).length} of ${answers.length} answered 201; profile in ${dir}`,
  );
} finally {
  poster.close();
  await server.stop('SIGINT');
  await dropTestDatabase(db.name);
}
