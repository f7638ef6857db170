/*
 * Backend choice (gpuworker/backend.c), runnable anywhere: parse accepts
 * exactly auto, cpu and cuda; resolve(auto) never fails and says on stderr
 * which backend and why; resolve(cuda) without a device fails naming the
 * cause; hterm_run(cpu) is hterm_cpu. Where a CUDA device answers, auto
 * must pick it and hterm_run(cuda) must agree with the CPU. The built-in
 * cuda backend's init refuses an ordinal this process does not see (a
 * bad device at start, never a partition's failure), naming the count.
 */
#include <unistd.h>

#include "tests/helpers.h"
#include "gpuworker/backend.h"
#include "gpuworker/hterm.h"

/* Runs resolve with stderr captured into log. */
static int resolve_logged(enum vocab_backend want, enum vocab_backend *got,
			  char *err, size_t errlen, char *log, size_t loglen)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), rc;
	size_t len;

	CHECK(tmp && saved >= 0, "tmpfile/dup");
	fflush(stderr);
	CHECK(dup2(fileno(tmp), 2) == 2, "dup2");
	rc = hterm_backend_resolve(want, got, err, errlen);
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2, "dup2 back");
	close(saved);
	rewind(tmp);
	len = fread(log, 1, loglen - 1, tmp);
	log[len] = '\0';
	fclose(tmp);
	return rc;
}

static void check_parse(void)
{
	static const char *bad[] = { "", "CPU", "Cuda", "gpu", "cuda ", " auto", "autox", "c" };
	enum vocab_backend be = VOCAB_BACKEND_CUDA;

	CHECK(vocab_backend_parse("auto", &be) == 0 && be == VOCAB_BACKEND_AUTO, "parse auto");
	CHECK(vocab_backend_parse("cpu", &be) == 0 && be == VOCAB_BACKEND_CPU, "parse cpu");
	CHECK(vocab_backend_parse("cuda", &be) == 0 && be == VOCAB_BACKEND_CUDA, "parse cuda");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		be = VOCAB_BACKEND_CPU;
		CHECK(vocab_backend_parse(bad[i], &be) == -1, "parse accepted \"%s\"", bad[i]);
		CHECK(be == VOCAB_BACKEND_CPU, "parse of \"%s\" wrote its output", bad[i]);
	}
	CHECK(vocab_backend_parse(NULL, &be) == -1, "parse accepted NULL");
}

static void fill(fr_t *v[3], size_t n, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++) {
		fr_from_u64(&v[0][i], t_rand(seed));
		fr_from_u64(&v[1][i], t_rand(seed));
		fr_mul(&v[2][i], &v[0][i], &v[1][i]);
	}
}

