// The LUKS2 JSON rules of cryptsetup 2.6.1, one case per rule, on headers cryptsetup makes in the test run,
// compared with `cryptsetup luksDump` (the oracle): what it shows readHeader shows, what it refuses readHeader
// refuses with one line naming the field and the rule (and openLuks refuses before any key derivation: the
// derivations are counted through a logging src/kdf.js, kdf-work.ts, not timed).
// Where readHeader is deliberately stricter the case is listed in DELIBERATELY_STRICTER (and in README.md).
//
// The cases follow the rules of lib/luks2/luks2_json_metadata.c (hdr_validate_requirements, _tokens,
// _digests, _segments, _keyslots, _config, _areas, _json_size), lib/luks2/luks2_keyslot.c
// (LUKS2_keyslots_validate), the keyslot handlers' validate and repair (luks2_keyslot_luks2.c,
// luks2_keyslot_reenc.c), the JSON area checks of lib/luks2/luks2_disk_metadata.c and the json-c 0.16
// tokenizer cryptsetup parses with; and the mutations of cryptsetup's own suite (tests/luks2-validation-test
// and its tests/generators), each written again here as an edit of the JSON or of its text.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Container,
  describeWithCryptsetup,
  makeLuks2Container,
  mapLimit,
  removeAllContainers,
  runCryptsetup,
  resealLuks2Copy,
} from '@x/containers';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { HeaderError, type Luks2Header, LuksError, openLuks, readHeader } from '../src/index.js';
import { aboveLimits, derivations, resetDerivations } from './kdf-work.js';

vi.mock('../src/kdf.js', async (real) => (await import('./kdf-work.js')).countingKdf(await real()));

/** The costs of the bases (cryptsetup's forced minimums): no case derives more. */
const BASE_COST = { maxIterations: 1000, maxTimeCost: 4, maxMemory: 32 };

// biome-ignore lint/suspicious/noExplicitAny: the cases rewrite arbitrary fields of the header's JSON
type Json = any;

/** Cases where readHeader refuses a header `cryptsetup luksDump` shows, and why (also in README.md). */
const DELIBERATELY_STRICTER: Record<string, string> = {};

const pass = randomBytes(9).toString('hex');
let dir: string;
const bases: Record<string, Uint8Array> = {};

const hdrSize = (b: Uint8Array) => Number(Buffer.from(b.buffer, b.byteOffset, 16).readBigUInt64BE(8));

/** The JSON text of the copy at `off` (latin1, so that any byte survives a round trip). */
function textAt(b: Uint8Array, off: number): string {
  const area = b.subarray(off + 4096, off + hdrSize(b));
  const end = area.indexOf(0);
  return Buffer.from(area.subarray(0, end < 0 ? area.length : end)).toString('latin1');
}

/** Writes `text` (and zeros) into the JSON area of the copy at `off` and recomputes its sha256 checksum. */
function writeText(b: Uint8Array, off: number, text: string, size = hdrSize(b)): void {
  const area = b.subarray(off + 4096, off + size);
  area.fill(0);
  area.set(Buffer.from(text, 'latin1').subarray(0, area.length));
  checksum(b, off, size);
}

function checksum(b: Uint8Array, off: number, size = hdrSize(b)): void {
  resealLuks2Copy(b, off, size);
}

/** A copy of `base` with both JSON texts rewritten by `edit`. */
function withText(base: Uint8Array, edit: (t: string, areaSize: number) => string): Uint8Array {
  const b = Uint8Array.from(base);
  const size = hdrSize(b);
  for (const off of [0, size]) writeText(b, off, edit(textAt(b, off), size - 4096));
  return b;
}

/** A copy of `base` with both JSON objects changed by `edit`. */
const withJson = (base: Uint8Array, edit: (j: Json) => void) =>
  withText(base, (t) => {
    const j = JSON.parse(t);
    edit(j);
    return JSON.stringify(j);
  });

/** Replaces the first `from` of a text, which must be there. */
function sub(t: string, from: string | RegExp, to: string): string {
  const r = t.replace(from, to);
  if (r === t) throw new Error(`the test's text edit found no ${from}`);
  return r;
}

/** The JSON text grown by a member `"x":"aaa…"` to exactly `length` bytes. */
const grow = (t: string, length: number) => `${t.slice(0, -1)},"x":"${'a'.repeat(length - t.length - 7)}"}`;

/** Keyslot 0 copied as keyslot `id` with its area right after keyslot 0's. */
function addSlot(j: Json, id: string, patch: (k: Json) => void = () => {}) {
  const k = structuredClone(j.keyslots['0']);
  k.area.offset = String(Number(j.keyslots['0'].area.offset) + Number(j.keyslots['0'].area.size));
  patch(k);
  j.keyslots[id] = k;
}

