/*
 * gpus: see gpus.h. Each device's folder is named by its PCI address
 * ("0000:3b:00.0") and holds an "information" file whose "Model:" and
 * "GPU UUID:" lines give what CUDA_VISIBLE_DEVICES' UUID entries and the
 * FASTEST_FIRST rule need.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "supervisor/gpus.h"
#include "util/cudavis.h"

/* "Key:   value" -> value into out, spaces trimmed. */
static void gpus_field(const char *line, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	if (strncmp(line, key, kl))
		return;
	line += kl;
	line += strspn(line, " \t");
	snprintf(out, len, "%.*s", (int)strcspn(line, "\n"), line);
	for (size_t n = strlen(out); n && (out[n - 1] == ' ' || out[n - 1] == '\t');)
		out[--n] = '\0';
}

static void gpus_describe(const char *dir, const char *name, struct cudavis_dev *d)
{
	char path[4096], line[256];
	FILE *f;

	memset(d, 0, sizeof *d);
	if (cudavis_parse_pci(name, d) < 0)
		d->domain = UINT32_MAX;	/* sorts after the others */
	snprintf(path, sizeof path, "%s/%s/information", dir, name);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof line, f)) {
		gpus_field(line, "Model:", d->name, sizeof d->name);
		gpus_field(line, "GPU UUID:", d->uuid, sizeof d->uuid);
	}
	fclose(f);
}

int sup_gpus_procfs(const char *dir, const char *visible, const char *order)
{
	struct cudavis_dev devs[CUDAVIS_MAX];
	int map[CUDAVIS_MAX], n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < CUDAVIS_MAX)
		if (e->d_name[0] != '.')
			gpus_describe(dir, e->d_name, &devs[n++]);
	closedir(d);
	return cudavis_map(devs, n, visible, order, map, CUDAVIS_MAX);
}
