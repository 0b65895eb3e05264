/**
 * The two S-box circuits that the code generators of `@x/aes-portable` and `@x/aes-wasm-kernel` compile,
 * as straight-line programs over GF(2), one gate a line: `out = a ^ b` (XOR), `out = a # b` (XNOR),
 * `out = a & b` (AND). Inputs are U0..U7 and outputs are S0..S7 (forward) or W0..W7 (inverse), bit 0
 * being the most significant bit of the byte, as in the papers. `parseProgram` (program.ts) reads them;
 * each generator evaluates what it compiles from them on all 256 inputs against FIPS 197 §5.1.1 / §5.3.2
 * (`SBOX`, `INV_SBOX` of field.ts) before it emits any code, so a transcription error cannot reach a kernel.
 */

/**
 * The AES S-box (FIPS 197 §5.1.1): Boyar, Matthews and Peralta's 113-gate circuit (32 AND, 77 XOR,
 * 4 XNOR), from J. Boyar, R. Peralta, "A new combinational logic minimization technique with applications
 * to cryptology" (SEA 2010, ePrint 2009/191) and the Yale Circuit Minimization Team's SLP_AES_113 listing.
 * Top linear layer (8 → 22 signals), a nonlinear middle layer (inversion in GF(2^4)^2), bottom linear
 * layer with the affine map of §5.1.1 folded in (the four XNORs are its constant 0x63).
 *
 * @example
 * ```ts
 * evaluateProgram(parseProgram(SBOX_113), 'S', 0x53); // 0xed, FIPS 197 §5.1.1's example
 * ```
 */
export const SBOX_113 = `
y14 = U3 ^ U5
y13 = U0 ^ U6
y9 = U0 ^ U3
y8 = U0 ^ U5
t0 = U1 ^ U2
y1 = t0 ^ U7
y4 = y1 ^ U3
y12 = y13 ^ y14
y2 = y1 ^ U0
y5 = y1 ^ U6
y3 = y5 ^ y8
t1 = U4 ^ y12
y15 = t1 ^ U5
y20 = t1 ^ U1
y6 = y15 ^ U7
y10 = y15 ^ t0
y11 = y20 ^ y9
y7 = U7 ^ y11
y17 = y10 ^ y11
y19 = y10 ^ y8
y16 = t0 ^ y11
y21 = y13 ^ y16
y18 = U0 ^ y16
t2 = y12 & y15
t3 = y3 & y6
t4 = t3 ^ t2
t5 = y4 & U7
t6 = t5 ^ t2
t7 = y13 & y16
t8 = y5 & y1
t9 = t8 ^ t7
t10 = y2 & y7
t11 = t10 ^ t7
t12 = y9 & y11
t13 = y14 & y17
t14 = t13 ^ t12
t15 = y8 & y10
t16 = t15 ^ t12
t17 = t4 ^ y20
t18 = t6 ^ t16
t19 = t9 ^ t14
t20 = t11 ^ t16
t21 = t17 ^ t14
t22 = t18 ^ y19
t23 = t19 ^ y21
t24 = t20 ^ y18
t25 = t21 ^ t22
t26 = t21 & t23
t27 = t24 ^ t26
t28 = t25 & t27
t29 = t28 ^ t22
t30 = t23 ^ t24
t31 = t22 ^ t26
t32 = t31 & t30
t33 = t32 ^ t24
t34 = t23 ^ t33
t35 = t27 ^ t33
t36 = t24 & t35
t37 = t36 ^ t34
t38 = t27 ^ t36
t39 = t29 & t38
t40 = t25 ^ t39
t41 = t40 ^ t37
t42 = t29 ^ t33
t43 = t29 ^ t40
t44 = t33 ^ t37
t45 = t42 ^ t41
z0 = t44 & y15
z1 = t37 & y6
z2 = t33 & U7
z3 = t43 & y16
z4 = t40 & y1
z5 = t29 & y7
z6 = t42 & y11
z7 = t45 & y17
z8 = t41 & y10
z9 = t44 & y12
z10 = t37 & y3
z11 = t33 & y4
z12 = t43 & y13
z13 = t40 & y5
z14 = t29 & y2
z15 = t42 & y9
z16 = t45 & y14
z17 = t41 & y8
tc1 = z15 ^ z16
tc2 = z10 ^ tc1
tc3 = z9 ^ tc2
tc4 = z0 ^ z2
tc5 = z1 ^ z0
tc6 = z3 ^ z4
tc7 = z12 ^ tc4
tc8 = z7 ^ tc6
tc9 = z8 ^ tc7
tc10 = tc8 ^ tc9
tc11 = tc6 ^ tc5
tc12 = z3 ^ z5
tc13 = z13 ^ tc1
tc14 = tc4 ^ tc12
S3 = tc3 ^ tc11
tc16 = z6 ^ tc8
tc17 = z14 ^ tc10
tc18 = tc13 ^ tc14
S7 = z12 # tc18
tc20 = z15 ^ tc16
tc21 = tc2 ^ z11
S0 = tc3 ^ tc16
S6 = tc10 # tc18
S4 = tc14 ^ S3
S1 = S3 # tc16
tc26 = tc17 ^ tc20
S2 = tc26 # z17
S5 = tc21 ^ tc17
`;

