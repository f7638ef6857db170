/*
 * cmd_exporter: `provisor exporter`'s flags; the HTTP server is
 * tui/exporter.c.
 */
#include <getopt.h>
#include <stddef.h>

#include "cli/cli.h"
#include "tui/exporter.h"

static const struct option cmd_exporter_options[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "name", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static int cmd_exporter(int argc, char **argv)
{
	const char *listen = NULL, *name = "default";
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'l': listen = optarg; break;
		case 'n': name = optarg; break;
		case 'h': return cli_help("exporter");
		default: return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (!listen)
		return cli_usage_error("exporter", "missing --listen ADDR:PORT");
	return exporter_main(listen, name);
}

const struct cli_entry cli_cmd_exporter = {
	.name = "exporter",
	.usage = "exporter --listen ADDR:PORT [--name NAME]",
	.help = "Serve the instance's metrics (status --prometheus) over HTTP at /metrics.\n"
		"  --listen ADDR:PORT  where to listen (required), e.g. 127.0.0.1:9464, [::1]:9464\n"
		CLI_HELP_NAME,
	.options = cmd_exporter_options,
	.optstring = ":h",
	.exec = cmd_exporter,
};
