import type { Group, GroupMember } from '../../shared/users.ts';
import { UsageError } from '../args.ts';
import { answered, listCommand, listFrom, type Command } from '../context.ts';
import type { Column } from '../format.ts';
import { created, enc } from './admin-common.ts';

/** alerta group, groups: user groups and their members. */

export const groupColumns: Column<Group>[] = [
  { header: 'ID', value: (g) => g.id },
  { header: 'NAME', value: (g) => g.name },
  { header: 'USERS', value: (g) => g.count },
  { header: 'DESCRIPTION', value: (g) => g.text },
];

export const group: Command = {
  name: 'group',
  summary: 'Create or delete a user group, add and remove its users',
  description:
    '  alerta group --name NAME --text DESCRIPTION    create a group\n' +
    '  alerta group -i GROUP_ID -U USER_ID            add a user\n' +
    '  alerta group -i GROUP_ID --users               list its users\n' +
    '  alerta group -i GROUP_ID -D USER_ID            remove a user\n' +
    '  alerta group -D GROUP_ID                       delete a group',
  options: [
    { name: 'id', flags: ['-i', '--id'], metavar: 'ID', help: 'Group id' },
    { name: 'name', flags: ['--name'], metavar: 'NAME', help: 'Group name' },
    { name: 'text', flags: ['--text'], metavar: 'TEXT', help: 'Description' },
    { name: 'user', flags: ['-U', '--user'], metavar: 'USER_ID', help: 'Add this user to the group' },
    { name: 'users', flags: ['--users'], type: 'flag', help: "List the group's users" },
    {
      name: 'delete',
      flags: ['-D', '--delete'],
      metavar: 'ID',
      help: 'Delete a group, or (with -i) remove a user',
    },
  ],
  async run(ctx, o) {
    const id = typeof o.id === 'string' ? o.id : null;
    if (id && typeof o.user === 'string') {
      // The established client sends the body `null` here (clients.md trap 10).
      const r = await ctx.http.put(`/group/${enc(id)}/user/${enc(o.user)}`, null);
      return answered(ctx, r);
    }
    if (id && typeof o.delete === 'string') {
      return answered(ctx, await ctx.http.delete(`/group/${enc(id)}/user/${enc(o.delete)}`));
    }
    if (o.users) {
      if (!id) throw new UsageError('Missing option "-i" / "--id"', 'group');
      await listFrom<GroupMember>(ctx, `/group/${enc(id)}/users`, 'users', [
        { header: 'ID', value: (u) => u.id },
        { header: 'USER', value: (u) => u.name },
        { header: 'LOGIN', value: (u) => u.login },
        { header: 'STATUS', value: (u) => u.status },
      ]);
      return;
    }
    if (typeof o.delete === 'string') return answered(ctx, await ctx.http.delete(`/group/${enc(o.delete)}`));
    if (!o.name) throw new UsageError('Missing option "--name".', 'group');
    created(ctx, await ctx.http.post('/group', { name: o.name, text: o.text ?? null }), 'group');
  },
};

export const groups = listCommand({
  name: 'groups',
  summary: 'List user groups',
  path: '/groups',
  key: 'groups',
  columns: groupColumns,
});
