/**
 * Wycheproof's AEAD test files (`aes_gcm_test`, `aes_ccm_test`) run on an `@x` AEAD: valid vectors seal to
 * the file's bytes and open back; an invalid one is refused as the mode's rules say (a tag length the
 * constructor refuses, a nonce length the mode refuses in seal and open alike, else a wrong tag), with dst
 * untouched. Every vector is counted by what happened to it, and the counts must be the mode's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Aead, AeadMode, AeadOptions } from './aead.js';
import { hex, toHex } from './bytes.js';

interface WycheproofGroup {
  tagSize: number;
  tests: { tcId: number; key: string; iv: string; aad: string; msg: string; ct: string; tag: string; result: string }[];
}

/**
 * Runs the mode's Wycheproof file from `vectorsDir` on ciphers from `make`.
 *
 * @example
 * ```ts
 * wycheproofAead(GCM, (key, options) => newGcm(key, options), new URL('./vectors/', import.meta.url));
 * ```
 */
export function wycheproofAead<A extends Aead, O extends AeadOptions>(
  mode: AeadMode<A, O>,
  make: (key: Uint8Array, options?: O) => A,
  vectorsDir: URL,
): void {
  const { file, counts } = mode.wycheproof;
  const bytes = readFileSync(new URL(file, vectorsDir));
  const { testGroups } = JSON.parse((file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
  const seen = { valid: 0, modifiedTag: 0, nonceSize: 0, tagSize: 0 };
  for (const group of testGroups as WycheproofGroup[]) {
    const t = group.tagSize / 8;
    for (const v of group.tests) {
      const what = `tcId ${v.tcId}`;
      // The files have no "acceptable" vectors; one would be held to the rule of "valid" ones.
      assert.ok(v.result === 'valid' || v.result === 'invalid', what);
      const key = hex(v.key),
        nonce = hex(v.iv),
        aad = hex(v.aad),
        msg = hex(v.msg);
      const sealed = hex(v.ct + v.tag);
      if (!mode.tagLengths.includes(t)) {
        // Tags of 2, 3, 5, 7, … bytes (InvalidTagSize, InsecureTagSize): refused by the constructor.
        assert.equal(v.result, 'invalid', what);
        assert.throws(() => make(key, { tagLength: t } as O), RangeError, what);
        seen.tagSize++;
        continue;
      }
      const g = make(key, { tagLength: t } as O);
      const out = new Uint8Array(msg.length).fill(0x5a);
      if (v.result === 'valid') {
        const dst = new Uint8Array(sealed.length);
        g.seal(dst, nonce, msg, aad);
        assert.equal(toHex(dst), v.ct + v.tag, what);
        g.open(out, nonce, sealed, aad);
        assert.equal(toHex(out), v.msg, what);
        seen.valid++;
      } else {
        if (!mode.nonceAllowed(nonce.length)) {
          // InvalidNonceSize: a RangeError from seal and open alike, with the mode's message.
          const message = `${mode.prefix}: ${mode.nonceRule(nonce.length)}`;
          assert.throws(() => g.seal(new Uint8Array(sealed.length), nonce, msg, aad), { message }, what);
          assert.throws(() => g.open(out, nonce, sealed, aad), { name: 'RangeError', message }, what);
          seen.nonceSize++;
        } else {
          // ModifiedTag (and every other change of the sealed bytes).
          assert.throws(
            () => g.open(out, nonce, sealed, aad),
            { message: `${mode.prefix}: authentication failed` },
            what,
          );
          seen.modifiedTag++;
        }
        assert.ok(
          out.every((b) => b === 0x5a),
          `${what}: dst written`,
        );
      }
      g.dispose();
    }
  }
  assert.deepEqual(seen, counts);
}
