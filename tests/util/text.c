/*
 * util/text.h: the sanitiser shows every byte outside printable ASCII as
 * \xNN, passes printable text unchanged, stops at srclen or a NUL, and
 * cuts a text that does not fit at a whole character with "..." (never
 * half of a \xNN), always NUL-terminated within dstlen.
 */
#include "tests/helpers.h"
#include "util/text.h"

static void check(const char *src, size_t dstlen, const char *want)
{
	char buf[256];

	memset(buf, 'Z', sizeof buf);
	util_clean(buf, dstlen, src);
	CHECK(!strcmp(buf, want), "util_clean(\"%s\", %zu) = \"%s\", expected \"%s\"", src, dstlen,
	      buf, want);
	CHECK(strlen(buf) < dstlen, "%zu bytes do not fit %zu", strlen(buf), dstlen);
	CHECK(util_is_clean(buf), "output of \"%s\" is not clean", src);
}

int main(void)
{
	char buf[64];

	check("plain text, ok", 64, "plain text, ok");
	check("", 64, "");
	check("\x1b]0;pwned\x07\x1b[2J", 64, "\\x1b]0;pwned\\x07\\x1b[2J");
	check("tab\there\nnl", 64, "tab\\x09here\\x0anl");
	check("caf\xc3\xa9 \x7f", 64, "caf\\xc3\\xa9 \\x7f");
	/* cut: "abcdefghij" into 8 bytes = 4 characters and "..." */
	check("abcdefghij", 8, "abcd...");
	check("abcdefg", 8, "abcdefg");	/* fits exactly: no mark */
	/* never half an escape: "\x1b" needs 4 bytes */
	check("ab\x1b" "cdefgh", 8, "ab...");
	check("\x1b", 5, "\\x1b");
	check("x", 1, "");
	/* a fixed-size field without a NUL stops at its length */
	util_cleann(buf, sizeof buf, "abc\x1b" "def", 4);
	CHECK(!strcmp(buf, "abc\\x1b"), "cleann gave \"%s\"", buf);
	CHECK(!util_is_clean("a\x1b"), "ESC counted as clean");
	CHECK(util_is_clean("a b~"), "printable text counted as unclean");
	/* short forms end at a word, never inside one */
	util_clip_words(buf, 24, "no space on /srv/state: need 1536 MiB");
	CHECK(!strcmp(buf, "no space on..."), "clip gave \"%s\"", buf);
	util_clip_words(buf, 24, "write failed: No space");
	CHECK(!strcmp(buf, "write failed: No space"), "a text that fits was changed: \"%s\"", buf);
	util_clip_words(buf, 16, "abcdefghijklmnopqrstuvwxyz");	/* one long word: a whole character */
	CHECK(!strcmp(buf, "abcdefghijkl..."), "clip gave \"%s\"", buf);
	util_clip_words(buf, 24, "bad \x1b\x07 byte, and more text");
	CHECK(util_is_clean(buf) && strlen(buf) < 24, "clip of control bytes gave \"%s\"", buf);
	return 0;
}
