import type { Group, User } from '../../shared/users.ts';
import { strings, UsageError, type OptionSpec } from '../args.ts';
import { answered, listCommand, listFrom, listing, type Command, type Context } from '../context.ts';
import type { Column } from '../format.ts';
import { created, DELETE, enc, when } from './admin-common.ts';
import { groupColumns } from './groups.ts';

/** alerta user, users, me: user accounts. */

const userColumns = (ctx: Context): Column<User>[] => {
  const t = when(ctx);
  return [
    { header: 'ID', value: (u) => u.id },
    { header: 'USER', value: (u) => u.name },
    { header: 'LOGIN', value: (u) => u.login },
    { header: 'EMAIL', value: (u) => u.email },
    { header: 'ROLES', value: (u) => u.roles },
    { header: 'STATUS', value: (u) => u.status },
    { header: 'TEXT', value: (u) => u.text },
    { header: 'CREATED', value: (u) => t(u.createTime) },
    { header: 'LAST UPDATED', value: (u) => t(u.updateTime) },
    { header: 'LAST LOGIN', value: (u) => t(u.lastLogin) },
    { header: 'VERIFIED', value: (u) => u.email_verified },
  ];
};

/** `--password` with no value asks for one (twice, to catch typos), as before. */
async function passwordOf(ctx: Context, given: unknown): Promise<string | null | undefined> {
  if (given === undefined) return undefined;
  if (typeof given === 'string') return given;
  const first = await ctx.prompt('Password: ', true);
  if (ctx.interactive && (await ctx.prompt('Repeat for confirmation: ', true)) !== first) {
    throw new UsageError('the two entered values do not match', 'user');
  }
  return first;
}

const PASSWORD: OptionSpec = {
  name: 'password',
  flags: ['--password'],
  optionalValue: true,
  metavar: 'PASSWORD',
  help: 'Password (asked for when no value is given)',
};

export const user: Command = {
  name: 'user',
  summary: 'Create, show, update or delete a user',
  description:
    'Create a user (--email and --password), show one (-i ID), update one (-i ID with changes),\n' +
    "list a user's groups (-i ID --groups) or delete one (-D ID). Roles change only with --role;\n" +
    '--clear-roles removes them all.',
  options: [
    { name: 'id', flags: ['-i', '--id'], metavar: 'ID', help: 'User id' },
    { name: 'name', flags: ['--name'], metavar: 'NAME', help: 'Name of the user' },
    { name: 'email', flags: ['--email'], metavar: 'EMAIL', help: 'Email address (login)' },
    PASSWORD,
    { name: 'status', flags: ['--status'], metavar: 'STATUS', help: 'active or inactive' },
    { name: 'roles', flags: ['--role'], multiple: true, metavar: 'ROLE', help: 'Role; repeat for more' },
    { name: 'clear_roles', flags: ['--clear-roles'], type: 'flag', help: 'Remove every role' },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Description of the user' },
    {
      name: 'email_verified',
      flags: ['--email-verified'],
      off: ['--email-not-verified'],
      type: 'bool',
      help: 'Email address verified flag',
    },
    { name: 'groups', flags: ['--groups'], type: 'flag', help: "List the user's groups" },
    DELETE('a user'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string') return answered(ctx, await ctx.http.delete(`/user/${enc(o.delete)}`));
    const roles = strings(o.roles);
    const password = await passwordOf(ctx, o.password);
    if (typeof o.id === 'string') {
      const path = `/user/${enc(o.id)}`;
      if (o.groups) {
        await listFrom<Group>(ctx, `${path}/groups`, 'groups', groupColumns);
        return;
      }
      const changes: Record<string, unknown> = {};
      for (const k of ['name', 'email', 'status', 'text', 'email_verified'] as const) {
        if (o[k] !== undefined) changes[k] = o[k];
      }
      if (password !== undefined) changes.password = password;
      // Roles only when asked for: an empty list must not strip them (clients.md trap 16).
      if (roles.length) changes.roles = roles;
      if (o.clear_roles) Object.assign(changes, { roles: [], clearRoles: true });
      if (!Object.keys(changes).length) {
        const r = await ctx.http.get<{ user: User }>(path);
        return listing(ctx, [r.user], userColumns(ctx));
      }
      return answered(ctx, await ctx.http.put(path, changes), 'Updated.');
    }
    if (!o.email) throw new UsageError('Need "--email" to create a user.', 'user');
    const r = await ctx.http.post('/user', {
      name: o.name ?? o.email,
      email: o.email,
      password: password ?? (await ctx.prompt('Password: ', true)),
      status: o.status ?? null,
      roles,
      attributes: {},
      text: o.text ?? null,
      email_verified: o.email_verified ?? false,
    });
    created(ctx, r, 'user');
  },
};

export const users = listCommand({
  name: 'users',
  summary: 'List users',
  options: [
    { name: 'roles', flags: ['--role'], multiple: true, metavar: 'ROLE', help: 'Only users with this role' },
  ],
  path: '/users',
  key: 'users',
  query: (o) => strings(o.roles).map((role) => ['roles', role]),
  columns: userColumns,
});

export const me: Command = {
  name: 'me',
  summary: 'Update the current user',
  options: [
    { name: 'name', flags: ['--name'], metavar: 'NAME', help: 'Your name' },
    { name: 'email', flags: ['--email'], metavar: 'EMAIL', help: 'Email address' },
    PASSWORD,
    // Kept for the established client's options; the server refuses it (only an admin sets a status).
    {
      name: 'status',
      flags: ['--status'],
      metavar: 'STATUS',
      help: 'Refused by the server: an admin sets a status (alerta user)',
    },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Description' },
  ],
  async run(ctx, o) {
    const password = await passwordOf(ctx, o.password);
    const changes: Record<string, unknown> = {};
    for (const k of ['name', 'email', 'status', 'text'] as const) if (o[k] !== undefined) changes[k] = o[k];
    if (password !== undefined) changes.password = password;
    if (!Object.keys(changes).length) throw new UsageError('Nothing to update.', 'me');
    answered(ctx, await ctx.http.put('/user/me', changes), 'Updated.');
  },
};
