import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LiveAlert } from '../../shared/alerts.ts';
import { AlertSounds } from '../../web/src/lib/sound/alert-sounds.ts';
import { deservesSound, soundPlan } from '../../web/src/lib/sound/rules.ts';
import { viewQuery } from '../../web/src/lib/ui-params.ts';
import { contrast, inkOn, rgbOf } from '../../web/src/lib/colours.ts';
import {
  groupAlerts,
  indicatorParams,
  openOnly,
  wallQuery,
  wallSettings,
  withSort,
  worstSeverity,
} from '../../web/src/routes/wall/settings.ts';

const settings = suite('wall settings from the URL');

settings('defaults, and bad values fall back rather than break the screen', () => {
  assert.equal(wallSettings(''), {
    tiles: 'severity',
    columns: 1,
    scale: 'auto',
    theme: null,
    resort: 60,
    sound: null,
    soundRepeat: 0,
    soundMute: 15,
    groupBy: null,
    heartbeats: true,
    filterNone: false,
  });
  const odd = wallSettings(
    '?tiles=pie&columns=9&scale=abc&resort=1&sound-repeat=-5&theme=neon&group-by=text&heartbeats=yes',
  );
  assert.equal(
    [odd.tiles, odd.columns, odd.scale, odd.resort, odd.soundRepeat, odd.theme, odd.groupBy, odd.heartbeats],
    ['severity', 4, 'auto', 5, 0, null, null, true],
  );
  const set = wallSettings('scale=1.5&group-by=service&heartbeats=off&filter=none');
  assert.equal([set.scale, set.groupBy, set.heartbeats, set.filterNone], [1.5, 'service', false, true]);
  assert.is(wallSettings('scale=9').scale, 4);
  assert.is(wallSettings('scale=auto').scale, 'auto');
});

settings('the default view: /config filter for fields the URL leaves open, no quiet severities', () => {
  const defaults = new URLSearchParams('status=open&status=ack');
  const quiet = 'severity%21=normal&severity%21=ok&severity%21=cleared&severity%21=debug&severity%21=trace';
  assert.is(wallQuery('', defaults), `status=open&status=ack&${quiet}`);
  assert.is(wallQuery('group=db', defaults), `group=db&status=open&status=ack&${quiet}`);
  // Asked for: the URL's status, or any severity filter, replaces the default.
  assert.is(wallQuery('status=closed', defaults), `status=closed&${quiet}`);
  assert.is(wallQuery('severity=debug', defaults), 'severity=debug&status=open&status=ack');
  assert.is(wallQuery('status!=ack&severity!=minor', defaults), 'status%21=ack&severity%21=minor');
  assert.is(wallQuery('group=db', defaults, true), 'group=db');
});

settings('groups counted from alerts when the server sends none, in the server order', () => {
  const alert = (id: string, event: string, severity: string, status = 'open', service = ['web']) =>
    ({ id, event, severity, status, service, environment: 'P', resource: id }) as LiveAlert;
  const groups = groupAlerts(
    [
      alert('1', 'Disk', 'minor'),
      alert('2', 'Disk', 'major'),
      alert('3', 'Down', 'major'),
      alert('4', 'Acked', 'critical', 'ack'),
      alert('5', 'Cpu', 'warning', 'open', []),
    ],
    'event',
    ['critical', 'major', 'minor', 'warning'],
  );
  assert.equal(
    groups.map((g) => `${g.key}:${g.total}`),
    ['Disk:2', 'Down:1', 'Cpu:1', 'Acked:1'],
  );
  const byService = groupAlerts(
    [alert('5', 'Cpu', 'warning', 'open', []), alert('6', 'X', 'minor', 'open', ['a', 'b'])],
    'service',
    ['minor', 'warning'],
  );
  assert.equal(
    byService.map((g) => g.key),
    ['a', 'b', ''],
  );
});

settings('text on a severity colour meets WCAG AA, whatever /config says', () => {
  assert.equal(rgbOf('#9D006D'), [157, 0, 109]);
  assert.equal(rgbOf('rgb(1, 2, 3)'), [1, 2, 3]);
  assert.equal(rgbOf('#fc0'), [255, 204, 0]);
  assert.ok(Math.abs(contrast([0, 0, 0], [255, 255, 255]) - 21) < 0.01);
  // Black on this purple is 3:1: white instead; black stays where it reads.
  assert.is(inkOn('#9D006D', 'black'), '#fff');
  assert.is(inkOn('#0000ff', '#000'), '#fff');
  assert.is(inkOn('#ffff00', '#111'), '#111');
  for (const bg of ['#000080', '#7554BF', '#00CC00', '#ff0000', '#c0c0c0', '#1e90ff', '#808080']) {
    const ink = rgbOf(inkOn(bg, '#000'))!;
    assert.ok(contrast(rgbOf(bg)!, ink) >= 4.5, `${bg}: ${contrast(rgbOf(bg)!, ink)}`);
  }
});

