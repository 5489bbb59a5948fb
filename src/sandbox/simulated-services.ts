/** The simulated services: catalogue, platforms and deterministic per-item results. */
import { createHash } from 'node:crypto';
import type { Service } from '../api/schemas.js';

export interface SimulatedService extends Service {
  /** Reported as the task's `platform`. */
  platform: string;
  /** Result `data` of one successfully processed item; a pure function of (seed, service, item). */
  result: (item: string, digest: Buffer) => Record<string, unknown>;
}

const REGISTRARS = [
  'GoDaddy',
  'Namecheap',
  'Tucows',
  'Gandi',
  'OVHcloud',
  'Porkbun',
  'Cloudflare Registrar',
  'IONOS',
] as const;
/** WHOIS events after the first, which is always `registered`. */
const LATER_WHOIS_EVENTS = ['transferred', 'renewed', 'updated', 'expired', 'dropped'] as const;
const EMAIL_FAILURES = ['mailbox_not_found', 'mailbox_full', 'domain_has_no_mx', 'catch_all_rejected'] as const;

/** The entry of a non-empty list that a digest byte chooses. */
function pick<T>(list: readonly [T, ...T[]], byte: number): T {
  return list[byte % list.length] ?? list[0];
}

/** A readable slug of the item for made-up contact details (`https://fb.com/Acme.Shop` → `acme-shop`). */
function slugOf(item: string): string {
  const last =
    item
      .replace(/[?#].*$/, '')
      .split('/')
      .filter(Boolean)
      .pop() ?? item;
  const slug = last
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, 40) || 'page';
}

function isoDay(epochDays: number): string {
  return new Date(epochDays * 86_400_000).toISOString().slice(0, 10);
}

export const SERVICES: readonly SimulatedService[] = [
  {
    service: 'domain_check_availability',
    display_name: 'Domain availability check',
    description: 'Checks whether each domain name is available for registration.',
    pricing: 1,
    currency: 'coins',
    platform: 'domain',
    result: (_item, d) => ({ available: d.readUInt8(0) < 96 }),
  },
  {
    service: 'domain_whois_history',
    display_name: 'Domain WHOIS history',
    description: 'Returns the registration history (registrations, transfers, renewals) of each domain.',
    pricing: 5,
    currency: 'coins',
    platform: 'domain',
    result: (_item, d) => {
      const count = 1 + (d.readUInt8(0) % 4);
      let day = 9_000 + (d.readUInt16BE(1) % 6_000); // somewhere in 1994..2010
      const records = [];
      for (let i = 0; i < count; i++) {
        records.push({
          date: isoDay(day),
          registrar: pick(REGISTRARS, d.readUInt8(3 + i)),
          event: i === 0 ? 'registered' : pick(LATER_WHOIS_EVENTS, d.readUInt8(7 + i)),
        });
        day += 200 + (d.readUInt16BE(11 + i * 2) % 1_500);
      }
      return { records };
    },
  },
  {
    service: 'fanpage_extract_contact',
    display_name: 'Fan page contact extraction',
    description: 'Extracts public contact e-mail addresses and phone numbers from each Facebook fan page.',
    pricing: 3,
    currency: 'coins',
    platform: 'facebook',
    result: (item, d) => {
      const slug = slugOf(item);
      const emails = [`contact@${slug}.example`, `sales@${slug}.example`].slice(0, d.readUInt8(0) % 3);
      const phones = d.readUInt8(1) % 2 ? [`+1-555-01${String(d.readUInt8(2) % 100).padStart(2, '0')}`] : [];
      return { emails, phones };
    },
  },
  {
    service: 'email_verify',
    display_name: 'E-mail address verification',
    description: 'Checks whether each e-mail address can receive mail.',
    pricing: 2,
    currency: 'coins',
    platform: 'email',
    result: (_item, d) => {
      if (d.readUInt8(0) < 179) return { deliverable: true, reason: 'accepted' };
      return { deliverable: false, reason: pick(EMAIL_FAILURES, d.readUInt8(1)) };
    },
  },
];

const BY_NAME = new Map(SERVICES.map((s) => [s.service, s]));

export function findService(name: string): SimulatedService | undefined {
  return BY_NAME.get(name);
}

/** Deterministic result data for one item: sha1(seed, service, item) drives every choice. */
export function itemResult(seed: string, service: SimulatedService, item: string): Record<string, unknown> {
  const digest = createHash('sha1').update(`${seed}\u0000${service.service}\u0000${item}`).digest();
  return service.result(item, digest);
}
