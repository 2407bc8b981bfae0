/** The API, on the same origin as the UI (docs/ui.md). */
export const API = '/api';

const KEY_STORAGE = 'alertwall.key';
const TOKEN_STORAGE = 'alertwall.token';

/** The Bearer token of the logged-in user, if any. */
export const token = (): string | null => localStorage.getItem(TOKEN_STORAGE);
export const setToken = (t: string | null) =>
  t ? localStorage.setItem(TOKEN_STORAGE, t) : localStorage.removeItem(TOKEN_STORAGE);

/**
 * The claims of the stored token, decoded but not verified: for showing the user's name and hiding
 * links their scopes do not allow, never as a security check (the API checks every request).
 */
export function tokenClaims(): Record<string, unknown> | null {
  const t = token();
  if (!t) return null;
  try {
    const base64 = (t.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return claims && typeof claims === 'object' ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The socket's handshake credentials: the user's token, else the stored API key. */
export function socketAuth(): { token: string } | { key: string } | Record<string, never> {
  const t = token();
  if (t) return { token: t };
  const k = apiKey();
  return k ? { key: k } : {};
}

/**
 * The API key this browser uses, if any. A wall can be given one once in its URL (`?api-key=…`):
 * it is kept in local storage and removed from the address bar.
 */
export function apiKey(): string | null {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('api-key');
  if (fromUrl) {
    localStorage.setItem(KEY_STORAGE, fromUrl);
    url.searchParams.delete('api-key');
    history.replaceState(history.state, '', url);
  }
  return localStorage.getItem(KEY_STORAGE);
}

function headers(json: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  const t = token();
  const key = apiKey();
  if (t) h.Authorization = `Bearer ${t}`;
  else if (key) h.Authorization = `Key ${key}`;
  if (json) h['Content-Type'] = 'application/json';
  return h;
}

/** Set once the user logs out: the page is on its way to /login and stays on that way. */
let loggingOut = false;

/**
 * Logs out: forgets the token and goes to the login page. A request refused meanwhile (the live
 * socket or a refresh, now without a token) must not redirect to `/login?next=…` instead: the
 * later navigation would win, and the user would be sent back to this page after the next login.
 */
export function logOut(): void {
  loggingOut = true;
  setToken(null);
  location.assign('/login');
}

/** Missing, bad or expired credentials: off to the login page, and back here afterwards. */
export function loginRequired(): void {
  if (loggingOut || location.pathname.startsWith('/login')) return;
  setToken(null);
  location.assign(`/login?next=${encodeURIComponent(location.pathname + location.search)}`);
}

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** A JSON request to the API; error bodies become an ApiError with the server's message. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${API}${path}`, {
    method,
    headers: headers(body !== undefined),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = (await res.json().catch(() => ({}))) as { message?: string };
  if (res.status === 401 && !path.startsWith('/auth/')) loginRequired();
  if (!res.ok) throw new ApiError(res.status, data.message ?? res.statusText);
  return data as T;
}