/**
 * The inverse S-box (FIPS 197 §5.3.2): the inverse top layer, shared middle layer and inverse bottom
 * layer of J. Boyar, R. Peralta, "A small depth-16 circuit for the AES S-box" (IFIP SEC 2012, ePrint
 * 2011/332). The XNORs on the input side are complements the generators move into the round keys.
 *
 * @example
 * ```ts
 * evaluateProgram(parseProgram(INV_SBOX_DEPTH16), 'W', 0xed); // 0x53
 * ```
 */
export const INV_SBOX_DEPTH16 = `
R13 = U1 ^ U6
R17 = U2 # U5
R18 = U5 # U6
R19 = U2 # U4
T1 = U3 ^ U4
T2 = U0 # U1
R5 = U6 ^ U7
T3 = T1 ^ R5
T22 = U1 # U3
T23 = U0 ^ U3
T8 = U1 # T23
T4 = U4 ^ T8
T6 = T22 ^ R17
T9 = U7 # T1
T24 = U4 # U7
T10 = T2 ^ T24
T13 = T2 ^ R5
T14 = T10 ^ R18
T27 = T1 ^ R18
T15 = T10 ^ T27
T16 = R13 ^ R19
T19 = T22 ^ R5
T17 = U2 # T19
T20 = T24 ^ R13
T25 = U2 # T1
T26 = T3 ^ T16
D = U0 ^ R17
M1 = T13 & T6
M2 = T23 & T8
M3 = T14 ^ M1
M4 = T19 & D
M5 = M4 ^ M1
M6 = T3 & T16
M7 = T22 & T9
M8 = T26 ^ M6
M9 = T20 & T17
M10 = M9 ^ M6
M11 = T1 & T15
M12 = T4 & T27
M13 = M12 ^ M11
M14 = T2 & T10
M15 = M14 ^ M11
M16 = M3 ^ M2
M17 = M5 ^ T24
M18 = M8 ^ M7
M19 = M10 ^ M15
M20 = M16 ^ M13
M21 = M17 ^ M15
M22 = M18 ^ M13
M23 = M19 ^ T25
M24 = M22 ^ M23
M25 = M22 & M20
M26 = M21 ^ M25
M27 = M20 ^ M21
M28 = M23 ^ M25
M29 = M28 & M27
M30 = M26 & M24
M31 = M20 & M23
M32 = M27 & M31
M33 = M27 ^ M25
M34 = M21 & M22
M35 = M24 & M34
M36 = M24 ^ M25
M37 = M21 ^ M29
M38 = M32 ^ M33
M39 = M23 ^ M30
M40 = M35 ^ M36
M41 = M38 ^ M40
M42 = M37 ^ M39
M43 = M37 ^ M38
M44 = M39 ^ M40
M45 = M42 ^ M41
M46 = M44 & T6
M47 = M40 & T8
M48 = M39 & D
M49 = M43 & T16
M50 = M38 & T9
M51 = M37 & T17
M52 = M42 & T15
M53 = M45 & T27
M54 = M41 & T10
M55 = M44 & T13
M56 = M40 & T23
M57 = M39 & T19
M58 = M43 & T3
M59 = M38 & T22
M60 = M37 & T20
M61 = M42 & T1
M62 = M45 & T4
M63 = M41 & T2
P0 = M52 ^ M61
P1 = M58 ^ M59
P2 = M54 ^ M62
P3 = M47 ^ M50
P4 = M48 ^ M56
P5 = M46 ^ M51
P6 = M49 ^ M60
P7 = P0 ^ P1
P8 = M50 ^ M53
P9 = M55 ^ M63
P10 = M57 ^ P4
P11 = P0 ^ P3
P12 = M46 ^ M48
P13 = M49 ^ M51
P14 = M49 ^ M62
P15 = M54 ^ M59
P16 = M57 ^ M61
P17 = M58 ^ P2
P18 = M63 ^ P5
P19 = P2 ^ P3
P20 = P4 ^ P6
P22 = P2 ^ P7
P23 = P7 ^ P8
P24 = P5 ^ P7
P25 = P6 ^ P10
P26 = P9 ^ P11
P27 = P10 ^ P18
P28 = P11 ^ P25
P29 = P15 ^ P20
W0 = P13 ^ P22
W1 = P26 ^ P29
W2 = P17 ^ P28
W3 = P12 ^ P22
W4 = P23 ^ P27
W5 = P19 ^ P24
W6 = P14 ^ P23
W7 = P9 ^ P16
`;
