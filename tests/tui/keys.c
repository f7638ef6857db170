/*
 * provisor top's keys, driven directly (tui/keys.c), on frames rendered
 * into a canvas: c, d and e ask y/n in the footer and send nothing until
 * 'y'; any other key drops the request; --read-only and a gone supervisor
 * refuse them; the outcome (ok, refused, failed) is the status line. s and
 * r order the jobs by each column both ways (checked against the values
 * themselves) with the arrow in the heading. A finished job's ETA is "-",
 * never "0ms"; every fmt_dur output parses back to its value and the job
 * detail never cuts one ("11m" for 11 ms). topctl_send talks to a socket
 * served by this test: the request arrives as `provisor cancel` sends it;
 * a peer that is not the supervisor the segment names gets nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "tui/fmt.h"
#include "tui/keys.h"
#include "tui/term.h"
#include "tui/topctl.h"

static struct snap_slot gpu[4];
static struct snap_job jobs[6];

static void fill(struct snap *s)
{
	static const uint32_t st[6] = { SHM_JOB_RUNNING, SHM_JOB_DONE, SHM_JOB_QUEUED, SHM_JOB_FAILED,
					SHM_JOB_RUNNING, SHM_JOB_CANCELLED };
	memset(s, 0, sizeof *s);
	s->attached = 1;
	s->sup_ok = 1;
	s->sup_pid = 4242;
	s->now_mono_ns = 50000000000ull;
	s->start_mono_ns = 1;
	s->ngpu = 4;
	s->gpu = gpu;
	s->jobs = jobs;
	s->njobs = 6;
	for (int i = 0; i < 4; i++)
		gpu[i] = (struct snap_slot){ .ok = 1, .util = 0.5,
			.v = { .state = i == 2 ? SHM_SLOT_DISABLED : SHM_SLOT_BUSY } };
	for (int i = 0; i < 6; i++) {
		jobs[i] = (struct snap_job){ .v = { .id = (uint64_t)(10 + i), .kind = 1 + (uint32_t)(i * 5 % 4),
			.state = st[i], .nparts = 4, .priority = (uint32_t)(i * 7 % 3) } };
		jobs[i].progress = (i * 3 % 5) / 4.0;
		jobs[i].elapsed_ns = (uint64_t)((i * 11) % 6 + 1) * 1000000000ull;
		jobs[i].eta_ns = st[i] == SHM_JOB_DONE ? 0 : i == 4 ? -1 : (int64_t)(6 - i) * 2000000;
		jobs[i].count[SHM_PART_DONE] = 1;
	}
}

static char text[40][160 * 4 + 1];

static void frame(struct snap *s, struct top_view *v, struct layout *l)
{
	struct canvas cv;

	CHECK(cv_init(&cv, 40, 160 - 1) == 0, "cv_init");
	CHECK(render_frame(&cv, s, v, l) == 0, "render");
	for (int y = 0; y < 40; y++)
		cv_row_text(&cv, y, text[y]);
	cv_free(&cv);
}

/* The recorder the key handler sends through. */
static int sent;
static char last[128];
static int answer_rc;

static int record(void *arg, const char *line, char *out, size_t len)
{
	(void)arg;
	sent++;
	snprintf(last, sizeof last, "%s", line);
	snprintf(out, len, "%s", answer_rc ? "no such job" : "");
	return answer_rc;
}

static int key(struct top_view *v, struct snap *s, int k)
{
	struct layout l;

	frame(s, v, &l);	/* as top does: the key acts on the frame shown */
	return top_key(v, &l, s, k, record, NULL);
}

/* Select job id in the jobs pane (its row in the current order). */
static void select_job(struct top_view *v, struct snap *s, uint64_t id)
{
	struct layout l;

	v->focus = L_JOBS;
	frame(s, v, &l);
	for (int i = 0; i < v->count[L_JOBS]; i++)
		if (s->jobs[v->jobs[i]].v.id == id)
			v->sel[L_JOBS] = i;
}

