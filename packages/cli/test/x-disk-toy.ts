// x-disk with one format more, as a program that has a format of its own makes it: TOY (@x/toy-format, a
// made-up format) after the formats of @x/disk, and nothing else. new-format.test.ts bundles and runs it.
import { FORMATS } from '@x/disk';
import { toyFormat } from '@x/toy-format';
import { endOnClosedPipe } from '../src/io.js';
import { main } from '../src/x-disk-main.js';

endOnClosedPipe(process.stdout);

void main(process.argv.slice(2), process, [...FORMATS, toyFormat]).then((code) => {
  process.exitCode = code;
});
