/*
 * util/util.h and util/vocab.h: each of util_num's three syntaxes takes
 * exactly what its callers took before (ctl canonical, digits only,
 * strtol); util_hex takes even-length hex of 1..max bytes; the
 * little-endian fields are little-endian bytes; util_fail writes the
 * line and returns the code; kind and backend names round-trip;
 * util_proc_stat reads a child's state and parent past a name that
 * mimics them.
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "tests/helpers.h"
#include "util/util.h"
#include "util/vocab.h"

static int num(const char *s, enum util_num_syntax syn, uint64_t lo, uint64_t hi)
{
	uint64_t v = 12345;
	int rc = util_num(s, syn, lo, hi, &v);

	CHECK(rc == 0 || v == 12345, "a refused \"%s\" wrote %llu", s, (unsigned long long)v);
	return rc == 0 ? (int)v : -1;
}

int main(void)
{
	static const char *const everywhere_bad[] = { "", "-1", "x", "1x", "1 ", "0x10", "27" };
	uint8_t b[32], le[8];
	uint32_t n;
	char err[16];

	for (size_t i = 0; i < sizeof everywhere_bad / sizeof everywhere_bad[0]; i++)
		for (int syn = UTIL_NUM_DIGITS; syn <= UTIL_NUM_STRTOL; syn++)
			CHECK(num(everywhere_bad[i], syn, 0, 26) == -1, "syntax %d took \"%s\"", syn,
			      everywhere_bad[i]);
	CHECK(num("26", UTIL_NUM_CANONICAL, 1, 26) == 26 && num("0", UTIL_NUM_CANONICAL, 0, 9) == 0,
	      "canonical refused a canonical number");
	CHECK(num("07", UTIL_NUM_CANONICAL, 0, 9) == -1 && num("+7", UTIL_NUM_CANONICAL, 0, 9) == -1,
	      "canonical took a second spelling");
	CHECK(num("07", UTIL_NUM_DIGITS, 0, 9) == 7 && num("+7", UTIL_NUM_DIGITS, 0, 9) == -1 &&
	      num(" 7", UTIL_NUM_DIGITS, 0, 9) == -1, "digits: leading zero yes, sign or space no");
	CHECK(num("+7", UTIL_NUM_STRTOL, 0, 9) == 7 && num(" 7", UTIL_NUM_STRTOL, 0, 9) == 7 &&
	      num("-0", UTIL_NUM_STRTOL, 0, 9) == 0, "strtol: sign and leading space as strtol");
	CHECK(num("18446744073709551616", UTIL_NUM_DIGITS, 0, UINT64_MAX) == -1 &&
	      num("-18446744073709551615", UTIL_NUM_STRTOL, 0, 9) == -1, "overflow taken");
	CHECK(!util_num("18446744073709551615", UTIL_NUM_CANONICAL, 1, UINT64_MAX, &(uint64_t){ 0 }),
	      "UINT64_MAX refused");

	CHECK(!util_hex("00fFa1", b, sizeof b, &n) && n == 3 && b[1] == 0xff && b[2] == 0xa1, "hex");
	CHECK(util_hex("", b, 32, &n) && util_hex("abc", b, 32, &n) && util_hex("0g", b, 32, &n) &&
	      util_hex("0x00", b, 32, &n) && util_hex("000000", b, 2, &n), "bad hex taken");

	util_le64_put(le, 0x0102030405060708ull);
	CHECK(le[0] == 8 && le[7] == 1 && util_le64_get(le) == 0x0102030405060708ull, "le64");
	util_le32_put(le, 0xa1b2c3d4u);
	CHECK(le[0] == 0xd4 && le[3] == 0xa1 && util_le32_get(le) == 0xa1b2c3d4u, "le32");
	util_le16_put(le, 0xbeef);
	CHECK(le[0] == 0xef && util_le16_get(le) == 0xbeef, "le16");

	CHECK(util_fail(err, sizeof err, -22, "k=%d is %s", 27, "too big for this") == -22 &&
	      !strcmp(err, "k=27 is too big"), "util_fail: '%s'", err);
	CHECK(util_fail(NULL, 0, -5, "x") == -5, "util_fail without a buffer");

	for (uint32_t k = 1, got; k <= VOCAB_NKINDS; k++)
		CHECK(vocab_kind_name(k) && !vocab_kind_parse(vocab_kind_name(k), &got) && got == k,
		      "kind %u", k);
	CHECK(!vocab_kind_name(0) && !vocab_kind_name(VOCAB_NKINDS + 1), "kind out of range named");
	CHECK(!strcmp(vocab_kind_name(VOCAB_KIND_POREP), "porep"), "porep");
	for (uint32_t be = VOCAB_BACKEND_AUTO; be <= VOCAB_BACKEND_CUDA; be++) {
		enum vocab_backend got;
		CHECK(!vocab_backend_parse(vocab_backend_name(be), &got) && got == be, "backend %u", be);
	}
	CHECK(!strcmp(VOCAB_STR(VOCAB_LOG_MAX), "27"), "VOCAB_STR");

	/* util_proc_stat: a child whose name mimics the fields after it is
	 * read right, alive and then a zombie. */
	char st;
	pid_t ppid, kid = fork();
	CHECK(kid >= 0, "fork");
	if (kid == 0) {
		prctl(PR_SET_NAME, "a) Z 1 (b");
		pause();
		_exit(0);
	}
	for (int i = 0; i < 1000; i++) {	/* until the name is set */
		char name[32] = "", path[64];
		FILE *f;
		snprintf(path, sizeof path, "/proc/%d/comm", (int)kid);
		if ((f = fopen(path, "r")) && fgets(name, sizeof name, f) && strstr(name, "a) Z 1"))
			i = 1000;
		if (f)
			fclose(f);
		usleep(1000);
	}
	CHECK(util_proc_stat(kid, &st, &ppid) == 0 && st != 'Z' && ppid == getpid(),
	      "a live child: state %c, ppid %d", st, (int)ppid);
	kill(kid, SIGKILL);
	siginfo_t si;
	CHECK(waitid(P_PID, (id_t)kid, &si, WEXITED | WNOWAIT) == 0, "waitid");
	CHECK(util_proc_stat(kid, &st, &ppid) == 0 && st == 'Z' && ppid == getpid(), "a zombie: state %c", st);
	waitpid(kid, NULL, 0);
	CHECK(util_proc_stat(kid, &st, &ppid) == -ENOENT, "a reaped child still has a stat");
	return 0;
}
