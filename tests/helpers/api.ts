export interface RequestOptions {
  headers?: Record<string, string>;
  /** Send this exact text as the body instead of JSON-encoding `body`. */
  raw?: string;
}

/** A response read as JSON: what most API tests assert on. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/**
 * A small HTTP client for the API under test; every method returns the fetch Response, except
 * `call`, which reads the JSON body into an Answer.
 */
export function createApi(base: string) {
  const request = (method: string, path: string, body?: unknown, opts: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    let payload: string | undefined = opts.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] ??= 'application/json';
    }
    return fetch(`${base}${path}`, { method, headers, body: payload });
  };
  return {
    base,
    get: (path: string, opts?: RequestOptions) => request('GET', path, undefined, opts),
    post: (path: string, body?: unknown, opts?: RequestOptions) => request('POST', path, body, opts),
    put: (path: string, body?: unknown, opts?: RequestOptions) => request('PUT', path, body, opts),
    delete: (path: string, opts?: RequestOptions) => request('DELETE', path, undefined, opts),
    request,
    call: async (method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<Answer> => {
      const res = await request(method, path, body, opts);
      return {
        status: res.status,
        body: (await res.json()) as Record<string, unknown>,
        headers: res.headers,
      };
    },
  };
}
export type Api = ReturnType<typeof createApi>;
