import bcrypt from 'bcryptjs';

/** bcrypt cost: about 50 ms per hash on the 2-core machine. */
const ROUNDS = 10;
/** A hash that no password matches, compared against when the user does not exist (same timing). */
const DUMMY_HASH = bcrypt.hashSync('not a password', ROUNDS);

/** A bcrypt hash (`$2a$`/`$2b$`); input beyond 72 bytes is ignored by bcrypt, as in Alerta. */
export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, ROUNDS);

/**
 * Constant-time check of a password against a stored hash; an empty or missing hash (users of
 * external providers) never matches but costs the same.
 */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  const usable = typeof hash === 'string' && hash.startsWith('$2');
  const ok = await bcrypt.compare(password, usable ? hash : DUMMY_HASH);
  return usable && ok;
}
