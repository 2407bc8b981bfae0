import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RECEIVER_TYPES } from '../../shared/notifications.ts';
import { SECRET_FIELDS, SETTINGS_SCHEMAS } from '../../server/notifications/receivers.ts';
import {
  settingsBody,
  settingValues,
  SETTING_FIELDS,
} from '../../web/src/routes/notifications/receiver-types.ts';
import { span } from '../../web/src/routes/notifications/health.ts';

const forms = suite('notifications page: receiver forms per type');

forms('every type has a field for each of its settings, secrets as password fields', () => {
  for (const type of RECEIVER_TYPES) {
    const fields = SETTING_FIELDS[type];
    const shape: Record<string, { safeParse(v: unknown): { success: boolean } }> =
      SETTINGS_SCHEMAS[type].shape;
    const keys = Object.keys(shape).sort();
    assert.equal(fields.map((f) => f.key).sort(), keys, type);
    assert.equal(
      fields
        .filter((f) => f.kind === 'secret')
        .map((f) => f.key)
        .sort(),
      [...SECRET_FIELDS[type]].sort(),
      `${type} secrets`,
    );
    for (const f of fields.filter((f) => f.required))
      assert.ok(!shape[f.key]?.safeParse(undefined).success, `${type}.${f.key}`);
  }
});

forms('a new receiver sends what is filled and flags off their default; lists and numbers typed', () => {
  const fields = SETTING_FIELDS.email;
  const values = {
    ...settingValues(fields, {}),
    to: 'a@example.com, b@example.com',
    port: 2525,
    secure: true,
  };
  assert.equal(settingsBody(fields, values, null), {
    to: ['a@example.com', 'b@example.com'],
    port: 2525,
    secure: true,
  });
});

forms('an edit sends only changes: emptied as null, a secret only when typed', () => {
  const fields = SETTING_FIELDS.slack;
  const shown = { url: 'https://hooks.slack.com/********', channel: '#ops', buttons: false };
  const before = settingValues(fields, shown);
  assert.is(before.url, '', 'secrets are never filled in');
  assert.is(before.buttons, false);
  assert.equal(settingsBody(fields, { ...before }, before), {});
  assert.equal(settingsBody(fields, { ...before, channel: ' ', buttons: true }, before), {
    channel: null,
    buttons: true,
  });
  assert.equal(settingsBody(fields, { ...before, token: 'xoxb-1' }, before), { token: 'xoxb-1' });
});

forms('spans read as an operator says them', () => {
  assert.equal(
    [span(40), span(600), span(7980), span(3 * 86400 + 4 * 3600)],
    ['40 s', '10 min', '2 h 13 min', '3 d 4 h'],
  );
});

forms.run();
