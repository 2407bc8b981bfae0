import { z } from 'zod';
import { MAX_ATTRIBUTES } from './alerts.ts';
import { PagedListShape } from './paging.ts';

// Real clients send null for "not given" (the CLI sends every field), so optional fields accept null.
// NUL bytes and deep nesting are refused for every body by the body middleware.

const MAX_TEXT = 10_000;

const str = (name: string, max = 256) =>
  z.string({ error: `${name} must be a string` }).max(max, `${name} must be at most ${max} characters`);

/** A mandatory string, worded as the established server words a missing one. */
const mandatory = (name: string, max = 256) =>
  z
    .string({
      error: (i) => (i.input == null ? `Missing mandatory value for ${name}` : `${name} must be a string`),
    })
    .max(max, `${name} must be at most ${max} characters`);

const EMAIL_MAX = 254;
const isEmail = [/^[^@\s]+@[^@\s]+$/, 'invalid email address'] as const;

/** Passwords: any string (auth.md §6); bcrypt uses the first 72 bytes. */
const PASSWORD_MAX = 1024;

const text = str('text', MAX_TEXT).nullish();

export const UserStatusSchema = z.enum(['active', 'inactive', 'unknown'], {
  error: 'status must be one of active, inactive, unknown',
});
export type UserStatus = z.infer<typeof UserStatusSchema>;

const roles = z.array(str('roles', 256), { error: 'roles must be a list of strings' });

/**
 * Why a user's attributes are over the alerts' limits (MAX_ATTRIBUTES: keys, key length, size as
 * JSON), or null. Checked on every request and again on the merged result of a deep merge
 * (server/domain/users.ts), so what a user stores stays within them; tests/api/stored-limits.test.ts.
 */
export function userAttributesOverLimit(a: Record<string, unknown>): string | null {
  const keys = Object.keys(a);
  if (keys.length > MAX_ATTRIBUTES.count) return `attributes must have at most ${MAX_ATTRIBUTES.count} keys`;
  if (keys.some((k) => k.length > MAX_ATTRIBUTES.keyLength)) {
    return `each attribute key must be at most ${MAX_ATTRIBUTES.keyLength} characters`;
  }
  if (JSON.stringify(a).length > MAX_ATTRIBUTES.jsonLength) {
    return `attributes must be at most ${MAX_ATTRIBUTES.jsonLength} characters as JSON`;
  }
  return null;
}

const withinLimits = (a: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const over = userAttributesOverLimit(a);
  if (over) ctx.addIssue({ code: 'custom', message: over });
};

export const UserAttributesSchema = z
  .record(z.string(), z.unknown(), {
    error: 'attributes must be a JSON object',
  })
  .superRefine(withinLimits);
export type UserAttributes = z.infer<typeof UserAttributesSchema>;

/**
 * PUT /user/:id: any subset. An empty `roles` list means unchanged unless `clearRoles` is true
 * (clients.md trap 16); `role` is the legacy single role. The other user bodies take these fields.
 */
export const UserUpdateSchema = z.object(
  {
    name: str('name').nullish(),
    login: str('login').min(1, 'login must not be empty').nullish(),
    email: str('email', EMAIL_MAX)
      .regex(...isEmail)
      .nullish(),
    password: str('password', PASSWORD_MAX).nullish(),
    status: UserStatusSchema.nullish(),
    roles: roles.nullish(),
    role: str('role').nullish(),
    clearRoles: z.boolean({ error: 'clearRoles must be true or false' }).nullish(),
    attributes: UserAttributesSchema.nullish(),
    text,
    email_verified: z.boolean({ error: 'email_verified must be true or false' }).nullish(),
  },
  { error: 'expected a JSON object' },
);
export type UserUpdate = z.infer<typeof UserUpdateSchema>;

/**
 * POST /user (api.md §9): `login` defaults to the email. `password` is optional: a user created
 * ahead of their first sign-in through an external provider has none, as in the established server
 * (tests/api/users-without-password.test.ts).
 */