static void confirm(void)
{
	struct top_view v = { .focus = L_GPU, .tenths = 5 };
	struct snap s;

	fill(&s);
	select_job(&v, &s, 10);	/* running */
	key(&v, &s, 'c');
	CHECK(v.ask.op == TOP_ACT_CANCEL && !strcmp(v.ask.line, "cancel 10") && sent == 0, "c: '%s'", v.ask.line);
	struct layout l;
	frame(&s, &v, &l);
	CHECK(strstr(text[39], "cancel job 10 (") && strstr(text[39], "? y/n"), "footer: '%s'", text[39]);
	key(&v, &s, 'n');
	CHECK(sent == 0 && !v.ask.op && strstr(v.msg, "not sent"), "n: sent %d, '%s'", sent, v.msg);
	key(&v, &s, 'c');
	key(&v, &s, 'q');	/* any key but y drops it, and does not quit */
	CHECK(sent == 0 && !v.ask.op, "q after c sent");
	key(&v, &s, 'c');
	jobs[0].v.id = 99;	/* the rows move before the answer: what was asked is sent */
	CHECK(key(&v, &s, 'y') == 0 && sent == 1 && !strcmp(last, "cancel 10"), "y: sent %d '%s'", sent, last);
	CHECK(!strcmp(v.msg, "cancel 10: ok"), "outcome '%s'", v.msg);
	fill(&s);
	answer_rc = 1;
	select_job(&v, &s, 14);
	key(&v, &s, 'c');
	key(&v, &s, 'y');
	CHECK(sent == 2 && !strcmp(v.msg, "cancel 14: refused: no such job"), "refused: '%s'", v.msg);
	answer_rc = 0;
	select_job(&v, &s, 11);	/* done: nothing to cancel */
	key(&v, &s, 'c');
	CHECK(!v.ask.op && strstr(v.msg, "job 11 is done"), "done job: '%s'", v.msg);
	/* slots: d on gpu.1, e on the disabled gpu.2; d on gpu.2 is refused */
	v.focus = L_GPU;
	v.sel[L_GPU] = 1;
	key(&v, &s, 'd');
	CHECK(!strcmp(v.ask.line, "worker disable gpu.1"), "d: '%s'", v.ask.line);
	key(&v, &s, 'Y');
	CHECK(sent == 3 && !strcmp(last, "worker disable gpu.1"), "d y: '%s'", last);
	v.sel[L_GPU] = 2;
	key(&v, &s, 'd');
	CHECK(!v.ask.op && strstr(v.msg, "already"), "d on disabled: '%s'", v.msg);
	key(&v, &s, 'e');
	key(&v, &s, 'y');
	CHECK(sent == 4 && !strcmp(last, "worker enable gpu.2"), "e y: '%s'", last);
	key(&v, &s, 'c');	/* c on a slot pane: a hint, no question */
	CHECK(!v.ask.op && strstr(v.msg, "jobs pane"), "c on gpu pane: '%s'", v.msg);
	/* --read-only: not even asked */
	v.read_only = 1;
	select_job(&v, &s, 10);
	for (const char *k = "cydyey"; *k; k++) {
		if (*k == 'd' || *k == 'e')
			v.focus = L_GPU;
		key(&v, &s, *k);
		CHECK(!v.ask.op, "read-only: '%c' asked", *k);
	}
	CHECK(sent == 4 && strstr(v.msg, "read-only"), "read-only: sent %d, '%s'", sent, v.msg);
	v.read_only = 0;
	s.health = SHM_HEALTH_NOT_RUNNING;	/* gone: nothing to send to */
	v.focus = L_GPU;
	key(&v, &s, 'd');
	CHECK(!v.ask.op && strstr(v.msg, "not running"), "gone: '%s'", v.msg);
	render_view_free(&v);
}

/* The value a sort orders by, as a double; ties go by id. */
static double by(const struct snap_job *j, int sort)
{
	char kb[16];
	switch (sort) {
	case RS_ID: return (double)j->v.id;
	case RS_KIND: case RS_STATE: {	/* the name's first 6 letters, base 128: they differ there */
		const char *n = sort == RS_KIND ? fmt_kind(j->v.kind, kb, sizeof kb) : fmt_job_state(j->v.state);
		double x = 0;
		for (int i = 0; i < 6; i++)
			x = x * 128 + (i < (int)strlen(n) ? n[i] : 0);
		return x;
	}
	case RS_PROG: return j->progress;
	case RS_ELAPSED: return (double)j->elapsed_ns;
	case RS_ETA: return j->eta_ns < 0 ? 1e30 : (double)j->eta_ns;
	case RS_PRIO: return j->v.priority;
	}
	return 0;
}

