import { UsageError } from '../args.ts';
import { browserFlow, browserLogin } from '../browser-login.ts';
import { redact } from '../config.ts';
import type { Command, Context } from '../context.ts';
import { CliError } from '../http.ts';
import { clearToken, machineFor, readToken, saveToken } from '../netrc.ts';

/** login, logout, whoami, token, signup: the session kept in ~/.netrc (clients.md trap 17). */

/** The claims of a JWT (not verified: the server does that; we only read the name and expiry). */
export function decodeToken(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  try {
    const claims: unknown = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
    if (claims && typeof claims === 'object' && !Array.isArray(claims))
      return claims as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new CliError('the token is not a JWT');
}

const BASIC_PROVIDERS = new Set(['basic', 'ldap']);

/** POST /auth/login with a username and password; gives the token. */
export async function loginWith(ctx: Context, username: string, password: string): Promise<string> {
  const answer = await ctx.http.request<{ token?: string }>('POST', '/auth/login', {
    body: { username, password },
    anonymous: true,
  });
  if (typeof answer.body.token !== 'string') throw new CliError('login answered without a token');
  return answer.body.token;
}

const login: Command = {
  name: 'login',
  summary: 'Log in with a username and password, or in the browser',
  description:
    'Log in and keep the token in ~/.netrc (mode 0600) for this endpoint. With basic or ldap the\n' +
    'password is asked for on the terminal; a script can pipe it on stdin or give --password.\n' +
    "With an OAuth provider the provider's login page opens in the browser (BROWSER names the\n" +
    'program) and its answer comes back to http://127.0.0.1:9004 (azure: http://localhost:9004).',
  args: [{ name: 'username', help: 'Login (email); asked for when missing (google: the account hint)' }],
  options: [
    {
      name: 'password',
      flags: ['--password'],
      metavar: 'PASSWORD',
      help: 'Password (else asked for, or read from stdin)',
    },
  ],
  async run(ctx, o, args) {
    const provider = String(ctx.remote.provider ?? 'basic');
    let token: string;
    if (BASIC_PROVIDERS.has(provider)) {
      const username = args[0] ?? (await ctx.prompt('Email: '));
      if (!username) throw new UsageError('a username is needed', 'login');
      const password = typeof o.password === 'string' ? o.password : await ctx.prompt('Password: ', true);
      token = await loginWith(ctx, username, password);
    } else {
      const flow = browserFlow(provider, ctx.remote, args[0]);
      if (!flow) {
        throw new CliError(
          `this server logs in through "${provider}", which this client cannot do; ` +
            'create an API key in the web UI and set ALERTA_API_KEY',
        );
      }
      token = await browserLogin(ctx, flow);
    }
    const claims = decodeToken(token);
    const name = claims.preferred_username;
    if (typeof name !== 'string' || !name) throw new CliError('Failed to login: the token names no user');
    saveToken(ctx.http.endpoint, name, token, ctx.warn);
    if (ctx.isMachine) {
      ctx.json({
        status: 'ok',
        username: name,
        machine: machineFor(ctx.http.endpoint),
        expires: claims.exp ?? null,
      });
    } else ctx.print(`Logged in as ${name}`);
  },
};

const logout: Command = {
  name: 'logout',
  summary: 'Forget the login token for this endpoint',
  options: [],
  offline: true,
  async run(ctx) {
    if (!clearToken(ctx.settings.endpoint, ctx.warn)) {
      throw new CliError(`No credentials stored for ${machineFor(ctx.settings.endpoint)}`);
    }
    if (ctx.isMachine) ctx.json({ status: 'ok', machine: machineFor(ctx.settings.endpoint) });
    else ctx.print('Logged out.');
  },
};

const whoami: Command = {
  name: 'whoami',
  summary: 'Show the logged in user',
  options: [
    { name: 'show_userinfo', flags: ['-u', '--show-userinfo'], type: 'flag', help: 'Show all user info' },
  ],
  async run(ctx, o) {
    const info = await ctx.http.get('/userinfo');
    if (ctx.isMachine) return void ctx.json(info);
    if (!o.show_userinfo) return void ctx.print(String(info.preferred_username ?? ''));
    for (const [k, v] of Object.entries(info)) {
      ctx.print(
        `${k.padEnd(20)}: ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' && v ? JSON.stringify(v) : String(v)}`,
      );
    }
  },
};

const token: Command = {
  name: 'token',
  summary: 'Show the login token for this endpoint',
  options: [{ name: 'decode', flags: ['-D', '--decode'], type: 'flag', help: 'Show the claims instead' }],
  offline: true,
  async run(ctx, o) {
    const jwt = readToken(ctx.settings.endpoint, ctx.warn);
    if (!jwt) {
      throw new CliError(
        `not logged in to ${ctx.settings.endpoint} (no token in ~/.netrc for ${machineFor(ctx.settings.endpoint)})`,
      );
    }
    if (o.decode) return void ctx.json(decodeToken(jwt));
    // Printing the token is this command's purpose; nowhere else shows one.
    if (ctx.isMachine) ctx.json({ token: jwt });
    else ctx.print(jwt);
  },
};

const signup: Command = {
  name: 'signup',
  summary: 'Sign up as a new user',
  options: [
    { name: 'name', flags: ['--name'], metavar: 'NAME', help: 'Your name' },
    { name: 'email', flags: ['--email'], metavar: 'EMAIL', help: 'Email address (login)' },
    { name: 'password', flags: ['--password'], metavar: 'PASSWORD', help: 'Password' },
    { name: 'status', flags: ['--status'], metavar: 'STATUS', help: 'Status' },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Description' },
  ],
  async run(ctx, o) {
    if (!o.email) throw new UsageError('Need "--email" to sign-up new user.', 'signup');
    if (!o.password) throw new UsageError('Need "--password" to sign-up new user.', 'signup');
    const answer = await ctx.http.request<Record<string, unknown>>('POST', '/auth/signup', {
      body: {
        name: o.name ?? o.email,
        email: o.email,
        password: o.password,
        status: o.status ?? null,
        attributes: null,
        text: o.text ?? null,
      },
      anonymous: true,
    });
    const r = answer.body;
    if (typeof r.token !== 'string' && r.status !== 'ok')
      throw new CliError('sign-up answered without a token');
    if (ctx.isMachine) {
      ctx.json({ ...r, ...(typeof r.token === 'string' ? { token: redact(r.token) } : {}) });
    } else ctx.print('Signed Up.');
  },
};

export const sessionCommands: Command[] = [login, logout, whoami, token, signup];
