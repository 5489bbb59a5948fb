import { quoteForMessage } from '../sanitize.js';
import type { Checked } from './checked.js';
import { checkDomain } from './domain.js';

const MAX_LOCAL = 64;
const MAX_ADDRESS = 254;
// The unquoted local part: printable ASCII but space and the specials that need quoting; dots only between atoms.
const LOCAL_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

/**
 * An e-mail address: `NAME@DOMAIN`, the domain checked and normalised as a domain (lower case, punycode), the name kept
 * as written (mailboxes may be case-sensitive). A display name, `mailto:` or angle brackets are refused with a hint.
 */
export function checkEmail(input: string): Checked {
  const shape = shapeProblem(input);
  if (shape) return { ok: false, reason: shape };
  const at = input.lastIndexOf('@');
  const local = input.slice(0, at);
  const domain = checkDomain(input.slice(at + 1));
  if (!domain.ok) return { ok: false, reason: `the domain after "@" ${domain.reason}` };
  const problem = localProblem(local);
  if (problem) return { ok: false, reason: problem };
  const value = `${local}@${domain.value}`;
  if (value.length > MAX_ADDRESS) return { ok: false, reason: `longer than ${MAX_ADDRESS} characters` };
  return { ok: true, value };
}

/** Things that are not a bare address, checked first so the hint says what to remove. */
function shapeProblem(input: string): string | undefined {
  if (/^mailto:/i.test(input)) return 'use the address without "mailto:"';
  if (/[<>]/.test(input)) return 'use the bare address, without a name or angle brackets';
  if (/\s/.test(input)) return 'contains a space';
  const ats = input.split('@').length - 1;
  if (ats === 0) return 'needs an "@": an e-mail address is NAME@DOMAIN';
  if (ats > 1) return 'has more than one "@"';
  if (input.startsWith('@')) return 'nothing before "@"';
  if (input.endsWith('@')) return 'nothing after "@"';
  return undefined;
}

function localProblem(local: string): string | undefined {
  if (local.length > MAX_LOCAL) return `the part before "@" is longer than ${MAX_LOCAL} characters`;
  if (LOCAL_ATOM.test(local)) return undefined;
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) {
    return 'the part before "@" has a dot at its start or end, or two in a row';
  }
  const bad = /[^A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]/.exec(local) ?? ['?'];
  return `invalid character ${quoteForMessage(bad[0])} before "@"`;
}
