import { describe, expect, it, vi } from 'vitest';
import { formatInvalidReport, validateItems } from '../../../../src/core/items/index.js';
import { checkDomain } from '../../../../src/lib/items/domain.js';
import { checkEmail } from '../../../../src/lib/items/email.js';
import { checkFanPage } from '../../../../src/lib/items/fanpage.js';
import { itemChecker } from '../../../../src/lib/items/rules.js';

const valid = (check: typeof checkDomain, input: string) => {
  const result = check(input);
  if (!result.ok) throw new Error(`expected ${input} to be valid, got: ${result.reason}`);
  return result.value;
};
const reason = (check: typeof checkDomain, input: string) => {
  const result = check(input);
  if (result.ok) throw new Error(`expected ${input} to be invalid, got ${result.value}`);
  return result.reason;
};

describe('itemChecker', () => {
  it('picks the rule by the service id prefix', () => {
    const accepts = (service: string, item: string) => itemChecker(service)(item).ok;
    expect(accepts('domain_check_availability', 'x1.com')).toBe(true);
    expect(accepts('domain_whois_history', 'me@x1.com')).toBe(false);
    expect(accepts('fanpage_extract_contact', 'acme')).toBe(true);
    expect(accepts('fanpage_extract_contact', 'https://example.com/acme')).toBe(false);
    expect(accepts('email_verify', 'x1.com')).toBe(false);
    expect(accepts('email_verify', 'me@x1.com')).toBe(true);
    expect(accepts('domainish', 'anything at all')).toBe(true);
  });
});

