// The XML plist-like text of Core Storage metadata (libfvde, "XML plist data" of block types 0x0019 and
// 0x001a): one <dict> of <key>/value pairs, values <dict>, <array>, <string>, <integer> (hexadecimal
// "0x…" with a size attribute, or decimal), <data> (base64), <true/>, <false/>, and <reference IDREF="n"/>
// standing for the earlier value that carries ID="n". No DOCTYPE or <plist> wrapper (one is accepted).
// A small parser of our own: the metadata is short, and a regular expression over it (cryptsetup's way)
// cannot follow references or tell one crypto user's fields from another's.
import { HeaderError } from './errors.js';

/** A base64 `<data>` value, decoded where it is used (a malformed icon must not stop the volume opening). */
export class PlistData {
  constructor(readonly base64: string) {}
}

/** `<reference IDREF="n"/>`: resolved with {@link Plist.resolve}. */
export class PlistRef {
  constructor(readonly id: string) {}
}

export type PlistValue = string | bigint | boolean | PlistData | PlistRef | PlistValue[] | Map<string, PlistValue>;

/**
 * The bounds of a plist, far above what Core Storage writes (its plists are one metadata block, at most
 * 8192 bytes, nested 4 deep) and what keeps a hostile one cheap: the text's length, how deep elements
 * nest (the parser recurses once per level), how many values it holds, and how many references are
 * followed in a row.
 */
export const PLIST_LIMITS = { maxLength: 64 * 1024, maxDepth: 32, maxValues: 8192, maxHops: 16 } as const;

function decodeEntities(s: string, what: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    if (e === 'amp') return '&';
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    const cp = e[1] === 'x' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
    if (cp > 0x10ffff) throw new HeaderError(`@x/filevault2: ${what}: bad character reference &${e};`);
    return String.fromCodePoint(cp);
  });
}

interface Tag {
  name: string;
  close: boolean;
  selfClose: boolean;
  attrs: Map<string, string>;
}

/** A parsed plist: its root value and every value that carries an ID, for references. */
export class Plist {
  readonly ids = new Map<string, PlistValue>();
  readonly root: PlistValue;
  readonly #what: string;
  readonly #s: string;
  #pos = 0;
  #values = 0;

  constructor(xml: string, what: string) {
    this.#what = what;
    this.#s = xml;
    if (xml.length > PLIST_LIMITS.maxLength)
      this.#fail(`${xml.length} characters, more than ${PLIST_LIMITS.maxLength}`);
    this.root = this.#value(this.#nextTag(), 0);
    for (;;) {
      const t = this.#tryTag();
      if (t === undefined) break;
      if (!(t.close && t.name === 'plist'))
        this.#fail(`unexpected <${t.close ? '/' : ''}${t.name}> after the root value`);
    }
  }

