/*
 * bundle_probe: one call into each library the build links, built by
 * tests/gpu/bundle.sh against the GPU bundle's headers and libraries only
 * (scripts/gpu-bundle.sh). Prints each library's version; exits 0 when
 * every call answered. It is the quick half of the bundle's check: the
 * whole provisor build against the bundle is tests/gpu/device.sh --dry-run.
 */
#define NCURSES_WIDECHAR 1
#include <curses.h>
#include <gmp.h>
#include <ini.h>
#include <json-c/json.h>
#include <libpq-fe.h>
#include <liburing.h>
#include <microhttpd.h>
#include <sodium.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>
#include <xxhash.h>

static int bp_ini(void *u, const char *s, const char *k, const char *v)
{
	(void)s;
	(void)k;
	(void)v;
	++*(int *)u;
	return 1;
}

int main(void)
{
	struct io_uring ring;
	mpz_t z;
	int bad = 0, keys = 0;
	json_object *j = json_object_new_int(42);

	mpz_init_set_ui(z, 7);
	mpz_pow_ui(z, z, 3);
	bad |= mpz_get_ui(z) != 343;
	printf("gmp %s\n", gmp_version);
	mpz_clear(z);
	bad |= sodium_init() < 0;
	printf("libsodium %s\n", sodium_version_string());
	bad |= XXH64("x", 1, 0) == 0;
	printf("xxhash %u\n", XXH_versionNumber());
	bad |= ini_parse_string("[a]\nk = v\n", bp_ini, &keys) != 0 || keys != 1;
	printf("inih: %d key\n", keys);
	bad |= !j || json_object_get_int(j) != 42;
	printf("json-c %s\n", json_c_version());
	json_object_put(j);
	printf("libmicrohttpd %s\n", MHD_get_version());
	printf("libpq %d\n", PQlibVersion());
	printf("libsystemd: sd_booted %d\n", sd_booted());
	/* setcchar and wunctrl live in libncursesw itself (curses_version
	 * in libtinfo); neither needs a terminal. */
	cchar_t cc;
	wchar_t *u;
	bad |= setcchar(&cc, L"a", 0, 0, NULL) != OK || !(u = wunctrl(&cc)) || u[0] != L'a';
	printf("ncursesw %s\n", curses_version());
	/* io_uring may be refused (a sandbox): the library answered either way. */
	int rc = io_uring_queue_init(4, &ring, 0);
	printf("liburing: queue_init %d\n", rc);
	if (rc == 0)
		io_uring_queue_exit(&ring);
	printf("%s\n", bad ? "FAIL: a library gave a wrong answer" : "OK");
	return bad;
}