describe('checkDomain', () => {
  it('accepts hostnames and lower-cases them', () => {
    expect(valid(checkDomain, 'Example.COM')).toBe('example.com');
    expect(valid(checkDomain, 'a-b.c0.co.uk')).toBe('a-b.c0.co.uk');
    expect(valid(checkDomain, '1.example')).toBe('1.example');
    expect(valid(checkDomain, 'ab--cd.com')).toBe('ab--cd.com');
    expect(valid(checkDomain, `${'a'.repeat(63)}.com`)).toBe(`${'a'.repeat(63)}.com`);
  });

  it('drops one trailing dot (the absolute form)', () => {
    expect(valid(checkDomain, 'example.com.')).toBe('example.com');
    expect(reason(checkDomain, 'example.com..')).toMatch(/empty label/);
  });

  it('converts internationalised names to punycode', () => {
    expect(valid(checkDomain, 'münchen.de')).toBe('xn--mnchen-3ya.de');
    expect(valid(checkDomain, 'MÜNCHEN.DE')).toBe('xn--mnchen-3ya.de');
    expect(valid(checkDomain, '例え.テスト')).toBe('xn--r8jz45g.xn--zckzah');
    expect(valid(checkDomain, 'xn--mnchen-3ya.de')).toBe('xn--mnchen-3ya.de');
    expect(valid(checkDomain, 'ａｂｃ．com')).toBe('abc.com'); // full-width forms map under UTS #46
    expect(valid(checkDomain, 'a\u200bb.com')).toBe('ab.com'); // UTS #46 ignores zero-width characters, as browsers do
  });

  it('rejects punycode that does not decode, on every Node (URL parsers differ: newer ones keep such labels as they are)', () => {
    expect(reason(checkDomain, 'xn--zz.com')).toMatch(/not valid punycode/);
    expect(reason(checkDomain, 'www.xn--99999999.com')).toMatch(/not valid punycode/); // overflows
    // Beside a label to convert: Node 20 and 22 refuse the whole name while converting it, Node 24 keeps the label.
    expect(reason(checkDomain, 'münchen.xn--zz.com')).toMatch(/not valid punycode|not a valid internationalised/);
  });

  it('rejects URLs and paths with a hint naming the bare domain', () => {
    expect(reason(checkDomain, 'https://example.com/')).toBe('a URL, not a domain: use the bare domain "example.com"');
    expect(reason(checkDomain, 'http://Example.com:8080/x')).toMatch(/^a URL, not a domain: .* "example.com"$/);
    expect(reason(checkDomain, 'example.com/')).toBe('has a path or query: use the bare domain "example.com"');
    expect(reason(checkDomain, 'example.com/about')).toMatch(/use the bare domain "example.com"/);
    expect(reason(checkDomain, 'münchen.de/x')).toMatch(/use the bare domain "münchen.de"/);
    expect(reason(checkDomain, 'example.com:443')).toMatch(/port/);
    // A host that is no domain either is never offered as one.
    expect(reason(checkDomain, 'https://foo bar.com/')).toBe(
      'a URL, not a domain, and its host "foo bar.com" is not a domain either (contains a space)',
    );
    expect(reason(checkDomain, 'proc /x')).toMatch(/^has a path or query, and its host "proc " is not a domain/);
    expect(reason(checkDomain, 'me@example.com')).toMatch(/e-mail/);
  });

  it('names the hostname rule that is broken', () => {
    expect(reason(checkDomain, 'localhost')).toMatch(/at least two labels/);
    expect(reason(checkDomain, '-a.com')).toMatch(/starts or ends with "-"/);
    expect(reason(checkDomain, 'a-.com')).toMatch(/starts or ends with "-"/);
    expect(reason(checkDomain, 'a..com')).toMatch(/empty label/);
    expect(reason(checkDomain, '.a.com')).toMatch(/empty label/);
    expect(reason(checkDomain, 'a_b.com')).toMatch(/invalid character "_"/);
    expect(reason(checkDomain, '*.a.com')).toMatch(/wildcard/);
    expect(reason(checkDomain, `${'a'.repeat(64)}.com`)).toMatch(/longer than 63/);
    expect(reason(checkDomain, `${'a.'.repeat(126)}com`)).toMatch(/longer than 253/);
    expect(reason(checkDomain, '192.168.0.1')).toMatch(/all digits/);
    expect(reason(checkDomain, 'a.com.123')).toMatch(/all digits/);
    expect(reason(checkDomain, 'a b.com')).toMatch(/space/);
    expect(reason(checkDomain, 'mü%6en.de')).toMatch(/invalid character "%"/);
  });

  it('runs the backtracking hostname pattern on 253 characters at most, and a fixed number of patterns per item', () => {
    // Counted, not timed: every pattern match goes through RegExp.prototype.exec (test, search and split included).
    const runs: Array<{ source: string; length: number }> = [];
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with each pattern as `this`
    const exec = RegExp.prototype.exec;
    const spy = vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
      runs.push({ source: this.source, length: text.length });
      return exec.call(this, text);
    });
    const perItem: number[] = [];
    try {
      for (const input of [
        `${'a-'.repeat(30_000)}.com`,
        `${'a'.repeat(60)}-.`.repeat(4) + 'com', // 253 characters, every label a near miss at its end
        `${'a.'.repeat(126)}com`,
        `${'1.'.repeat(30_000)}1`,
        `${'ü-'.repeat(30_000)}.de`,
      ]) {
        const before = runs.length;
        expect(checkDomain(input).ok).toBe(false);
        perItem.push(runs.length - before);
      }
    } finally {
      spy.mockRestore();
    }
    const hostname = runs.filter((run) => run.source.includes('{0,61}'));
    expect(hostname.length).toBeGreaterThan(0);
    for (const run of hostname) expect(run.length).toBeLessThanOrEqual(253);
    for (const count of perItem) expect(count).toBeLessThanOrEqual(20);
  });
});

