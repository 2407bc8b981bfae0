/**
 * Which issuer each OpenID Connect provider signs in with when OIDC_ISSUER_URL does not name one
 * (the established server's derivation), and Azure's multi-tenant issuers: the `{tenantid}`
 * template of the discovery document and the tenant-specific issuer each ID token must carry.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../server/config.ts';
import { isIssuerOf, isTenantTemplate, issuerOf, tenantIssuer } from '../../server/auth/sso/issuers.ts';

const configOf = (env: Record<string, string>) =>
  loadConfig({ OAUTH2_CLIENT_ID: 'web-ui', ...env }, { systemFile: null });
const issuer = (env: Record<string, string>) => issuerOf(configOf(env));

const MS = 'https://login.microsoftonline.com';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
/** The one directory of Microsoft's personal accounts, named by the consumers endpoint. */
const CONSUMERS = '9188040d-6c67-4c5b-b112-36a304b66dad';

test('azure: the tenant v2.0 endpoint, AZURE_TENANT common by default', () => {
  assert.is(issuer({ AUTH_PROVIDER: 'azure' }), `${MS}/common/v2.0`);
  assert.is(
    issuer({ AUTH_PROVIDER: 'azure', AZURE_TENANT: 'contoso.onmicrosoft.com' }),
    `${MS}/contoso.onmicrosoft.com/v2.0`,
  );
  assert.is(issuer({ AUTH_PROVIDER: 'azure', AZURE_TENANT: TENANT }), `${MS}/${TENANT}/v2.0`);
});

test("google: Google's issuer; cognito: the user pool in AWS_REGION (us-east-1 by default)", () => {
  assert.is(issuer({ AUTH_PROVIDER: 'google' }), 'https://accounts.google.com');
  assert.is(
    issuer({ AUTH_PROVIDER: 'cognito', COGNITO_USER_POOL_ID: 'us-east-1_AbC123' }),
    'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_AbC123',
  );
  assert.is(
    issuer({ AUTH_PROVIDER: 'cognito', AWS_REGION: 'eu-west-1', COGNITO_USER_POOL_ID: 'eu-west-1_Pool' }),
    'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool',
  );
});

test('OIDC_ISSUER_URL overrides the provider issuer of azure, google and cognito (an empty one does not)', () => {
  const own = 'https://idp.example.com/realm';
  for (const provider of ['azure', 'google', 'cognito']) {
    assert.is(issuer({ AUTH_PROVIDER: provider, OIDC_ISSUER_URL: own }), own, provider);
  }
  assert.is(issuer({ AUTH_PROVIDER: 'google', OIDC_ISSUER_URL: '' }), 'https://accounts.google.com');
});

test('the other providers keep theirs: openid, gitlab, keycloak; none for the rest', () => {
  assert.is(
    issuer({ AUTH_PROVIDER: 'openid', OIDC_ISSUER_URL: 'https://idp.example.com' }),
    'https://idp.example.com',
  );
  assert.is(
    issuer({ AUTH_PROVIDER: 'gitlab', GITLAB_URL: 'https://git.example.com/' }),
    'https://git.example.com',
  );
  assert.is(
    issuer({ AUTH_PROVIDER: 'keycloak', KEYCLOAK_URL: 'https://kc.example.com', KEYCLOAK_REALM: 'ops' }),
    'https://kc.example.com/auth/realms/ops',
  );
  assert.is(issuer({}), null);
  assert.is(issuer({ AUTH_PROVIDER: 'github' }), null);
});

test('a discovery document must name the issuer it was fetched for, a trailing slash aside', () => {
  assert.ok(isIssuerOf('https://accounts.google.com', 'https://accounts.google.com', false));
  assert.ok(isIssuerOf('https://idp.example.com/', 'https://idp.example.com', false));
  assert.not.ok(isIssuerOf('https://evil.example.com', 'https://idp.example.com', false));
  assert.not.ok(isIssuerOf(`${MS}/{tenantid}/v2.0`, `${MS}/common/v2.0`, false), 'only for azure');
});

test("azure's multi-tenant endpoints name the tenant-specific form: the template, or consumers' own tenant", () => {
  assert.ok(isIssuerOf(`${MS}/{tenantid}/v2.0`, `${MS}/common/v2.0`, true));
  assert.ok(isIssuerOf(`${MS}/{tenantid}/v2.0`, `${MS}/organizations/v2.0/`, true));
  assert.ok(isIssuerOf(`${MS}/${CONSUMERS}/v2.0`, `${MS}/consumers/v2.0`, true));
  // A single tenant's document names that tenant; nothing else passes.
  assert.ok(isIssuerOf(`${MS}/${TENANT}/v2.0`, `${MS}/${TENANT}/v2.0`, true));
  assert.not.ok(isIssuerOf(`${MS}/{tenantid}/v2.0`, `${MS}/contoso.com/v2.0`, true));
  assert.not.ok(isIssuerOf(`${MS}/${TENANT}/v2.0`, `${MS}/contoso.com/v2.0`, true));
  assert.not.ok(isIssuerOf('https://evil.example.com/{tenantid}/v2.0', `${MS}/common/v2.0`, true));
  assert.not.ok(isIssuerOf(`${MS}/evil/v2.0`, `${MS}/common/v2.0`, true));
  assert.not.ok(isIssuerOf(`${MS}/{tenantid}/v1.0`, `${MS}/common/v2.0`, true));
  assert.not.ok(isIssuerOf(`${MS}/a/{tenantid}/v2.0`, `${MS}/common/v2.0`, true));
});

test('an ID token of a multi-tenant endpoint must carry the template filled in with its own tid', () => {
  const template = `${MS}/{tenantid}/v2.0`;
  assert.ok(isTenantTemplate(template));
  assert.not.ok(isTenantTemplate(`${MS}/${CONSUMERS}/v2.0`));
  assert.is(tenantIssuer(template, TENANT), `${MS}/${TENANT}/v2.0`);
  assert.is(tenantIssuer(template, TENANT.toUpperCase()), `${MS}/${TENANT.toUpperCase()}/v2.0`);
  for (const tid of [undefined, null, 42, '', 'contoso', `${TENANT}/x`, '../common', [TENANT]]) {
    assert.is(tenantIssuer(template, tid), null, JSON.stringify(tid));
  }
});

test.run();