interface Case {
  readonly name: string;
  /** The base image (default "one": pbkdf2, aes-xts-plain64, 512-byte sectors, one keyslot). */
  readonly base?: string;
  readonly make: (b: Uint8Array) => Uint8Array;
  /** What readHeader says: 'accepts', or the message it refuses with. */
  readonly header: 'accepts' | RegExp;
  /** For a header read: what openLuks says ('opens', or the message it refuses with). */
  readonly open?: 'opens' | RegExp;
}

const J = (
  base: string | undefined,
  name: string,
  edit: (j: Json) => void,
  header: Case['header'],
  open?: Case['open'],
) => ({ name, base, make: (b: Uint8Array) => withJson(b, edit), header, open }) satisfies Case;
const T = (
  name: string,
  edit: (t: string, areaSize: number) => string,
  header: Case['header'],
  open?: Case['open'],
  base?: string,
) => ({ name, base, make: (b: Uint8Array) => withText(b, edit), header, open }) satisfies Case;
const M = /^@x\/luks: LUKS2 metadata: /;
const m = (s: string) => new RegExp(`^@x/luks: LUKS2 metadata: ${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

const CASES: Case[] = [
  // ------------------------------------------------------------------ the JSON text, as json-c reads it
  T('single-quoted strings', (t) => sub(t, '"type":"luks2"', "'type':'luks2'"), 'accepts', 'opens'),
  T('comments between members', (t) => `{/* a */ // b\n${t.slice(1)}`, 'accepts', 'opens'),
  T('trailing commas', (t) => sub(sub(t, '"keyslots":["0"]', '"keyslots":["0",]'), /}$/, ',}'), 'accepts', 'opens'),
  T('raw control and non-UTF-8 bytes in a string', (t) => sub(t, /}$/, ',"x":"\x01\x7f\xff\xc3"}'), 'accepts', 'opens'),
  T(
    'literals in any case, NaN, Infinity',
    (t) => sub(t, /}$/, ',"x":[TRUE,False,NULL,NaN,-Infinity,iNfInItY]}'),
    'accepts',
  ),
  T('white space and a comment after the JSON text', (t) => `${t} \n\t/* end */ `, 'accepts', 'opens'),
  T(
    'a \\u0000 escape ends a string (json-c reads C strings)',
    (t) => sub(t, '"type":"crypt"', '"type":"crypt\\u0000x"'),
    'accepts',
    'opens',
  ),
  T(
    'a duplicate member: the last one counts',
    (t) => sub(t, '"iv_tweak":"0"', '"iv_tweak":"x","iv_tweak":"0"'),
    'accepts',
    'opens',
  ),
  T('an integer with leading zeros', (t) => sub(t, /"iterations":(\d+)/, '"iterations":00$1'), 'accepts', 'opens'),
  T('a byte right after the JSON text', (t) => `${t}X`, m('the JSON area holds non-zero bytes after its JSON text')),
  T('a quote far after the JSON text', (t) => `${t}${' '.repeat(100)}"`, m('the JSON area holds non-zero bytes after')),
  T('a JSON text that fills the area but its zero byte', (t, size) => grow(t, size - 1), 'accepts', 'opens'),
  T(
    'no terminating zero byte',
    (t, size) => grow(t, size),
    m('the JSON area (12288 bytes) has no terminating zero byte'),
  ),
  T('a top-level array', (t) => `[${t}]`, m('the JSON area does not start with "{"')),
  T('leading white space', (t) => ` ${t}`, m('the JSON area does not start with "{"')),
  T(
    'an unterminated string',
    (t) => t.slice(0, t.indexOf('luks2') + 3),
    m('the JSON area is not valid JSON (an unterminated string'),
  ),
  T('a missing comma', (t) => sub(t, '","', '" "'), m('the JSON area is not valid JSON (a missing "," or "}"')),
  T(
    'an unterminated comment',
    (t) => `{/*${t.slice(1)}`,
    m('the JSON area is not valid JSON (an unterminated comment'),
  ),
  T(
    'an invalid escape',
    (t) => sub(t, '"luks2"', '"lu\\ks2"'),
    m('the JSON area is not valid JSON (an invalid escape'),
  ),
  T(
    'key_size written 32.0 (a double to json-c)',
    (t) => sub(t, '"key_size":32', '"key_size":32.0'),
    m('keyslot 0.key_size is not an integer'),
  ),
  T(
    'iterations written 1e3',
    (t) => sub(t, /"iterations":\d+/, '"iterations":1e3'),
    m('keyslot 0.kdf.iterations is not an integer'),
  ),
  T(
    'sector_size written 512e (json-c drops the "e": a double)',
    (t) => sub(t, '"sector_size":512', '"sector_size":512e'),
    m('segment 0.sector_size is not an integer'),
  ),
  // ------------------------------------------------------------------ top-level objects
  J(
    undefined,
    'tokens is 42',
    (j) => {
      j.tokens = 42;
    },
    m('tokens is not an object'),
  ),
  J(
    undefined,
    'no tokens object',
    (j) => {
      delete j.tokens;
    },
    m('tokens is missing'),
  ),
  J(
    undefined,
    'digests 42, keyslots [], segments "hi"',
    (j) => {
      Object.assign(j, { digests: 42, keyslots: [], segments: 'hi' });
    },
    m('digests is not an object'),
  ),
  J(
    undefined,
    'no config object',
    (j) => {
      delete j.config;
    },
    m('config is missing'),
  ),
  // ------------------------------------------------------------------ tokens
  J(
    undefined,
    'a token naming a missing keyslot',
    (j) => {
      j.tokens['0'] = { type: 'x', keyslots: ['1'] };
    },
    m('token 0.keyslots names keyslot 1, which does not exist'),
  ),
  J(
    undefined,
    'a token without type',
    (j) => {
      j.tokens['0'] = { keyslots: [] };
    },
    m('token 0.type is missing'),
  ),
  J(
    undefined,
    'a token whose keyslots is not an array',
    (j) => {
      j.tokens['0'] = { type: 'x', keyslots: '0' };
    },
    m('token 0.keyslots is not an array'),
  ),
  J(
    undefined,
    'a token naming keyslot 0 as a number',
    (j) => {
      j.tokens['0'] = { type: 'x', keyslots: [0] };
    },
    m('token 0.keyslots[0] is not a string'),
  ),
  J(
    undefined,
    'a token named "a"',
    (j) => {
      j.tokens.a = { type: 'x', keyslots: [] };
    },
    m('tokens: "a" is not a decimal number'),
  ),
  J(
    undefined,
    'a luks2-keyring token',
    (j) => {
      j.tokens['0'] = { type: 'luks2-keyring', keyslots: ['0'], key_description: 'k' };
    },
    'accepts',
    'opens',
  ),
  J(
    undefined,
    'a token of an unknown type with members of its own',
    (j) => {
      j.tokens['3'] = { type: 'x', keyslots: [], y: { z: [1.5] } };
    },
    'accepts',
    'opens',
  ),
  // ------------------------------------------------------------------ keyslots
  J(
    undefined,
    'a keyslot without type',
    (j) => {
      delete j.keyslots['0'].type;
    },
    m('keyslot 0.type is missing'),
  ),
  J(
    undefined,
    'keyslot key_size −1',
    (j) => {
      j.keyslots['0'].key_size = -1;
    },
    m('keyslot 0.key_size -1 is not within 0 … 2^32 − 1'),
  ),
  J(
    undefined,
    'keyslot key_size as a string',
    (j) => {
      j.keyslots['0'].key_size = '32';
    },
    m('keyslot 0.key_size is not an integer'),
  ),
  J(
    undefined,
    'keyslot priority 7 (never tried unless asked for)',
    (j) => {
      j.keyslots['0'].priority = 7;
    },
    'accepts',
    /no active keyslot/,
  ),
  J(
    undefined,
    'keyslot priority "2", a string json-c reads as 2',
    (j) => {
      j.keyslots['0'].priority = '2';
    },
    'accepts',
    'opens',
  ),
  J(
    undefined,
    'kdf, af and area are 42',
    (j) => {
      Object.assign(j.keyslots['0'], { kdf: 42, af: 42 });
    },
    m('keyslot 0.kdf is not an object'),
  ),
  J(
    undefined,
    'af.type 42',
    (j) => {
      j.keyslots['0'].af.type = 42;
    },
    m('keyslot 0.af.type is not a non-empty string'),
  ),
  J(
    undefined,
    'af.type "luks2"',
    (j) => {
      j.keyslots['0'].af.type = 'luks2';
    },
    m('keyslot 0.af.type "luks2" is not luks1'),
  ),
  J(
    undefined,
    'af.stripes 3999 (cryptsetup merges 4000 stripes whatever it says)',
    (j) => {
      j.keyslots['0'].af.stripes = 3999;
    },
    'accepts',
    'opens',
  ),
  J(
    undefined,
    'af.stripes as a string',
    (j) => {
      j.keyslots['0'].af.stripes = '4000';
    },
    m('keyslot 0.af.stripes is not an integer'),
  ),
  J(
    undefined,
    'af without hash',
    (j) => {
      delete j.keyslots['0'].af.hash;
    },
    m('keyslot 0.af.hash is missing'),
  ),
  J(
    undefined,
    'area is 42',
    (j) => {
      j.keyslots['0'].area = 42;
    },
    m('keyslot 0.area is not an object'),
  ),
  J(
    undefined,
    'area.type "raw2"',
    (j) => {
      j.keyslots['0'].area.type = 'raw2';
    },
    m('keyslot 0.area.type "raw2" is not raw'),
  ),
  J(
    undefined,
    'area without encryption',
    (j) => {
      delete j.keyslots['0'].area.encryption;
    },
    m('keyslot 0.area.encryption is missing'),
  ),
  J(
    undefined,
    'area.key_size as a string',
    (j) => {
      j.keyslots['0'].area.key_size = '32';
    },
    m('keyslot 0.area.key_size is not an integer'),
  ),
  J(
    undefined,
    'area.size 2^64 − 1',
    (j) => {
      j.keyslots['0'].area.size = '18446744073709551615';
    },
    m('keyslot 0.area ['),
  ),
  J(
    undefined,
    'area.offset with a sign',
    (j) => {
      j.keyslots['0'].area.offset = `+${j.keyslots['0'].area.offset}`;
    },
    m('keyslot 0.area.offset is not a non-negative integer'),
  ),
  J(
    undefined,
    'a pbkdf2 kdf with leftover argon2 members (repaired by cryptsetup)',
    (j) => {
      Object.assign(j.keyslots['0'].kdf, { time: 4, memory: 32, cpus: 1 });
    },
    'accepts',
    'opens',
  ),
  J(
    'argon2',
    'an argon2 kdf with leftover pbkdf2 members (repaired by cryptsetup)',
    (j) => {
      Object.assign(j.keyslots['0'].kdf, { hash: 'sha256', iterations: 1000 });
    },
    'accepts',
    'opens',
  ),
  J(
    undefined,
    'kdf type argon2i with pbkdf2 members only',
    (j) => {
      j.keyslots['0'].kdf.type = 'argon2i';
    },
    m('keyslot 0.kdf.time is missing'),
  ),
  J(
    undefined,
    'a pbkdf2 kdf without salt',
    (j) => {
      delete j.keyslots['0'].kdf.salt;
    },
    m('keyslot 0.kdf.salt is missing'),
  ),
  J(
    undefined,
    'kdf type "scrypt" (shown, refused when tried)',
    (j) => {
      j.keyslots['0'].kdf.type = 'scrypt';
    },
    'accepts',
    /^@x\/luks: keyslot 0\.kdf\.type "scrypt" is not supported/,
  ),
  J(
    undefined,
    'a kdf salt that is not base64 (shown, refused when tried)',
    (j) => {
      j.keyslots['0'].kdf.salt = 'not base64!';
    },
    'accepts',
    /^@x\/luks: keyslot 0\.kdf\.salt is not base64$/,
  ),
  J(
    undefined,
    'a keyslot of an unknown type, with an area',
    (j) =>
      addSlot(j, '1', (k) => {
        k.type = 'x-other';
      }),
    'accepts',
    'opens',
  ),
  J(
    undefined,
    'a keyslot of an unknown type without an area',
    (j) => {
      j.keyslots['1'] = { type: 'x-other', key_size: 32 };
    },
    m('keyslot 1.area is missing'),
  ),
  J(
    undefined,
    'a keyslot in two digests',
    (j) => {
      j.digests['1'] = structuredClone(j.digests['0']);
    },
    m('keyslot 0 is named by 2 digests'),
  ),
  J(
    undefined,
    'a keyslot in no digest',
    (j) => {
      j.digests['0'].keyslots = [];
    },
    m('keyslot 0 is named by 0 digests'),
  ),
  J(
    undefined,
    'keyslot "00" (cryptsetup counts the digests of keyslot 0)',
    (j) => {
      j.keyslots['00'] = j.keyslots['0'];
      delete j.keyslots['0'];
      j.digests['0'].keyslots = ['00'];
    },
    m('keyslot 00 is named by 0 digests'),
  ),
  J(
    'two',
    'two keyslots with the same area',
    (j) => {
      j.keyslots['1'].area.offset = j.keyslots['0'].area.offset;
    },
    m('keyslot 0.area ['),
  ),
  J(
    'two',
    'overlapping areas, one byte apart',
    (j) => {
      j.keyslots['1'].area.offset = String(Number(j.keyslots['0'].area.offset) + 1);
    },
    /overlaps keyslot 0\.area/,
  ),
  J(
    'two',
    'overlapping areas, one byte in common',
    (j) => {
      j.keyslots['1'].area.offset = String(Number(j.keyslots['0'].area.offset) + Number(j.keyslots['0'].area.size) - 1);
    },
    /overlaps keyslot 0\.area/,
  ),
  J(
    undefined,
    'an area in the JSON area of the secondary header',
    (j) => {
      j.keyslots['0'].area.offset = '20480';
    },
    m('keyslot 0.area [20480, '),
  ),
  // ------------------------------------------------------------------ segments
  J(
    undefined,
    'a segment without type',
    (j) => {
      delete j.segments['0'].type;
    },
    m('segment 0.type is missing'),
  ),
  J(
    undefined,
    'segment type 42',
    (j) => {
      j.segments['0'].type = 42;
    },
    m('segment 0.type is not a non-empty string'),
  ),
  J(
    undefined,
    'a segment without offset',
    (j) => {
      delete j.segments['0'].offset;
    },
    m('segment 0.offset is missing'),
  ),
  J(
    undefined,
    'segment offset "-42"',
    (j) => {
      j.segments['0'].offset = '-42';
    },
    m('segment 0.offset is not a non-negative integer'),
  ),
  J(
    undefined,
    'a segment without size',
    (j) => {
      delete j.segments['0'].size;
    },
    m('segment 0.size is missing'),
  ),
  J(
    undefined,
    'segment size 4096, a number',
    (j) => {
      j.segments['0'].size = 4096;
    },
    m('segment 0.size is not a non-empty string'),
  ),
  J(
    undefined,
    'segment size "automatic"',
    (j) => {
      j.segments['0'].size = 'automatic';
    },
    m('segment 0.size is not a non-negative integer'),
  ),
  J(
    undefined,
    'segment size "511"',
    (j) => {
      j.segments['0'].size = '511';
    },
    m('segment 0.size 511 is not a multiple of 512'),
  ),
  J(
    undefined,
    'segment size "-512"',
    (j) => {
      j.segments['0'].size = '-512';
    },
    m('segment 0.size is not a non-negative integer'),
  ),
  J(
    undefined,
    'a crypt segment without encryption',
    (j) => {
      delete j.segments['0'].encryption;
    },
    m('segment 0.encryption is missing'),
  ),
  J(
    undefined,
    'segment encryption {}',
    (j) => {
      j.segments['0'].encryption = {};
    },
    m('segment 0.encryption is not a non-empty string'),
  ),
  J(
    undefined,
    'segment encryption ""',
    (j) => {
      j.segments['0'].encryption = '';
    },
    m('segment 0.encryption is not a non-empty string'),
  ),
  J(
    undefined,
    'a crypt segment without iv_tweak',
    (j) => {
      delete j.segments['0'].iv_tweak;
    },
    m('segment 0.iv_tweak is missing'),
  ),
  J(
    undefined,
    'iv_tweak "dynamic"',
    (j) => {
      j.segments['0'].iv_tweak = 'dynamic';
    },
    m('segment 0.iv_tweak "dynamic" is not a 64-bit integer'),
  ),
  J(
    undefined,
    'a crypt segment without sector_size',
    (j) => {
      delete j.segments['0'].sector_size;
    },
    m('segment 0.sector_size is missing'),
  ),
  J(
    undefined,
    'sector_size 1023',
    (j) => {
      j.segments['0'].sector_size = 1023;
    },
    m('segment 0.sector_size 1023 is not a positive multiple of 512'),
  ),
  J(
    undefined,
    'sector_size "4096"',
    (j) => {
      j.segments['0'].sector_size = '4096';
    },
    m('segment 0.sector_size is not an integer'),
  ),
  J(
    undefined,
    'sector_size −1024',
    (j) => {
      j.segments['0'].sector_size = -1024;
    },
    m('segment 0.sector_size -1024 is not within 0 … 2^32 − 1'),
  ),
  J(
    undefined,
    'sector_size 1536 (valid LUKS2; dm-crypt does not open it)',
    (j) => {
      j.segments['0'].sector_size = 1536;
    },
    'accepts',
    /sector_size 1536: dm-crypt takes a power of two from 512 to 4096/,
  ),
  J(
    undefined,
    'a segment of an unknown type with only type, offset and size',
    (j) => {
      const s = j.segments['0'];
      j.segments['0'] = { type: 'some_type', offset: s.offset, size: s.size, a_field: 0 };
      j.digests['0'].segments = [];
    },
    'accepts',
    /exactly one crypt segment/,
  ),
  J(
    undefined,
    'a crypt segment of 512 bytes, then one of an unknown type',
    (j) => {
      const s = j.segments['0'];
      s.size = '512';
      j.segments['1'] = { type: 'some', offset: String(Number(s.offset) + 512), size: 'dynamic' };
    },
    'accepts',
    /exactly one crypt segment/,
  ),
  J(
    undefined,
    'two contiguous crypt segments',
    (j) => {
      const s = j.segments['0'];
      s.size = '32768';
      j.segments['1'] = { ...structuredClone(s), offset: String(Number(s.offset) + 32768), size: 'dynamic' };
      j.digests['0'].segments.push('1');
    },
    'accepts',
    /exactly one crypt segment/,
  ),
  J(
    undefined,
    'two overlapping segments',
    (j) => {
      const s = j.segments['0'];
      s.size = '32768';
      j.segments['1'] = { type: 'some', offset: String(Number(s.offset) + 512), size: '512' };
    },
    m('segment 1 overlaps segment 0'),
  ),
  J(
    undefined,
    'a dynamic segment before another',
    (j) => {
      const s = j.segments['0'];
      j.segments['1'] = { type: 'some', offset: String(Number(s.offset) + 65536), size: '512' };
    },
    m('segment 0.size is "dynamic" but segment 0 is not the last regular segment'),
  ),
  J(
    undefined,
    'an empty segments object',
    (j) => {
      j.segments = {};
      j.digests['0'].segments = [];
    },
    m('segments is empty'),
  ),
  J(
    undefined,
    'segment 1 without segment 0',
    (j) => {
      j.segments['1'] = j.segments['0'];
      delete j.segments['0'];
      j.digests['0'].segments = ['1'];
    },
    m('segments: there is no segment 0'),
  ),
  J(
    undefined,
    'segment flags "hello"',
    (j) => {
      j.segments['0'].flags = 'hello';
    },
    m('segment 0.flags is not an array'),
  ),
  J(
    undefined,
    'segment flags ["hello", 1]',
    (j) => {
      j.segments['0'].flags = ['hello', 1];
    },
    m('segment 0.flags[1] is not a string'),
  ),
  J(
    undefined,
    'a backup segment after the regular one',
    (j) => {
      j.segments['1'] = { type: 'linear', offset: '512', size: '512', flags: ['backup-x'] };
    },
    'accepts',
    /exactly one crypt segment/,
  ),
  J(
    undefined,
    'a backup segment with a gap before it',
    (j) => {
      j.segments['2'] = { type: 'linear', offset: '512', size: '512', flags: ['backup-x'] };
    },
    m('segments: segment 2 leaves a gap after the regular segments'),
  ),
  J(
    undefined,
    'a backup segment numbered 268435472',
    (j) => {
      j.segments['268435472'] = { type: 'linear', offset: '512', size: '512', flags: ['backup-x'] };
    },
    m('segments: segment 268435472 leaves a gap'),
  ),
  J(
    undefined,
    'a regular segment after a backup one',
    (j) => {
      j.segments['1'] = { type: 'linear', offset: '512', size: '512', flags: ['backup-x'] };
      j.segments['2'] = { type: 'linear', offset: '1024', size: '512' };
    },
    m('segment 2 is a regular segment after backup segment 1'),
  ),
  J(
    undefined,
    'an integrity segment',
    (j) => {
      j.segments['0'].integrity = { type: 'hmac(sha256)', journal_encryption: 'none', journal_integrity: 'none' };
    },
    'accepts',
    /authenticated encryption \(integrity\), which this package does not decrypt/,
  ),
  J(
    undefined,
    'an integrity object without journal_integrity',
    (j) => {
      j.segments['0'].integrity = { type: 'hmac(sha256)', journal_encryption: 'none' };
    },
    m('segment 0.integrity.journal_integrity is missing'),
  ),
  // ------------------------------------------------------------------ digests
  J(
    undefined,
    'a digest without type',
    (j) => {
      delete j.digests['0'].type;
    },
    m('digest 0.type is missing'),
  ),
  J(
    undefined,
    'digest keyslots not an array',
    (j) => {
      j.digests['0'].keyslots = '0';
    },
    m('digest 0.keyslots is not an array'),
  ),
  J(
    undefined,
    'a digest of an unknown type',
    (j) => {
      j.digests['0'].type = 'x-other';
    },
    'accepts',
    /digest type "x-other" is not supported/,
  ),
  J(
    undefined,
    'a digest salt that is not base64 (refused when used)',
    (j) => {
      j.digests['0'].salt = '!';
    },
    'accepts',
    /^@x\/luks: digest 0\.salt is not base64$/,
  ),
  J(
    undefined,
    'a digest without hash (refused when used)',
    (j) => {
      delete j.digests['0'].hash;
    },
    'accepts',
    /^@x\/luks: digest 0\.hash is not a string$/,
  ),
  // ------------------------------------------------------------------ config and requirements
  J(
    undefined,
    'json_size "+12288" (strtoull takes a sign)',
    (j) => {
      j.config.json_size = '+12288';
    },
    'accepts',
    'opens',
  ),
  J(
    undefined,
    'json_size " 12288" (and leading white space)',
    (j) => {
      j.config.json_size = ' 12288';
    },
    'accepts',
    'opens',
  ),
  J(
    undefined,
    'json_size "12288x"',
    (j) => {
      j.config.json_size = '12288x';
    },
    m('config.json_size "12288x" is not a 64-bit integer'),
  ),
  J(
    undefined,
    'keyslots_size reaching into the data',
    (j) => {
      j.config.keyslots_size = String(Number(j.segments['0'].offset) - 32768 + 4096);
    },
    /segment 0\.offset \d+ is inside the LUKS2 header and keyslots area/,
  ),
  J(
    undefined,
    'keyslots_size not a multiple of 4096',
    (j) => {
      j.config.keyslots_size = String(Number(j.config.keyslots_size) - 1);
    },
    /config\.keyslots_size \d+ is not a multiple of 4096/,
  ),
  J(
    undefined,
    'keyslots_size smaller than the keyslot areas',
    (j) => {
      j.config.keyslots_size = String(Number(j.keyslots['0'].area.size) - 4096);
    },
    /keyslot 0\.area \[32768, \d+\) is not inside the keyslots area/,
  ),
  J(
    undefined,
    'config flags "x"',
    (j) => {
      j.config.flags = 'x';
    },
    m('config.flags is not an array'),
  ),
  J(
    undefined,
    'config flags ["allow-discards", 1]',
    (j) => {
      j.config.flags = ['allow-discards', 1];
    },
    m('config.flags[1] is not a string'),
  ),
  J(
    undefined,
    'config flags ["allow-discards", "x-other"]',
    (j) => {
      j.config.flags = ['allow-discards', 'x-other'];
    },
    'accepts',
    'opens',
  ),
  J(
    undefined,
    'requirements 1',
    (j) => {
      j.config.requirements = 1;
    },
    m('config.requirements is not an object'),
  ),
  J(
    undefined,
    'requirements.mandatory "x"',
    (j) => {
      j.config.requirements = { mandatory: 'x' };
    },
    m('config.requirements.mandatory is not an array'),
  ),
  J(
    undefined,
    'requirements.mandatory [1]',
    (j) => {
      j.config.requirements = { mandatory: [1] };
    },
    m('config.requirements.mandatory[0] is not a string'),
  ),
  J(
    undefined,
    'an unknown mandatory requirement (shown, refused by open)',
    (j) => {
      j.config.requirements = { mandatory: ['x-future'] };
    },
    'accepts',
    /requirements this package does not meet: x-future/,
  ),
  J(
    undefined,
    'two online-reencrypt requirements',
    (j) => {
      j.config.requirements = { mandatory: ['online-reencrypt', 'online-reencrypt-v9'] };
    },
    m('config.requirements.mandatory names more than one online-reencrypt requirement'),
  ),
  J(
    undefined,
    'online-reencrypt-v2 without its segments and keyslot',
    (j) => {
      j.config.requirements = { mandatory: ['online-reencrypt-v2'] };
    },
    m('an online reencryption (config.requirements) without its backup-final and backup-previous segments'),
  ),
  J(
    'reencrypt',
    'a reencrypt keyslot without the requirement',
    (j) => {
      j.config.requirements = { mandatory: [] };
    },
    /backup|reencrypt keyslot without the online-reencrypt requirement/,
  ),
  J(
    'reencrypt',
    'a reencrypt keyslot of mode "x"',
    (j) => {
      j.keyslots['2'].mode = 'x';
    },
    m('keyslot 2.mode "x" is not reencrypt, encrypt or decrypt'),
  ),
  {
    name: 'a reencryption in progress (cryptsetup reencrypt --init-only)',
    base: 'reencrypt',
    make: (b) => Uint8Array.from(b),
    header: 'accepts',
    open: /requirements this package does not meet: online-reencrypt-v2 \(e\.g\. a reencryption in progress\)/,
  },
  // ------------------------------------------------------------------ binary headers and copies
  {
    name: 'primary version 0 (cryptsetup reads the secondary copy)',
    make: (b) => {
      const c = Uint8Array.from(b);
      c[7] = 0;
      return c;
    },
    header: 'accepts',
    open: 'opens',
  },
  {
    name: 'primary hdr_size 20480 with a valid checksum (the secondary is not where it says)',
    make: (b) => {
      const c = Uint8Array.from(b);
      new DataView(c.buffer).setBigUint64(8, 20480n);
      checksum(c, 0, 20480);
      return c;
    },
    header: /^@x\/luks: LUKS2 metadata: the JSON area holds non-zero bytes after its JSON text/,
  },
  {
    name: 'a newer secondary copy wins',
    make: (b) => {
      const c = withJson(b, (j) => {
        j.tokens['0'] = { type: 'x', keyslots: [] };
      });
      new DataView(c.buffer).setBigUint64(16384 + 16, new DataView(c.buffer).getBigUint64(16) + 1n);
      checksum(c, 16384);
      return c;
    },
    header: 'accepts',
    open: 'opens',
  },
  {
    name: 'a valid 32 KiB header (--luks2-metadata-size 32k)',
    base: 'm32k',
    make: (b) => Uint8Array.from(b),
    header: 'accepts',
    open: 'opens',
  },
  {
    name: 'json_size of the 32 KiB header set to 12288',
    base: 'm32k',
    make: (b) =>
      withJson(b, (j) => {
        j.config.json_size = '12288';
      }),
    header: m("config.json_size 12288 is not the header's JSON area, 28672 bytes"),
  },
];

