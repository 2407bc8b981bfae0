import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// The SAML and LDAP libraries (about 6 MB of heap with the XML ones) are loaded only when a
// sign-in or a setting needs them (server/auth/sso/saml.ts, server/auth/ldap.ts,
// server/config/checks.ts; docs/benchmarks.md, "Settings chosen"): a server that uses neither
// never holds them.

const root = new URL('../../', import.meta.url).pathname;
const LAZY = ['ldapts', '@node-saml/node-saml', '@xmldom/xmldom'];

/** The packages among LAZY that a fresh `node` resolved while running `code`. */
function resolvedBy(code: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ resolve(specifier, context, next) {
      const r = next(specifier, context);
      for (const name of ${JSON.stringify(LAZY)}) if (r.url.includes('/node_modules/' + name + '/')) seen.add(name);
      return r;
    } });
    ${code}
    console.log(JSON.stringify([...seen].sort()));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.is(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim()) as string[];
}

test('the whole server loads without the SAML and LDAP libraries', () => {
  // What server/main.ts imports (main.ts itself would start a server), and the settings checked.
  const code = `${['boot', 'config', 'log', 'startup-errors', 'version']
    .map((m) => `await import('./server/${m}.ts');`)
    .join(' ')}
    const { loadConfig } = await import('./server/config.ts');
    loadConfig({}, { systemFile: null });`;
  assert.equal(resolvedBy(code), []);
});

test('an LDAP filter setting loads ldapts, and the check sees it (the test can fail)', () => {
  const code = `
    const { loadConfig } = await import('./server/config.ts');
    try { loadConfig({ AUTH_PROVIDER: 'ldap', LDAP_URL: 'ldap://127.0.0.1:1', LDAP_BASEDN: 'dc=x', LDAP_USER_FILTER: '(uid={username})' }, { systemFile: null }); } catch {}`;
  assert.equal(resolvedBy(code), ['ldapts']);
});

test.run();
