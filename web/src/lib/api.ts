/** The API, on the same origin as the UI (docs/ui.md). */
export const API = '/api';

const KEY_STORAGE = 'alertwall.key';

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
  const key = apiKey();
  if (key) h.Authorization = `Key ${key}`;
  if (json) h['Content-Type'] = 'application/json';
  return h;
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
  if (!res.ok) throw new ApiError(res.status, data.message ?? res.statusText);
  return data as T;
}
