// Shared by the tests: comparing bytes. (The x-luks command, in @x/cli, is tested there, on the same kinds of
// volumes: @x/containers makes them for both.)

export const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