describe('checkFanPage', () => {
  it('accepts bare page names as given', () => {
    expect(valid(checkFanPage, 'NikeRunning')).toBe('NikeRunning');
    expect(valid(checkFanPage, 'my.page-name_1')).toBe('my.page-name_1');
  });

  it('normalises facebook.com URLs to https://www.facebook.com/<page>', () => {
    for (const input of [
      'https://www.facebook.com/NikeRunning',
      'http://facebook.com/NikeRunning/',
      'https://m.facebook.com/NikeRunning?ref=bookmarks',
      'facebook.com/NikeRunning#about',
      'www.facebook.com/NikeRunning',
      'HTTPS://WEB.FACEBOOK.COM/NikeRunning',
      'https://fb.com/NikeRunning',
    ]) {
      expect(valid(checkFanPage, input)).toBe('https://www.facebook.com/NikeRunning');
    }
  });

  it('keeps the id of profile.php URLs and the path of /pages/ and /p/ URLs', () => {
    expect(valid(checkFanPage, 'https://www.facebook.com/profile.php?id=100064&sk=about')).toBe(
      'https://www.facebook.com/profile.php?id=100064',
    );
    expect(valid(checkFanPage, 'https://facebook.com/pages/Some-Cafe/123456/')).toBe(
      'https://www.facebook.com/pages/Some-Cafe/123456',
    );
    expect(valid(checkFanPage, 'https://facebook.com/p/Some-Cafe-100064/')).toBe(
      'https://www.facebook.com/p/Some-Cafe-100064',
    );
  });

  it('rejects other hosts, non-page paths and bad names with reasons', () => {
    expect(reason(checkFanPage, 'https://example.com/Nike')).toMatch(/not a Facebook URL \(host "example.com"\)/);
    expect(reason(checkFanPage, 'https://facebook.com/')).toMatch(/without a page/);
    expect(reason(checkFanPage, 'facebook.com')).toMatch(/without a page/);
    expect(reason(checkFanPage, 'https://facebook.com/groups/123')).toMatch(/"groups" is not a page/);
    expect(reason(checkFanPage, 'https://facebook.com/profile.php')).toMatch(/numeric \?id=/);
    expect(reason(checkFanPage, 'https://facebook.com/a/b')).toMatch(/not a page URL/);
    expect(reason(checkFanPage, 'ftp://facebook.com/x')).toMatch(/not an http\(s\) URL/);
    expect(reason(checkFanPage, '@nike')).toMatch(/without "@"/);
    expect(reason(checkFanPage, 'my page')).toMatch(/invalid character " "/);
    // A letter of another script is a letter: the rule says which letters it means.
    expect(reason(checkFanPage, '東京ラーメン')).toBe(
      'invalid character "東": a page name has only the letters a-z (either case), digits, ".", "-" and "_"',
    );
    expect(reason(checkFanPage, '...')).toMatch(/at least one letter or digit/);
  });
});

describe('validateItems', () => {
  it('splits valid from invalid, normalising and naming positions', () => {
    const items = ['A.com', 'http://b.com', 'münchen.de', 'bad_name.com'];
    const result = validateItems('domain_check_availability', items, (index) => `items.txt:${index + 10}`);
    expect(result.valid).toEqual(['a.com', 'xn--mnchen-3ya.de']);
    expect(result.invalid).toEqual([
      { item: 'http://b.com', reason: 'a URL, not a domain: use the bare domain "b.com"', where: 'items.txt:11' },
      { item: 'bad_name.com', reason: expect.stringMatching(/invalid character "_"/), where: 'items.txt:13' },
    ]);
  });

  it('names positions "item N" by default', () => {
    expect(validateItems('domain_x', ['ok.com', 'nope']).invalid[0]?.where).toBe('item 2');
  });

  it('accepts any non-empty item unchanged for unknown services', () => {
    const items = ['anything at all', 'HTTP://X/Y', 'münchen'];
    expect(validateItems('translate_text', items)).toEqual({
      valid: items,
      invalid: [],
      normalised: { count: 0, first: [] },
    });
    expect(validateItems('translate_text', ['']).invalid).toHaveLength(1);
  });

  it("checks e-mail services' items as addresses: x1.com is refused, not charged", () => {
    const { valid, invalid } = validateItems('email_verify', ['me@example.com', 'x1.com']);
    expect(valid).toEqual(['me@example.com']);
    expect(invalid).toEqual([{ item: 'x1.com', where: 'item 2', reason: expect.stringMatching(/needs an "@"/) }]);
  });

  it('counts the items normalisation changed, keeping the first few as read and as sent', () => {
    const items = ['A.com', 'b.com', 'münchen.de', 'c.com.', ...Array.from({ length: 10 }, (_, i) => `X${i}.com`)];
    const { normalised } = validateItems('domain_check_availability', items);
    expect(normalised.count).toBe(13);
    expect(normalised.first).toEqual([
      { item: 'A.com', sent: 'a.com' },
      { item: 'münchen.de', sent: 'xn--mnchen-3ya.de' },
      { item: 'c.com.', sent: 'c.com' },
      { item: 'X0.com', sent: 'x0.com' },
      { item: 'X1.com', sent: 'x1.com' },
    ]);
  });

  it('validates fan pages for fanpage_ services', () => {
    const items = ['nike', 'https://m.facebook.com/adidas/', 'https://x.com/a'];
    const result = validateItems('fanpage_extract_contact', items);
    expect(result.valid).toEqual(['nike', 'https://www.facebook.com/adidas']);
    expect(result.invalid.map((entry) => entry.where)).toEqual(['item 3']);
  });
});