static void sorting(void)
{
	struct top_view v = { .focus = L_JOBS, .tenths = 5 };
	struct layout l;
	struct snap s;

	fill(&s);
	for (int n = 1; n <= RS_N; n++) {
		key(&v, &s, 's');
		for (int rev = 0; rev < 2; rev++) {
			frame(&s, &v, &l);
			for (int i = 1; i < v.count[L_JOBS] && v.sort != RS_DEFAULT; i++) {
				const struct snap_job *a = &s.jobs[v.jobs[i - 1]], *b = &s.jobs[v.jobs[i]];
				double x = by(a, v.sort), y = by(b, v.sort);
				int ok = x < y || (x == y && a->v.id < b->v.id);
				CHECK(rev ? !ok : ok, "sort %s%s: job %llu before %llu", render_sort_name(v.sort),
				      rev ? " reversed" : "", (unsigned long long)a->v.id, (unsigned long long)b->v.id);
			}
			const char *h = text[l.r[L_JOBS].y];
			if (v.sort != RS_DEFAULT) {
				char want[32];
				snprintf(want, sizeof want, "%s%s", render_sort_name(v.sort), rev ? "\u25bc" : "\u25b2");
				CHECK(strstr(h, want), "heading without '%s': '%s'", want, h);
			} else if (!rev)
				CHECK(!strstr(h, "sort=") && s.jobs[v.jobs[0]].v.id == 10, "default order: '%s'", h);
			key(&v, &s, 'r');
		}
	}
	CHECK(v.sort == RS_DEFAULT, "s did not cycle back to the default");
	render_view_free(&v);
}

/* ETA "-" for finished jobs; durations that parse back; no cut in the detail. */
static void durations(void)
{
	struct top_view v = { .focus = L_JOBS, .tenths = 5, .ascii = 1 };
	struct layout l;
	struct snap s;

	fill(&s);
	frame(&s, &v, &l);
	for (int y = l.r[L_JOBS].y + 1; y < l.r[L_JOBS].y + l.r[L_JOBS].h; y++) {
		unsigned long long id;
		char kind[16], state[16], parts[16], prog[16], el[16], eta[16];
		if (sscanf(text[y], "%llu %15s %15s %15s %15s %15s %15s", &id, kind, state, parts, prog, el, eta) != 7)
			continue;
		int fin = !strcmp(state, "done") || !strcmp(state, "failed") || !strcmp(state, "cancelled");
		CHECK(fin ? !strcmp(eta, "-") : strcmp(eta, "0ms") != 0, "job %llu %s: ETA '%s'", id, state, eta);
		if (id == 10)
			CHECK(!strcmp(eta, "12ms"), "running job 10: ETA '%s', want 12ms", eta);
	}
	/* every fmt_dur parses back to its value, at its unit's precision */
	for (uint64_t ns = 0; ns < 40ull * 86400 * 1000000000; ns = ns * 9 / 8 + 999999) {
		char b[16];
		unsigned a = 0, c = 0;
		double f = 0;
		uint64_t back, tol;
		fmt_dur(b, sizeof b, ns);
		if (sscanf(b, "%ums%n", &a, (int[]){ 0 }) == 1 && strstr(b, "ms"))
			back = a * 1000000ull, tol = 1000000;
		else if (strchr(b, 'd'))
			sscanf(b, "%ud%uh", &a, &c), back = (a * 24ull + c) * 3600000000000ull, tol = 3600000000000ull;
		else if (strchr(b, 'h'))
			sscanf(b, "%uh%um", &a, &c), back = (a * 60ull + c) * 60000000000ull, tol = 60000000000ull;
		else if (strchr(b, 'm'))
			sscanf(b, "%um%us", &a, &c), back = (a * 60ull + c) * 1000000000ull, tol = 1000000000;
		else
			sscanf(b, "%lfs", &f), back = (uint64_t)(f * 1e9), tol = 100000000;
		CHECK(back <= ns + tol / 2 + 1 && ns < back + tol, "fmt_dur(%llu) = '%s'", (unsigned long long)ns, b);
		CHECK(strlen(b) <= 6, "fmt_dur(%llu) = '%s': wider than the columns", (unsigned long long)ns, b);
		CHECK(!strchr(b, 'm') || strstr(b, "ms") || b[strlen(b) - 1] != 'm' || strchr(b, 'h'),
		      "'%s' reads as minutes", b);
	}
	/* the detail of a 64-partition job at every width: 11 ms never "11m" */
	static struct snap_job big;
	big = jobs[0];
	big.v.nparts = 64;
	for (int p = 0; p < 64; p++)
		big.v.part[p] = (struct shm_part){ .state = SHM_PART_DONE, .gpu_ns = 11000000, .synth_ns = 11000000,
						   .gpu_slot = 1, .synth_slot = 0xffff };
	s.jobs = &big;
	s.njobs = 1;
	v.detail = 1;
	for (int w = 40; w <= 300; w++) {
		struct canvas cv;
		char line[300 * 4 + 1];
		CHECK(cv_init(&cv, 30, w) == 0, "cv_init");
		CHECK(render_frame(&cv, &s, &v, &l) == 0, "render");
		for (int y = 0; y < 30; y++) {
			cv_row_text(&cv, y, line);
			for (const char *m = strstr(line, "11m"); m; m = strstr(m + 1, "11m"))
				CHECK(m[3] == 's', "%d columns: '%s'", w, line);
		}
		cv_free(&cv);
	}
	render_view_free(&v);
}

