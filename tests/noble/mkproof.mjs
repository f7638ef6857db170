// tests/noble/mkproof.mjs: test-only. Makes a valid toy params + proof
// pair with @noble/curves alone, so that verify_proof.mjs can be tested
// before (and apart from) provisor's prover. The formats are the ones
// verify_proof.mjs documents, written here from the spec independently.
//
//   node mkproof.mjs make PARAMS PROOF   a valid pair (random; no circuit
//                                        behind it: the proof is made from
//                                        the toxic waste, which is known)
//   node mkproof.mjs redigest PROOF      recompute the proof's digest
//                                        after an edit
//   node mkproof.mjs g1 KIND             48 bytes of hex: a compressed G1
//                                        encoding, KIND offcurve (no y
//                                        for this x) or nonsubgroup
//
// The proof: with alpha, beta, gamma, delta and the IC exponents u_i
// known, pick a and b, set A = a G1, B = b G2 and C = c G1 with
// c = (a b - alpha beta - (u_0 + x_0 u_1 + x_out u_2) gamma) / delta mod r,
// so that e(A, B) = e(alpha, beta) e(IC, gamma) e(C, delta) holds.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

const { G1, G2, fields } = bls12_381;
const { Fp, Fr } = fields;
const b2b = (b) => Buffer.from(blake2b(b, { dkLen: 32 }));

const randFr = () => {
	for (;;) {
		const v = BigInt('0x' + randomBytes(32).toString('hex')) % Fr.ORDER;
		if (v !== 0n) return v;
	}
};
const g1 = (s) => Buffer.from(G1.Point.BASE.multiply(s).toBytes(false));
const g2 = (s) => Buffer.from(G2.Point.BASE.multiply(s).toBytes(false));
const be32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32BE(v); return b; };
const frLE = (v) => Buffer.from(v.toString(16).padStart(64, '0'), 'hex').reverse();
const list = (pts) => Buffer.concat([be32(pts.length), ...pts]);

function make(paramsPath, proofPath) {
	const k = 2, npub = 3, nvars = 6;
	const [alpha, beta, gamma, delta] = [randFr(), randFr(), randFr(), randFr()];
	const u = [randFr(), randFr(), randFr()];
	const vk = Buffer.concat([
		g1(alpha), g1(beta), g2(beta), g2(gamma), g1(delta), g2(delta),
		list(u.map(g1)),
	]);
	// The query lists: random points of plausible counts (nothing reads them
	// but the framing checks).
	const rnd1 = (n) => Array.from({ length: n }, () => g1(randFr()));
	const body = Buffer.concat([
		vk,
		list(rnd1((1 << k) - 1)),		// h
		list(rnd1(nvars - npub)),		// l
		list(rnd1(nvars)),			// a
		list(rnd1(nvars)),			// b_g1
		list(Array.from({ length: nvars }, () => g2(randFr()))),	// b_g2
	]);
	const header = Buffer.alloc(128);
	header.write('PVPARAMS', 0, 'latin1');
	header.writeUInt32LE(1, 8);
	header.writeUInt32LE(k, 12);
	header.writeUInt32LE(nvars, 16);
	header.writeUInt32LE(npub, 20);
	header.writeUInt32LE(1, 24);		// derived from a seed: a toy
	header.writeBigUInt64LE(BigInt(body.length), 32);
	b2b(vk).copy(header, 40);
	randomBytes(32).copy(header, 72);	// circuit id: opaque here
	const params = Buffer.concat([header, body]);
	writeFileSync(paramsPath, Buffer.concat([params, b2b(params)]));

	const x0 = randFr(), xout = randFr(), a = randFr(), b = randFr();
	const ic = Fr.add(u[0], Fr.add(Fr.mul(x0, u[1]), Fr.mul(xout, u[2])));
	const c = Fr.div(Fr.sub(Fr.sub(Fr.mul(a, b), Fr.mul(alpha, beta)), Fr.mul(ic, gamma)), delta);
	const p = Buffer.alloc(376);
	p.write('PVPROOF1', 0, 'latin1');
	p.writeUInt32LE(1, 8);
	p.writeUInt32LE(k, 12);
	p.writeUInt32LE(0, 16);			// partition
	p.writeUInt32LE(5, 20);			// seed_len
	Buffer.from('toy!!').copy(p, 24);
	b2b(vk).copy(p, 56);
	frLE(x0).copy(p, 88);
	frLE(xout).copy(p, 120);
	Buffer.from(G1.Point.BASE.multiply(a).toBytes(true)).copy(p, 152);
	Buffer.from(G2.Point.BASE.multiply(b).toBytes(true)).copy(p, 200);
	Buffer.from(G1.Point.BASE.multiply(c).toBytes(true)).copy(p, 296);
	b2b(p.subarray(0, 344)).copy(p, 344);
	writeFileSync(proofPath, p);
}

function redigest(proofPath) {
	const p = readFileSync(proofPath);
	if (p.length !== 376) throw new Error(`${proofPath}: ${p.length} bytes`);
	b2b(p.subarray(0, 344)).copy(p, 344);
	writeFileSync(proofPath, p);
}

// A compressed G1 encoding (sort bit clear) with x the smallest value >= a
// random start whose x^3 + 4 is (nonsubgroup) or is not (offcurve) a square.
function badG1(kind) {
	const start = BigInt('0x' + randomBytes(48).toString('hex')) % Fp.ORDER;
	for (let i = 0n; ; i++) {
		const x = Fp.create(start + i);
		const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
		const square = Fp.eql(Fp.pow(rhs, (Fp.ORDER - 1n) / 2n), Fp.ONE);
		if (square !== (kind === 'nonsubgroup')) continue;
		const b = Buffer.from(x.toString(16).padStart(96, '0'), 'hex');
		b[0] |= 0x80;
		return b.toString('hex');
	}
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'make' && args.length === 2) make(args[0], args[1]);
else if (cmd === 'redigest' && args.length === 1) redigest(args[0]);
else if (cmd === 'g1' && args.length === 1 && ['offcurve', 'nonsubgroup'].includes(args[0]))
	process.stdout.write(badG1(args[0]) + '\n');
else {
	process.stderr.write('usage: node mkproof.mjs make PARAMS PROOF | redigest PROOF | g1 offcurve|nonsubgroup\n');
	process.exit(1);
}
