// The page's fields for a format opened by name (TrueCrypt/VeraCrypt): keyfiles, PIM, the PRF hint, hidden,
// system and backup, read into the worker's NamedChoice. The keyfiles are a list the person builds: each
// pick of the file input adds its files after those chosen before (a multiple pick in the order the browser
// gives them), so the order is the one chosen; "Clear the keyfiles" empties it. The list holds File
// references only (their bytes are read in the worker), and is emptied once the volume is unlocked.
import type { NamedChoice, NamedOffer } from './protocol.ts';

const $ = <T extends HTMLElement>(id: string): T => {
  const e = document.getElementById(id);
  if (!e) throw new Error(`no #${id}`);
  return e as T;
};

const fields = $<HTMLDivElement>('tcrypt-fields');
const keyfileInput = $<HTMLInputElement>('keyfiles');
const keyfileList = $<HTMLOListElement>('keyfile-list');
const clear = $<HTMLButtonElement>('keyfiles-clear');
const pim = $<HTMLInputElement>('pim');
const prf = $<HTMLSelectElement>('prf');
const hidden = $<HTMLInputElement>('tc-hidden');
const system = $<HTMLInputElement>('tc-system');
const backup = $<HTMLInputElement>('tc-backup');

let keyfiles: File[] = [];

function showKeyfiles(): void {
  keyfileList.replaceChildren(
    ...keyfiles.map((f) => {
      const li = document.createElement('li');
      li.textContent = f.name;
      return li;
    }),
  );
  keyfileList.hidden = keyfiles.length === 0;
  clear.hidden = keyfiles.length === 0;
}

keyfileInput.addEventListener('change', () => {
  keyfiles.push(...Array.from(keyfileInput.files ?? []));
  // Emptied, so that the same file can be added again (a keyfile may be given twice).
  keyfileInput.value = '';
  showKeyfiles();
});
clear.addEventListener('click', () => {
  keyfiles = [];
  showKeyfiles();
  keyfileInput.focus();
});

/** Shows the fields for `offer`, its PRFs in the hint's list (the first choice: try all). */
export function showNamedFields(offer: NamedOffer): void {
  const all = prf.options[0];
  prf.replaceChildren(all, ...offer.prfs.map((p) => new Option(p, p)));
  prf.value = '';
  fields.hidden = false;
}

/** Hides the fields and empties them (another image was picked). */
export function resetNamedFields(): void {
  fields.hidden = true;
  forgetKeyfiles();
  pim.value = '';
  prf.value = '';
  for (const box of [hidden, system, backup]) box.checked = false;
}

/** Empties the keyfile list (once unlocked, as the passphrase field is). */
export function forgetKeyfiles(): void {
  keyfiles = [];
  showKeyfiles();
}

/** How many keyfiles are chosen. */
export const keyfileCount = (): number => keyfiles.length;

/**
 * What the fields say, for the worker; a PIM that is not a number is passed on as NaN, for @x/tcrypt's own
 * message.
 */
export function namedChoice(type: string): NamedChoice {
  const p = pim.value.trim();
  return {
    type,
    keyfiles: [...keyfiles],
    ...(p === '' ? {} : { pim: /^\d+$/.test(p) ? Number(p) : Number.NaN }),
    ...(prf.value === '' ? {} : { prf: prf.value }),
    hidden: hidden.checked,
    system: system.checked,
    backup: backup.checked,
  };
}
