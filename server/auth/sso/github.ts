import type { Config } from '../../config.ts';
import type { ExternalIdentity } from '../external-users.ts';
import { appError } from '../../errors.ts';
import type { CodeGrant } from './oidc.ts';
import { callProvider, cleanText, isObject, namesIn, objectFrom } from './provider-http.ts';

/** github.com, or a GitHub Enterprise server at GITHUB_URL (its API under /api/v3). */
function endpointsOf(config: Config) {
  const url = config.GITHUB_URL.replace(/\/+$/, '');
  const isCloud = url === 'https://github.com';
  return {
    token: `${url}/login/oauth/access_token`,
    api: isCloud ? 'https://api.github.com' : `${url}/api/v3`,
  };
}

/** The client secret for the client id the caller used: OAUTH2_CLIENT_ID/SECRET may list several. */
export function githubSecretFor(config: Config, clientId: string): string | null {
  const ids = config.OAUTH2_CLIENT_ID.split(',');
  const secrets = config.OAUTH2_CLIENT_SECRET.split(',');
  const i = ids.indexOf(clientId);
  return i < 0 ? null : (secrets[i] ?? '');
}

/**
 * Exchanges a GitHub OAuth code and reads the profile, organisations and teams (auth.md §12):
 * login `@<github login>`, organisations for ALLOWED_GITHUB_ORGS, teams (`org/team`) as roles.
 */
export async function githubIdentity(config: Config, grant: CodeGrant): Promise<ExternalIdentity> {
  const { token, api } = endpointsOf(config);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    client_id: grant.clientId,
    client_secret: grant.clientSecret,
  });
  const tokens = objectFrom(
    await callProvider(token, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    }),
    'code exchange',
  );
  // GitHub answers a refused code with 200 and an `error` field.
  if (typeof tokens.access_token !== 'string') {
    const code = typeof tokens.error === 'string' ? tokens.error : 'no access token';
    throw appError('provider_refused', 'code exchange', code.replace(/[^\w .:-]/g, '').slice(0, 80));
  }
  const headers = { Authorization: `Bearer ${tokens.access_token}`, Accept: 'application/vnd.github+json' };
  const get = (path: string) => callProvider(`${api}${path}`, { headers });
  const [profileAnswer, orgsAnswer, teamsAnswer] = await Promise.all([
    get('/user'),
    get('/user/orgs?per_page=100'),
    get('/user/teams?per_page=100'),
  ]);
  const profile = objectFrom(profileAnswer, 'GitHub profile');
  const list = (answer: typeof orgsAnswer) => (answer.ok && Array.isArray(answer.json) ? answer.json : []);
  const orgs = namesIn(list(orgsAnswer).map((o: unknown) => (isObject(o) ? o.login : null)));
  // Teams need the read:org scope; without it the list is simply empty.
  const teams = namesIn(
    list(teamsAnswer).map((t: unknown) =>
      isObject(t) && isObject(t.organization) ? `${String(t.organization.login)}/${String(t.slug)}` : null,
    ),
  );
  const githubLogin = cleanText(profile.login);
  const subject = cleanText(profile.id);
  if (!githubLogin || !subject) throw appError('github_profile_incomplete');
  let email = cleanText(profile.email);
  // A public profile address is one GitHub verified; a private one comes from /user/emails.
  let emailVerified = email !== null;
  if (!email) {
    const emails = await get('/user/emails');
    const primary = (Array.isArray(emails.json) ? emails.json : []).find(
      (e: unknown) => isObject(e) && e.primary === true,
    ) as Record<string, unknown> | undefined;
    email = cleanText(primary?.email);
    emailVerified = email !== null && primary?.verified === true;
  }
  const login = `@${githubLogin}`;
  return {
    provider: 'github',
    subject,
    login,
    name: cleanText(profile.name) ?? login,
    email,
    emailVerified,
    picture: cleanText(profile.avatar_url),
    roles: teams,
    groups: [],
    orgs,
    linkByEmail: config.OIDC_LINK_USER_EMAIL,
    text: 'GitHub user',
  };
}
