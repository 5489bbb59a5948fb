/**
 * A strict little XML reader for the JUnit tests (no dependency): elements, double-quoted attributes, text, the five
 * named entities and character references. Throws on anything not well-formed, including characters XML 1.0 forbids.
 */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;
const NAME = '[A-Za-z_][\\w.-]*';

function decode(raw: string, where: string): string {
  if (/<|&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(raw))
    throw new Error(`unescaped < or & in ${where}: ${raw}`);
  return raw.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, entity: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[entity]) return named[entity];
    return String.fromCodePoint(entity.startsWith('#x') ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
  });
}

export function parseXml(xml: string): XmlElement {
  if (FORBIDDEN.test(xml)) throw new Error('a character XML 1.0 forbids');
  let rest = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const tag = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}="[^"]*")*)\\s*(/?)>`);
  while (rest.length > 0) {
    const lt = rest.indexOf('<');
    const text = lt === -1 ? rest : rest.slice(0, lt);
    if (text) stack[stack.length - 1]!.text += decode(text, 'text');
    if (lt === -1) break;
    rest = rest.slice(lt);
    const match = tag.exec(rest);
    if (!match) throw new Error(`malformed tag at: ${rest.slice(0, 60)}`);
    const [whole, closing, name, attrText, selfClosing] = match;
    rest = rest.slice(whole.length);
    if (closing) {
      const open = stack.pop();
      if (open?.name !== name) throw new Error(`</${name}> closes <${open?.name}>`);
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const [, key = '', value = ''] of (attrText ?? '').matchAll(new RegExp(`(${NAME})="([^"]*)"`, 'g'))) {
      if (key in attrs) throw new Error(`duplicate attribute ${key}`);
      attrs[key] = decode(value, `attribute ${key}`);
    }
    const element: XmlElement = { name: name!, attrs, children: [], text: '' };
    stack[stack.length - 1]!.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (root.children.length !== 1 || root.text.trim() !== '') throw new Error('not exactly one root element');
  return root.children[0]!;
}

/** Every descendant element with this name. */
export function findAll(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((child) => [...(child.name === name ? [child] : []), ...findAll(child, name)]);
}
