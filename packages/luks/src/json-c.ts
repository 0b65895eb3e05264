// The JSON text of a LUKS2 JSON area, read as cryptsetup reads it: with json-c 0.16's parser
// (json_tokener_parse_ex without JSON_TOKENER_STRICT), which is more lenient than JSON.parse (single quotes,
// comments, trailing commas, literals in any case, raw control and non-UTF-8 bytes in strings) and tells
// integers from doubles; and the area checked as cryptsetup's validate_json_area checks it.
import { HeaderError } from './errors.js';

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

function bad(msg: string): never {
  throw new HeaderError(`@x/luks: LUKS2 metadata: ${msg}`);
}

/**
 * json-c's JSON_TOKENER_DEFAULT_DEPTH: cryptsetup parses the JSON area with json_tokener_new()
 * (luks2_disk_metadata.c parse_json_len), which refuses a value nested under 32 or more others.
 */
const JSON_MAX_DEPTH = 32;

/** The members of parsed objects that json-c holds as doubles (json_type_double): not integers to cryptsetup. */
export const doubles = new WeakMap<object, Set<string>>();
/** The order of an object's members as json-c keeps it (first occurrence); JavaScript puts integer-like names first. */
export const memberOrder = new WeakMap<object, string[]>();

const utf8 = new TextDecoder('utf-8'); // not fatal: json-c keeps whatever bytes a string holds
const isWs = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; // json-c's is_ws_char
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const hexValue = (c: number) =>
  isDigit(c) ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1;
const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 32 : c);
const REPLACEMENT = [0xef, 0xbf, 0xbd]; // U+FFFD, which json-c puts for a lone surrogate
/** C strtod's whole-string grammar for the characters json-c lets into a number. */
const C_DOUBLE = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

interface Frame {
  readonly value: Json | unknown[];
  readonly array: boolean;
  key: string;
}

function setMember(o: Json, key: string, value: unknown, isDouble: boolean): void {
  const order = memberOrder.get(o)!;
  if (!Object.hasOwn(o, key)) order.push(key);
  // a member named __proto__ is a member, as in JSON.parse, not the prototype
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
  let d = doubles.get(o);
  if (isDouble) {
    if (!d) {
      d = new Set();
      doubles.set(o, d);
    }
    d.add(key);
  } else d?.delete(key);
}

/** A value the reader has read whole, and whether json-c holds it as a double. */
type Read = { value: unknown; isDouble: boolean };

/**
 * json-c's tokenizer over the text of a JSON area (up to its first zero byte, where json-c stops as at the
 * end of its input): one method per json-c state, each moving `pos` past what it read.
 */
class JsonCReader {
  pos = 0;
  /** The open containers, innermost last. */
  readonly stack: Frame[] = [];
  /** Where the text ends: the first zero byte, or the end of the area. */
  readonly n: number;

  constructor(readonly area: Uint8Array) {
    const zero = area.indexOf(0);
    this.n = zero < 0 ? area.length : zero;
  }

  at(i: number): number {
    return i < this.n ? this.area[i] : 0;
  }

  fail(i: number, what: string): never {
    return bad(`the JSON area is not valid JSON (${what} at byte ${i}, as cryptsetup's parser json-c reads it)`);
  }

  /** White space and comments (json-c's eatws state, with its /* … *\/ and // … comments). */
  skip(): void {
    const { area, n } = this;
    for (;;) {
      while (this.pos < n && isWs(area[this.pos])) this.pos++;
      const pos = this.pos;
      if (this.at(pos) !== 0x2f) return;
      if (this.at(pos + 1) === 0x2a) {
        let i = pos + 2;
        while (i < n && !(area[i] === 0x2a && this.at(i + 1) === 0x2f)) i++;
        if (i >= n) this.fail(pos, 'an unterminated comment');
        this.pos = i + 2;
      } else if (this.at(pos + 1) === 0x2f) {
        let i = pos + 2;
        while (i < n && area[i] !== 0x0a) i++;
        if (i >= n) this.fail(pos, 'an unterminated comment');
        this.pos = i + 1;
      } else this.fail(pos, 'a "/" that starts no comment');
    }
  }

  /** Whether the text at `pos` is `w`, in any case. */
  word(w: string): boolean {
    for (let i = 0; i < w.length; i++) if (lower(this.at(this.pos + i)) !== w.charCodeAt(i)) return false;
    return true;
  }

