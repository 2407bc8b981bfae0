// A client-side app: the server sends the same index.html for every UI path.
export const ssr = false;
export const prerender = false;
