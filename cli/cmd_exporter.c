/*
 * cmd_exporter: `provisor exporter`'s flags; the HTTP server is
 * tui/exporter.c.
 */
#include <getopt.h>
#include <stddef.h>

#include "cli/cli.h"
#include "tui/exporter.h"
#include "util/text.h"

static const struct option cmd_exporter_options[] = {
	{ "listen", required_argument, NULL, 'l' },
	{ "name", required_argument, NULL, 'n' },
	{ "request-deadline", required_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ 0, 0, 0, 0 },
};

static int cmd_exporter(int argc, char **argv)
{
	const char *listen = NULL, *name = "default";
	char shown[64];
	long deadline = EXPORTER_DEADLINE_S;
	int opt;

	opterr = 0;
	optind = 0;
	while ((opt = cli_getopt(argc, argv)) != -1) {
		switch (opt) {
		case 'l': listen = optarg; break;
		case 'n': name = optarg; break;
		case 'D':
			if (cli_parse_int(optarg, 1, EXPORTER_DEADLINE_MAX_S, &deadline) < 0)
				return cli_usage_error("exporter", "--request-deadline wants 1 to %d seconds, not '%s'",
						       EXPORTER_DEADLINE_MAX_S,
						       util_clean(shown, sizeof shown, optarg));
			break;
		case 'h': return cli_help("exporter");
		default: return cli_bad_option(opt, argv);
		}
	}
	if (optind < argc)
		return cli_extra_arg(argv);
	if (!listen)
		return cli_usage_error("exporter", "missing --listen ADDR:PORT");
	return exporter_main(listen, name, (unsigned)deadline);
}

const struct cli_entry cli_cmd_exporter = {
	.name = "exporter",
	.usage = "exporter --listen ADDR:PORT [--name NAME] [--request-deadline S]",
	.help = "Serve the instance's metrics (status --prometheus) over HTTP at /metrics.\n"
		"  --listen ADDR:PORT  where to listen (required), e.g. 127.0.0.1:9464, [::1]:9464;\n"
		"                      :PORT is the loopback 127.0.0.1 only; every interface\n"
		"                      must be asked for: 0.0.0.0:PORT or [::]:PORT\n"
		"  --request-deadline S  end a connection that has not sent a whole request\n"
		"                      within S seconds, 1 to 300 (default 5)\n"
		CLI_HELP_NAME
		"At most 256 connections (a new one past that ends the oldest still\n"
		"waiting for its request) and 32 from one client address.\n",
	.options = cmd_exporter_options,
	.optstring = ":h",
	.exec = cmd_exporter,
};
