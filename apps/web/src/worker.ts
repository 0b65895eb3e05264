// The page's Web Worker: everything that touches the image, the secret or the key happens here, off the
// page's thread. The work is a Session (./session.ts) over `@x/disk`'s list of formats, the list x-disk
// uses (the same detection, header dump, secrets and summary line as the command), with TrueCrypt/VeraCrypt
// offered by name (./tcrypt.ts); this file only hands it the page's messages.
//
// TrueCrypt/VeraCrypt's derivations that WebCrypto lacks (RIPEMD-160, Whirlpool, BLAKE2s, Streebog,
// Argon2id) run side by side in workers of this worker, made from blob: URLs as this one is (Vite's
// `?worker&inline`): @x/tcrypt's own `new URL('./kdf-worker.js', import.meta.url)` cannot be resolved from
// a blob: worker. They inherit the page's policy, and terminating this worker (Cancel, another image) ends
// them with it.
import { init } from '@x/aes-kernels';
import { FORMATS } from '@x/disk';
import { setKdfWorkerFactory } from '@x/tcrypt';
import KdfWorker from '@x/tcrypt/kdf-worker?worker&inline';
import type { FromWorker, ToWorker } from './protocol.ts';
import { Session } from './session.ts';
import { tcryptNamed } from './tcrypt.ts';

setKdfWorkerFactory(() => new KdfWorker({ name: 'kdf' }));

const session = new Session(
  FORMATS,
  (m: FromWorker, transfer: Transferable[] = []) => self.postMessage(m, { transfer }),
  async () => {
    await init();
  },
  // Offered by name when no format recognizes the image: a TrueCrypt/VeraCrypt header is random bytes.
  [tcryptNamed],
);

self.onmessage = (e: MessageEvent<ToWorker>) => {
  const m = e.data;
  switch (m.type) {
    // These two arrive while `decrypt` runs: handled at once, never awaited.
    case 'buffer':
      session.giveBack(m.buf);
      return;
    case 'cancel':
      session.cancel();
      return;
    // The steps run one after the other (Session.run): a new worker is sent `inspect` and `unlock` back to back.
    case 'inspect':
      void session.run(() => session.inspect(m.file));
      return;
    case 'unlock':
      void session.run(() => session.unlock(m.secret, m.named));
      return;
    case 'decrypt':
      void session.run(() => session.decrypt(m.chunkBytes, m.depth));
      return;
  }
};