describeWithCryptsetup('LUKS2 JSON validation, against cryptsetup luksDump', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'x-luks-validation-'));
    const common = { cipher: 'aes-xts-plain64', keySize: 256, dataSize: 64 * 1024, sectorSize: 512 };
    const made: Container[] = await mapLimit(
      [
        { ...common, passphrases: [pass], pbkdf: { type: 'pbkdf2' as const } },
        { ...common, passphrases: [pass, pass], pbkdf: { type: 'pbkdf2' as const } },
        { ...common, passphrases: [pass], pbkdf: { type: 'argon2id' as const, memoryKiB: 32, iterations: 4 } },
      ],
      3,
      (spec) => makeLuks2Container(spec),
    );
    [bases.one, bases.two, bases.argon2] = await Promise.all(
      made.map(async (c) => new Uint8Array(await readFile(c.path))),
    );
    // made by cryptsetup itself: a 32 KiB header, and a reencryption set up but not run
    const key = join(dir, 'pass');
    await writeFile(key, pass);
    const fmt = [
      '-q',
      '--type',
      'luks2',
      '--pbkdf',
      'pbkdf2',
      '--pbkdf-force-iterations',
      '1000',
      '--key-file',
      key,
      '--disable-locks',
    ];
    const m32 = join(dir, 'm32k.img');
    await writeFile(m32, new Uint8Array(8 << 20));
    await runCryptsetup(['luksFormat', ...fmt, '--luks2-metadata-size', '32k', '--luks2-keyslots-size', '1m', m32]);
    bases.m32k = new Uint8Array(await readFile(m32));
    const re = join(dir, 'reencrypt.img');
    await writeFile(re, new Uint8Array(20 << 20));
    await runCryptsetup(['luksFormat', ...fmt, re]);
    await runCryptsetup([
      'reencrypt',
      '--init-only',
      ...fmt.slice(0, 1),
      '--pbkdf',
      'pbkdf2',
      '--pbkdf-force-iterations',
      '1000',
      '--key-file',
      key,
      '--disable-locks',
      re,
    ]);
    bases.reencrypt = new Uint8Array(await readFile(re));
  });
  afterAll(async () => {
    await removeAllContainers();
    await rm(dir, { recursive: true, force: true });
  });

  it('the bases are what the cases expect', async () => {
    const h = (await readHeader(bases.one)) as Luks2Header;
    expect([h.headerSize, h.keyslots.length, h.segments[0].encryption]).toEqual([16384, 1, 'aes-xts-plain64']);
    expect(((await readHeader(bases.two)) as Luks2Header).keyslots.map((k) => k.id)).toEqual(['0', '1']);
    expect(((await readHeader(bases.m32k)) as Luks2Header).headerSize).toBe(32768);
    const r = (await readHeader(bases.reencrypt)) as Luks2Header;
    expect(r.keyslots.map((k) => k.type)).toContain('reencrypt');
  });

  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (name, c, i) => {
    const image = c.make(bases[c.base ?? 'one']);
    const path = join(dir, `case-${i}.img`);
    await writeFile(path, image);
    resetDerivations();
    const h = await readHeader(image).then(
      (value) => ({ value, error: undefined }),
      (error: unknown) => ({ value: undefined, error }),
    );
    if (c.header === 'accepts') expect(h.error).toBeUndefined();
    else {
      expect(h.error).toBeInstanceOf(HeaderError);
      expect((h.error as Error).message).toMatch(c.header);
      expect((h.error as Error).message).not.toMatch(/\n/);
      // and openLuks refuses the same way, before any key derivation
      await expect(openLuks(image, { passphrase: pass })).rejects.toThrow(HeaderError);
      expect(derivations).toEqual([]);
    }
    if (c.open !== undefined) {
      const o = await openLuks(image, { passphrase: pass }).then(
        (v) => v,
        (e: unknown) => e as Error,
      );
      if (c.open === 'opens') {
        expect(o).not.toBeInstanceOf(Error);
        expect(derivations.length).toBeGreaterThan(0); // the derivations are counted (the mock is in place)
      } else {
        expect(o).toBeInstanceOf(LuksError);
        expect((o as Error).message).toMatch(c.open);
      }
    }
    // the KDFs here cost 1000 PBKDF2 rounds, or Argon2 time 4 in 32 KiB: no case derives more
    expect(aboveLimits(derivations, BASE_COST)).toEqual([]);
    const cryptsetup = await runCryptsetup(['luksDump', '--disable-locks', path]).then(
      () => true,
      () => false,
    );
    const ours = c.header === 'accepts';
    if (name in DELIBERATELY_STRICTER) expect({ cryptsetup, ours }).toEqual({ cryptsetup: true, ours: false });
    else expect({ name, cryptsetup }).toEqual({ name, cryptsetup: ours });
  });

  it('names only existing cases as deliberately stricter', () => {
    for (const n of Object.keys(DELIBERATELY_STRICTER)) expect(CASES.map((c) => c.name)).toContain(n);
    expect(M.test('@x/luks: LUKS2 metadata: x')).toBe(true);
  });
});
