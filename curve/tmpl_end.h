/* curve/tmpl_end.h: forgets the names curve/tmpl_g1.h or tmpl_g2.h set. */
#undef P_
#undef F_
#undef E_
#undef P_T
#undef A_T
#undef F_T
#undef F_ZERO
#undef F_ONE
#undef P_B
#undef E_FB
#undef E_NAME
