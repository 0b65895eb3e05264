// The matrix of containers the LUKS conformance tests run on (the issue's): cipher × sector size × KDF,
// LUKS2 made by cryptsetup with two keyslots, and the 512-byte pbkdf2 ones converted to LUKS1. @x/luks opens
// them with its library; @x/cli decrypts them with x-luks. Both make them through makeMatrix.
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { type Container, type ContainerSpec, convertToLuks1, makeLuks2Container, mapLimit } from './luks.js';

/** One container of the matrix: its name, what cryptsetup makes, and whether it is converted to LUKS1 too. */
export interface MatrixEntry {
  readonly name: string;
  readonly spec: ContainerSpec;
  readonly luks1?: boolean;
}

const argon = { type: 'argon2id', memoryKiB: 32, iterations: 4, parallel: 1 } as const;

/** LUKS2 pbkdf2 (sha1, sha256, sha512), argon2id and argon2i; the 512-byte pbkdf2 ones also converted to LUKS1. */
export const LUKS_MATRIX: readonly MatrixEntry[] = [
  {
    name: 'aes-cbc-essiv:sha256, 512, pbkdf2-sha1',
    spec: { cipher: 'aes-cbc-essiv:sha256', keySize: 256, sectorSize: 512, pbkdf: { type: 'pbkdf2', hash: 'sha1' } },
    luks1: true,
  },
  {
    name: 'aes-cbc-essiv:sha256, 4096, pbkdf2-sha256',
    spec: { cipher: 'aes-cbc-essiv:sha256', keySize: 128, sectorSize: 4096, pbkdf: { type: 'pbkdf2', hash: 'sha256' } },
  },
  {
    name: 'aes-cbc-plain64, 512, pbkdf2-sha512',
    spec: { cipher: 'aes-cbc-plain64', keySize: 256, sectorSize: 512, pbkdf: { type: 'pbkdf2', hash: 'sha512' } },
    luks1: true,
  },
  {
    name: 'aes-cbc-plain64, 4096, argon2i',
    spec: {
      cipher: 'aes-cbc-plain64',
      keySize: 256,
      sectorSize: 4096,
      pbkdf: { ...argon, type: 'argon2i', memoryKiB: 64 },
    },
  },
  {
    name: 'aes-xts-plain64, 512, pbkdf2-sha256',
    spec: { cipher: 'aes-xts-plain64', keySize: 512, sectorSize: 512, pbkdf: { type: 'pbkdf2', hash: 'sha256' } },
    luks1: true,
  },
  {
    name: 'aes-xts-plain64, 4096, argon2id',
    spec: { cipher: 'aes-xts-plain64', keySize: 512, sectorSize: 4096, pbkdf: argon },
  },
  {
    name: 'aes-xts-plain64, 4096, pbkdf2-sha512, 256-bit key',
    spec: { cipher: 'aes-xts-plain64', keySize: 256, sectorSize: 4096, pbkdf: { type: 'pbkdf2', hash: 'sha512' } },
  },
  {
    name: 'aes-cbc-essiv:sha256, 512, argon2id',
    spec: { cipher: 'aes-cbc-essiv:sha256', keySize: 256, sectorSize: 512, pbkdf: argon },
  },
];

/** A case of the matrix: every LUKS2 container, then the LUKS1 conversions. */
export interface MatrixCase {
  readonly label: string;
  readonly index: number;
  readonly luks1: boolean;
}

/** Every case, LUKS2 first. */
export const MATRIX_CASES: readonly MatrixCase[] = [
  ...LUKS_MATRIX.map((m, i) => ({ label: `LUKS2 ${m.name}`, index: i, luks1: false })),
  ...LUKS_MATRIX.flatMap((m, i) => (m.luks1 ? [{ label: `LUKS1 ${m.name}`, index: i, luks1: true }] : [])),
];

/**
 * Makes the matrix: each LUKS2 container (192 KiB of random data, two random passphrases) and its LUKS1
 * conversion where there is one; `get` gives a case's container. Remove them with removeAllContainers.
 *
 * @example
 * ```ts
 * const m = await makeMatrix();
 * for (const cs of MATRIX_CASES) console.log(cs.label, m.get(cs).path);
 * ```
 */
export async function makeMatrix(): Promise<{ get(cs: MatrixCase): Container }> {
  const pass = () => randomBytes(12).toString('base64url');
  const v2 = await mapLimit(LUKS_MATRIX, availableParallelism(), (m) =>
    makeLuks2Container({ ...m.spec, dataSize: 192 * 1024, passphrases: [pass(), pass()] }),
  );
  const conv = await mapLimit(
    LUKS_MATRIX.map((m, i) => [m, i] as const).filter(([m]) => m.luks1),
    availableParallelism(),
    async ([, i]) => [i, await convertToLuks1(v2[i])] as const,
  );
  const v1 = new Map(conv);
  return { get: (cs) => (cs.luks1 ? v1.get(cs.index)! : v2[cs.index]) };
}
