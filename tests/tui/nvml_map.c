/*
 * tui/nvml.c's ordinal map, without NVML: a made-up rig's NVML list (not
 * in bus order) with figures per NVML index; nvml_fig(ordinal) must give
 * the figures of the device the CUDA runtime would call that ordinal, read
 * from a process's environment (a child started with CUDA_VISIBLE_DEVICES
 * set, as a supervisor would be), from top's own when the pid has none to
 * read, and no figures for an ordinal past the visible ones.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/helpers.h"
#include "tui/nvml.h"

static struct nvml rig(void)
{
	static const struct cudavis_dev d[3] = {
		{ 0, 0x81, 0, 0, "GPU-aaaa0000-0000-0000-0000-000000000000", "NVIDIA H200" },
		{ 0, 0x01, 0, 0, "GPU-bbbb0000-0000-0000-0000-000000000000", "NVIDIA H200" },
		{ 0, 0x41, 0, 0, "GPU-cccc0000-0000-0000-0000-000000000000", "NVIDIA H200" },
	};
	struct nvml n;

	memset(&n, 0, sizeof n);
	n.ndev = 3;
	for (unsigned i = 0; i < 3; i++) {
		n.info[i] = d[i];
		n.fig[i].ok = 1;
		n.fig[i].temp_c = 100 + i;	/* which NVML device: 100 + its index */
	}
	return n;
}

static unsigned temp(const struct nvml *n, unsigned gpu)
{
	const struct nvml_dev *f = nvml_fig(n, gpu);

	return f ? f->temp_c : 0;
}

int main(void)
{
	struct nvml n = rig();

	nvml_map(&n, NULL, NULL);	/* bus order: NVML 1, 2, 0 */
	CHECK(temp(&n, 0) == 101 && temp(&n, 1) == 102 && temp(&n, 2) == 100 && temp(&n, 3) == 0,
	      "unset: ordinals %u %u %u %u", temp(&n, 0), temp(&n, 1), temp(&n, 2), temp(&n, 3));
	nvml_map(&n, "2,0", NULL);
	CHECK(temp(&n, 0) == 100 && temp(&n, 1) == 101 && temp(&n, 2) == 0, "2,0");
	n.fig[1].ok = 0;
	CHECK(temp(&n, 1) == 0, "no sample: no figures");
	n.fig[1].ok = 1;

	/* A "supervisor" whose environment says GPU-cccc only. */
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		char *env[] = { "CUDA_VISIBLE_DEVICES=GPU-cccc", "CUDA_DEVICE_ORDER=PCI_BUS_ID", NULL };
		execle("/bin/sleep", "sleep", "30", (char *)NULL, env);
		_exit(127);
	}
	for (int i = 0; i < 100; i++) {	/* until the exec has happened */
		nvml_map_pid(&n, (uint32_t)pid);
		if (n.nord == 1)
			break;
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(n.nord == 1 && temp(&n, 0) == 102 && temp(&n, 1) == 0 && !n.env_own,
	      "the child's environment: %u ordinal(s), ordinal 0 -> %u", n.nord, temp(&n, 0));

	/* No such process: top's own environment. */
	setenv("CUDA_VISIBLE_DEVICES", "1", 1);
	nvml_map_pid(&n, 0x7ffffffe);
	CHECK(n.env_own && n.nord == 1 && temp(&n, 0) == 102, "own environment: ordinal 0 -> %u", temp(&n, 0));
	puts("ok: slot ordinals reach the NVML device CUDA means, by the supervisor's environment");
	return 0;
}
