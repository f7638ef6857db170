/*
 * curve/tmpl_g2.h: the names the templates (curve/point_tmpl.h,
 * encode_tmpl.h, fixed_tmpl.h) use, for G2 over Fp2. Include
 * it before a template and curve/tmpl_end.h after it.
 */
#define P_(n) g2_##n
#define F_(n) fp2_##n
#define E_(n) enc_fp2_##n
#define P_T g2_t
#define A_T g2_affine_t
#define F_T fp2_t
#define F_ZERO FP2_ZERO
#define F_ONE FP2_ONE
#define P_B G2_B
#define E_FB (2 * FP_BYTES)
#define E_NAME "G2"
