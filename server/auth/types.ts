/** Who made a request, once authenticated (auth.md §1). */
export interface Auth {
  method: 'anonymous' | 'key' | 'hawk' | 'bearer' | 'basic' | 'proxy';
  /** The user record's id, when the caller is a user (token or Basic). */
  userId: string | null;
  /** Login (for Basic: the user's email, as Alerta), key owner, or Hawk key id; null when anonymous. */
  login: string | null;
  scopes: string[];
  /** The customers the caller is restricted to; empty = unrestricted. */
  customers: string[];
  roles: string[];
  /** True when no credential was given and AUTH_REQUIRED is off: no scope is checked. */
  unrestricted: boolean;
  /** Bearer tokens: the verified claims (GET /userinfo answers with them). */
  claims?: Record<string, unknown>;
  /** API keys: the key's id. */
  keyId?: string;
}

export const ANONYMOUS_OPEN: Auth = {
  method: 'anonymous',
  userId: null,
  login: null,
  scopes: [],
  customers: [],
  roles: [],
  unrestricted: true,
};