  /** A string quoted with `quote` (json-c takes ' as well as "), as a C string: it ends at a \u0000. */
  string(quote: number): string {
    const { area, n } = this;
    const start = ++this.pos;
    while (this.pos < n && area[this.pos] !== quote && area[this.pos] !== 0x5c) this.pos++;
    if (this.pos >= n) this.fail(start - 1, 'an unterminated string');
    if (area[this.pos] === quote) return utf8.decode(area.subarray(start, this.pos++));
    const out: number[] = Array.from(area.subarray(start, this.pos));
    let high = 0; // a high surrogate waiting for its low half
    for (;;) {
      if (this.pos >= n) this.fail(start - 1, 'an unterminated string');
      const c = area[this.pos];
      if (high !== 0 && !(c === 0x5c && this.at(this.pos + 1) === 0x75)) {
        out.push(...REPLACEMENT);
        high = 0;
      }
      if (c === quote) {
        this.pos++;
        break;
      }
      if (c !== 0x5c) {
        out.push(c);
        this.pos++;
        continue;
      }
      high = this.escape(out, high);
    }
    const bytes = Uint8Array.from(out);
    const nul = bytes.indexOf(0);
    return utf8.decode(nul < 0 ? bytes : bytes.subarray(0, nul));
  }

  /**
   * The escape at `pos` (a backslash) added to `out` as UTF-8, json-c's way: a lone surrogate is U+FFFD.
   * `high` is a high surrogate read before and waiting; returns the one waiting after.
   */
  escape(out: number[], high: number): number {
    const e = this.at(this.pos + 1);
    this.pos += 2;
    if (e === 0x22 || e === 0x5c || e === 0x2f) out.push(e);
    else if (e === 0x62) out.push(8);
    else if (e === 0x6e) out.push(10);
    else if (e === 0x72) out.push(13);
    else if (e === 0x74) out.push(9);
    else if (e === 0x66) out.push(12);
    else if (e !== 0x75) this.fail(this.pos - 2, 'an invalid escape');
    if (e !== 0x75) return high;
    let u = 0;
    for (let i = 0; i < 4; i++) {
      const h = hexValue(this.at(this.pos + i));
      if (h < 0) this.fail(this.pos - 2, 'a \\u escape without four hex digits');
      u = (u << 4) | h;
    }
    this.pos += 4;
    if (high !== 0) {
      if (u >= 0xdc00 && u <= 0xdfff) u = 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00);
      else out.push(...REPLACEMENT);
    }
    if (u < 0x80) out.push(u);
    else if (u < 0x800) out.push(0xc0 | (u >> 6), 0x80 | (u & 0x3f));
    else if (u >= 0xd800 && u <= 0xdbff) return u;
    else if (u >= 0xdc00 && u <= 0xdfff) out.push(...REPLACEMENT);
    else if (u < 0x10000) out.push(0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f));
    else out.push(0xf0 | ((u >> 18) & 7), 0x80 | ((u >> 12) & 0x3f), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f));
    return 0;
  }

  /** A number (json-c's number state): an integer unless it has ".", "e" or "E". */
  number(): Read {
    const start = this.pos;
    let isDouble = false,
      exponent = false,
      negOk = true,
      posOk = false;
    for (;;) {
      const c = this.at(this.pos);
      const ok =
        isDigit(c) ||
        (!exponent && (c === 0x65 || c === 0x45)) ||
        (negOk && c === 0x2d) ||
        (posOk && c === 0x2b) ||
        (!isDouble && c === 0x2e);
      if (!ok) break;
      negOk = posOk = false;
      if (c === 0x2e) isDouble = negOk = posOk = true;
      else if (c === 0x65 || c === 0x45) exponent = isDouble = negOk = posOk = true;
      this.pos++;
    }
    const c = this.at(this.pos);
    if (!(c === 0x2c || c === 0x5d || c === 0x7d || c === 0x2f || c === 0x49 || c === 0x69 || isWs(c)))
      this.fail(this.pos, 'an invalid number');
    let text = String.fromCharCode(...this.area.subarray(start, this.pos));
    if (text === '-' && (c === 0x49 || c === 0x69)) {
      if (!this.word('infinity')) this.fail(this.pos, 'an invalid number');
      this.pos += 8;
      return { value: -Infinity, isDouble: true };
    }
    if (isDouble) {
      // json-c drops a trailing exponent sign or "e" ("123e+" is 123)
      text = text.replace(/(?<=.)[eE+-]+$/, '');
      if (!C_DOUBLE.test(text)) this.fail(start, 'an invalid number');
      return { value: Number(text), isDouble: true };
    }
    if (text === '-') this.fail(start, 'an invalid number');
    // json-c keeps integers as 64-bit (clamped beyond); only comparisons with far smaller bounds use them
    return { value: Number(text), isDouble: false };
  }

  /** A literal (true, false, null, NaN, Infinity in any case), at `pos`, starting with `c`; undefined if none starts so. */
  literal(c: number): Read | undefined {
    if (c === 0x74 || c === 0x54 || c === 0x66 || c === 0x46) {
      const t = this.word('true');
      if (!t && !this.word('false')) this.fail(this.pos, 'an invalid literal');
      this.pos += t ? 4 : 5;
      return { value: t, isDouble: false };
    }
    if (c === 0x6e || c === 0x4e) {
      if (this.word('null')) {
        this.pos += 4;
        return { value: null, isDouble: false };
      }
      if (!this.word('nan')) this.fail(this.pos, 'an invalid literal');
      this.pos += 3;
      return { value: Number.NaN, isDouble: true };
    }
    if (c === 0x69 || c === 0x49) {
      if (!this.word('infinity')) this.fail(this.pos, 'an invalid literal');
      this.pos += 8;
      return { value: Infinity, isDouble: true };
    }
    return undefined;
  }

  /** A value: read whole, or undefined when it is a container, opened (pushed on the stack). */
  openValue(): Read | undefined {
    this.skip();
    if (this.stack.length >= JSON_MAX_DEPTH)
      bad(`the JSON is nested deeper than ${JSON_MAX_DEPTH} levels (cryptsetup's JSON parser, json-c, stops there)`);
    const c = this.at(this.pos);
    if (c === 0x7b || c === 0x5b) {
      const array = c === 0x5b;
      const value: Json | unknown[] = array ? [] : {};
      if (!array) memberOrder.set(value, []);
      this.stack.push({ value, array, key: '' });
      this.pos++;
      return undefined;
    }
    if (c === 0x22 || c === 0x27) return { value: this.string(c), isDouble: false };
    const literal = this.literal(c);
    if (literal) return literal;
    if (isDigit(c) || c === 0x2d) return this.number();
    return this.fail(
      this.pos,
      this.pos >= this.n ? 'the end of the text where a value should be' : 'an unexpected character',
    );
  }

  /** After "{" or ",": a member name and ":" (json-c's object_field states), or the end of the object. */
  memberName(frame: Frame): boolean {
    this.skip();
    const c = this.at(this.pos);
    if (c === 0x7d) return false;
    if (c !== 0x22 && c !== 0x27) this.fail(this.pos, 'a member name that is not a string');
    frame.key = this.string(c);
    this.skip();
    if (this.at(this.pos) !== 0x3a) this.fail(this.pos, 'a missing ":"');
    this.pos++;
    return true;
  }

  /** Right after a container opened: its first member or element (undefined), or its value when it closes at once. */
  first(frame: Frame): Read | undefined {
    this.skip();
    const closing = frame.array ? this.at(this.pos) === 0x5d : !this.memberName(frame);
    if (!closing) return this.openValue();
    this.pos++;
    this.stack.pop();
    return { value: frame.value, isDouble: false };
  }

  /**
   * After a value of `frame` was added: a "," and the next member or element (what {@link openValue}
   * returns), or the container's end (its value, the container closed).
   */
  next(frame: Frame): { next: Read | undefined } | { closed: Read } {
    this.skip();
    const c = this.at(this.pos);
    const end = frame.array ? 0x5d : 0x7d;
    if (c === 0x2c) {
      this.pos++;
      this.skip();
      // json-c takes a trailing comma
      if (this.at(this.pos) !== end && (frame.array || this.memberName(frame))) return { next: this.openValue() };
    } else if (c !== end) this.fail(this.pos, frame.array ? 'a missing "," or "]"' : 'a missing "," or "}"');
    this.pos++;
    this.stack.pop();
    return { closed: { value: frame.value, isDouble: false } };
  }
}

