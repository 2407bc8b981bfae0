import { Router } from '../router.ts';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  GroupInputSchema,
  GroupUpdateSchema,
  MeUpdateSchema,
  UserAttributesUpdateSchema,
  UserInputSchema,
  UserUpdateSchema,
} from '../../../shared/users.ts';
import type { Auth } from '../../auth/types.ts';
import type { Deps } from '../../deps.ts';
import * as groups from '../../domain/groups.ts';
import * as users from '../../domain/users.ts';
import { appError } from '../../errors.ts';
import { apiBase } from '../../base-url.ts';
import { requireScope } from '../middleware/require-scope.ts';
import { answerCreated, bodyObject } from '../body.ts';

const IdParamsSchema = z.object({ id: z.string() });
const MemberParamsSchema = z.object({ id: z.string(), user_id: z.string() });

/** A change with at least one key (api.md: 400 `nothing to change`). */
function changeBody(ctx: Context): Record<string, unknown> {
  const body = bodyObject(ctx);
  if (Object.keys(body).length === 0) throw appError('nothing_to_change');
  return body;
}

const authOf = (ctx: Context): Auth => ctx.state.auth!;

/** Users and groups (api.md §9); scopes as auth.md §3. `me` routes come before `:id` ones. */
export function usersRoutes(deps: Deps): Router {
  const router = new Router();
  const base = (ctx: Context) => apiBase(ctx, deps.config);

  /** POST /user */
  router.post('/user', requireScope(deps, 'admin:users'), async (ctx) => {
    const input = UserInputSchema.parse(bodyObject(ctx));
    const user = await users.createUser(deps, authOf(ctx), input, base(ctx));
    answerCreated(ctx, user.href, { status: 'ok', id: user.id, user });
  });

  /** GET /user/me */
  router.get('/user/me', requireScope(deps, null), async (ctx) => {
    ctx.body = { status: 'ok', total: 1, user: await users.getMe(deps, authOf(ctx), base(ctx)) };
  });

  /** GET /user/me/attributes */
  router.get('/user/me/attributes', requireScope(deps, null), async (ctx) => {
    ctx.body = { status: 'ok', total: 1, attributes: await users.getMyAttributes(deps, authOf(ctx)) };
  });

  /**
   * PUT /user/me: only the fields of MeUpdateSchema; any other (status, roles, email_verified,
   * login …) is refused with 400 naming it and nothing is changed, never dropped (api.md §9, clients.md
   * traps 1 and 15: null = not given). `status` is refused as the established server does, unlike the
   * seed: a user may not re-enable itself (tests/api/users.test.ts).
   */
  router.put('/user/me', requireScope(deps, null), async (ctx) => {
    const body = changeBody(ctx);
    const refused = Object.keys(body).filter(
      (k) => !Object.hasOwn(MeUpdateSchema.shape, k) && body[k] != null,
    );
    if (refused.length) throw appError('not_allowed_to_update', refused);
    const change = MeUpdateSchema.parse(body);
    ctx.body = { status: 'ok', user: await users.updateMe(deps, authOf(ctx), change, base(ctx)) };
  });

  /** PUT /user/me/attributes */
  router.put('/user/me/attributes', requireScope(deps, null), async (ctx) => {
    const { attributes } = UserAttributesUpdateSchema.parse(bodyObject(ctx));
    await users.updateAttributes(deps, authOf(ctx).userId, attributes);
    ctx.body = { status: 'ok' };
  });

  /** GET /users */
  router.get('/users', requireScope(deps, 'admin:users'), async (ctx) => {
    ctx.body = await users.listUsers(deps, new URLSearchParams(ctx.querystring), base(ctx));
  });

  /** GET /user/:id */
  router.get('/user/:id', requireScope(deps, 'admin:users'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    ctx.body = { status: 'ok', total: 1, user: await users.getUser(deps, id, base(ctx)) };
  });

  /** GET /user/:id/groups */
  router.get('/user/:id/groups', requireScope(deps, 'admin:users'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const user = await users.findUser(deps, id);
    const list = await groups.groupsOfUser(deps, user.id, base(ctx));
    ctx.body = { status: 'ok', groups: list, total: list.length };
  });

  /** PUT /user/:id */
  router.put('/user/:id', requireScope(deps, 'admin:users'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const change = UserUpdateSchema.parse(changeBody(ctx));
    ctx.body = { status: 'ok', user: await users.updateUser(deps, authOf(ctx), id, change, base(ctx)) };
  });

  /** PUT /user/:id/attributes */
  router.put('/user/:id/attributes', requireScope(deps, 'admin:users'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const { attributes } = UserAttributesUpdateSchema.parse(bodyObject(ctx));
    await users.updateAttributes(deps, id, attributes);
    ctx.body = { status: 'ok' };
  });

  /** DELETE /user/:id */
  router.delete('/user/:id', requireScope(deps, 'admin:users'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await users.deleteUser(deps, id);
    ctx.body = { status: 'ok' };
  });

  /** POST /group */
  router.post('/group', requireScope(deps, 'admin:groups'), async (ctx) => {
    const input = GroupInputSchema.parse(bodyObject(ctx));
    const group = await groups.createGroup(deps, input, base(ctx));
    answerCreated(ctx, group.href, { status: 'ok', id: group.id, group });
  });

  /** GET /groups */
  router.get('/groups', requireScope(deps, 'read:groups'), async (ctx) => {
    ctx.body = await groups.listGroups(deps, new URLSearchParams(ctx.querystring), base(ctx));
  });

  /** GET /group/:id */
  router.get('/group/:id', requireScope(deps, 'read:groups'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    ctx.body = { status: 'ok', total: 1, group: await groups.getGroup(deps, id, base(ctx)) };
  });

  /** PUT /group/:id */
  router.put('/group/:id', requireScope(deps, 'admin:groups'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const change = GroupUpdateSchema.parse(changeBody(ctx));
    ctx.body = { status: 'ok', group: await groups.updateGroup(deps, id, change, base(ctx)) };
  });

  /** DELETE /group/:id */
  router.delete('/group/:id', requireScope(deps, 'admin:groups'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    await groups.deleteGroup(deps, id);
    ctx.body = { status: 'ok' };
  });

  /** GET /group/:id/users */
  router.get('/group/:id/users', requireScope(deps, 'read:groups'), async (ctx) => {
    const { id } = IdParamsSchema.parse(ctx.params);
    const members = await groups.groupMembers(deps, id, base(ctx));
    ctx.body = { status: 'ok', users: members, total: members.length };
  });

  /** PUT /group/:id/user/:user_id: the body is ignored (the CLI sends `null`, the UI `{}`). */
  router.put('/group/:id/user/:user_id', requireScope(deps, 'admin:groups'), async (ctx) => {
    const { id, user_id } = MemberParamsSchema.parse(ctx.params);
    await groups.addMember(deps, id, user_id);
    ctx.body = { status: 'ok' };
  });

  /** DELETE /group/:id/user/:user_id */
  router.delete('/group/:id/user/:user_id', requireScope(deps, 'admin:groups'), async (ctx) => {
    const { id, user_id } = MemberParamsSchema.parse(ctx.params);
    await groups.removeMember(deps, id, user_id);
    ctx.body = { status: 'ok' };
  });

  return router;
}
