// tests/noble/verify_proof.mjs: checks a provisor Groth16 proof with
// @noble/curves' pairing, from the documented files alone (no provisor
// code): an independent verifier.
//
//   node tests/noble/verify_proof.mjs PARAMS PROOF
//
// Prints "ok" and exits 0 when the proof holds; otherwise prints
// "verify_proof: <reason>" on stderr and exits 1 (bad usage too).
//
// PARAMS: a 128-byte header, the body in bellperson's Parameters::write
// layout, a 32-byte trailer.
//   header: 0 "PVPARAMS" | 8 LE32 version 1 | 12 LE32 k | 16 LE32 nvars |
//     20 LE32 npub (3) | 24 LE32 flags (bit 0: derived from a seed) |
//     28 LE32 0 | 32 LE64 body_len | 40 vk_digest[32] (BLAKE2b-256 of the
//     vk bytes) | 72 circuit[32] | 104..128 zero.
//   body: vk = alpha_g1 beta_g1 (G1, 96 uncompressed) beta_g2 gamma_g2
//     (G2, 192) delta_g1 delta_g2 | BE32 n | n x IC (G1); then h, l, a,
//     b_g1 (BE32 count + G1s) and b_g2 (BE32 count + G2s).
//   trailer: BLAKE2b-256 over every byte before it.
// PROOF (376 bytes): 0 "PVPROOF1" | 8 LE32 version 1 | 12 LE32 k |
//   16 LE32 partition | 20 LE32 seed_len | 24 seed[32] zero padded |
//   56 vk_digest[32] | 88 x_0 | 120 x_out (Fr, 32 bytes little-endian,
//   canonical) | 152 A (G1 compressed) | 200 B (G2 compressed) |
//   296 C (G1 compressed) | 344 BLAKE2b-256 over [0, 344).
// The check: e(A, B) = e(alpha, beta) e(IC_0 + x_0 IC_1 + x_out IC_2, gamma) e(C, delta).
//
// The whole params file is read once for its trailer digest (streamed);
// only the header and vk are kept.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

const { G1, G2, fields } = bls12_381;
const { Fp12, Fr } = fields;

const PARAMS_HEADER = 128;
const DIGEST = 32;
const PROOF_LEN = 376;
const G1U = 96, G2U = 192, G1C = 48, G2C = 96;

class Refusal extends Error {}
const refuse = (msg) => { throw new Refusal(msg); };

const le32 = (b, o) => new DataView(b.buffer, b.byteOffset + o, 4).getUint32(0, true);
const be32 = (b, o) => new DataView(b.buffer, b.byteOffset + o, 4).getUint32(0, false);
const le64 = (b, o) => new DataView(b.buffer, b.byteOffset + o, 8).getBigUint64(0, true);
const b2b = (b) => blake2b(b, { dkLen: DIGEST });
const eq = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
const isZero = (b) => b.every((v) => v === 0);
const hex = (b) => Buffer.from(b).toString('hex');

function point(Point, bytes, what, { allowInf = false } = {}) {
	let p;
	try {
		p = Point.fromBytes(bytes);	// on the curve, in the subgroup, canonical
	} catch (e) {
		refuse(`${what}: ${e.message}`);
	}
	if (!allowInf && p.is0()) refuse(`${what}: the point at infinity`);
	return p;
}

function readAt(fd, off, len, what) {
	const b = Buffer.alloc(len);
	if (readSync(fd, b, 0, len, off) !== len) refuse(`${what}: file ends early`);
	return b;
}

// Reads and checks the params file's header, vk and framing; returns the
// header fields and the vk's points.
function readParams(path) {
	const fd = openSync(path, 'r');
	try {
		const size = fstatSync(fd).size;
		if (size < PARAMS_HEADER + DIGEST) refuse(`params: ${size} bytes, too short`);
		const h = readAt(fd, 0, PARAMS_HEADER, 'params header');
		if (h.toString('latin1', 0, 8) !== 'PVPARAMS') refuse('params: bad magic (not PVPARAMS)');
		const version = le32(h, 8), k = le32(h, 12), nvars = le32(h, 16), npub = le32(h, 20);
		const flags = le32(h, 24), bodyLen = le64(h, 32);
		if (version !== 1) refuse(`params: version ${version}, expected 1`);
		if (npub !== 3) refuse(`params: npub ${npub}, expected 3`);
		if (nvars < npub) refuse(`params: nvars ${nvars} < npub ${npub}`);
		if (flags & ~1) refuse(`params: unknown flags 0x${flags.toString(16)}`);
		if (le32(h, 28) !== 0 || !isZero(h.subarray(104, 128))) refuse('params: reserved header bytes not zero');
		if (BigInt(size) !== BigInt(PARAMS_HEADER) + bodyLen + BigInt(DIGEST))
			refuse(`params: ${size} bytes, header says ${PARAMS_HEADER} + ${bodyLen} + ${DIGEST}`);

		// The trailer: BLAKE2b-256 of everything before it, streamed.
		const hasher = blake2b.create({ dkLen: DIGEST });
		const chunk = Buffer.alloc(1 << 20);
		const end = size - DIGEST;
		for (let off = 0; off < end;) {
			const n = readSync(fd, chunk, 0, Math.min(chunk.length, end - off), off);
			if (n <= 0) refuse('params: read failed');
			hasher.update(chunk.subarray(0, n));
			off += n;
		}
		if (!eq(hasher.digest(), readAt(fd, end, DIGEST, 'params trailer')))
			refuse('params: trailer digest does not match the file');

		// The vk, and its digest against the header's.
		const fixed = 3 * G1U + 3 * G2U + 4;
		const head = readAt(fd, PARAMS_HEADER, fixed, 'params vk');
		const nic = be32(head, fixed - 4);
		if (nic !== npub) refuse(`params: ${nic} IC points, npub ${npub}`);
		const vkBytes = Buffer.concat([head, readAt(fd, PARAMS_HEADER + fixed, nic * G1U, 'params IC')]);
		if (!eq(b2b(vkBytes), h.subarray(40, 72))) refuse('params: vk_digest does not match the vk');

		// The rest of the body: five counted lists that end exactly at body_len.
		let off = BigInt(PARAMS_HEADER + vkBytes.length);
		for (const [name, size1] of [['h', G1U], ['l', G1U], ['a', G1U], ['b_g1', G1U], ['b_g2', G2U]]) {
			if (off + 4n > BigInt(end)) refuse(`params: body ends before the ${name} count`);
			const n = be32(readAt(fd, Number(off), 4, `params ${name} count`), 0);
			off += 4n + BigInt(n) * BigInt(size1);
		}
		if (off !== BigInt(end)) refuse(`params: the body's lists end at ${off}, body_len says ${end}`);

		let o = 0;
		const take = (len) => vkBytes.subarray(o, (o += len));
		const vk = {
			alpha: point(G1.Point, take(G1U), 'params alpha_g1'),
			beta1: point(G1.Point, take(G1U), 'params beta_g1'),
			beta: point(G2.Point, take(G2U), 'params beta_g2'),
			gamma: point(G2.Point, take(G2U), 'params gamma_g2'),
			delta1: point(G1.Point, take(G1U), 'params delta_g1'),
			delta: point(G2.Point, take(G2U), 'params delta_g2'),
		};
		take(4);
		vk.ic = [];
		for (let i = 0; i < nic; i++) vk.ic.push(point(G1.Point, take(G1U), `params IC_${i}`, { allowInf: true }));
		return { k, flags, vkDigest: h.subarray(40, 72), vk };
	} finally {
		closeSync(fd);
	}
}