/**
 * Parses the JSON text at the start of a JSON area as json-c 0.16's json_tokener_parse_ex does without
 * JSON_TOKENER_STRICT (what cryptsetup calls), and checks the area as validate_json_area does: the text
 * starts with "{", ends where the parser stops (after trailing white space and comments), and only zero
 * bytes follow to the end of the area. Iterative: a text nested thousands deep costs no recursion and is
 * refused at json-c's depth limit.
 */
export function parseJsonArea(area: Uint8Array): Json {
  if (area[0] !== 0x7b) bad('the JSON area does not start with "{"');
  const r = new JsonCReader(area);
  const { stack } = r;
  let v = r.openValue();
  for (;;) {
    // a container was opened: its first member or element, or its end
    if (v === undefined) {
      v = r.first(stack[stack.length - 1]);
      if (v === undefined) continue;
    }
    // a value is complete: add it to its container, then a separator or the container's end
    const frame = stack[stack.length - 1];
    if (!frame) break;
    if (frame.array) (frame.value as unknown[]).push(v.value);
    else setMember(frame.value as Json, frame.key, v.value, v.isDouble);
    const after = r.next(frame);
    v = 'next' in after ? after.next : after.closed;
  }
  // the parser stops after the white space and comments that follow the top object
  r.skip();
  if (r.pos >= area.length) bad(`the JSON area (${area.length} bytes) has no terminating zero byte`);
  for (let i = r.pos; i < area.length; i++)
    if (area[i] !== 0) bad(`the JSON area holds non-zero bytes after its JSON text (at byte ${i})`);
  return v.value as Json;
}