export const UserInputSchema = UserUpdateSchema.omit({ clearRoles: true }).extend({
  name: mandatory('name'),
});
export type UserInput = z.infer<typeof UserInputSchema>;

/**
 * PUT /user/me: the caller's own record. Every other field (`status`, `roles`, `login`,
 * `email_verified` …) is refused by the route with 400 naming it: a user who was disabled must not
 * re-enable itself with a token issued before (issue #37 item 7).
 */
export const MeUpdateSchema = UserUpdateSchema.pick({
  name: true,
  email: true,
  password: true,
  attributes: true,
  text: true,
});
export type MeUpdate = z.infer<typeof MeUpdateSchema>;

/** PUT /user/:id/attributes and /user/me/attributes: a non-empty object to deep-merge. */
export const UserAttributesUpdateSchema = z.object(
  {
    attributes: z
      .record(z.string(), z.unknown(), {
        error: (i) =>
          i.input == null ? 'Missing mandatory value for attributes' : 'attributes must be a JSON object',
      })
      .refine((a) => Object.keys(a).length > 0, 'attributes must not be empty')
      .superRefine(withinLimits),
  },
  { error: 'expected a JSON object' },
);

/** POST /auth/signup (auth.md §6). */
export const SignupSchema = z.object(
  {
    name: mandatory('name'),
    email: mandatory('email', EMAIL_MAX).regex(...isEmail),
    password: mandatory('password', PASSWORD_MAX),
    text,
    status: UserStatusSchema.nullish(),
    attributes: UserAttributesSchema.nullish(),
  },
  { error: 'expected a JSON object' },
);
export type SignupInput = z.infer<typeof SignupSchema>;

/** POST /group */
export const GroupInputSchema = z.object(
  {
    name: mandatory('name').min(1, 'Missing mandatory value for name'),
    text,
  },
  { error: 'expected a JSON object' },
);
export type GroupInput = z.infer<typeof GroupInputSchema>;

/** PUT /group/:id */
export const GroupUpdateSchema = z.object(
  {
    name: str('name').min(1, 'name must not be empty').nullish(),
    text,
  },
  { error: 'expected a JSON object' },
);
export type GroupUpdate = z.infer<typeof GroupUpdateSchema>;

/** A user as the API returns it (api.md §9); never a password or hash. */
export const UserSchema = z.object({
  id: z.string(),
  href: z.string(),
  name: z.string(),
  login: z.string(),
  email: z.string().nullable(),
  domain: z.string().nullable(),
  provider: z.string(),
  role: z.string().nullable(),
  status: z.string(),
  roles: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  createTime: z.string(),
  lastLogin: z.string().nullable(),
  text: z.string(),
  updateTime: z.string().nullable(),
  email_verified: z.boolean(),
});
export type User = z.infer<typeof UserSchema>;

/** GET /users */
export const UserListSchema = z.object({
  ...PagedListShape,
  users: z.array(UserSchema),
  domains: z.array(z.string()),
  groups: z.array(z.unknown()),
  orgs: z.array(z.unknown()),
  time: z.string(),
});
export type UserList = z.infer<typeof UserListSchema>;

/** A group as the API returns it; `count` = number of members. */
export const GroupSchema = z.object({
  id: z.string(),
  href: z.string(),
  name: z.string(),
  text: z.string(),
  count: z.number().int(),
});
export type Group = z.infer<typeof GroupSchema>;

/** GET /groups */
export const GroupListSchema = z.object({ ...PagedListShape, groups: z.array(GroupSchema) });
export type GroupList = z.infer<typeof GroupListSchema>;

/** A member in GET /group/:id/users. */
export const GroupMemberSchema = z.object({
  id: z.string(),
  href: z.string(),
  login: z.string(),
  name: z.string(),
  status: z.string(),
});
export type GroupMember = z.infer<typeof GroupMemberSchema>;
