// The part of aes-js (which ships no types) that the library table calls.
declare module 'aes-js' {
  interface ModeOfOperation {
    encrypt(data: Uint8Array): Uint8Array;
    decrypt(data: Uint8Array): Uint8Array;
  }
  const aesjs: {
    ModeOfOperation: {
      ecb: new (key: Uint8Array) => ModeOfOperation;
      cbc: new (key: Uint8Array, iv: Uint8Array) => ModeOfOperation;
    };
  };
  export default aesjs;
}
