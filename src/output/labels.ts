/**
 * Labels of key/value screens for people: callers name fields with their machine keys (`balance_after`),
 * which json/csv keep; a terminal shows `Balance after`. Labels already written for people are left alone.
 */

/** Words people write in capitals. */
const ACRONYMS: Readonly<Record<string, string>> = {
  id: 'ID',
  ids: 'IDs',
  url: 'URL',
  urls: 'URLs',
  api: 'API',
  http: 'HTTP',
  https: 'HTTPS',
  tls: 'TLS',
  ci: 'CI',
  csv: 'CSV',
  json: 'JSON',
};

/** `base_url_source` → `Base URL source`, `price_per_item` → `Price per item`, `id` → `ID`; `Created at` unchanged. */
export function humanLabel(key: string): string {
  if (!/^[a-z0-9]+(?:[_-][a-z0-9]+)*$/.test(key)) return key;
  const words = key.split(/[_-]/).map((word) => ACRONYMS[word] ?? word);
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}
