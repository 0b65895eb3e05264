// x-disk on a TrueCrypt/VeraCrypt image at a terminal, in process (its `main` with a stand-in terminal as
// stdin): with no --passphrase-file the passphrase is asked for, and --veracrypt-query-pim asks for the PIM
// after it, each typed without echo as cryptsetup asks for them ("Enter passphrase", "Enter VeraCrypt PIM").
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/x-disk-main.js';
import { extractImages, PIM_PASSWORD } from './tcrypt-images.js';

const { images, remove } = extractImages();
afterAll(remove);

/** A terminal that types `answers[prompt]` (then Enter) when the command writes that prompt on stderr. */
function terminal(answers: Record<string, string>) {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin });
  const out: Buffer[] = [];
  let err = '';
  const asked: string[] = [];
  const io = {
    stdin,
    stdout: new Writable({
      write(c, _e, cb) {
        out.push(Buffer.from(c));
        cb();
      },
    }),
    stderr: new Writable({
      write(c, _e, cb) {
        const text = c.toString();
        err += text;
        for (const [prompt, typed] of Object.entries(answers))
          if (text.includes(prompt)) {
            asked.push(prompt);
            setImmediate(() => stdin.write(`${typed}\r`));
          }
        cb();
      },
    }),
  };
  return { io, asked, stdout: () => Buffer.concat(out).toString(), stderr: () => err };
}

describe('x-disk --type tcrypt at a terminal', () => {
  it('asks for the passphrase, then the PIM (--veracrypt-query-pim), and dumps the header', async () => {
    const t = terminal({ 'Enter passphrase: ': PIM_PASSWORD, 'Enter VeraCrypt PIM: ': '1234' });
    const image = join(images, 'vcpim_1_1234-sha256-xts-aes');
    const code = await main(['dump', image, '--type', 'tcrypt', '--veracrypt-query-pim', '--hash', 'sha256'], t.io);
    expect(t.asked).toEqual(['Enter passphrase: ', 'Enter VeraCrypt PIM: ']);
    expect(code).toBe(0);
    expect(t.stdout()).toContain('Iterations:  \t1249000 (PIM 1234)\n');
    expect(t.stderr()).not.toContain(PIM_PASSWORD); // not echoed
  });

  it('a PIM that is not a number is refused after it is typed (exit 1)', async () => {
    const t = terminal({ 'Enter passphrase: ': PIM_PASSWORD, 'Enter VeraCrypt PIM: ': '12x' });
    const image = join(images, 'vcpim_1_1234-sha256-xts-aes');
    const code = await main(['dump', image, '--type', 'tcrypt', '--veracrypt-query-pim', '--hash', 'sha256'], t.io);
    expect(code).toBe(1);
    expect(t.stderr()).toMatch(/x-disk: the VeraCrypt PIM takes a whole number from 1 to 2147468, not "12x"\n/);
  });
});
