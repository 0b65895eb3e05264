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

/**
 * Parses the JSON text at the start of a JSON area as json-c 0.16's json_tokener_parse_ex does without
 * JSON_TOKENER_STRICT (what cryptsetup calls), and checks the area as validate_json_area does: the text
 * starts with "{", ends where the parser stops (after trailing white space and comments), and only zero
 * bytes follow to the end of the area. Iterative: a text nested thousands deep costs no recursion and is
 * refused at json-c's depth limit.
 */
export function parseJsonArea(area: Uint8Array): Json {
  if (area[0] !== 0x7b) bad('the JSON area does not start with "{"');
  // json-c stops at a zero byte as at the end of its input
  const zero = area.indexOf(0);
  const n = zero < 0 ? area.length : zero;
  const at = (i: number) => (i < n ? area[i] : 0);
  const fail = (i: number, what: string): never =>
    bad(`the JSON area is not valid JSON (${what} at byte ${i}, as cryptsetup's parser json-c reads it)`);

  let pos = 0;
  /** White space and comments (json-c's eatws state, with its /* … *\/ and // … comments). */
  const skip = () => {
    for (;;) {
      while (pos < n && isWs(area[pos])) pos++;
      if (at(pos) !== 0x2f) return;
      if (at(pos + 1) === 0x2a) {
        let i = pos + 2;
        while (i < n && !(area[i] === 0x2a && at(i + 1) === 0x2f)) i++;
        if (i >= n) fail(pos, 'an unterminated comment');
        pos = i + 2;
      } else if (at(pos + 1) === 0x2f) {
        let i = pos + 2;
        while (i < n && area[i] !== 0x0a) i++;
        if (i >= n) fail(pos, 'an unterminated comment');
        pos = i + 1;
      } else fail(pos, 'a "/" that starts no comment');
    }
  };
  const word = (w: string) => {
    for (let i = 0; i < w.length; i++) if (lower(at(pos + i)) !== w.charCodeAt(i)) return false;
    return true;
  };
  /** A string quoted with `quote` (json-c takes ' as well as "), as a C string: it ends at a \u0000. */
  const string = (quote: number): string => {
    const start = ++pos;
    while (pos < n && area[pos] !== quote && area[pos] !== 0x5c) pos++;
    if (pos >= n) fail(start - 1, 'an unterminated string');
    if (area[pos] === quote) {
      const raw = area.subarray(start, pos++);
      return utf8.decode(raw);
    }
    const out: number[] = Array.from(area.subarray(start, pos));
    let high = 0; // a high surrogate waiting for its low half
    for (;;) {
      if (pos >= n) fail(start - 1, 'an unterminated string');
      const c = area[pos];
      if (high !== 0 && !(c === 0x5c && at(pos + 1) === 0x75)) {
        out.push(...REPLACEMENT);
        high = 0;
      }
      if (c === quote) {
        pos++;
        break;
      }
      if (c !== 0x5c) {
        out.push(c);
        pos++;
        continue;
      }
      const e = at(pos + 1);
      pos += 2;
      if (e === 0x22 || e === 0x5c || e === 0x2f) out.push(e);
      else if (e === 0x62) out.push(8);
      else if (e === 0x6e) out.push(10);
      else if (e === 0x72) out.push(13);
      else if (e === 0x74) out.push(9);
      else if (e === 0x66) out.push(12);
      else if (e === 0x75) {
        let u = 0;
        for (let i = 0; i < 4; i++) {
          const h = hexValue(at(pos + i));
          if (h < 0) fail(pos - 2, 'a \\u escape without four hex digits');
          u = (u << 4) | h;
        }
        pos += 4;
        if (high !== 0) {
          if (u >= 0xdc00 && u <= 0xdfff) u = 0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00);
          else out.push(...REPLACEMENT);
          high = 0;
        }
        if (u < 0x80) out.push(u);
        else if (u < 0x800) out.push(0xc0 | (u >> 6), 0x80 | (u & 0x3f));
        else if (u >= 0xd800 && u <= 0xdbff) high = u;
        else if (u >= 0xdc00 && u <= 0xdfff) out.push(...REPLACEMENT);
        else if (u < 0x10000) out.push(0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f));
        else out.push(0xf0 | ((u >> 18) & 7), 0x80 | ((u >> 12) & 0x3f), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f));
      } else fail(pos - 2, 'an invalid escape');
    }
    const bytes = Uint8Array.from(out);
    const nul = bytes.indexOf(0);
    return utf8.decode(nul < 0 ? bytes : bytes.subarray(0, nul));
  };
  /** A number (json-c's number state): an integer unless it has ".", "e" or "E". */
  const number = (): { value: number; isDouble: boolean } => {
    const start = pos;
    let isDouble = false,
      exponent = false,
      negOk = true,
      posOk = false;
    for (;;) {
      const c = at(pos);
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
      pos++;
    }
    const c = at(pos);
    if (!(c === 0x2c || c === 0x5d || c === 0x7d || c === 0x2f || c === 0x49 || c === 0x69 || isWs(c)))
      fail(pos, 'an invalid number');
    let text = String.fromCharCode(...area.subarray(start, pos));
    if (text === '-' && (c === 0x49 || c === 0x69)) {
      if (!word('infinity')) fail(pos, 'an invalid number');
      pos += 8;
      return { value: -Infinity, isDouble: true };
    }
    if (isDouble) {
      // json-c drops a trailing exponent sign or "e" ("123e+" is 123)
      text = text.replace(/(?<=.)[eE+-]+$/, '');
      if (!C_DOUBLE.test(text)) fail(start, 'an invalid number');
      return { value: Number(text), isDouble: true };
    }
    if (text === '-') fail(start, 'an invalid number');
    // json-c keeps integers as 64-bit (clamped beyond); only comparisons with far smaller bounds use them
    return { value: Number(text), isDouble: false };
  };

  const stack: Frame[] = [];
  let top: Json | undefined;
  const openValue = (): { value: unknown; isDouble: boolean } | undefined => {
    skip();
    if (stack.length >= JSON_MAX_DEPTH)
      bad(`the JSON is nested deeper than ${JSON_MAX_DEPTH} levels (cryptsetup's JSON parser, json-c, stops there)`);
    const c = at(pos);
    if (c === 0x7b || c === 0x5b) {
      const array = c === 0x5b;
      const value: Json | unknown[] = array ? [] : {};
      if (!array) memberOrder.set(value, []);
      stack.push({ value, array, key: '' });
      pos++;
      return undefined;
    }
    if (c === 0x22 || c === 0x27) return { value: string(c), isDouble: false };
    if (c === 0x74 || c === 0x54 || c === 0x66 || c === 0x46) {
      const t = word('true');
      if (!t && !word('false')) fail(pos, 'an invalid literal');
      pos += t ? 4 : 5;
      return { value: t, isDouble: false };
    }
    if (c === 0x6e || c === 0x4e) {
      if (word('null')) {
        pos += 4;
        return { value: null, isDouble: false };
      }
      if (!word('nan')) fail(pos, 'an invalid literal');
      pos += 3;
      return { value: Number.NaN, isDouble: true };
    }
    if (c === 0x69 || c === 0x49) {
      if (!word('infinity')) fail(pos, 'an invalid literal');
      pos += 8;
      return { value: Infinity, isDouble: true };
    }
    if (isDigit(c) || c === 0x2d) return number();
    return fail(pos, pos >= n ? 'the end of the text where a value should be' : 'an unexpected character');
  };
  /** After "{" or ",": a member name and ":" (json-c's object_field states), or the end of the object. */
  const memberName = (frame: Frame): boolean => {
    skip();
    const c = at(pos);
    if (c === 0x7d) return false;
    if (c !== 0x22 && c !== 0x27) fail(pos, 'a member name that is not a string');
    frame.key = string(c);
    skip();
    if (at(pos) !== 0x3a) fail(pos, 'a missing ":"');
    pos++;
    return true;
  };

  pos = 0;
  let v = openValue();
  for (;;) {
    if (v === undefined) {
      // a container was opened: its first member or element, or its end
      const frame = stack[stack.length - 1];
      skip();
      const closing = frame.array ? at(pos) === 0x5d : !memberName(frame);
      if (!closing) {
        v = openValue();
        continue;
      }
      pos++;
      stack.pop();
      v = { value: frame.value, isDouble: false };
    }
    // a value is complete: add it to its container, then a separator or the container's end
    const frame = stack[stack.length - 1];
    if (!frame) {
      top = v.value as Json;
      break;
    }
    if (frame.array) (frame.value as unknown[]).push(v.value);
    else setMember(frame.value as Json, frame.key, v.value, v.isDouble);
    skip();
    const c = at(pos);
    const end = frame.array ? 0x5d : 0x7d;
    if (c === 0x2c) {
      pos++;
      skip();
      // json-c takes a trailing comma
      if (at(pos) !== end && (frame.array || memberName(frame))) {
        v = openValue();
        continue;
      }
    } else if (c !== end) fail(pos, frame.array ? 'a missing "," or "]"' : 'a missing "," or "}"');
    pos++;
    stack.pop();
    v = { value: frame.value, isDouble: false };
  }
  // the parser stops after the white space and comments that follow the top object
  skip();
  if (pos >= area.length) bad(`the JSON area (${area.length} bytes) has no terminating zero byte`);
  for (let i = pos; i < area.length; i++)
    if (area[i] !== 0) bad(`the JSON area holds non-zero bytes after its JSON text (at byte ${i})`);
  return top;
}
