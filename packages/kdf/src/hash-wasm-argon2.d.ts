// hash-wasm ships types for its index only; its one-function builds (dist/<name>.umd.min.js) export the
// same functions.
declare module 'hash-wasm/dist/argon2.umd.min.js' {
  export { argon2i, argon2id } from 'hash-wasm';
}