  #fail(msg: string): never {
    throw new HeaderError(`@x/filevault2: ${this.#what}: malformed XML: ${msg}`);
  }

  #nextTag(): Tag {
    const t = this.#tryTag();
    if (t === undefined) this.#fail('unexpected end');
    return t;
  }

  /** The next tag, skipping white space, the XML declaration, comments, a DOCTYPE and <plist>; undefined at the end. */
  #tryTag(): Tag | undefined {
    for (;;) {
      const lt = this.#s.indexOf('<', this.#pos);
      if (lt < 0) {
        if (this.#s.slice(this.#pos).trim() !== '') this.#fail('text outside any element');
        this.#pos = this.#s.length;
        return undefined;
      }
      if (this.#s.slice(this.#pos, lt).trim() !== '') this.#fail('text outside any element');
      if (this.#s.startsWith('<!--', lt)) {
        const end = this.#s.indexOf('-->', lt + 4);
        if (end < 0) this.#fail('unterminated comment');
        this.#pos = end + 3;
        continue;
      }
      const gt = this.#s.indexOf('>', lt);
      if (gt < 0) this.#fail('unterminated tag');
      this.#pos = gt + 1;
      const body = this.#s.slice(lt + 1, gt);
      if (body.startsWith('?') || body.startsWith('!')) continue;
      const t = this.#parseTag(body);
      if (t.name === 'plist' && !t.close) continue;
      return t;
    }
  }

  #parseTag(body: string): Tag {
    const close = body.startsWith('/');
    const selfClose = !close && body.endsWith('/');
    const inner = body.slice(close ? 1 : 0, selfClose ? -1 : undefined).trim();
    const m = /^([A-Za-z][\w.-]*)([\s\S]*)$/.exec(inner);
    if (!m) this.#fail(`bad tag <${body}>`);
    const attrs = new Map<string, string>();
    const rest = m[2];
    const re = /\s*([A-Za-z][\w.-]*)\s*=\s*("([^"]*)"|'([^']*)')/y;
    let i = 0;
    while (i < rest.length) {
      if (rest.slice(i).trim() === '') break;
      re.lastIndex = i;
      const a = re.exec(rest);
      if (!a) this.#fail(`bad attributes in <${body}>`);
      attrs.set(a[1], decodeEntities(a[3] ?? a[4], this.#what));
      i = re.lastIndex;
    }
    return { name: m[1], close, selfClose, attrs };
  }

  /** The text of a leaf element up to its closing tag (empty for a self-closing one). */
  #text(t: Tag): string {
    if (t.selfClose) return '';
    const end = this.#s.indexOf('<', this.#pos);
    if (end < 0) this.#fail(`unterminated <${t.name}>`);
    const text = this.#s.slice(this.#pos, end);
    this.#pos = end;
    const c = this.#nextTag();
    if (!c.close || c.name !== t.name) this.#fail(`<${t.name}> closed by <${c.close ? '/' : ''}${c.name}>`);
    // Core Storage writes keys, integers and base64 as they are; cryptsetup matches them as written
    if (t.name !== 'string' && text.includes('&')) this.#fail(`a character reference in <${t.name}>`);
    return decodeEntities(text, this.#what);
  }

  #value(t: Tag, depth: number): PlistValue {
    if (depth > PLIST_LIMITS.maxDepth) this.#fail(`nested more than ${PLIST_LIMITS.maxDepth} deep`);
    if (++this.#values > PLIST_LIMITS.maxValues) this.#fail(`more than ${PLIST_LIMITS.maxValues} values`);
    if (t.close) this.#fail(`unexpected </${t.name}>`);
    let v: PlistValue;
    switch (t.name) {
      case 'dict': {
        const d = new Map<string, PlistValue>();
        if (!t.selfClose) {
          for (;;) {
            const k = this.#nextTag();
            if (k.close && k.name === 'dict') break;
            if (k.close || k.name !== 'key') this.#fail(`<${k.close ? '/' : ''}${k.name}> where a <key> belongs`);
            const key = this.#text(k);
            // nothing between a key and its value: Core Storage writes none, and cryptsetup finds the values
            // it reads (lv.size, lv.familyUUID, the two key structs) only right after their <key>
            if (this.#s[this.#pos] !== '<') this.#fail(`text between <key>${key}</key> and its value`);
            d.set(key, this.#value(this.#nextTag(), depth + 1));
          }
        }
        v = d;
        break;
      }
      case 'array': {
        const a: PlistValue[] = [];
        if (!t.selfClose) {
          for (;;) {
            const e = this.#nextTag();
            if (e.close && e.name === 'array') break;
            a.push(this.#value(e, depth + 1));
          }
        }
        v = a;
        break;
      }
      case 'string':
        v = this.#text(t);
        break;
      case 'integer': {
        const s = this.#text(t).trim();
        if (!/^(0x[0-9a-fA-F]+|-?[0-9]+)$/.test(s)) this.#fail(`bad integer "${s}"`);
        v = BigInt(s);
        break;
      }
      case 'data':
        v = new PlistData(this.#text(t));
        break;
      case 'true':
      case 'false':
        this.#text(t);
        v = t.name === 'true';
        break;
      case 'reference': {
        const id = t.attrs.get('IDREF');
        if (id === undefined) this.#fail('<reference> without IDREF');
        this.#text(t);
        return new PlistRef(id);
      }
      case 'real':
      case 'date':
        v = this.#text(t);
        break;
      default:
        this.#fail(`unknown element <${t.name}>`);
    }
    const id = t.attrs.get('ID');
    if (id !== undefined) this.ids.set(id, v);
    return v;
  }

  /** `v`, or what the reference `v` stands for. */
  resolve(v: PlistValue | undefined): PlistValue | undefined {
    for (let hops = 0; v instanceof PlistRef; hops++) {
      if (hops > PLIST_LIMITS.maxHops) this.#fail('a reference loop');
      const target = this.ids.get(v.id);
      if (target === undefined) this.#fail(`<reference IDREF="${v.id}"/> to no value`);
      v = target;
    }
    return v;
  }

  /** The value of `key` in `dict`, references resolved. */
  get(dict: PlistValue | undefined, key: string): PlistValue | undefined {
    const d = this.resolve(dict);
    return d instanceof Map ? this.resolve(d.get(key)) : undefined;
  }

  /** A <string> field, or undefined when absent; a HeaderError when it is something else. */
  string(dict: PlistValue | undefined, key: string): string | undefined {
    const v = this.get(dict, key);
    if (v === undefined || typeof v === 'string') return v;
    this.#fail(`${key} is not a <string>`);
  }

  /** An <integer> field, or undefined when absent. */
  integer(dict: PlistValue | undefined, key: string): bigint | undefined {
    const v = this.get(dict, key);
    if (v === undefined || typeof v === 'bigint') return v;
    this.#fail(`${key} is not an <integer>`);
  }

  /** A <data> field (still base64), or undefined when absent. */
  data(dict: PlistValue | undefined, key: string): PlistData | undefined {
    const v = this.get(dict, key);
    if (v === undefined || v instanceof PlistData) return v;
    this.#fail(`${key} is not <data>`);
  }

  /** An <array> field, or an empty array when absent. */
  array(dict: PlistValue | undefined, key: string): PlistValue[] {
    const v = this.get(dict, key);
    if (v === undefined) return [];
    if (Array.isArray(v)) return v;
    this.#fail(`${key} is not an <array>`);
  }
}

/**
 * The XML text of a metadata block: `size` bytes at `offset`, UTF-8, up to the first NUL.
 */
export function xmlText(block: Uint8Array, offset: number, size: number, what: string): string {
  if (offset + size > block.length || size === 0)
    throw new HeaderError(
      `@x/filevault2: ${what}: the XML (${size} bytes at ${offset}) is outside its ${block.length}-byte block`,
    );
  let bytes = block.subarray(offset, offset + size);
  const nul = bytes.indexOf(0);
  if (nul >= 0) bytes = bytes.subarray(0, nul);
  return new TextDecoder().decode(bytes);
}
