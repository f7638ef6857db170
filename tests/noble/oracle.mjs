// tests/noble/oracle.mjs: @noble/curves as an independent oracle for
// provisor's BLS12-381 code (tests/noble/client.c drives it).
//
// A line protocol on stdin/stdout, one request at a time: a request is one
// line of words separated by single spaces (an operation, then its
// arguments, bytes as hex); the answer is one line, the result in lower-case
// hex (or "ok"), or "err <one-line reason>". Points travel as ZCash
// uncompressed encodings (G1 96 bytes, G2 192; infinity is 0x40 then
// zeros), compressed where the operation says so (48 / 96). Scalars are
// 32-byte big-endian integers reduced mod r (every point here is in the
// order-r subgroup, so s and s mod r act alike). Field elements are
// big-endian: Fp 48 bytes, Fr 32 bytes.
//
//   g1_add A B | g1_double A | g1_neg A | g1_mul A S | g1_mul_gen S
//   g1_msm N P1 S1 ... PN SN          sum of Si * Pi (naive, from noble)
//   g1_compress U                     (alias g1_compress_from_uncompressed)
//   g1_decompress C                   the uncompressed form, or err
//   g1_check U                        ok, or err with noble's reason
//   g1_nonsubgroup SEED               an on-curve point outside the subgroup:
//                                     x = SEED (48 bytes) + i, smallest i >= 0
//   g2_... the same for G2
//   pairing P Q                       e(P, Q) in Fp12, 576 bytes (below)
//   gt_mul X Y | gt_pow X S | gt_eq X Y (ok / err)
//   fr_add|fr_sub|fr_mul A B | fr_inv A | fp_add|fp_sub|fp_mul A B | fp_inv A | fp_sqrt A
//   version                           "@noble/curves X node vY" (the handshake)
//   quit
//
// Fp12 bytes: Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - (u + 1)),
// Fp2 = Fp[u]/(u^2 + 1). Twelve Fp coefficients of 48 bytes big-endian,
// coefficient c[a].c[b].c[c] (a < 2 over w, b < 3 over v, c < 2 over u) at
// index 6a + 2b + c: c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bytesToHex, hexToBytes, bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';

// The installed version (the package exports no package.json subpath).
const NOBLE_VERSION = JSON.parse(readFileSync(
	new URL('./node_modules/@noble/curves/package.json', import.meta.url))).version;

const { G1, G2, fields } = bls12_381;
const { Fp, Fp2, Fp12, Fr } = fields;

function hexArg(h, len, what) {
	if (typeof h !== 'string' || !/^[0-9a-fA-F]*$/.test(h) || h.length % 2)
		throw new Error(`${what}: not hex`);
	const b = hexToBytes(h);
	if (len !== undefined && b.length !== len)
		throw new Error(`${what}: ${b.length} bytes, expected ${len}`);
	return b;
}

const scalar = (h) => Fr.create(bytesToNumberBE(hexArg(h, 32, 'scalar')));
const frArg = (h) => {
	const v = bytesToNumberBE(hexArg(h, 32, 'fr'));
	if (v >= Fr.ORDER) throw new Error('fr: not canonical (>= r)');
	return v;
};
const fpArg = (h) => {
	const v = bytesToNumberBE(hexArg(h, 48, 'fp'));
	if (v >= Fp.ORDER) throw new Error('fp: not canonical (>= p)');
	return v;
};
const frOut = (v) => bytesToHex(numberToBytesBE(v, 32));
const fpOut = (v) => bytesToHex(numberToBytesBE(v, 48));

function fp12ToHex(f) {
	const parts = [];
	for (const c6 of [f.c0, f.c1])
		for (const c2 of [c6.c0, c6.c1, c6.c2])
			for (const c of [c2.c0, c2.c1])
				parts.push(fpOut(c));
	return parts.join('');
}

function fp12FromHex(h) {
	const b = hexArg(h, 576, 'fp12');
	const c = [];
	for (let i = 0; i < 12; i++) {
		const v = bytesToNumberBE(b.subarray(48 * i, 48 * i + 48));
		if (v >= Fp.ORDER) throw new Error('fp12: coefficient not canonical');
		c.push(v);
	}
	const f2 = (i) => Fp2.create({ c0: c[i], c1: c[i + 1] });
	const f6 = (i) => fields.Fp6.create({ c0: f2(i), c1: f2(i + 2), c2: f2(i + 4) });
	return Fp12.create({ c0: f6(0), c1: f6(6) });
}

// y^2 = x^3 + b for the curve of Point; the square root or undefined.
function curveY(Point, F, x) {
	const rhs = F.add(F.mul(F.sqr(x), x), Point.CURVE().b);
	try {
		return F.sqrt(rhs);
	} catch {
		return undefined;
	}
}

