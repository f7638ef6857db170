/*
 * supervisor/policy.c's placement of a ready partition, with no process
 * and no ring (every function it calls is a stub here): one synth holds a
 * ready partition; gpu.1 is full (SUP_GPU_DEPTH), gpu.0 is free and its
 * slot record says idle at the first read and LOADING at every later one,
 * as a restarted gpuworker's does: it sends HELLO, then maps its params.
 * sched_run must relay the partition to gpu.0, the one it found for it,
 * once: never ask for a relay to a gpuworker it did not find (a second
 * pick, reading the slot again, finds none; the supervisor then relayed to
 * child -1 and died of SIGSEGV in part_hold, plugin_crash's hang in CI).
 */
#include <string.h>

#include "supervisor/sup.h"
#include "tests/helpers.h"

static struct child kids[4];	/* gpu.0, gpu.1, synth.0, synth.1 */
static struct job jobs[1];
static struct sup sup;
static int slot_reads, relays, relay_gi = -2;

int shm_read_slot(const struct shm_seg *s, enum shm_table_id t, uint32_t i, struct shm_slot *out)
{
	(void)s;
	memset(out, 0, sizeof *out);
	out->state = SHM_SLOT_IDLE;
	if (t == SHM_T_GPU && i == 0 && slot_reads++ > 0)
		out->state = SHM_SLOT_LOADING;	/* its worker wrote it meanwhile */
	return 0;
}

void relay_start(struct sup *s, uint32_t si, uint32_t gi)
{
	CHECK(si == 2, "relay from child %u, not synth.0", si);
	CHECK(gi < s->ngpu, "relay to child %d: not a gpuworker (ngpu %u)", (int)gi, s->ngpu);
	relays++;
	relay_gi = (int)gi;
	s->child[si].relay = RELAY_HEADER;	/* relay_busy from now on */
}

uint64_t shm_now_mono(void) { return 1; }
int child_alive(const struct child *c) { return c->state == CH_READY; }
int child_serving(const struct child *c) { return c->state == CH_READY; }
int child_takes_work(const struct child *c) { return c->state == CH_READY && !c->disabled; }
int child_idle(const struct child *c) { (void)c; return 0; }
int relay_busy(const struct child *c) { return c->relay != RELAY_IDLE || c->relay_pending; }
int jobs_active(const struct job *j) { return j->id && j->state == SHM_JOB_RUNNING; }
int results_ready(const struct job *j) { (void)j; return 1; }
int results_blocked(const struct job *j) { (void)j; return 0; }
int preempt_gpu_ok(const struct sup *s, const struct job *j, uint32_t gi) { (void)s, (void)j, (void)gi; return 1; }
int preempt_verify_job(const struct sup *s) { (void)s; return -1; }
uint64_t check_mem(const struct sup *s) { (void)s; return 0; }
uint64_t params_mem(const struct sup *s) { (void)s; return 0; }

/* Never reached in this scenario: each one fails the test. */
void preempt_run(struct sup *s) { (void)s; }
int check_dispatch(struct sup *s, uint32_t si) { (void)s, (void)si; T_FAIL("check_dispatch"); }
void results_alloc(struct sup *s, int ji) { (void)s, (void)ji; T_FAIL("results_alloc"); }
void jobs_publish(struct sup *s, int ji) { (void)s, (void)ji; T_FAIL("jobs_publish"); }
void child_write(struct sup *s, uint32_t ci, const void *buf, size_t len) { (void)s, (void)ci, (void)buf, (void)len; T_FAIL("child_write"); }
unsigned part_event(struct sup *s, int ji, uint32_t p, enum part_event ev, const char *why) { (void)s, (void)ji, (void)p, (void)ev, (void)why; T_FAIL("part_event"); }
void part_hold(struct sup *s, uint32_t ci, const struct part_ref *r) { (void)s, (void)ci, (void)r; T_FAIL("part_hold"); }
void part_unhold_all(struct sup *s, uint32_t ci) { (void)s, (void)ci; T_FAIL("part_unhold_all"); }
void frame_init(struct frame_hdr *h, uint16_t type, uint64_t job, uint32_t partition, uint16_t kind,
		uint16_t log_size, uint64_t gen) { (void)h, (void)type, (void)job, (void)partition, (void)kind, (void)log_size, (void)gen; T_FAIL("frame_init"); }
void frame_seal(struct frame_hdr *h, const void *payload, uint64_t len) { (void)h, (void)payload, (void)len; T_FAIL("frame_seal"); }

int main(void)
{
	struct part_ref r = { .id = 1, .job = 0, .part = 0, .gen = 1, .from_child = -1 };

	jobs[0] = (struct job){ .id = 1, .state = SHM_JOB_RUNNING, .kind = 1, .log_size = 12, .nparts = 4,
				.params = 1 };
	for (int i = 0; i < 4; i++)
		kids[i] = (struct child){ .kind = i < 2 ? CHILD_GPU : CHILD_SYNTH, .slot = (uint32_t)(i % 2),
					  .state = CH_READY, .src_child = -1, .relay_dst = -1, .rd = RD_HDR };
	kids[1].hold[0] = kids[1].hold[1] = r;	/* gpu.1: proving one, the next received */
	kids[1].hold[1].part = 1;
	kids[1].nhold = SUP_GPU_DEPTH;
	kids[2].rd = RD_HELD;			/* synth.0: partition 2 ready */
	kids[2].hold[0] = r;
	kids[2].hold[0].part = 2;
	kids[2].nhold = 1;
	sup.child = kids;
	sup.nchild = 4;
	sup.ngpu = sup.nsynth = 2;
	sup.jobs = jobs;
	sup.njobs = 1;
	sup.nparams = 1;
	sup.stopping = 1;	/* placement and verifications only: nothing new synthesized */
	sup.conf.mem_budget = 1ull << 30;

	sched_run(&sup);
	CHECK(relays == 1 && relay_gi == 0, "%d relay(s), the last to child %d; want 1, to gpu.0", relays,
	      relay_gi);
	printf("ok: the ready partition went to gpu.0, found once (its slot read %d times)\n", slot_reads);
	return 0;
}
