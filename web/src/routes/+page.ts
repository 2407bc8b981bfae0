import { redirect } from '@sveltejs/kit';

/** The console is the default page. */
export function load({ url }) {
  redirect(307, `/alerts${url.search}`);
}