// Operations common to both groups, for the group g.
function groupOps(name, Point, F, ulen, clen) {
	const pt = (h) => Point.fromBytes(hexArg(h, ulen, `${name} point`));
	const out = (p) => bytesToHex(p.toBytes(false));
	const mul = (p, s) => p.multiplyUnsafe(s);
	const ops = {
		add: (a, b) => out(pt(a).add(pt(b))),
		double: (a) => out(pt(a).double()),
		neg: (a) => out(pt(a).negate()),
		mul: (a, s) => out(mul(pt(a), scalar(s))),
		mul_gen: (s) => out(mul(Point.BASE, scalar(s))),
		msm: (n, ...rest) => {
			const k = Number(n);
			if (!Number.isInteger(k) || k < 0 || rest.length !== 2 * k)
				throw new Error(`msm: ${rest.length} words for n = ${n}`);
			let acc = Point.ZERO;
			for (let i = 0; i < k; i++)
				acc = acc.add(mul(pt(rest[2 * i]), scalar(rest[2 * i + 1])));
			return out(acc);
		},
		compress: (u) => bytesToHex(pt(u).toBytes(true)),
		decompress: (c) => out(Point.fromBytes(hexArg(c, clen, `${name} compressed point`))),
		check: (u) => (pt(u), 'ok'),
		// Not from noble's API (it makes only valid points): search x upwards
		// until x^3 + b is a square, and confirm with noble that the point is
		// on the curve and outside the subgroup.
		nonsubgroup: (seed) => {
			const s = bytesToNumberBE(hexArg(seed, 48, 'seed')) % Fp.ORDER;
			for (let i = 0n; i < 1000n; i++) {
				const x = F === Fp ? Fp.create(s + i) : Fp2.create({ c0: Fp.create(s + i), c1: Fp.create(s) });
				const y = curveY(Point, F, x);
				if (y === undefined) continue;
				const p = Point.fromAffine({ x, y });
				if (p.isTorsionFree()) continue;	// probability 1/h: never
				return bytesToHex(encodeUnchecked(p, ulen));
			}
			throw new Error('nonsubgroup: no point found');
		},
	};
	const prefixed = {};
	for (const [k, f] of Object.entries(ops)) prefixed[`${name}_${k}`] = f;
	prefixed[`${name}_compress_from_uncompressed`] = ops.compress;
	return prefixed;
}

// toBytes() refuses a point outside the subgroup (it asserts validity), so
// a non-subgroup point is encoded by hand: x then y, big-endian (an Fp2 as
// c1 then c0), no flags.
function encodeUnchecked(p, ulen) {
	const { x, y } = p.toAffine();
	const enc = (v) => (typeof v === 'bigint' ? numberToBytesBE(v, 48)
		: new Uint8Array([...numberToBytesBE(v.c1, 48), ...numberToBytesBE(v.c0, 48)]));
	const b = new Uint8Array([...enc(x), ...enc(y)]);
	if (b.length !== ulen) throw new Error('encodeUnchecked: length');
	return b;
}

function pairingOf(ph, qh) {
	const P = G1.Point.fromBytes(hexArg(ph, 96, 'G1 point'));
	const Q = G2.Point.fromBytes(hexArg(qh, 192, 'G2 point'));
	// noble refuses infinity here; e(P, 0) = e(0, Q) = 1.
	if (P.is0() || Q.is0()) return Fp12.ONE;
	return bls12_381.pairing(P, Q);
}

const OPS = {
	version: () => `@noble/curves ${NOBLE_VERSION} node ${process.version}`,
	...groupOps('g1', G1.Point, Fp, 96, 48),
	...groupOps('g2', G2.Point, Fp2, 192, 96),
	pairing: (p, q) => fp12ToHex(pairingOf(p, q)),
	gt_mul: (x, y) => fp12ToHex(Fp12.mul(fp12FromHex(x), fp12FromHex(y))),
	gt_pow: (x, s) => fp12ToHex(Fp12.pow(fp12FromHex(x), bytesToNumberBE(hexArg(s, 32, 'exponent')))),
	gt_eq: (x, y) => {
		if (!Fp12.eql(fp12FromHex(x), fp12FromHex(y))) throw new Error('not equal');
		return 'ok';
	},
	fr_add: (a, b) => frOut(Fr.add(frArg(a), frArg(b))),
	fr_sub: (a, b) => frOut(Fr.sub(frArg(a), frArg(b))),
	fr_mul: (a, b) => frOut(Fr.mul(frArg(a), frArg(b))),
	fr_inv: (a) => frOut(Fr.inv(frArg(a))),
	fp_add: (a, b) => fpOut(Fp.add(fpArg(a), fpArg(b))),
	fp_sub: (a, b) => fpOut(Fp.sub(fpArg(a), fpArg(b))),
	fp_mul: (a, b) => fpOut(Fp.mul(fpArg(a), fpArg(b))),
	fp_inv: (a) => fpOut(Fp.inv(fpArg(a))),
	fp_sqrt: (a) => fpOut(Fp.sqrt(fpArg(a))),
};

function answer(line) {
	const words = line.trim().split(/ +/);
	const op = OPS[words[0]];
	if (!op) return `err unknown operation '${words[0]}'`;
	// Fixed arity, except msm (variadic).
	if (!words[0].endsWith('_msm') && words.length - 1 !== op.length)
		return `err ${words[0]}: ${words.length - 1} arguments, expected ${op.length}`;
	try {
		return op(...words.slice(1));
	} catch (e) {
		return `err ${String(e && e.message ? e.message : e).replace(/\s+/g, ' ')}`;
	}
}

const rl = createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
	if (line === 'quit') {
		rl.close();
		return;
	}
	process.stdout.write(answer(line) + '\n');
});
