/**
 * Token audience and issuer (auth.md §8): what we sign and what we accept, so tokens move between
 * us and the established server in both directions.
 */
import { decodeJwt } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptedAudiences, createToken, verifyToken } from '../../server/auth/tokens.ts';

const BASE = 'http://localhost/api';
const config = (over: Partial<Record<'OAUTH2_CLIENT_ID' | 'SAML2_ENTITY_ID' | 'BASE_URL', string>> = {}) => ({
  SECRET_KEY: 'unit-test-secret',
  TOKEN_EXPIRE_DAYS: 14,
  CUSTOMER_VIEWS: false,
  OAUTH2_CLIENT_ID: '',
  SAML2_ENTITY_ID: '',
  BASE_URL: '',
  ...over,
});
const subject = { userId: 'u-1', login: 'ada@example.com', provider: 'basic', scopes: ['read'] };

const claimsOf = async (c: ReturnType<typeof config>, base = BASE) =>
  decodeJwt(await createToken(c, subject, base));

test('without BASE_URL: aud and iss are the request root with its trailing slash', async () => {
  const claims = await claimsOf(config());
  assert.equal([claims.aud, claims.iss], [`${BASE}/`, `${BASE}/`]);
});

test('BASE_URL is the audience exactly as configured, as the established server writes it', async () => {
  assert.is(
    (await claimsOf(config({ BASE_URL: 'https://alerts.example.com/api' }), 'https://alerts.example.com/api'))
      .aud,
    'https://alerts.example.com/api',
  );
  assert.is(
    (
      await claimsOf(
        config({ BASE_URL: 'https://alerts.example.com/api/' }),
        'https://alerts.example.com/api',
      )
    ).aud,
    'https://alerts.example.com/api/',
  );
});

test('OAUTH2_CLIENT_ID, else SAML2_ENTITY_ID, is the audience', async () => {
  assert.is(
    (await claimsOf(config({ OAUTH2_CLIENT_ID: 'web-ui', SAML2_ENTITY_ID: 'urn:sp' }))).aud,
    'web-ui',
  );
  assert.is((await claimsOf(config({ SAML2_ENTITY_ID: 'urn:sp' }))).aud, 'urn:sp');
});

test('a base URL audience is accepted with or without the trailing slash; an explicit id only as given', async () => {
  assert.equal(acceptedAudiences(config(), BASE).sort(), [BASE, `${BASE}/`]);
  assert.equal(acceptedAudiences(config({ SAML2_ENTITY_ID: 'urn:sp' }), BASE), ['urn:sp']);
  assert.equal(acceptedAudiences(config({ OAUTH2_CLIENT_ID: 'web-ui' }), BASE), ['web-ui']);

  // A token of the other form verifies; one for the client id does not verify against the base URL.
  const slashless = await createToken(config({ BASE_URL: BASE }), subject, BASE);
  assert.is((await verifyToken(config(), slashless, BASE)).aud, BASE);
  const forClient = await createToken(config({ OAUTH2_CLIENT_ID: 'web-ui' }), subject, BASE);
  try {
    await verifyToken(config(), forClient, BASE);
    assert.unreachable('a token for another audience was accepted');
  } catch (err) {
    assert.is((err as Error).message, 'Invalid audience');
  }
});

test.run();