settings('sound lists severities (comma-separated or repeated); sound=off is an explicit "no"', () => {
  assert.equal(wallSettings('sound=critical,major&sound=minor').sound, ['critical', 'major', 'minor']);
  assert.equal(wallSettings('sound=off').sound, []);
  assert.is(wallSettings('tiles=indicators').sound, null);
  assert.is(wallSettings('theme=light').theme, 'light');
});

settings("the wall's own (and every UI-only) parameter never reaches the query; filters do", () => {
  const q = viewQuery(
    'tiles=environment&kiosk=1&theme=dark&scale=2&columns=2&resort=30&sound=critical&sound-repeat=60&sound-mute=5&group=db',
  );
  assert.is(q, 'group=db');
  assert.is(
    withSort('group=db&sort-by=resource', ['severity', 'lastReceiveTime']),
    'group=db&sort-by=severity&sort-by=lastReceiveTime',
  );
});

settings('indicator queries in all three /config forms', () => {
  assert.is(
    indicatorParams([
      ['environment', 'Production'],
      ['status', 'open'],
    ]).toString(),
    'environment=Production&status=open',
  );
  assert.is(
    indicatorParams({ group: ['a', 'b'], q: 'event:Heartbeat' }).toString(),
    'group=a&group=b&q=event%3AHeartbeat',
  );
  assert.is(indicatorParams('?group=Misc&status=ack').toString(), 'group=Misc&status=ack');
  assert.is(indicatorParams(null).toString(), '');
  assert.is(indicatorParams([['x'], 'junk', [['nested'], 'v'], ['k', { no: 1 }]]).toString(), '');
});

settings('the open-only query behind the title colour, and the worst severity', () => {
  assert.is(openOnly(new URLSearchParams('group=a'))?.toString(), 'group=a&status=open');
  assert.is(openOnly(new URLSearchParams('status=open&status=ack'))?.toString(), 'status=open');
  assert.is(openOnly(new URLSearchParams('status=ack')), null);
  assert.is(worstSeverity({ minor: 2, critical: 0, major: 1 }, ['critical', 'major', 'minor']), 'major');
  assert.is(worstSeverity({}, ['critical']), null);
});

settings.run();

const sound = suite('wall sound rules');

const alert = (over: Partial<LiveAlert> = {}): LiveAlert =>
  ({ id: 'a1', severity: 'critical', status: 'open', duplicateCount: 0, ...over }) as LiveAlert;

sound('the URL decides for the screen, else the preferences; isMute mutes only the preferences', () => {
  const prefs = { soundSeverities: ['major'], isMute: true };
  assert.equal(soundPlan(['critical'], prefs), {
    severities: new Set(['critical']),
    source: 'url',
    muted: false,
  });
  assert.is(soundPlan([], prefs).source, 'none');
  assert.equal(soundPlan(null, prefs), { severities: new Set(['major']), source: 'prefs', muted: true });
  assert.is(soundPlan(null, {}).source, 'none');
});

sound('new or re-opened open alerts sound; updates, acks and closes do not', () => {
  assert.ok(deservesSound(alert(), undefined, true));
  assert.ok(deservesSound(alert(), alert({ status: 'closed' }), true));
  assert.ok(deservesSound(alert(), alert({ status: 'expired' }), true));
  assert.not.ok(deservesSound(alert({ duplicateCount: 3 }), alert(), true));
  assert.not.ok(deservesSound(alert(), alert({ status: 'ack' }), true));
  assert.not.ok(deservesSound(alert({ status: 'ack' }), undefined, true));
  // A view bigger than its snapshot: an unknown alert with duplicates may be an old one.
  assert.not.ok(deservesSound(alert({ duplicateCount: 2 }), undefined, false));
  assert.ok(deservesSound(alert(), undefined, false));
});

sound(
  'alerts arriving together sound once, with the tone of the worst; other severities stay silent',
  async () => {
    const played: string[] = [];
    const sounds = new AlertSounds(
      { play: (s) => played.push(s) },
      {
        plan: soundPlan(['critical', 'major'], {}),
        order: ['critical', 'major', 'minor'],
        repeatSeconds: 0,
        lookup: () => undefined,
      },
    );
    sounds.heard(alert({ id: 'm', severity: 'major' }), undefined, true);
    sounds.heard(alert({ id: 'c', severity: 'critical' }), undefined, true);
    sounds.heard(alert({ id: 'n', severity: 'minor' }), undefined, true);
    await Promise.resolve();
    assert.equal(played, ['critical']);
    sounds.heard(alert({ id: 'n2', severity: 'minor' }), undefined, true);
    await Promise.resolve();
    assert.equal(played, ['critical']);
    sounds.stop();
  },
);

sound.run();