int main(void)
{
	enum vocab_backend got;
	char err[512], log[1024], why[512];
	int ndev;

	check_parse();

	why[0] = '\0';
	ndev = hterm_cuda_devices(why, sizeof(why));
	printf("info: backend: CUDA devices: %d%s%s\n", ndev, ndev > 0 ? "" : ": ", ndev > 0 ? "" : why);
	if (ndev < 0)
		CHECK(why[0] != '\0', "hterm_cuda_devices failed without saying why");

	/* the cuda backend's init: an ordinal past the last device seen */
	{
		const struct provisor_backend *b = backend_builtin(VOCAB_BACKEND_CUDA);
		char desc[200] = "";
		struct provisor_be_init in = { .size = sizeof in, .device = ndev > 0 ? ndev : 0, .desc = desc,
					       .desc_len = sizeof desc };
		void *ctx = NULL;

		CHECK(b && b->init(&in, &ctx) == PROVISOR_BE_DEVICE_LOST, "cuda init took device %d of %d",
		      in.device, ndev);
		CHECK(strstr(desc, "this process sees"), "cuda init's refusal: '%s'", desc);
		printf("info: backend: cuda init of device %d: %s\n", in.device, desc);
	}

	/* auto: never fails; one line that says which and why. */
	err[0] = '\0';
	CHECK(resolve_logged(VOCAB_BACKEND_AUTO, &got, err, sizeof(err), log, sizeof(log)) == 0,
	      "resolve(auto) failed: %s", err);
	CHECK(strchr(log, '\n') == log + strlen(log) - 1, "resolve(auto) logged not one line: %s", log);
	if (ndev > 0) {
		CHECK(got == VOCAB_BACKEND_CUDA, "auto did not pick CUDA with %d devices", ndev);
		CHECK(strstr(log, "backend cuda (auto"), "log line: %s", log);
	} else {
		CHECK(got == VOCAB_BACKEND_CPU, "auto did not fall back to the CPU");
		CHECK(strstr(log, "provisor: backend cpu (auto: no CUDA device: "), "log line: %s", log);
		CHECK(strstr(log, why), "log line does not give the reason (%s): %s", why, log);
	}
	printf("info: backend: %s", log);

	/* cuda: an error naming the cause where there is no device. */
	err[0] = '\0';
	int rc = resolve_logged(VOCAB_BACKEND_CUDA, &got, err, sizeof(err), log, sizeof(log));
	if (ndev > 0) {
		CHECK(rc == 0 && got == VOCAB_BACKEND_CUDA, "resolve(cuda) with a device: %s", err);
	} else {
		CHECK(rc == -1, "resolve(cuda) without a device succeeded");
		CHECK(strstr(err, "no CUDA device") && strstr(err, why),
		      "resolve(cuda) message does not name the cause: %s", err);
		printf("info: backend: resolve(cuda): %s\n", err);
	}
	CHECK(resolve_logged(VOCAB_BACKEND_CPU, &got, err, sizeof(err), log, sizeof(log)) == 0 &&
	      got == VOCAB_BACKEND_CPU, "resolve(cpu)");
	CHECK(resolve_logged((enum vocab_backend)7, &got, err, sizeof(err), log, sizeof(log)) == -1,
	      "resolve(7) succeeded");

	/* run: cpu is hterm_cpu; auto is refused; a bad k is an error. */
	unsigned k = 10;
	size_t n = (size_t)1 << k;
	uint64_t seed = 42;
	fr_t *v[3], *w[3];
	for (int i = 0; i < 3; i++) {
		v[i] = malloc(n * sizeof(fr_t));
		w[i] = malloc(n * sizeof(fr_t));
		CHECK(v[i] && w[i], "malloc");
	}
	fill(v, n, &seed);
	for (int i = 0; i < 3; i++)
		memcpy(w[i], v[i], n * sizeof(fr_t));
	CHECK(hterm_run(VOCAB_BACKEND_CPU, 0, w[0], w[1], w[2], k, err, sizeof(err)) == 0,
	      "hterm_run(cpu): %s", err);
	CHECK(fr_is_zero(&w[0][n - 1]), "hterm_run(cpu): top coefficient of H not zero");
	CHECK(hterm_cpu(v[0], v[1], v[2], k) == 0, "hterm_cpu");
	CHECK(memcmp(v[0], w[0], n * sizeof(fr_t)) == 0, "hterm_run(cpu) != hterm_cpu");
	err[0] = '\0';
	CHECK(hterm_run(VOCAB_BACKEND_AUTO, 0, w[0], w[1], w[2], k, err, sizeof(err)) == -1 && err[0],
	      "hterm_run(auto) was not refused");
	err[0] = '\0';
	CHECK(hterm_run(VOCAB_BACKEND_CPU, 0, w[0], w[1], w[2], 0, err, sizeof(err)) == -1 && err[0],
	      "hterm_run(cpu, k=0) did not fail with a message");

	/* cuda: a clear error without a device, identical H with one. */
	fill(v, n, &seed);
	for (int i = 0; i < 3; i++)
		memcpy(w[i], v[i], n * sizeof(fr_t));
	err[0] = '\0';
	rc = hterm_run(VOCAB_BACKEND_CUDA, 0, w[0], w[1], w[2], k, err, sizeof(err));
	if (ndev > 0) {
		CHECK(rc == 0, "hterm_run(cuda): %s", err);
		CHECK(hterm_cpu(v[0], v[1], v[2], k) == 0, "hterm_cpu");
		CHECK(memcmp(v[0], w[0], n * sizeof(fr_t)) == 0, "CUDA H differs from CPU H");
		CHECK(hterm_cuda(0, w[0], w[1], w[2], 28, err, sizeof(err)) == -1 &&
		      strstr(err, "out of range"), "hterm_cuda(k=28): %s", err);
	} else {
		CHECK(rc == -1 && err[0], "hterm_run(cuda) without a device did not fail clearly");
		printf("info: backend: hterm_run(cuda) without a device: %s\n", err);
	}
	CHECK(!hterm_cuda_sticky(), "a sticky CUDA error was recorded");
	for (int i = 0; i < 3; i++) {
		free(v[i]);
		free(w[i]);
	}
	return 0;
}
