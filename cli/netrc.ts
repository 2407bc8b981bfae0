import { chmodSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Login tokens live in `~/.netrc` under `machine <host>:<port>`, where the port is 80 when the
 * endpoint URL has none, even for https (clients.md trap 17), so tokens saved by the established
 * client keep working and the other way round. We write the file with mode 0600.
 */

interface Entry {
  machine: string | null; // null = the `default` entry
  login: string | null;
  account: string | null;
  password: string | null;
}
interface Netrc {
  entries: Entry[];
  /** `macdef` blocks, kept verbatim. */
  macros: string[];
}

export const netrcPath = () => join(homedir(), '.netrc');

/** The machine name the established client files an endpoint's token under. */
export function machineFor(endpoint: string): string {
  const url = new URL(endpoint);
  return `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || '80'}`;
}

function parse(text: string): Netrc {
  const netrc: Netrc = { entries: [], macros: [] };
  const lines = text.split('\n');
  let current: Entry | null = null;
  for (let l = 0; l < lines.length; l++) {
    const words = lines[l]!.replace(/#.*$/, '').trim().split(/\s+/).filter(Boolean);
    for (let w = 0; w < words.length; w++) {
      const word = words[w]!;
      const next = () => words[++w] ?? null;
      if (word === 'machine' || word === 'default') {
        current = { machine: word === 'default' ? null : next(), login: null, account: null, password: null };
        netrc.entries.push(current);
      } else if (word === 'macdef') {
        // A macro runs to the next empty line.
        const body = [lines[l]!];
        while (l + 1 < lines.length && lines[l + 1]!.trim() !== '') body.push(lines[++l]!);
        netrc.macros.push(body.join('\n'));
        current = null;
        break;
      } else if (current && (word === 'login' || word === 'password' || word === 'account')) {
        current[word] = next();
      }
    }
  }
  return netrc;
}

function render(netrc: Netrc): string {
  const quote = (v: string) => (/[\s"]/.test(v) ? `"${v.replace(/"/g, '\\"')}"` : v);
  const blocks = netrc.entries.map((e) => {
    const lines = [e.machine === null ? 'default' : `machine ${e.machine}`];
    if (e.login !== null) lines.push(`\tlogin ${quote(e.login)}`);
    if (e.account !== null) lines.push(`\taccount ${quote(e.account)}`);
    if (e.password !== null) lines.push(`\tpassword ${quote(e.password)}`);
    return lines.join('\n');
  });
  return [...blocks, ...netrc.macros.map((m) => `${m}\n`)].join('\n') + '\n';
}

function load(warn: (m: string) => void): Netrc | null {
  const path = netrcPath();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) {
    warn(`${path} is readable by others (mode ${mode.toString(8)}); run: chmod 600 ${path}`);
  }
  return parse(text);
}

function store(netrc: Netrc) {
  const path = netrcPath();
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, render(netrc), { mode: 0o600 });
  chmodSync(temp, 0o600); // the umask may have narrowed the mode, never widened it; be exact
  renameSync(temp, path);
}

/** The token saved for this endpoint, if any. */
export function readToken(endpoint: string, warn: (m: string) => void): string | null {
  const machine = machineFor(endpoint);
  return load(warn)?.entries.find((e) => e.machine === machine)?.password ?? null;
}

/** Saves (or replaces) this endpoint's token; the file ends up with mode 0600. */
export function saveToken(endpoint: string, login: string, token: string, warn: (m: string) => void): void {
  const netrc = load(warn) ?? { entries: [], macros: [] };
  const machine = machineFor(endpoint);
  netrc.entries = netrc.entries.filter((e) => e.machine !== machine);
  netrc.entries.push({ machine, login, account: null, password: token });
  store(netrc);
}

/** Removes this endpoint's token; false when there was none. */
export function clearToken(endpoint: string, warn: (m: string) => void): boolean {
  const netrc = load(warn);
  const machine = machineFor(endpoint);
  if (!netrc || !netrc.entries.some((e) => e.machine === machine)) return false;
  netrc.entries = netrc.entries.filter((e) => e.machine !== machine);
  store(netrc);
  return true;
}
