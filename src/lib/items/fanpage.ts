import { quoteForMessage } from '../sanitize.js';
import type { Checked } from './checked.js';

const PAGE_NAME = /^[A-Za-z0-9._-]+$/;
const HAS_ALNUM = /[A-Za-z0-9]/;
const FACEBOOK_HOST = /^(?:(?:www|m|web|mbasic|business)\.)?(?:facebook|fb)\.com$/;
const LOOKS_LIKE_URL = /^(?:[a-z][a-z0-9+.-]*:\/\/|(?:[a-z0-9-]+\.)*(?:facebook|fb)\.com(?:[/?#]|$))/i;
// First path segments that are Facebook features, not pages.
const NOT_PAGES = new Set([
  'groups',
  'events',
  'watch',
  'marketplace',
  'gaming',
  'login',
  'login.php',
  'share',
  'sharer',
  'sharer.php',
  'photo',
  'photo.php',
  'story.php',
  'permalink.php',
  'hashtag',
  'search',
  'home.php',
  'messages',
  'notifications',
  'friends',
  'reel',
  'reels',
  'stories',
  'help',
  'policies',
  'privacy',
  'settings',
  'bookmarks',
  'saved',
]);
const CANONICAL = 'https://www.facebook.com/';

/**
 * A Facebook page, as a bare page name (`[A-Za-z0-9._-]+`, kept as given) or a facebook.com URL. URLs are normalised
 * to `https://www.facebook.com/<page>` (http, m., web., fb.com, trailing slashes, query strings and fragments dropped;
 * `profile.php?id=N` keeps its id) so the same page written two ways is deduplicated. Bare names are not expanded
 * into URLs: the service's item format is not specified, so the user's form is sent.
 */
export function checkFanPage(input: string): Checked {
  if (!LOOKS_LIKE_URL.test(input)) return checkPageName(input);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `https://${input}`);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'not an http(s) URL' };
  if (!FACEBOOK_HOST.test(url.hostname)) {
    return { ok: false, reason: `not a Facebook URL (host ${quoteForMessage(url.hostname)})` };
  }
  const segments = url.pathname.split('/').filter((segment) => segment.length > 0);
  const first = segments[0];
  if (first === undefined) {
    return { ok: false, reason: 'a Facebook address without a page: add the page, e.g. facebook.com/NAME' };
  }
  if (first === 'profile.php' && segments.length === 1) {
    const id = url.searchParams.get('id') ?? '';
    if (!/^[0-9]+$/.test(id)) return { ok: false, reason: 'a profile.php URL needs a numeric ?id=' };
    return { ok: true, value: `${CANONICAL}profile.php?id=${id}` };
  }
  if (NOT_PAGES.has(first.toLowerCase())) {
    return { ok: false, reason: `${quoteForMessage(first)} is not a page (groups, events, posts and photos are not)` };
  }
  if (segments.length === 1 && PAGE_NAME.test(first) && HAS_ALNUM.test(first)) {
    return { ok: true, value: CANONICAL + first };
  }
  // Older and name-less pages: /pages/<name>/<id> and /p/<name>-<id>.
  if ((first === 'pages' || first === 'p') && segments.length >= 2 && segments.length <= 3) {
    return { ok: true, value: CANONICAL + segments.join('/') };
  }
  return { ok: false, reason: 'not a page URL: expected facebook.com/PAGE' };
}

function checkPageName(name: string): Checked {
  if (PAGE_NAME.test(name) && HAS_ALNUM.test(name)) return { ok: true, value: name };
  if (name.startsWith('@')) return { ok: false, reason: 'use the page name without "@"' };
  const bad = /[^A-Za-z0-9._-]/.exec(name);
  if (bad) {
    const shown = quoteForMessage(bad[0]);
    return {
      ok: false,
      reason: `invalid character ${shown}: a page name has only the letters a-z (either case), digits, ".", "-" and "_"`,
    };
  }
  return { ok: false, reason: 'a page name needs at least one letter or digit' };
}