describe('formatInvalidReport', () => {
  const invalid = Array.from({ length: 25 }, (_, i) => ({
    item: `bad${i}`,
    reason: 'needs at least two labels',
    where: `f.txt:${i + 1}`,
  }));

  it('shows the first 20 and counts the rest', () => {
    const lines = formatInvalidReport(invalid);
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe('f.txt:1: "bad0": needs at least two labels');
    expect(lines[20]).toBe('… and 5 more invalid items');
  });

  it('honours the limit and singular wording', () => {
    expect(formatInvalidReport(invalid.slice(0, 3), 2)).toEqual([
      'f.txt:1: "bad0": needs at least two labels',
      'f.txt:2: "bad1": needs at least two labels',
      '… and 1 more invalid item',
    ]);
    expect(formatInvalidReport([])).toEqual([]);
  });

  it('quotes items safely and shortens long ones', () => {
    const [line] = formatInvalidReport([{ item: `x\u202e${'y'.repeat(100)}`, reason: 'r', where: 'w' }]);
    expect(line).toContain('\\u202e');
    expect(line).toContain('…');
    expect(line!.length).toBeLessThan(100);
  });
});

describe('checkEmail', () => {
  it('accepts NAME@DOMAIN, the domain normalised, the name kept as written', () => {
    expect(valid(checkEmail, 'someone@example.com')).toBe('someone@example.com');
    expect(valid(checkEmail, 'First.Last+tag@Example.COM')).toBe('First.Last+tag@example.com');
    expect(valid(checkEmail, 'a@münchen.de')).toBe('a@xn--mnchen-3ya.de');
  });

  it('refuses what is not a bare address, saying what to fix', () => {
    expect(reason(checkEmail, 'x1.com')).toMatch(/needs an "@"/);
    expect(reason(checkEmail, 'a@b@c.com')).toMatch(/more than one "@"/);
    expect(reason(checkEmail, '@example.com')).toMatch(/nothing before "@"/);
    expect(reason(checkEmail, 'me@')).toMatch(/nothing after "@"/);
    expect(reason(checkEmail, 'me@localhost')).toMatch(/the domain after "@" needs at least two labels/);
    expect(reason(checkEmail, 'mailto:me@example.com')).toMatch(/without "mailto:"/);
    expect(reason(checkEmail, 'Me <me@example.com>')).toMatch(/bare address/);
    expect(reason(checkEmail, 'a..b@example.com')).toMatch(/two in a row/);
    expect(reason(checkEmail, 'a,b@example.com')).toMatch(/invalid character "," before "@"/);
    expect(reason(checkEmail, `${'a'.repeat(65)}@example.com`)).toMatch(/longer than 64/);
  });
});
