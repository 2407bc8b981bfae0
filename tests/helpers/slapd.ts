/**
 * A throw-away OpenLDAP server (Debian's `slapd`) for the LDAP tests: its own config, databases
 * and certificate in a temporary directory, listening on free loopback ports, stopped by the test.
 * Two directory trees (example.com and example.org) with users and both kinds of group.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/cluster.ts';

const run = promisify(execFile);

const SLAPD = '/usr/sbin/slapd';
const SLAPADD = '/usr/sbin/slapadd';
const SCHEMAS = ['core', 'cosine', 'inetorgperson', 'nis'];

/** The service account that may search both trees (search-then-bind). */
export const READER = { dn: 'cn=reader,dc=example,dc=com', password: 'reader-secret' };

/** Users in the directory; `password` is what they bind with. */
export const USERS = {
  alice: { dn: 'uid=alice,ou=people,dc=example,dc=com', password: 'alice-pw', mail: 'alice@example.com' },
  bob: { dn: 'uid=bob,ou=people,dc=example,dc=com', password: 'bob-pw', mail: null },
  carol: { dn: 'uid=carol,ou=people,dc=example,dc=com', password: 'carol-pw', mail: 'carol@example.com' },
  dave: { dn: 'uid=dave,ou=users,dc=example,dc=org', password: 'dave-pw', mail: 'dave@example.org' },
  // Another person with the same uid as alice, in the other domain.
  aliceOrg: {
    dn: 'uid=alice,ou=users,dc=example,dc=org',
    password: 'alice-org-pw',
    mail: 'alice@example.org',
  },
} as const;

export interface Slapd {
  /** ldap://127.0.0.1:<port> */
  url: string;
  /** ldaps://127.0.0.1:<port>, served with `certFile`. */
  ldapsUrl: string;
  /** The self-signed certificate (PEM) the ldaps listener presents: pass it as the CA. */
  certFile: string;
  /** A self-signed certificate the server was not given: a CA that must not verify it. */
  otherCertFile: string;
  stop(): Promise<void>;
}

/** A tree's top entry and its two organisational units. */
const tree = (tld: string, people: string) =>
  [
    `dn: dc=example,dc=${tld}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example ${tld}\n`,
  ]
    .concat(
      [people, 'groups'].map(
        (ou) => `dn: ou=${ou},dc=example,dc=${tld}\nobjectClass: organizationalUnit\nou: ${ou}\n`,
      ),
    )
    .join('\n');

const COM = `${tree('com', 'people')}
dn: ${READER.dn}
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: ${READER.password}

${person('alice', USERS.alice, 'Alice Liddell')}
${person('bob', USERS.bob, 'Bob Builder')}
${person('carol', USERS.carol, 'Carol Singer')}
${group('ops', 'com', [USERS.alice])}
${group('devs', 'com', [USERS.alice, USERS.bob])}
dn: cn=dbas,ou=groups,dc=example,dc=com
objectClass: posixGroup
cn: dbas
gidNumber: 5001
memberUid: bob
`;

const ORG = `${tree('org', 'users')}
${person('dave', USERS.dave, 'Dave Org')}
${person('alice', USERS.aliceOrg, 'Alice Org')}
${group('support', 'org', [USERS.dave])}`;

function person(uid: string, u: { dn: string; password: string; mail: string | null }, cn: string): string {
  const sn = cn.split(' ').pop()!;
  const mail = u.mail ? `mail: ${u.mail}\n` : '';
  return `dn: ${u.dn}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${cn}\nsn: ${sn}\n${mail}userPassword: ${u.password}\n`;
}

/** A groupOfNames under the tree's ou=groups, its members named by DN. */
function group(cn: string, tld: string, members: { dn: string }[]): string {
  const lines = members.map((m) => `member: ${m.dn}\n`).join('');
  return `dn: cn=${cn},ou=groups,dc=example,dc=${tld}\nobjectClass: groupOfNames\ncn: ${cn}\n${lines}`;
}

function slapdConf(dir: string): string {
  const db = (suffix: string, name: string) =>
    [
      'database mdb',
      `suffix "${suffix}"`,
      `rootdn "cn=admin,${suffix}"`,
      'rootpw admin-secret',
      `directory ${join(dir, name)}`,
      'maxsize 10485760',
    ].join('\n');
  return [
    ...SCHEMAS.map((s) => `include /etc/ldap/schema/${s}.schema`),
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    `pidfile ${join(dir, 'slapd.pid')}`,
    `TLSCertificateFile ${join(dir, 'server.crt')}`,
    `TLSCertificateKeyFile ${join(dir, 'server.key')}`,
    // Passwords are only for binding; only bound users may read the trees, so a search without the
    // service account finds nothing (as in most real directories).
    'access to attrs=userPassword by anonymous auth by * none',
    'access to * by users read by * none',
    db('dc=example,dc=com', 'com'),
    db('dc=example,dc=org', 'org'),
    '',
  ].join('\n');
}

function accepts(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const sock = createConnection({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      ok(true);
    });
    sock.once('error', () => ok(false));
  });
}

/** A self-signed certificate for 127.0.0.1 and localhost: `dir/name.key` and `dir/name.crt`. */
export async function selfSignedCert(dir: string, name: string): Promise<void> {
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout',
    join(dir, `${name}.key`),
    '-out',
    join(dir, `${name}.crt`),
  ]);
}

/** Starts slapd with both trees loaded; resolves once both listeners accept connections. */
export async function startSlapd(): Promise<Slapd> {
  const dir = mkdtempSync(join(tmpdir(), 'slapd-'));
  mkdirSync(join(dir, 'com'));
  mkdirSync(join(dir, 'org'));
  await Promise.all([selfSignedCert(dir, 'server'), selfSignedCert(dir, 'other')]);
  const conf = join(dir, 'slapd.conf');
  writeFileSync(conf, slapdConf(dir));
  writeFileSync(join(dir, 'com.ldif'), COM);
  writeFileSync(join(dir, 'org.ldif'), ORG);
  for (const tld of ['com', 'org']) {
    await run(SLAPADD, ['-q', '-f', conf, '-b', `dc=example,dc=${tld}`, '-l', join(dir, `${tld}.ldif`)]);
  }
  const [port, tlsPort] = [await freePort(), await freePort()];
  const url = `ldap://127.0.0.1:${port}`;
  const ldapsUrl = `ldaps://127.0.0.1:${tlsPort}`;
  // -d keeps slapd in the foreground, so it is our child and dies with stop().
  const child: ChildProcess = spawn(SLAPD, ['-f', conf, '-h', `${url}/ ${ldapsUrl}/`, '-d', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  while (!((await accepts(port)) && (await accepts(tlsPort)))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`slapd did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    ldapsUrl,
    certFile: join(dir, 'server.crt'),
    otherCertFile: join(dir, 'other.crt'),
    stop,
  };
}

/** uvu fails every test of a suite whose `before` hook throws but never says why: print it first. */
export async function reportFailure<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    console.error(err);
    throw err;
  }
}
