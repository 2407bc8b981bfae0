/**
 * Does holding `held` grant `wanted` (auth.md §2)? read:x ⊂ write:x ⊂ admin:x; a bare action
 * (`read`, `write`, `admin`) covers every resource at its level; `delete:x` is implied by write:x
 * unless DELETE_SCOPES lists it, then by admin:x.
 */
export function isGranted(held: readonly string[], wanted: string, deleteScopes: readonly string[]): boolean {
  const have = new Set(held);
  let w = wanted;
  for (let guard = 0; guard < 4; guard++) {
    const action = w.split(':')[0]!;
    if (have.has(w) || have.has(action)) return true;
    if (action === 'read') w = `write${w.slice(4)}`;
    else if (action === 'write') w = `admin${w.slice(5)}`;
    else if (action === 'delete') w = `${deleteScopes.includes(w) ? 'admin' : 'write'}${w.slice(6)}`;
    else return false;
  }
  return false;
}
