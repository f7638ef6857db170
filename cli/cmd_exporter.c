/*
 * cmd_exporter: `provisor exporter`'s flags; the HTTP server is
 * tui/exporter.c.
 */
#include <getopt.h>
#include <stddef.h>

#include "cli/cli.h"
#include "tui/exporter.h"

static int cmd_exporter(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *listen = NULL, *name = "default";
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': listen = optarg; break;
		case 'n': name = optarg; break;
		case 'h': return cli_help("exporter");
		default: return cli_bad_option(opt, argv, opts);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (!listen)
		return cli_usage_error("exporter", "missing --listen ADDR:PORT");
	return exporter_main(listen, name);
}

const struct cli_entry cli_cmd_exporter = {
	"exporter", "exporter --listen ADDR:PORT [--name NAME]", cmd_exporter,
};
