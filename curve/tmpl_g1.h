/*
 * curve/tmpl_g1.h: the names the templates (curve/point_tmpl.h,
 * encode_tmpl.h, fixed_tmpl.h) use, for G1 over Fp. Include
 * it before a template and curve/tmpl_end.h after it.
 */
#define P_(n) g1_##n		/* the group's functions */
#define F_(n) fp_##n		/* the field's */
#define E_(n) enc_fp_##n	/* encode.c's byte I/O of one coordinate */
#define P_T g1_t
#define A_T g1_affine_t
#define F_T fp_t
#define F_ZERO FP_ZERO
#define F_ONE FP_ONE
#define P_B G1_B
#define E_FB FP_BYTES		/* bytes of one coordinate */
#define E_NAME "G1"