/* A control socket served by this thread: one request, one reply. */
static int srv_fd;
static char srv_got[256];

static void *serve(void *arg)
{
	(void)arg;
	int c = accept(srv_fd, NULL, NULL);
	size_t have = 0;
	ssize_t n = 0;

	/* a stream: the request may come in several writes (ctl sends the
	 * '\n' apart when the caller left it off); read to the newline */
	while (c >= 0 && have < sizeof srv_got - 1 && (n = read(c, srv_got + have, sizeof srv_got - 1 - have)) > 0) {
		have += (size_t)n;
		srv_got[have] = '\0';
		if (strchr(srv_got, '\n'))
			break;
	}
	if (have > 0 && write(c, "ok\n", 3) != 3)
		srv_got[0] = '!';
	if (c >= 0)
		close(c);
	return NULL;
}

static void topctl(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct snap s = { .sup_pid = (uint32_t)getpid() };
	struct topctl t = { .s = &s, .uid = getuid() };
	char dir[80], out[128];
	pthread_t th;

	CHECK(snprintf(dir, sizeof dir, "%s/topctl-%d", t_tmpdir(), (int)getpid()) < (int)sizeof dir, "TMPDIR too long");
	CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
	snprintf(s.control_path, sizeof s.control_path, "%s/control.sock", dir);
	CHECK(topctl_send(&t, "cancel x", out, sizeof out) == -EINVAL && out[0], "bad line: '%s'", out);
	CHECK(topctl_send(&t, "cancel 5", out, sizeof out) == -ENOENT, "no socket: '%s'", out);
	memcpy(a.sun_path, s.control_path, strlen(s.control_path) + 1);	/* < 80 + 14 bytes */
	srv_fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(srv_fd >= 0 && bind(srv_fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(srv_fd, 4) == 0, "listen");
	s.sup_pid = 1;	/* the segment names another process: refused before a byte */
	CHECK(pthread_create(&th, NULL, serve, NULL) == 0, "thread");
	CHECK(topctl_send(&t, "cancel 5", out, sizeof out) == -EPERM && strstr(out, "not the supervisor"),
	      "wrong peer: '%s'", out);
	pthread_join(th, NULL);
	CHECK(!srv_got[0], "the wrong peer got '%s'", srv_got);
	s.sup_pid = (uint32_t)getpid();
	CHECK(pthread_create(&th, NULL, serve, NULL) == 0, "thread");
	CHECK(topctl_send(&t, "worker disable gpu.3", out, sizeof out) == 0, "send: '%s'", out);
	pthread_join(th, NULL);
	CHECK(!strcmp(srv_got, "worker disable gpu.3\n"), "server got '%s'", srv_got);
	snprintf(s.control_path, sizeof s.control_path, "%s/../x/control.sock", dir);
	CHECK(topctl_send(&t, "cancel 5", out, sizeof out) == -EPERM, "path with ..: '%s'", out);
	close(srv_fd);
	snprintf(a.sun_path, sizeof a.sun_path, "%s/control.sock", dir);
	unlink(a.sun_path);
	rmdir(dir);
}

int main(void)
{
	confirm();
	sorting();
	durations();
	topctl();
	printf("info: y/n before every request, --read-only refuses, %d sorts both ways, ETA '-', "
	       "durations whole, topctl to its supervisor only\n", RS_N - 1);
	return 0;
}
