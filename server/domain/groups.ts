import { randomUUID } from 'node:crypto';
import type { Group, GroupInput, GroupList, GroupMember, GroupUpdate } from '../../shared/users.ts';
import * as groupsDb from '../db/groups.ts';
import type { GroupRow } from '../db/groups.ts';
import { findUserById } from '../db/users.ts';
import type { Deps } from '../deps.ts';
import { appError } from '../errors.ts';
import { filtersOf, textFilters } from './query/list-filters.ts';
import { pageFieldsOf, pagingOf } from './query/params.ts';
import { isId } from './perms.ts';

/** The API's group (api.md §9); `count` = number of members. */
export const presentGroup = (row: GroupRow, baseUrl: string): Group => ({
  id: row.id,
  href: `${baseUrl}/group/${row.id}`,
  name: row.name,
  text: row.text,
  count: row.count,
});

async function mustFindGroup(deps: Deps, id: string): Promise<GroupRow> {
  const row = isId(id) ? await groupsDb.findGroupById(deps.db, id) : null;
  if (!row) throw appError('not_found');
  return row;
}

/** POST /group: names are unique (409). */
export async function createGroup(deps: Deps, input: GroupInput, baseUrl: string): Promise<Group> {
  const row = await groupsDb.insertGroup(
    deps.db,
    { id: randomUUID(), name: input.name, text: input.text ?? '' },
    deps.clock.now(),
  );
  if (!row) throw appError('group_name_taken');
  return presentGroup(row, baseUrl);
}

export async function getGroup(deps: Deps, id: string, baseUrl: string): Promise<Group> {
  return presentGroup(await mustFindGroup(deps, id), baseUrl);
}

/** GET /groups: paged; text filters `name` and `text` (list-filters.ts). */
export async function listGroups(deps: Deps, search: URLSearchParams, baseUrl: string): Promise<GroupList> {
  const { params, filters } = filtersOf(search, ['name', 'text'], ['name', 'text']);
  const selection = { name: textFilters(filters, 'name'), text: textFilters(filters, 'text') };
  const { page, pageSize } = pagingOf(params, deps.config.DEFAULT_PAGE_SIZE);
  const [rows, total] = await Promise.all([
    groupsDb.listGroups(deps.db, selection, pageSize, (page - 1) * pageSize),
    groupsDb.countGroups(deps.db, selection),
  ]);
  const paging = pageFieldsOf(page, pageSize, total);
  const groups = rows.map((r) => presentGroup(r, baseUrl));
  return { status: 'ok', ...(groups.length === 0 ? { message: 'not found' } : {}), groups, ...paging };
}

/** PUT /group/:id */
export async function updateGroup(
  deps: Deps,
  id: string,
  change: GroupUpdate,
  baseUrl: string,
): Promise<Group> {
  await mustFindGroup(deps, id);
  if (change.name != null && (await groupsDb.isGroupNameTaken(deps.db, change.name, id))) {
    throw appError('group_name_taken');
  }
  const row = await groupsDb.updateGroup(
    deps.db,
    id,
    { name: change.name ?? undefined, text: change.text ?? undefined },
    deps.clock.now(),
  );
  if (!row) throw appError('not_found');
  return presentGroup(row, baseUrl);
}

export async function deleteGroup(deps: Deps, id: string): Promise<void> {
  if (!isId(id) || !(await groupsDb.deleteGroup(deps.db, id))) throw appError('not_found');
}

/** GET /group/:id/users */
export async function groupMembers(deps: Deps, id: string, baseUrl: string): Promise<GroupMember[]> {
  await mustFindGroup(deps, id);
  const rows = await groupsDb.membersOf(deps.db, id);
  return rows.map((r) => ({
    id: r.id,
    href: `${baseUrl}/user/${r.id}`,
    login: r.login,
    name: r.name,
    status: r.status,
  }));
}

/** GET /user/:id/groups */
export async function groupsOfUser(deps: Deps, userId: string, baseUrl: string): Promise<Group[]> {
  const rows = await groupsDb.groupsOfUser(deps.db, userId);
  return rows.map((r) => presentGroup(r, baseUrl));
}

/** The group must exist (404) and the user too (400 `invalid user`, api.md §9). */
async function assertMembership(deps: Deps, groupId: string, userId: string): Promise<void> {
  await mustFindGroup(deps, groupId);
  if (!isId(userId) || !(await findUserById(deps.db, userId))) throw appError('invalid_user');
}

/** PUT /group/:id/user/:user_id: adding twice is harmless. */
export async function addMember(deps: Deps, groupId: string, userId: string): Promise<void> {
  await assertMembership(deps, groupId, userId);
  await groupsDb.addMember(deps.db, groupId, userId);
}

/** DELETE /group/:id/user/:user_id */
export async function removeMember(deps: Deps, groupId: string, userId: string): Promise<void> {
  await assertMembership(deps, groupId, userId);
  await groupsDb.removeMember(deps.db, groupId, userId);
}
