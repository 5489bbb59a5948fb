import { domainToASCII, domainToUnicode } from 'node:url';
import { quoteForMessage } from '../sanitize.js';
import type { Checked } from './checked.js';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
// Two or more labels of a-z0-9 and inner hyphens, 1–63 characters each, the last not all digits. Bounded
// quantifiers and a fixed label shape: no catastrophic backtracking.
const HOSTNAME = new RegExp(`^(?:${LABEL}\\.)+(?![0-9]+$)${LABEL}$`);
const NON_ASCII = /[^\u0000-\u007F]/;
const MAX_LENGTH = 253;

/**
 * Checks and normalises a domain name: lower case, one trailing dot dropped, internationalised names converted to
 * punycode (`münchen.de` → `xn--mnchen-3ya.de`). URLs, paths, ports and e-mail addresses are rejected, not stripped,
 * with a hint naming the bare domain: guessing which part was meant would hide mistakes in the list.
 * Plain ASCII (nearly every item) costs one `toLowerCase` and one regex test; IDNA only runs for non-ASCII or `xn--`.
 */
export function checkDomain(input: string): Checked {
  let name = input.toLowerCase();
  if (name.charCodeAt(name.length - 1) === 0x2e /* . */) name = name.slice(0, -1); // absolute form, same domain
  if (name.length <= MAX_LENGTH && HOSTNAME.test(name)) {
    if (name.includes('xn--') && !punycodeDecodes(name)) return { ok: false, reason: NOT_PUNYCODE };
    return { ok: true, value: name };
  }
  if (NON_ASCII.test(name)) return checkInternational(name);
  return { ok: false, reason: shapeProblem(name) ?? syntaxProblem(name) };
}

/** Non-ASCII names go through IDNA (UTS #46 mapping, then punycode), then the same hostname rules. */
function checkInternational(name: string): Checked {
  const problem = shapeProblem(name);
  if (problem) return { ok: false, reason: problem };
  // The URL host parser behind domainToASCII would percent-decode or drop some ASCII; refuse it up front.
  const badAscii = /[^a-z0-9.\-\u0080-\uFFFF]/.exec(name);
  if (badAscii) {
    const shown = quoteForMessage(badAscii[0]);
    return { ok: false, reason: `invalid character ${shown}: only letters, digits and "-" are allowed` };
  }
  const converted = domainToASCII(name);
  if (converted === '') return { ok: false, reason: 'not a valid internationalised domain name' };
  const ascii = converted.endsWith('.') ? converted.slice(0, -1) : converted;
  if (ascii.length <= MAX_LENGTH && HOSTNAME.test(ascii)) {
    // Only a label already in punycode can fail here: the ones converted from Unicode decode by construction.
    if (!punycodeDecodes(ascii)) return { ok: false, reason: NOT_PUNYCODE };
    return { ok: true, value: ascii };
  }
  return { ok: false, reason: syntaxProblem(ascii) };
}

const NOT_PUNYCODE = 'a label starting "xn--" is not valid punycode';

/**
 * Whether every `xn--` label of a lower-case ASCII hostname decodes to a name with a non-ASCII character (an A-label;
 * one that decodes to plain ASCII is not). Node's URL parsers differ on labels that do not decode: Node 20 and 22 give
 * '' for the whole name, Node 24 keeps such a label as it is. Both show here, so every Node decides the same.
 */
function punycodeDecodes(ascii: string): boolean {
  const labels = ascii.split('.');
  const decoded = domainToUnicode(ascii).split('.');
  if (decoded.length !== labels.length) return false;
  return labels.every((label, i) => !label.startsWith('xn--') || NON_ASCII.test(decoded[i] ?? ''));
}

/** URL-, path- and address-shaped input, checked first so the hint can name the bare domain. */
function shapeProblem(name: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//.exec(name);
  if (scheme) return `a URL, not a domain${bareDomainHint(name.slice(scheme[0].length).split(/[/?#:]/, 1)[0] ?? '')}`;
  const cut = name.search(/[/?#]/);
  if (cut !== -1) return `has a path or query${bareDomainHint(name.slice(0, cut))}`;
  if (name.includes('@')) return 'looks like an e-mail address: use the part after "@"';
  if (/:[0-9]*$/.test(name)) return 'has a port: use the bare domain without ":port"';
  if (/\s/.test(name)) return 'contains a space';
  return undefined;
}

/** `: use the bare domain "example.com"`, naming the host only when it is a domain itself (as typed). */
function bareDomainHint(host: string): string {
  if (host === '') return ': use the bare domain';
  const checked = checkDomain(host);
  if (checked.ok) return `: use the bare domain ${quoteForMessage(host)}`;
  return `, and its host ${quoteForMessage(host)} is not a domain either (${checked.reason})`;
}

/** The first hostname rule the name breaks (only called for names that failed the fast check). */
function syntaxProblem(name: string): string {
  if (name.length === 0) return 'empty';
  if (name.length > MAX_LENGTH) return `longer than ${MAX_LENGTH} characters`;
  if (name.startsWith('*.')) return 'wildcards are not domains: remove "*."';
  const labels = name.split('.');
  if (labels.length < 2) return 'needs at least two labels, e.g. example.com';
  for (const label of labels) {
    if (label.length === 0) return 'has an empty label (two dots in a row, or a leading dot)';
    if (label.length > 63) return `label ${quoteForMessage(label, 20)} is longer than 63 characters`;
    const bad = /[^a-z0-9-]/.exec(label);
    if (bad) return `invalid character ${quoteForMessage(bad[0])}: only a-z, 0-9 and "-" are allowed`;
    if (label.startsWith('-') || label.endsWith('-')) {
      return `label ${quoteForMessage(label, 20)} starts or ends with "-"`;
    }
  }
  if (/^[0-9]+$/.test(labels.at(-1) ?? '')) return 'the top-level domain is all digits (an IP address?)';
  return 'not a valid domain name';
}
