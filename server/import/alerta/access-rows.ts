/**
 * The rows of Alerta's access tables (users, groups, keys, permissions, customer lookups) as rows
 * of ours, or refused with a reason; see rows.ts for how rows are checked.
 */
import { KeyInputSchema } from '../../../shared/keys.ts';
import { CustomerInputSchema, PermInputSchema } from '../../../shared/perms.ts';
import { GroupInputSchema, UserInputSchema, UserStatusSchema } from '../../../shared/users.ts';
import { isUuid } from '../../db/rows.ts';
import { firstIssue, iso, list, notUuid, obj, str, utcMs, uuidOf, type Mapped, type Source } from './rows.ts';

export interface UserRow {
  readonly id: string;
  readonly name: string;
  readonly login: string;
  readonly email: string | null;
  readonly password: string;
  readonly status: string;
  readonly roles: string[];
  readonly attributes: Record<string, unknown>;
  readonly create_time: string;
  readonly last_login: string | null;
  readonly text: string;
  readonly update_time: string | null;
  readonly email_verified: boolean;
  readonly hash: string | null;
}

/** A bcrypt hash as Alerta stores it (`$2b$`, from python's bcrypt); "" for users of a provider. */
const BCRYPT = /^\$2[abxy]\$\d\d\$[./A-Za-z0-9]{53}$/;

export function mapUser(row: Source): Mapped<UserRow> {
  const id = uuidOf(row);
  if (!id) return notUuid(row);
  const password = str(row.password) ?? '';
  if (password !== '' && !BCRYPT.test(password))
    return { refused: 'password is neither empty nor a bcrypt hash' };
  const createTime = utcMs(row.create_time);
  if (createTime === null) return { refused: 'create_time is missing or out of range' };
  const status = UserStatusSchema.safeParse(row.status ?? 'active');
  if (!status.success) return { refused: `status: ${firstIssue(status.error)}` };
  const checked = UserInputSchema.safeParse({
    name: row.name ?? '',
    login: row.login,
    email: row.email,
    password: '',
    roles: list(row.roles),
    attributes: obj(row.attributes),
    text: row.text ?? '',
    email_verified: row.email_verified ?? false,
  });
  if (!checked.success) return { refused: firstIssue(checked.error) };
  const u = checked.data;
  if (!u.login) return { refused: 'login is missing' };
  return {
    row: {
      id,
      name: u.name,
      login: u.login,
      email: u.email ?? null,
      password,
      status: status.data,
      roles: u.roles ?? [],
      attributes: u.attributes ?? {},
      create_time: iso(createTime)!,
      last_login: iso(utcMs(row.last_login)),
      text: u.text ?? '',
      update_time: iso(utcMs(row.update_time)),
      email_verified: u.email_verified ?? false,
      hash: str(row.hash),
    },
  };
}

export interface GroupRow {
  readonly id: string;
  readonly name: string;
  readonly text: string;
  readonly update_time: string | null;
  /** Member user ids; ids that are not UUIDs name no user of ours and are left out. */
  readonly users: string[];
}

export function mapGroup(row: Source): Mapped<GroupRow> {
  const id = uuidOf(row);
  if (!id) return notUuid(row);
  const checked = GroupInputSchema.safeParse({ name: row.name, text: row.text ?? '' });
  if (!checked.success) return { refused: firstIssue(checked.error) };
  const members = Array.isArray(row.users) ? row.users : [];
  const users = [...new Set(members.filter((u): u is string => typeof u === 'string' && isUuid(u)))];
  return {
    row: {
      id,
      name: checked.data.name,
      text: checked.data.text ?? '',
      update_time: iso(utcMs(row.update_time)),
      users: users.map((u) => u.toLowerCase()),
    },
  };
}

export interface KeyRow {
  readonly id: string;
  readonly key: string;
  readonly user: string;
  readonly scopes: string[];
  readonly text: string;
  readonly expire_time: string;
  readonly count: number;
  readonly last_used_time: string | null;
  readonly customer: string | null;
}

export function mapKey(row: Source): Mapped<KeyRow> {
  const id = uuidOf(row);
  if (!id) return notUuid(row);
  const expireTime = utcMs(row.expire_time);
  // The established server compares the expiry with now, so a key without one never worked there.
  if (expireTime === null) return { refused: 'expire_time is missing or out of range' };
  const checked = KeyInputSchema.safeParse({
    key: row.key,
    user: row.user,
    scopes: list(row.scopes),
    text: row.text ?? '',
    expireTime: iso(expireTime),
    customer: row.customer,
  });
  if (!checked.success) return { refused: firstIssue(checked.error) };
  const k = checked.data;
  const count = typeof row.count === 'number' && row.count >= 0 ? row.count : 0;
  return {
    row: {
      id,
      key: k.key!,
      user: k.user!,
      scopes: k.scopes ?? [],
      text: k.text ?? '',
      expire_time: iso(expireTime)!,
      count,
      last_used_time: iso(utcMs(row.last_used_time)),
      customer: k.customer ?? null,
    },
  };
}

export interface PermRow {
  readonly id: string;
  readonly match: string;
  readonly scopes: string[];
}

export function mapPerm(row: Source): Mapped<PermRow> {
  const id = uuidOf(row);
  if (!id) return notUuid(row);
  const checked = PermInputSchema.safeParse({ match: row.match, scopes: list(row.scopes) });
  if (!checked.success) return { refused: firstIssue(checked.error) };
  return { row: { id, match: checked.data.match, scopes: checked.data.scopes ?? [] } };
}

export interface CustomerRow {
  readonly id: string;
  readonly match: string;
  readonly customer: string;
}

export function mapCustomer(row: Source): Mapped<CustomerRow> {
  const id = uuidOf(row);
  if (!id) return notUuid(row);
  const checked = CustomerInputSchema.safeParse({ match: row.match, customer: row.customer });
  if (!checked.success) return { refused: firstIssue(checked.error) };
  return { row: { id, ...checked.data } };
}