// A canonical Fr element from 32 little-endian bytes.
function frLE(b, what) {
	const v = BigInt('0x' + (hex(Buffer.from(b).reverse()) || '0'));
	if (v >= Fr.ORDER) refuse(`proof: ${what} is not canonical (>= r)`);
	return v;
}

function readProof(path) {
	const p = readFileSync(path);
	if (p.length !== PROOF_LEN) refuse(`proof: ${p.length} bytes, expected ${PROOF_LEN}`);
	if (p.toString('latin1', 0, 8) !== 'PVPROOF1') refuse('proof: bad magic (not PVPROOF1)');
	const version = le32(p, 8);
	if (version !== 1) refuse(`proof: version ${version}, expected 1`);
	if (!eq(b2b(p.subarray(0, 344)), p.subarray(344, 376))) refuse('proof: digest does not match');
	const seedLen = le32(p, 20);
	if (seedLen > 32) refuse(`proof: seed_len ${seedLen} > 32`);
	if (!isZero(p.subarray(24 + seedLen, 56))) refuse('proof: seed padding not zero');
	return {
		k: le32(p, 12),
		partition: le32(p, 16),
		vkDigest: p.subarray(56, 88),
		x0: frLE(p.subarray(88, 120), 'x_0'),
		xout: frLE(p.subarray(120, 152), 'x_out'),
		A: point(G1.Point, p.subarray(152, 152 + G1C), 'proof A'),
		B: point(G2.Point, p.subarray(200, 200 + G2C), 'proof B'),
		C: point(G1.Point, p.subarray(296, 296 + G1C), 'proof C'),
	};
}

function verify(paramsPath, proofPath) {
	const params = readParams(paramsPath);
	const proof = readProof(proofPath);
	if (proof.k !== params.k) refuse(`proof: k ${proof.k}, params k ${params.k}`);
	if (!eq(proof.vkDigest, params.vkDigest)) refuse('proof: vk_digest is not the params\' (made with other params)');
	const { vk } = params;
	const ic = vk.ic[0]
		.add(vk.ic[1].multiplyUnsafe(proof.x0))
		.add(vk.ic[2].multiplyUnsafe(proof.xout));
	// e(-A, B) e(alpha, beta) e(ic, gamma) e(C, delta) = 1, one final
	// exponentiation; a term with infinity is 1 (noble refuses it).
	const pairs = [
		{ g1: proof.A.negate(), g2: proof.B },
		{ g1: vk.alpha, g2: vk.beta },
		{ g1: ic, g2: vk.gamma },
		{ g1: proof.C, g2: vk.delta },
	].filter(({ g1, g2 }) => !g1.is0() && !g2.is0());
	if (!Fp12.eql(bls12_381.pairingBatch(pairs), Fp12.ONE)) refuse('the pairing equation does not hold');
	return params;
}

const args = process.argv.slice(2);
if (args.length !== 2) {
	process.stderr.write('usage: node tests/noble/verify_proof.mjs PARAMS PROOF\n');
	process.exit(1);
}
try {
	const params = verify(args[0], args[1]);
	if (params.flags & 1)
		process.stderr.write('verify_proof: note: the params were derived from a seed (not secure)\n');
	process.stdout.write('ok\n');
} catch (e) {
	// A refusal is one line; anything else (a missing file) is too.
	const msg = e instanceof Refusal ? e.message : (e && e.message) || String(e);
	process.stderr.write(`verify_proof: ${msg.replace(/\s+/g, ' ')}\n`);
	process.exit(1);
}
