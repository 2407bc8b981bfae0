import { redirect } from '@sveltejs/kit';
import { isCodeCallback } from '../lib/sso.ts';

/**
 * The console is the default page. An OAuth provider sends people back to the origin itself (the
 * registered redirect URI has no path): the login page finishes that sign-in.
 */
export function load({ url }) {
  if (isCodeCallback(url.searchParams)) redirect(307, `/login${url.search}`);
  redirect(307, `/alerts${url.search}`);
}
