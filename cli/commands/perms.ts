import type { Customer, Permission } from '../../shared/perms.ts';
import { strings, UsageError } from '../args.ts';
import { answered, listCommand, type Command } from '../context.ts';
import { DELETE, enc, created } from './admin-common.ts';

/** alerta customer(s), perm(s), scopes: customer lookups, permissions and the scopes they grant. */

export const customer: Command = {
  name: 'customer',
  summary: 'Add or delete a customer lookup',
  options: [
    { name: 'customer', flags: ['--customer'], metavar: 'NAME', help: 'Customer name' },
    {
      name: 'match',
      flags: ['--org', '--group', '--domain', '--role'],
      metavar: 'MATCH',
      help: 'Login, group, domain or role to match',
    },
    DELETE('a customer lookup'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string')
      return answered(ctx, await ctx.http.delete(`/customer/${enc(o.delete)}`));
    if (!o.customer) throw new UsageError('Missing option "--customer".', 'customer');
    if (!o.match)
      throw new UsageError('Missing option "--org" / "--group" / "--domain" / "--role".', 'customer');
    created(ctx, await ctx.http.post('/customer', { customer: o.customer, match: o.match }), 'customer');
  },
};

export const customers = listCommand<Customer>({
  name: 'customers',
  summary: 'List customer lookups',
  path: '/customers',
  key: 'customers',
  columns: [
    { header: 'ID', value: (c) => c.id },
    // The established client heads the match (a login, group, domain or role) GROUP.
    { header: 'GROUP', value: (c) => c.match },
    { header: 'CUSTOMER', value: (c) => c.customer },
  ],
});

export const perm: Command = {
  name: 'perm',
  summary: 'Add or delete a role-to-permission lookup',
  options: [
    { name: 'role', flags: ['--role'], metavar: 'ROLE', help: 'Role (or group) name' },
    {
      name: 'scopes',
      flags: ['--scope'],
      multiple: true,
      metavar: 'SCOPE',
      help: 'Permission, e.g. write:alerts',
    },
    DELETE('a permission'),
  ],
  async run(ctx, o) {
    if (typeof o.delete === 'string') return answered(ctx, await ctx.http.delete(`/perm/${enc(o.delete)}`));
    if (!o.role) throw new UsageError('Missing option "--role".', 'perm');
    if (!strings(o.scopes).length) throw new UsageError('Missing option "--scope".', 'perm');
    created(ctx, await ctx.http.post('/perm', { match: o.role, scopes: strings(o.scopes) }), 'permission');
  },
};

export const perms = listCommand<Permission>({
  name: 'perms',
  summary: 'List role-to-permission lookups',
  options: [
    {
      name: 'scopes',
      flags: ['--scope'],
      multiple: true,
      metavar: 'SCOPE',
      help: 'Only those granting this scope',
    },
  ],
  path: '/perms',
  key: 'permissions',
  query: (o) => strings(o.scopes).map((s) => ['scopes', s]),
  columns: [
    { header: 'ID', value: (p) => p.id },
    { header: 'ROLE', value: (p) => p.match },
    { header: 'SCOPES', value: (p) => p.scopes },
  ],
});

export const scopes = listCommand<string>({
  name: 'scopes',
  summary: 'List the scopes permissions can grant',
  path: '/scopes',
  key: 'scopes',
  columns: [{ header: 'SCOPE', value: (s) => s }],
});
